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

// namazu is a static archive of DBLP papers (one page per paper, browse
// pages by title letter) indexed with Namazu's own indexer, mknmz, and
// searched through namazu.cgi. The search form and the result pages are
// Namazu's templates as mknmz writes them into the index (NMZ.head,
// NMZ.body, NMZ.foot, NMZ.result.*): a page-size select max (10 to 100, 20
// preselected), result (normal/short), sort; the pager is bare page numbers
// "[1] [2] [3]" linking whence= offsets; the head says how many documents
// the whole index holds.
type namazu struct{}

const (
	namazuCGI     = "/usr/lib/cgi-bin/namazu.cgi"
	namazuHost    = "archive." + Domain
	namazuRecords = 2000
	// namazuPageSize is what namazu.cgi shows per page without max= and
	// what its form's select preselects (measured: 20, not 10).
	namazuPageSize = 20
	namazuTitle    = "Lab Paper Archive"
)

func (*namazu) info() appInfo {
	return appInfo{
		Name: "namazu", Host: namazuHost, Title: namazuTitle, Package: "namazu2",
		Data: fmt.Sprintf("%d DBLP papers (dblp/dblp_sample.csv): one static page per paper, indexed by mknmz", namazuRecords),
		Needs: []need{{namazuCGI, "namazu2"}, {"/usr/bin/mknmz", "namazu2-index-tools"},
			{"/usr/share/namazu/template/NMZ.head", "namazu2-index-tools"}},
	}
}

func (*namazu) backend() string { return namazuHost + "/papers" }

func (*namazu) start(context.Context, *env) error { return nil }

// namazuPage is a static page of the archive (paper, browse page, home).
// The site links come last: Namazu's result summaries start with a
// document's first text after the heading.
func namazuPage(title, body string, meta ...string) string {
	return fmt.Sprintf(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">%s<title>%s</title></head>
<body>
<h1>%s</h1>
%s
<p><a href="/">%s</a> · <a href="/browse/">Browse</a></p>
</body></html>
`, strings.Join(meta, ""), html.EscapeString(title), html.EscapeString(title), body, namazuTitle)
}

// venue names where a paper appeared: DBLP's booktitle, else the stream of
// its key (journals/tsp -> TSP).
func (p dblpEntry) venue() string {
	if p.Booktitle != "" {
		return p.Booktitle
	}
	parts := strings.Split(p.Key, "/")
	if len(parts) < 2 {
		return p.Key
	}
	switch parts[0] {
	case "journals":
		return "Journal " + strings.ToUpper(parts[1])
	case "conf":
		return "Conference " + strings.ToUpper(parts[1])
	}
	return parts[0] + " " + parts[1]
}

// letterOf is the browse page of a title: its first letter, or "0" for
// titles that start otherwise.
func letterOf(title string) string {
	for _, r := range strings.ToLower(title) {
		if r >= 'a' && r <= 'z' {
			return string(r)
		}
		if r != '"' && r != '\'' && r != '(' && r != '[' {
			break
		}
	}
	return "0"
}

func (n *namazu) load(ctx context.Context, e *env) ([]Record, error) {
	dir := e.path("namazu")
	site := filepath.Join(dir, "site")
	papers, err := readDBLPSample(e.data, namazuRecords)
	if err != nil {
		return nil, err
	}
	files := map[string]string{"robots.txt": "User-agent: *\nAllow: /\n"}
	letters := map[string][]int{}
	var recs []Record
	for i, p := range papers {
		path := "/papers/" + p.Key + ".html"
		l := letterOf(p.Title)
		var b strings.Builder
		fmt.Fprintf(&b, "<dl>\n<dt>Authors</dt><dd>%s</dd>\n<dt>Venue</dt><dd>%s</dd>\n<dt>DBLP key</dt><dd>%s</dd>\n</dl>\n",
			html.EscapeString(p.Author), html.EscapeString(p.venue()), html.EscapeString(p.Key))
		fmt.Fprintf(&b, "<p>Back to the <a href=\"/browse/%s.html\">papers under %s</a>.</p>\n", l, strings.ToUpper(l))
		// Namazu's HTML filter takes a document's author from its
		// author meta tag: the result entries show it.
		files[strings.TrimPrefix(path, "/")] = namazuPage(p.Title, b.String(),
			fmt.Sprintf(`<meta name="author" content="%s">`, html.EscapeString(p.Author)))
		letters[l] = append(letters[l], i)
		recs = append(recs, Record{Backend: n.backend(), ID: p.Key, Title: p.Title, Path: path,
			Text: strings.Join([]string{p.Title, p.Author, p.venue(), p.Key}, " ")})
	}
	var ls []string
	for l := range letters {
		ls = append(ls, l)
	}
	slices.Sort(ls)
	var browse strings.Builder
	browse.WriteString("<ul>\n")
	for _, l := range ls {
		ps := letters[l]
		slices.SortFunc(ps, func(a, b int) int { return strings.Compare(papers[a].Title, papers[b].Title) })
		var lb strings.Builder
		lb.WriteString("<ul>\n")
		for _, i := range ps {
			fmt.Fprintf(&lb, "<li><a href=\"/papers/%s.html\">%s</a> — %s, %s</li>\n", papers[i].Key,
				html.EscapeString(papers[i].Title), html.EscapeString(papers[i].Author), html.EscapeString(papers[i].venue()))
		}
		lb.WriteString("</ul>\n")
		name := strings.ToUpper(l)
		if l == "0" {
			name = "other characters"
		}
		files["browse/"+l+".html"] = namazuPage("Papers under "+name, lb.String())
		fmt.Fprintf(&browse, "<li><a href=\"/browse/%s.html\">%s</a> (%d)</li>\n", l, name, len(ps))
	}
	browse.WriteString("</ul>\n")
	files["browse/index.html"] = namazuPage("Browse the papers by title", browse.String())
	if err := writeFiles(site, files); err != nil {
		return nil, err
	}

	// Index the paper pages only: the database is the papers. The index
	// directory also receives Namazu's templates (NMZ.head, NMZ.body…),
	// which namazu.cgi reads from there.
	index := filepath.Join(dir, "index")
	if err := os.MkdirAll(index, 0o755); err != nil {
		return nil, err
	}
	// mknmz puts the indexing host's name in the templates' webmaster
	// address unless told another.
	rc := filepath.Join(dir, "mknmzrc")
	if err := os.WriteFile(rc, []byte(fmt.Sprintf("package conf;\n$ADDRESS = 'webmaster@%s';\n", namazuHost)), 0o644); err != nil {
		return nil, err
	}
	if _, err := e.run(ctx, dir, []string{"LANG=C"}, "mknmz", "--norc", "-f", rc, "-q", "--meta",
		"-O", index, "--replace=s#^"+regexp.QuoteMeta(site)+"/#/#", filepath.Join(site, "papers")); err != nil {
		return nil, err
	}
	// The site owner's touch: the archive's name in the head template.
	head := filepath.Join(index, "NMZ.head")
	b, err := os.ReadFile(head)
	if err != nil {
		return nil, err
	}
	hs := strings.ReplaceAll(string(b), "Namazu: a Full-Text Search Engine", namazuTitle+": full-text search")
	if err := os.WriteFile(head, []byte(hs), 0o644); err != nil {
		return nil, err
	}
	// The home page carries Namazu's own search form, cut from the head
	// template (namazu.cgi fills {cgi} with its own path).
	form := regexp.MustCompile(`(?s)<form method="get" action="\{cgi\}">.*?</form>`).FindString(hs)
	if form == "" {
		return nil, fmt.Errorf("%s: no search form", head)
	}
	form = strings.ReplaceAll(form, "{cgi}", "/cgi-bin/namazu.cgi")
	home := fmt.Sprintf(`<p>%d computer science papers from DBLP, one page each. Search their titles, authors
and venues with Namazu, or <a href="/browse/">browse them by title</a>.</p>
%s
<p>Elsewhere in the lab: <a href="%s">the lab hub</a>.</p>
`, len(recs), form, e.lab.URL(Hub, "/"))
	if err := writeFiles(site, map[string]string{"index.html": namazuPage(namazuTitle, home)}); err != nil {
		return nil, err
	}
	// namazu.cgi finds this file through NAMAZURC (set by the vhost): no
	// system configuration. Logging off: no query log written beside the
	// index. Namazu then prints the content type without a charset; the
	// documents are UTF-8.
	conf := fmt.Sprintf("Index %s\nTemplate %s\nContentType \"text/html; charset=UTF-8\"\nLogging off\n", index, index)
	if err := os.WriteFile(filepath.Join(dir, "namazurc"), []byte(conf), 0o644); err != nil {
		return nil, err
	}
	return recs, nil
}

func (n *namazu) vhost(e *env) string {
	return fmt.Sprintf(`  server.document-root = %q
  setenv.add-environment = ("NAMAZURC" => %q)
  alias.url = ("/cgi-bin/namazu.cgi" => %q)
  cgi.assign = (".cgi" => "")
`, e.path("namazu", "site"), e.path("namazu", "namazurc"), namazuCGI)
}

func (n *namazu) pages(recs []Record) []string {
	r := pick(recs, 1)[0]
	return []string{"/", "/browse/", r.Path, "/cgi-bin/namazu.cgi?query=" + queryWord(r), "/cgi-bin/namazu.cgi"}
}

func (n *namazu) label(f *Form) formLabel {
	if textField(f, "query") {
		return formLabel{Kind: "search", Backend: n.backend(), QueryField: "query", PageParam: "whence",
			PageControl: "link", PageSize: namazuPageSize}
	}
	return formLabel{Kind: "other"}
}
