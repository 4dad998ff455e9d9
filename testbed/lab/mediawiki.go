package lab

import (
	"context"
	"encoding/xml"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// mediawiki is MediaWiki on SQLite holding the vega movies, one article per
// film and one list page per release year, imported with the wiki's own
// maintenance/importDump.php from a MediaWiki XML export the lab writes.
type mediawiki struct{}

const mwRoot = "/usr/share/mediawiki"

func (*mediawiki) info() appInfo {
	return appInfo{
		Name: "mediawiki", Host: "wiki." + Domain, Title: "Lab Film Wiki", Package: "mediawiki",
		Data: "vega movies (corpora/vega/movies.json): one article per film",
		Needs: []need{{mwRoot + "/maintenance/importDump.php", "mediawiki"},
			{"/usr/lib/php/*/pdo_sqlite.so", "php-sqlite3"}},
	}
}

func (*mediawiki) backend() string { return "wiki." + Domain + "/movies" }

func (*mediawiki) start(context.Context, *env) error { return nil }

// mwLocalSettings wraps the installer's settings: the server name comes from
// the request (one wiki, any port), SQLite skips fsync (scratch data), no
// e-mail, no outbound requests, no jobs run on page views.
const mwLocalSettings = `<?php
// written by the dwcrawl lab
require __DIR__ . '/Generated.php';
$wgServer = WebRequest::detectServer();
$wgDBservers = [ [ 'host' => '', 'dbname' => $wgDBname, 'type' => 'sqlite', 'dbDirectory' => $wgSQLiteDataDir,
	'user' => '', 'password' => '', 'flags' => DBO_DEFAULT, 'load' => 1, 'variables' => [ 'synchronous' => 'OFF' ] ] ];
$wgEnableEmail = false;
$wgEnableUserEmail = false;
$wgPingback = false;
$wgUseInstantCommons = false;
$wgJobRunRate = 0;
$wgDefaultSkin = 'vector';
$wgCacheDirectory = __DIR__ . '/cache';
// Debian's settings add a "powered by Debian" footer icon in an extension
// function; this later one removes every footer icon (links off the lab).
$wgExtensionFunctions[] = function () {
	global $wgFooterIcons;
	$wgFooterIcons = [];
};
$wgAllowExternalImages = false;
// Recent changes in the options form MediaWiki serves without JavaScript
// (the structured filters are built by script): a display-options form.
$wgDefaultUserOptions['rcenhancedfilters-disable'] = 1;
`

func (m *mediawiki) load(ctx context.Context, e *env) ([]Record, error) {
	dir := e.path("mediawiki")
	if err := os.MkdirAll(filepath.Join(dir, "db"), 0o755); err != nil {
		return nil, err
	}
	if _, err := e.run(ctx, mwRoot, nil, "php", "maintenance/install.php",
		"--dbtype", "sqlite", "--dbpath", filepath.Join(dir, "db"), "--dbname", "labwiki",
		"--confpath", dir, "--scriptpath", "", "--server", "http://wiki."+Domain,
		"--pass", "Lab-admin-pass-1", "--skins", "Vector", "Lab Film Wiki", "Admin"); err != nil {
		return nil, err
	}
	if err := os.Rename(filepath.Join(dir, "LocalSettings.php"), filepath.Join(dir, "Generated.php")); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "LocalSettings.php"), []byte(mwLocalSettings), 0o644); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "robots.txt"), []byte("User-agent: *\nDisallow: /mw-config/\n"), 0o644); err != nil {
		return nil, err
	}
	movies, err := readMovies(e.data)
	if err != nil {
		return nil, err
	}
	dump, recs := m.dump(movies, e.lab.URL(Hub, "/"))
	if err := os.WriteFile(filepath.Join(dir, "dump.xml"), dump, 0o644); err != nil {
		return nil, err
	}
	envv := []string{"MW_CONFIG_FILE=" + filepath.Join(dir, "LocalSettings.php")}
	for _, args := range [][]string{
		// --no-updates skips link tables (a third of the time); the search
		// index is rebuilt next, and page views render links from the text.
		{"maintenance/importDump.php", "--no-updates", filepath.Join(dir, "dump.xml")},
		{"maintenance/rebuildtextindex.php"},
		{"maintenance/initSiteStats.php", "--update"},
	} {
		if _, err := e.run(ctx, mwRoot, envv, "php", args...); err != nil {
			return nil, err
		}
	}
	return recs, nil
}

// mwTitle is a film title as MediaWiki stores it, or "" when the title would
// not be an article of the main namespace (a colon may be a namespace or
// interwiki prefix; the others are not allowed in titles).
func mwTitle(t string) string {
	t = strings.Join(strings.Fields(t), " ")
	if t == "" || strings.ContainsAny(t, ":#<>[]|{}_%+&?") {
		return ""
	}
	r := []rune(t)
	return strings.ToUpper(string(r[0])) + string(r[1:])
}

func mwPath(title string) string {
	return "/index.php?title=" + url.QueryEscape(strings.ReplaceAll(title, " ", "_"))
}

// dump writes the XML export of the film articles, the year lists and the
// main page.
func (m *mediawiki) dump(movies []movie, hub string) ([]byte, []Record) {
	var b strings.Builder
	b.WriteString(`<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.11/" version="0.11" xml:lang="en">` + "\n")
	// Revisions newer than the installer's Main Page, so the lab's replaces it.
	stamp := time.Now().UTC().Add(time.Minute).Format("2006-01-02T15:04:05Z")
	page := func(title, text string) {
		ns := "0"
		if strings.HasPrefix(title, "MediaWiki:") {
			ns = "8"
		}
		b.WriteString("<page><title>")
		xml.EscapeText(&b, []byte(title))
		b.WriteString("</title><ns>" + ns + "</ns><revision><timestamp>" + stamp + "</timestamp>" +
			"<contributor><username>Admin</username><id>1</id></contributor><comment>dwcrawl lab import</comment>" +
			"<model>wikitext</model><format>text/x-wiki</format><text xml:space=\"preserve\">")
		xml.EscapeText(&b, []byte(text))
		b.WriteString("</text></revision></page>\n")
	}
	seen := map[string]bool{}
	years := map[string][]string{}
	var recs []Record
	for _, mv := range movies {
		title := mwTitle(mv.title())
		if title == "" || seen[title] {
			continue
		}
		seen[title] = true
		year := mv.year()
		text := mv.wikitext(title)
		page(title, text)
		if year != "" {
			years[year] = append(years[year], title)
		}
		recs = append(recs, Record{Backend: m.backend(), ID: title, Title: title, Path: mwPath(title), Text: mv.summary()})
	}
	var yl []string
	for y := range years {
		yl = append(yl, y)
	}
	slices.Sort(yl)
	var main strings.Builder
	main.WriteString("Welcome to the '''Lab Film Wiki''', a wiki of " + fmt.Sprint(len(recs)) +
		" films with their release dates, distributors, directors, genres and ratings.\n\n" +
		"Use the search box to find a film by title, director or distributor, or browse the films by year:\n\n")
	for _, y := range yl {
		ts := years[y]
		slices.Sort(ts)
		var lp strings.Builder
		fmt.Fprintf(&lp, "Films released in %s in the Lab Film Wiki.\n\n", y)
		for _, t := range ts {
			fmt.Fprintf(&lp, "* [[%s]]\n", t)
		}
		page("Films of "+y, lp.String())
		fmt.Fprintf(&main, "[[Films of %s|%s]] · ", y, y)
	}
	fmt.Fprintf(&main, "\n\n== Elsewhere in the lab ==\n* [%s The lab's hub]\n", hub)
	page("Main Page", main.String())
	// The default sidebar links to mediawiki.org; the lab's stays in the lab.
	page("MediaWiki:Sidebar", "* navigation\n** mainpage|mainpage-description\n** recentchanges-url|recentchanges\n"+
		"** randompage-url|randompage\n* SEARCH\n* TOOLBOX\n")
	b.WriteString("</mediawiki>\n")
	return []byte(b.String()), recs
}

func (*mediawiki) vhost(e *env) string {
	return fmt.Sprintf(`  server.document-root = %q
  setenv.add-environment = ("MW_CONFIG_FILE" => %q)
  url.access-deny = ("~", ".inc", ".htaccess", ".ht", ".sqlite")
  $HTTP["url"] =~ "^/(maintenance|mw-config|includes|vendor|cache|serialized|tests)/" { url.access-deny = ("") }
  alias.url = ("/robots.txt" => %q)
`, mwRoot, e.path("mediawiki", "LocalSettings.php"), e.path("mediawiki", "robots.txt"))
}

func (m *mediawiki) pages(recs []Record) []string {
	r := pick(recs, 1)[0]
	return []string{
		"/",
		r.Path,
		r.Path + "&action=edit",
		"/index.php?title=Special:Search&search=" + url.QueryEscape(queryWord(r)) + "&fulltext=1",
		"/index.php?title=Special:UserLogin",
		"/index.php?title=Special:CreateAccount",
		"/index.php?title=Special:RecentChanges",
		"/index.php?title=Special:AllPages",
	}
}

func (m *mediawiki) label(f *Form) formLabel {
	fields := fieldSet(f)
	switch {
	case textField(f, "search") && (f.ID == "searchform" || f.ID == "search" || f.ID == "powersearch"):
		return formLabel{Kind: "search", Backend: m.backend(), QueryField: "search", PageParam: "offset", PageSize: 20}
	case fields["wpName"] && (fields["retype"] || fields["wpRetype"]):
		return formLabel{Kind: "registration"}
	case fields["wpName"] && fields["wpPassword"]:
		return formLabel{Kind: "login"}
	case strings.Contains(f.Action, "PasswordReset") || fields["wpUsername"]:
		return formLabel{Kind: "password"}
	case fields["wpTextbox1"]:
		return formLabel{Kind: "edit"}
	case fieldValue(f, "title") == "Special:RecentChanges" && fields["namespace"]:
		// namespace, invert, tag filter: which changes the list shows
		return formLabel{Kind: "options"}
	case fieldValue(f, "title") == "Special:AllPages" && fields["from"]:
		// "display pages starting at": moves through the list of titles
		return formLabel{Kind: "navigation"}
	}
	return formLabel{Kind: "other"}
}

// textField reports whether the form has a text box (text or search input)
// of that name, where a query can be typed.
func textField(f *Form, name string) bool {
	for _, x := range f.Fields {
		if x.Name == name && (x.Type == "text" || x.Type == "search") {
			return true
		}
	}
	return false
}

// fieldValue is the value of the form's first field of that name ("" when
// none): special pages carry their name in a hidden title field.
func fieldValue(f *Form, name string) string {
	for _, x := range f.Fields {
		if x.Name == name {
			return x.Value
		}
	}
	return ""
}

func fieldSet(f *Form) map[string]bool {
	m := map[string]bool{}
	for _, x := range f.Fields {
		m[x.Name] = true
	}
	return m
}
