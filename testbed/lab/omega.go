package lab

import (
	"context"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// omega is a static site of the WordNet glosses of one topic (law) searched
// through Omega, Xapian's search CGI, over an index built with its own
// omindex. Omega's result pages paginate with form buttons (a page number
// or "next" submits the result form, whose hidden fields carry the query and
// the offset), not with links.
type omega struct{}

const (
	omegaCGI   = "/usr/lib/cgi-bin/omega/omega"
	omegaTopic = "law"
)

func (*omega) info() appInfo {
	return appInfo{
		Name: "omega", Host: omegaTopic + "." + Domain, Title: "Lab Law Glossary", Package: "xapian-omega",
		Data:  "WordNet 3.0 glosses of the topic " + omegaTopic + " (corpora/wordnet-glosses.jsonl): one static page per synset, indexed by omindex",
		Needs: []need{{omegaCGI, "xapian-omega"}, {"/usr/bin/omindex", "xapian-omega"}, {"/var/lib/xapian-omega/templates/query", "xapian-omega"}},
	}
}

func (*omega) backend() string { return omegaTopic + "." + Domain + "/glosses" }

func (*omega) start(context.Context, *env) error { return nil }

// omegaForm is the site's search box, on every page.
const omegaForm = `<form action="/cgi-bin/omega" method="get" class="search">
<input type="text" name="P" size="30" aria-label="Search the glossary"> <input type="submit" value="Search">
</form>`

func omegaPage(title, body string) string {
	return fmt.Sprintf(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>%s — Lab Law Glossary</title></head>
<body>
<p><a href="/">Lab Law Glossary</a></p>
%s
<h1>%s</h1>
%s
</body></html>
`, html.EscapeString(title), omegaForm, html.EscapeString(title), body)
}

func (o *omega) load(ctx context.Context, e *env) ([]Record, error) {
	dir := e.path("omega")
	site := filepath.Join(dir, "site")
	glosses, err := readGlosses(e.data, omegaTopic)
	if err != nil {
		return nil, err
	}
	files := map[string]string{"robots.txt": "User-agent: *\nAllow: /\n"}
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
		fmt.Fprintf(&b, "<p><b>%s</b> <i>(%s)</i>: %s</p>\n", html.EscapeString(term), g.POS, html.EscapeString(g.Gloss))
		if len(g.Lemmas) > 1 {
			fmt.Fprintf(&b, "<p>Synonyms: %s</p>\n", html.EscapeString(strings.Join(g.Lemmas, ", ")))
		}
		fmt.Fprintf(&b, "<p>WordNet synset %s. Back to the <a href=\"/letters/%s.html\">terms in %s</a>.</p>\n",
			g.ID, slug[:1], strings.ToUpper(slug[:1]))
		files[strings.TrimPrefix(path, "/")] = omegaPage(term, b.String())
		letters[slug[:1]] = append(letters[slug[:1]], path)
		titles[path] = term
		recs = append(recs, Record{Backend: o.backend(), ID: g.ID, Title: term, Path: path,
			Text: strings.Join(g.Lemmas, " ") + " " + g.Gloss})
	}
	var ls []string
	for l := range letters {
		ls = append(ls, l)
	}
	slices.Sort(ls)
	var idx strings.Builder
	fmt.Fprintf(&idx, "<p>%d terms of law with their definitions from WordNet 3.0. Search them, or browse by initial letter:</p>\n<ul>\n", len(recs))
	for _, l := range ls {
		ps := letters[l]
		slices.SortFunc(ps, func(a, b string) int { return strings.Compare(titles[a], titles[b]) })
		var lb strings.Builder
		lb.WriteString("<ul>\n")
		for _, p := range ps {
			fmt.Fprintf(&lb, "<li><a href=\"%s\">%s</a></li>\n", p, html.EscapeString(titles[p]))
		}
		lb.WriteString("</ul>\n")
		files["letters/"+l+".html"] = omegaPage("Terms in "+strings.ToUpper(l), lb.String())
		fmt.Fprintf(&idx, "<li><a href=\"/letters/%s.html\">%s</a> (%d)</li>\n", l, strings.ToUpper(l), len(ps))
	}
	fmt.Fprintf(&idx, "</ul>\n<p>Elsewhere in the lab: <a href=\"%s\">the lab hub</a>.</p>\n", e.lab.URL(Hub, "/"))
	files["index.html"] = omegaPage("Lab Law Glossary", idx.String())
	if err := writeFiles(site, files); err != nil {
		return nil, err
	}
	// Index the term pages only: the database is the glossary.
	data := filepath.Join(dir, "data")
	for _, d := range []string{"log", "cdb", "data"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return nil, err
		}
	}
	if _, err := e.run(ctx, site, nil, "omindex", "--db", filepath.Join(data, "default"), "--url", "/",
		site, filepath.Join(site, "terms")); err != nil {
		return nil, err
	}
	conf := fmt.Sprintf("database_dir %s\ntemplate_dir /var/lib/xapian-omega/templates\nlog_dir %s\ncdb_dir %s\n",
		data, filepath.Join(dir, "log"), filepath.Join(dir, "cdb"))
	if err := os.WriteFile(filepath.Join(dir, "omega.conf"), []byte(conf), 0o644); err != nil {
		return nil, err
	}
	return recs, nil
}

func (o *omega) vhost(e *env) string {
	return fmt.Sprintf(`  server.document-root = %q
  setenv.add-environment = ("OMEGA_CONFIG_FILE" => %q)
  alias.url = ("/cgi-bin/omega" => %q, "/images/xapian-omega/" => "/usr/share/images/xapian-omega/")
  cgi.assign = ("/omega" => "")
`, e.path("omega", "site"), e.path("omega", "omega.conf"), omegaCGI)
}

func (o *omega) pages(recs []Record) []string {
	r := pick(recs, 1)[0]
	return []string{"/", r.Path, "/cgi-bin/omega?P=" + queryWord(r)}
}

func (o *omega) label(f *Form) formLabel {
	if textField(f, "P") {
		return formLabel{Kind: "search", Backend: o.backend(), QueryField: "P", PageParam: "[", PageControl: "button", PageSize: 10}
	}
	return formLabel{Kind: "other"}
}
