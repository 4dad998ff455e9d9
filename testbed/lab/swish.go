package lab

import (
	"context"
	"fmt"
	"hash/fnv"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

// swish is a static site of the WordNet glosses of the sports topics, one
// page per synset, indexed by SWISH-E's own indexer (swish-e) and searched
// through its Perl CGI swish.cgi with the script's default output
// (SWISH::TemplateDefault): a form with metaname radios, sort select and date
// ranges, "Page: 1 2 3 Next 15" links carrying start= (a 0-based offset),
// "1 to 15 of 63 results" totals.
type swish struct{}

const (
	swishCGI  = "/usr/lib/swish-e/swish.cgi"
	swishHost = "sports." + Domain
	// swishPageSize is swish.cgi's default page_size, which the lab keeps.
	swishPageSize = 15
)

// swishTopics are the WordNet topic domains the glossary holds.
var swishTopics = []string{"sport", "baseball", "football", "golf"}

func (*swish) info() appInfo {
	return appInfo{
		Name: "swish", Host: swishHost, Title: "Lab Sports Glossary", Package: "swish-e",
		Data: "WordNet 3.0 glosses of the topics " + strings.Join(swishTopics, ", ") +
			" (corpora/wordnet-glosses.jsonl): one static page per synset, indexed by swish-e",
		Needs: []need{
			{swishCGI, "swish-e"}, {"/usr/bin/swish-e", "swish-e"},
			// swish.cgi's form and pager need CGI.pm; its default date
			// range limits need Date::Calc (a Recommends of swish-e).
			{"/usr/share/perl5/CGI.pm", "libcgi-pm-perl"}, {"/usr/share/perl5/Date/Calc.pm", "libdate-calc-perl"},
		},
	}
}

func (*swish) backend() string { return swishHost + "/glosses" }

func (*swish) start(context.Context, *env) error { return nil }

// swishIndexConf is the indexer's configuration: the term pages only (the
// database is the glossary), parsed as HTML with libxml2, the title and path
// searchable as the metanames swish.cgi's radios offer, the start of each
// page kept as the description the result list shows, and the file system
// path turned into the URL path the site serves it under.
const swishIndexConf = `# written by the dwcrawl lab
IndexDir %q
IndexFile %q
IndexOnly .html
DefaultContents HTML*
MetaNames swishtitle swishdocpath
StoreDescription HTML* <body> 300
ReplaceRules remove %q
IndexReport 1
`

// swishCGIConf is swish.cgi's .swishcgi.conf (a Perl hash merged over the
// script's defaults), read from the script's directory. Everything else
// (page size, metanames, sorts, highlighting, date ranges) stays the
// script's default.
const swishCGIConf = `# written by the dwcrawl lab
return {
    title       => 'Search the Lab Sports Glossary',
    swish_index => '%s',
    # no images from swish-e.org and w3.org in the default output: the lab
    # makes no outbound requests
    on_intranet => 1,
};
`

// swishCGIEnv makes Perl look in the current directory again: swish.cgi
// loads its configuration with do ".swishcgi.conf", which Perl 5.26 and
// later refuse since "." left @INC; PERL_USE_UNSAFE_INC restores it for the
// script without touching it.
var swishCGIEnv = []string{"PERL_USE_UNSAFE_INC=1"}

// swishPage is a page of the site around body; nav is left out of the index
// (swish-e's noindex comments) so that a query finds the glosses, not the
// site's navigation.
func swishPage(title, body, nav string) string {
	return fmt.Sprintf(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>%s</title></head>
<body>
<h1>%s</h1>
%s
<!-- noindex -->
<hr>
<p>%s</p>
<!-- index -->
</body></html>
`, html.EscapeString(title), html.EscapeString(title), body, nav)
}

func (s *swish) load(ctx context.Context, e *env) ([]Record, error) {
	dir := e.path("swish")
	site := filepath.Join(dir, "site")
	type term struct {
		g      gloss
		topics []string
	}
	var terms []*term
	byID := map[string]*term{}
	for _, topic := range swishTopics {
		glosses, err := readGlosses(e.data, topic)
		if err != nil {
			return nil, err
		}
		for _, g := range glosses {
			t := byID[g.ID]
			if t == nil {
				t = &term{g: g}
				byID[g.ID] = t
				terms = append(terms, t)
			}
			t.topics = append(t.topics, topic)
		}
	}
	files := map[string]string{"robots.txt": "User-agent: *\nAllow: /\n"}
	browse := map[string][]string{}
	titles := map[string]string{}
	var recs []Record
	for _, t := range terms {
		g := t.g
		name := g.Lemmas[0]
		slug := dwID(name)
		if slug == "" {
			continue
		}
		file := slug
		for n := 2; files["terms/"+file+".html"] != ""; n++ {
			file = fmt.Sprintf("%s_%d", slug, n)
		}
		path := "/terms/" + file + ".html"
		var b, nav strings.Builder
		fmt.Fprintf(&b, "<p><i>%s</i>: %s</p>\n", g.POS, html.EscapeString(g.Gloss))
		if len(g.Lemmas) > 1 {
			fmt.Fprintf(&b, "<p>Also: %s</p>\n", html.EscapeString(strings.Join(g.Lemmas[1:], ", ")))
		}
		fmt.Fprintf(&nav, "WordNet 3.0 synset %s. Topics:", g.ID)
		for _, topic := range t.topics {
			fmt.Fprintf(&nav, " <a href=\"/browse/%s.html\">%s</a>", topic, topic)
			browse[topic] = append(browse[topic], path)
		}
		nav.WriteString(". <a href=\"/\">Lab Sports Glossary</a> (search)")
		// The title names the term's topics as a glossary entry does, and
		// it is what swish.cgi's result list shows (swishtitle).
		title := name + " (" + strings.Join(t.topics, ", ") + ")"
		files[strings.TrimPrefix(path, "/")] = swishPage(title, b.String(), nav.String())
		titles[path] = name
		recs = append(recs, Record{Backend: s.backend(), ID: g.ID, Title: title, Path: path,
			Text: strings.Join(g.Lemmas, " ") + " " + g.Gloss})
	}
	var home strings.Builder
	fmt.Fprintf(&home, "<p>%d terms of sport, baseball, football and golf with their definitions from WordNet 3.0. Browse them by topic:</p>\n<ul>\n", len(recs))
	for _, topic := range swishTopics {
		ps := browse[topic]
		slices.SortFunc(ps, func(a, b string) int { return strings.Compare(titles[a], titles[b]) })
		var lb strings.Builder
		lb.WriteString("<ul>\n")
		for _, p := range ps {
			fmt.Fprintf(&lb, "<li><a href=\"%s\">%s</a></li>\n", p, html.EscapeString(titles[p]))
		}
		lb.WriteString("</ul>\n")
		files["browse/"+topic+".html"] = swishPage("Terms of "+topic, lb.String(), `<a href="/">Lab Sports Glossary</a> (search)`)
		fmt.Fprintf(&home, "<li><a href=\"/browse/%s.html\">%s</a> (%d)</li>\n", topic, topic, len(ps))
	}
	home.WriteString("</ul>\n")
	if err := writeFiles(site, files); err != nil {
		return nil, err
	}
	// A glossary grows over years: each term page keeps a modification
	// time of its own (fixed by its synset), which swish-e indexes as
	// swishlastmodified and swish.cgi shows, sorts by and limits by with its
	// date ranges. Pages all written at load time would put the whole
	// database behind the empty query limited to "Today".
	for _, r := range recs {
		if err := os.Chtimes(filepath.Join(site, filepath.FromSlash(r.Path)), time.Time{}, swishModified(r.ID)); err != nil {
			return nil, err
		}
	}

	// Index with swish-e's own indexer, as the site's owner would.
	index := filepath.Join(dir, "index", "sports.swish-e")
	if err := os.MkdirAll(filepath.Dir(index), 0o755); err != nil {
		return nil, err
	}
	conf := filepath.Join(dir, "swish-e.conf")
	if err := os.WriteFile(conf, []byte(fmt.Sprintf(swishIndexConf, filepath.Join(site, "terms"), index, site)), 0o644); err != nil {
		return nil, err
	}
	if _, err := e.run(ctx, dir, nil, "swish-e", "-c", conf); err != nil {
		return nil, err
	}

	// swish.cgi reads .swishcgi.conf from its working directory, which
	// lighttpd's mod_cgi sets to the script's directory: the script (a link
	// to the package's) and its configuration live outside the document
	// root, so the configuration is never served.
	cgiDir := filepath.Join(dir, "cgi-bin")
	if err := os.MkdirAll(cgiDir, 0o755); err != nil {
		return nil, err
	}
	if err := os.Symlink(swishCGI, filepath.Join(cgiDir, "swish.cgi")); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(cgiDir, ".swishcgi.conf"), []byte(fmt.Sprintf(swishCGIConf, index)), 0o644); err != nil {
		return nil, err
	}

	// The home page carries the CGI's own search form, the one its empty
	// query answers with, pasted as a site owner would.
	out, err := e.run(ctx, cgiDir, append([]string{"GATEWAY_INTERFACE=CGI/1.1", "REQUEST_METHOD=GET", "QUERY_STRING=",
		"SCRIPT_NAME=/cgi-bin/swish.cgi", "SERVER_NAME=" + swishHost}, swishCGIEnv...), "./swish.cgi")
	if err != nil {
		return nil, err
	}
	form := swishFormRE.Find(out)
	if form == nil {
		return nil, fmt.Errorf("swish.cgi: no form in its answer to an empty query: %.500s", out)
	}
	fmt.Fprintf(&home, "<p>Elsewhere in the lab: <a href=\"%s\">the lab hub</a>.</p>\n", e.lab.URL(Hub, "/"))
	files = map[string]string{"index.html": fmt.Sprintf(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Lab Sports Glossary</title></head>
<body>
<h1>Lab Sports Glossary</h1>
<h2>Search the glossary</h2>
%s
%s</body></html>
`, form, home.String())}
	if err := writeFiles(site, files); err != nil {
		return nil, err
	}
	return recs, nil
}

// swishModified is the modification time of a term page: a time between
// 2010 and 2024 fixed by the record's id.
func swishModified(id string) time.Time {
	h := fnv.New64a()
	h.Write([]byte(id))
	t0 := time.Date(2010, 1, 1, 0, 0, 0, 0, time.UTC)
	span := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).Sub(t0)
	return t0.Add(time.Duration(h.Sum64()%uint64(span/time.Second)) * time.Second)
}

// swishFormRE finds the form of swish.cgi's page.
var swishFormRE = regexp.MustCompile(`(?s)<form .*?</form>`)

func (s *swish) vhost(e *env) string {
	var envs []string
	for _, kv := range swishCGIEnv {
		k, v, _ := strings.Cut(kv, "=")
		envs = append(envs, fmt.Sprintf("%q => %q", k, v))
	}
	return fmt.Sprintf(`  server.document-root = %q
  setenv.add-environment = (%s)
  alias.url = ("/cgi-bin/swish.cgi" => %q)
  cgi.assign = ("/swish.cgi" => "")
`, e.path("swish", "site"), strings.Join(envs, ", "), e.path("swish", "cgi-bin", "swish.cgi"))
}

func (s *swish) pages(recs []Record) []string {
	r := pick(recs, 1)[0]
	return []string{"/", r.Path, "/browse/" + swishTopics[0] + ".html",
		"/cgi-bin/swish.cgi?query=" + queryWord(r), "/cgi-bin/swish.cgi"}
}

func (s *swish) label(f *Form) formLabel {
	if textField(f, "query") {
		return formLabel{Kind: "search", Backend: s.backend(), QueryField: "query", PageParam: "start",
			PageControl: "link", PageSize: swishPageSize}
	}
	return formLabel{Kind: "other"}
}
