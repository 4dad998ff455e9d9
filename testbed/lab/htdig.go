package lab

import (
	"context"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// htdig is a static site of the WordNet glosses of three sciences searched
// through ht://Dig's htsearch CGI, over a database built by htdig's own
// spider (htdig, then htpurge, as Debian's rundig does). The search form is
// the one ht://Dig ships (search.html: POST, with Match/Format/Sort selects
// and hidden config/restrict/exclude); htsearch's result templates (Debian's
// /etc/htdig/header.html, long.html, footer.html) carry a GET "Refine
// search" form and page with image links (buttonl/buttonN/buttonr.gif) whose
// query strings are separated by ";" rather than "&".
type htdig struct{}

const (
	htsearchCGI = "/usr/lib/cgi-bin/htsearch"
	// htdigImages are the package's buttons and stars, which the
	// templates of /etc/htdig/htdig.conf name under /htdig/.
	htdigImages = "/var/lib/htdig/www/"
	// htdigSearchHTML is the search page ht://Dig ships.
	htdigSearchHTML = "/usr/share/doc/htdig/examples/search.html"
	// htdigConfig is the configuration name the search form sends
	// (config=htdig): htsearch reads $CONFIG_DIR/htdig.conf.
	htdigConfig = "htdig"
	htdigHost   = "science." + Domain
)

// htdigTopics are the WordNet topic domains the site holds.
var htdigTopics = []string{"chemistry", "physics", "biology"}

func (*htdig) info() appInfo {
	return appInfo{
		Name: "htdig", Host: htdigHost, Title: "Lab Science Glossary", Package: "htdig",
		Data: "WordNet 3.0 glosses of the topics chemistry, physics and biology (corpora/wordnet-glosses.jsonl): " +
			"one static page per synset, indexed by htdig's spider",
		Needs: []need{{htsearchCGI, "htdig"}, {"/usr/bin/htdig", "htdig"}, {"/usr/bin/htpurge", "htdig"},
			{"/etc/htdig/htdig.conf", "htdig"}, {htdigImages + "buttonr.gif", "htdig"}},
	}
}

func (*htdig) backend() string { return htdigHost + "/glossary" }

func (*htdig) start(context.Context, *env) error { return nil }

// htdigSearchPage is a verbatim copy of the search.html ht://Dig 3.2.0b6
// ships (Debian: /usr/share/doc/htdig/examples/search.html), used where the
// package's documentation is not installed (dpkg path-exclude in slim images).
const htdigSearchPage = `<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 4.0 Transitional//EN">
<html>
<head>
<title>ht://Dig WWW Search</title>
</head>
<body bgcolor="#eef7ff">
<h1>
<a href="http://www.htdig.org"><IMG SRC="/htdig/htdig.gif" align="bottom" alt="ht://Dig" border="0"></a>
WWW Site Search</h1>
<hr noshade size="4">
This search will allow you to search the contents of
all the publicly available WWW documents at this site.
<br>
<p>
<form method="post" action="/cgi-bin/htsearch">
<font size="-1">
Match: <select name="method">
<option value="and">All
<option value="or">Any
<option value="boolean">Boolean
</select>
Format: <select name="format">
<option value="builtin-long">Long
<option value="builtin-short">Short
</select>
Sort by: <select name="sort">
<option value="score">Score
<option value="time">Time
<option value="title">Title
<option value="revscore">Reverse Score
<option value="revtime">Reverse Time
<option value="revtitle">Reverse Title
</select>
</font>
<input type="hidden" name="config" value="htdig">
<input type="hidden" name="restrict" value="">
<input type="hidden" name="exclude" value="">
<br>
Search:
<input type="text" size="30" name="words" value="">
<input type="submit" value="Search">
</form>
<hr noshade size="4">
<a href="http://www.htdig.org/">
Powered by ht://Dig $(VERSION)</a>
</body>
</html>
`

// htdigFormRe finds the form of search.html, which the home page embeds.
var htdigFormRe = regexp.MustCompile(`(?is)<form\b.*?</form>`)

// htdigPage is a page of the site. Navigation pages (home, letters) ask
// robots, htdig included, not to index them but to follow their links, so
// that htsearch finds the glossary's terms only.
func htdigPage(title, body string, index bool) string {
	robots := ""
	if !index {
		robots = "\n<meta name=\"robots\" content=\"noindex, follow\">"
	}
	return fmt.Sprintf(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">%s
<title>%s</title></head>
<body>
%s
</body></html>
`, robots, html.EscapeString(title), body)
}

func (h *htdig) load(ctx context.Context, e *env) ([]Record, error) {
	dir := e.path("htdig")
	site := filepath.Join(dir, "site")
	var glosses []gloss
	topic := map[string]string{}
	for _, t := range htdigTopics {
		gs, err := readGlosses(e.data, t)
		if err != nil {
			return nil, err
		}
		for _, g := range gs {
			if topic[g.ID] == "" { // a synset of two sciences is one record
				topic[g.ID] = t
				glosses = append(glosses, g)
			}
		}
	}
	search := htdigSearchPage
	if b, err := os.ReadFile(htdigSearchHTML); err == nil {
		search = string(b)
	}
	form := htdigFormRe.FindString(search)
	if form == "" {
		return nil, fmt.Errorf("%s: no form", htdigSearchHTML)
	}
	files := map[string]string{"robots.txt": "User-agent: *\nAllow: /\n", "search.html": search}
	letters := map[string][]string{}
	titles := map[string]string{}
	var recs []Record
	for _, g := range glosses {
		term := g.Lemmas[0]
		slug := dwID(term)
		if slug == "" {
			continue
		}
		name := slug
		for n := 2; files["terms/"+name+".html"] != ""; n++ {
			name = fmt.Sprintf("%s_%d", slug, n)
		}
		path := "/terms/" + name + ".html"
		var b strings.Builder
		// The gloss first: htsearch's excerpt is the start of the text
		// when the query words are not in it.
		fmt.Fprintf(&b, "<h1>%s</h1>\n<p><b>%s</b> <i>(%s)</i>: %s</p>\n", html.EscapeString(term),
			html.EscapeString(term), g.POS, html.EscapeString(g.Gloss))
		if len(g.Lemmas) > 1 {
			fmt.Fprintf(&b, "<p>Synonyms: %s</p>\n", html.EscapeString(strings.Join(g.Lemmas, ", ")))
		}
		fmt.Fprintf(&b, "<p>Topic: %s. WordNet synset %s.</p>\n", topic[g.ID], g.ID)
		fmt.Fprintf(&b, "<p><a href=\"/letters/%s.html\">Terms in %s</a> | <a href=\"/search.html\">Search</a> | <a href=\"/\">Lab Science Glossary</a></p>\n",
			slug[:1], strings.ToUpper(slug[:1]))
		files[strings.TrimPrefix(path, "/")] = htdigPage(term, b.String(), true)
		letters[slug[:1]] = append(letters[slug[:1]], path)
		titles[path] = term
		recs = append(recs, Record{Backend: h.backend(), ID: g.ID, Title: term, Path: path,
			Text: strings.Join(g.Lemmas, " ") + " " + g.Gloss})
	}
	var ls []string
	for l := range letters {
		ls = append(ls, l)
	}
	slices.Sort(ls)
	var idx strings.Builder
	fmt.Fprintf(&idx, "<h1>Lab Science Glossary</h1>\n<p>%d terms of chemistry, physics and biology with their definitions from WordNet 3.0.</p>\n", len(recs))
	fmt.Fprintf(&idx, "%s\n<p>Browse by initial letter:</p>\n<ul>\n", form)
	for _, l := range ls {
		ps := letters[l]
		slices.SortFunc(ps, func(a, b string) int { return strings.Compare(titles[a], titles[b]) })
		var lb strings.Builder
		fmt.Fprintf(&lb, "<h1>Terms in %s</h1>\n<ul>\n", strings.ToUpper(l))
		for _, p := range ps {
			fmt.Fprintf(&lb, "<li><a href=\"%s\">%s</a></li>\n", p, html.EscapeString(titles[p]))
		}
		lb.WriteString("</ul>\n<p><a href=\"/\">Lab Science Glossary</a> | <a href=\"/search.html\">Search</a></p>\n")
		files["letters/"+l+".html"] = htdigPage("Terms in "+strings.ToUpper(l)+" - Lab Science Glossary", lb.String(), false)
		fmt.Fprintf(&idx, "<li><a href=\"/letters/%s.html\">%s</a> (%d)</li>\n", l, strings.ToUpper(l), len(ps))
	}
	fmt.Fprintf(&idx, "</ul>\n<p>Elsewhere in the lab: <a href=\"%s\">the lab hub</a>.</p>\n", e.lab.URL(Hub, "/"))
	files["index.html"] = htdigPage("Lab Science Glossary", idx.String(), false)
	if err := writeFiles(site, files); err != nil {
		return nil, err
	}
	db := filepath.Join(dir, "db")
	if err := os.MkdirAll(db, 0o755); err != nil {
		return nil, err
	}
	// The site owner's configuration: Debian's (its templates, image
	// buttons and fuzzy algorithms), pointed at this site. htdig reads
	// the pages from disk (local_urls) and never opens a connection
	// (local_urls_only): nothing serves the site while it loads.
	root := e.lab.URL(htdigHost, "/")
	conf := fmt.Sprintf(`# ht://Dig configuration of %s, written by the dwcrawl lab
include: /etc/htdig/htdig.conf
database_dir: %s
start_url: %s
limit_urls_to: ${start_url}
local_urls: %s=%s/
local_urls_only: true
local_default_doc: index.html
exclude_urls: /cgi-bin/ .cgi /search.html
maintainer: webmaster@%s
`, htdigHost, db, root, root, site, htdigHost)
	confFile := filepath.Join(dir, htdigConfig+".conf")
	if err := os.WriteFile(confFile, []byte(conf), 0o644); err != nil {
		return nil, err
	}
	// rundig's steps without htnotify (e-mail) and htfuzzy (it rewrites
	// the shared fuzzy databases under /var/lib/htdig, which the package
	// built already).
	tmp := []string{"TMPDIR=" + db}
	if _, err := e.run(ctx, dir, tmp, "/usr/bin/htdig", "-i", "-c", confFile); err != nil {
		return nil, err
	}
	if _, err := e.run(ctx, dir, tmp, "/usr/bin/htpurge", "-c", confFile); err != nil {
		return nil, err
	}
	return recs, nil
}

func (h *htdig) vhost(e *env) string {
	return fmt.Sprintf(`  server.document-root = %q
  setenv.add-environment = ("CONFIG_DIR" => %q)
  alias.url = ("/cgi-bin/htsearch" => %q, "/htdig/" => %q)
  cgi.assign = ("/htsearch" => "")
`, e.path("htdig", "site"), e.path("htdig"), htsearchCGI, htdigImages)
}

func (h *htdig) pages(recs []Record) []string {
	r := pick(recs, 1)[0]
	return []string{"/", "/search.html", r.Path, "/cgi-bin/htsearch?config=" + htdigConfig + "&words=" + queryWord(r)}
}

// label: every form htdig serves is its search form (search.html's POST
// form, the home page's copy, the result pages' GET "Refine search" form);
// htsearch shows matches_per_page (10) results a page and links the others
// with page=N.
func (h *htdig) label(f *Form) formLabel {
	if textField(f, "words") {
		return formLabel{Kind: "search", Backend: h.backend(), QueryField: "words", PageParam: "page", PageControl: "link", PageSize: 10}
	}
	return formLabel{Kind: "other"}
}
