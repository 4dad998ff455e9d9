package lab

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// dokuwiki is DokuWiki holding the WordNet glosses of one topic (music), one
// page per synset written as DokuWiki text files, indexed with DokuWiki's
// own bin/indexer.php. It runs from a copy of the Debian package's code whose
// preload.php points its configuration into the lab.
type dokuwiki struct{}

const (
	dwRoot  = "/usr/share/dokuwiki"
	dwTopic = "music"
)

func (*dokuwiki) info() appInfo {
	return appInfo{
		Name: "dokuwiki", Host: dwTopic + "." + Domain, Title: "Lab Music Glossary", Package: "dokuwiki",
		Data:  "WordNet 3.0 glosses of the topic " + dwTopic + " (corpora/wordnet-glosses.jsonl): one page per synset",
		Needs: []need{{dwRoot + "/bin/indexer.php", "dokuwiki"}, {"/etc/dokuwiki/dokuwiki.php", "dokuwiki"}},
	}
}

func (*dokuwiki) backend() string { return dwTopic + "." + Domain + "/glosses" }

func (*dokuwiki) start(context.Context, *env) error { return nil }

const dwLocal = `<?php
// written by the dwcrawl lab
$conf['title'] = 'Lab Music Glossary';
$conf['tagline'] = 'Music terms from WordNet 3.0';
$conf['savedir'] = '%s';
$conf['lang'] = 'en';
$conf['license'] = '';
$conf['useacl'] = 1;
$conf['authtype'] = 'authplain';
$conf['superuser'] = '@admin';
$conf['disableactions'] = '';
$conf['openregister'] = 1;
$conf['autopasswd'] = 0;
$conf['updatecheck'] = 0;
$conf['dnslookups'] = 0;
$conf['useheading'] = 1;
$conf['userewrite'] = 0;
$conf['breadcrumbs'] = 0;
$conf['mailfrom'] = '';
`

const dwACL = `# acl.auth.php
# <?php exit()?>
# written by the dwcrawl lab: everyone reads, registered users edit
*               @ALL          1
*               @user         8
`

const dwUsers = `# users.auth.php
# <?php exit()?>
# Don't modify the lines above
# login:passwordhash:Real Name:email:groups,comma,separated
`

func (d *dokuwiki) load(ctx context.Context, e *env) ([]Record, error) {
	dir := e.path("dokuwiki")
	app, conf, data := filepath.Join(dir, "app"), filepath.Join(dir, "conf"), filepath.Join(dir, "data")
	if _, err := e.run(ctx, dir, nil, "cp", "-a", dwRoot, app); err != nil {
		return nil, err
	}
	// The package's preload.php reads /etc/dokuwiki; this copy reads the lab.
	preload := fmt.Sprintf("<?php\n// written by the dwcrawl lab\nif (!defined('DOKU_CONF')) define('DOKU_CONF', '%s/');\n", conf)
	if err := os.WriteFile(filepath.Join(app, "inc", "preload.php"), []byte(preload), 0o644); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(conf, 0o755); err != nil {
		return nil, err
	}
	// Dereference the package's links: acl and users are the lab's own.
	if _, err := e.run(ctx, dir, nil, "sh", "-c", `for f in /etc/dokuwiki/*; do [ -L "$f" ] || cp "$f" "$1/"; done`, "sh", conf); err != nil {
		return nil, err
	}
	for name, body := range map[string]string{
		"local.php": fmt.Sprintf(dwLocal, data), "acl.auth.php": dwACL, "users.auth.php": dwUsers,
	} {
		if err := os.WriteFile(filepath.Join(conf, name), []byte(body), 0o644); err != nil {
			return nil, err
		}
	}
	if _, err := e.run(ctx, dir, nil, "cp", "-a", "/var/lib/dokuwiki/data", data); err != nil {
		return nil, err
	}
	// The package's sample pages link to the internet; the lab's pages do not.
	for _, p := range []string{"pages/wiki", "pages/playground"} {
		if err := os.RemoveAll(filepath.Join(data, p)); err != nil {
			return nil, err
		}
	}
	glosses, err := readGlosses(e.data, dwTopic)
	if err != nil {
		return nil, err
	}
	recs, pages := d.pagesOf(glosses, e.lab.URL(Hub, "/"))
	for id, text := range pages {
		path := filepath.Join(data, "pages", filepath.FromSlash(strings.ReplaceAll(id, ":", "/"))+".txt")
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			return nil, err
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "robots.txt"), []byte("User-agent: *\nDisallow: /lib/exe/\n"), 0o644); err != nil {
		return nil, err
	}
	if _, err := e.run(ctx, app, nil, "php", "bin/indexer.php", "--clear", "--quiet"); err != nil {
		return nil, err
	}
	return recs, nil
}

// dwID is a DokuWiki page name: lower case, runs of other characters to "_".
func dwID(s string) string {
	var b strings.Builder
	under := false
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			under = false
		} else if !under && b.Len() > 0 {
			b.WriteByte('_')
			under = true
		}
	}
	return strings.TrimSuffix(b.String(), "_")
}

// pagesOf writes one page per synset, an index page per initial letter and
// the start pages.
func (d *dokuwiki) pagesOf(gs []gloss, hub string) ([]Record, map[string]string) {
	pages := map[string]string{}
	letters := map[string][]string{}
	var recs []Record
	for _, g := range gs {
		term := g.Lemmas[0]
		id := dwTopic + ":" + dwID(term)
		if id == dwTopic+":" {
			continue
		}
		for n := 2; pages[id] != ""; n++ {
			id = fmt.Sprintf("%s:%s_%d", dwTopic, dwID(term), n)
		}
		var b strings.Builder
		fmt.Fprintf(&b, "====== %s ======\n\n**%s** //(%s)//: %s\n\n", term, term, g.POS, dwEscape(g.Gloss))
		if len(g.Lemmas) > 1 {
			fmt.Fprintf(&b, "  * Synonyms: %s\n", strings.Join(g.Lemmas, ", "))
		}
		fmt.Fprintf(&b, "  * WordNet synset: %s\n  * Topic: [[%s:start|%s]]\n", g.ID, dwTopic, dwTopic)
		pages[id] = b.String()
		letter := dwID(term)[:1]
		letters[letter] = append(letters[letter], id)
		recs = append(recs, Record{Backend: d.backend(), ID: g.ID, Title: term, Path: "/doku.php?id=" + url.QueryEscape(id),
			Text: strings.Join(g.Lemmas, " ") + " " + g.Gloss})
	}
	var ls []string
	for l := range letters {
		ls = append(ls, l)
	}
	slices.Sort(ls)
	var idx strings.Builder
	fmt.Fprintf(&idx, "====== Music glossary ======\n\n%d music terms from WordNet 3.0, by initial letter:\n\n", len(recs))
	for _, l := range ls {
		ids := letters[l]
		slices.Sort(ids)
		var lp strings.Builder
		fmt.Fprintf(&lp, "====== Music terms: %s ======\n\n", strings.ToUpper(l))
		for _, id := range ids {
			fmt.Fprintf(&lp, "  * [[%s]]\n", id)
		}
		pages[dwTopic+":letter_"+l] = lp.String()
		fmt.Fprintf(&idx, "  * [[%s:letter_%s|%s]] (%d terms)\n", dwTopic, l, strings.ToUpper(l), len(ids))
	}
	pages[dwTopic+":start"] = idx.String()
	pages["start"] = fmt.Sprintf("====== Lab Music Glossary ======\n\nA glossary of %d music terms with their "+
		"definitions from WordNet 3.0. Browse the [[%s:start|glossary]] or search it with the search box.\n\n"+
		"Elsewhere in the lab: [[%s|the lab hub]].\n", len(recs), dwTopic, hub)
	return recs, pages
}

// dwEscape keeps a gloss from being read as DokuWiki markup.
func dwEscape(s string) string {
	if strings.ContainsAny(s, "[]{}<>*/_'^~|=\\") {
		return "%%" + strings.ReplaceAll(s, "%%", "% %") + "%%"
	}
	return s
}

func (d *dokuwiki) vhost(e *env) string {
	return fmt.Sprintf(`  server.document-root = %q
  alias.url = ("/robots.txt" => %q)
  $HTTP["url"] =~ "^/(bin|data|inc|conf|vendor)/" { url.access-deny = ("") }
`, e.path("dokuwiki", "app"), e.path("dokuwiki", "robots.txt"))
}

func (d *dokuwiki) pages(recs []Record) []string {
	r := pick(recs, 1)[0]
	return []string{
		"/",
		r.Path,
		"/doku.php?do=search&id=start&q=" + url.QueryEscape(queryWord(r)),
		"/doku.php?id=start&do=login",
		"/doku.php?id=start&do=register",
		"/doku.php?id=start&do=resendpwd",
		"/doku.php?id=start&do=recent",
	}
}

func (d *dokuwiki) label(f *Form) formLabel {
	fields := fieldSet(f)
	switch {
	case textField(f, "q") && f.Method == "GET":
		return formLabel{Kind: "search", Backend: d.backend(), QueryField: "q"}
	case fields["login"] && fields["email"]:
		return formLabel{Kind: "registration"}
	case fields["u"] && fields["p"]:
		return formLabel{Kind: "login"}
	case fields["login"]:
		return formLabel{Kind: "password"}
	case fields["wikitext"]:
		return formLabel{Kind: "edit"}
	case fields["show_changes"]:
		// Recent changes: pages, media files or both
		return formLabel{Kind: "options"}
	case fields["do"] && fields["id"] && len(f.Fields) == 2:
		// the template's "Tools" menu: a select of actions
		return formLabel{Kind: "navigation"}
	}
	return formLabel{Kind: "other"}
}
