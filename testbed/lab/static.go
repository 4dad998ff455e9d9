package lab

import (
	"fmt"
	"html"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// static is a site of plain files the lab writes on every start.
type static struct {
	host, title, data string
	root              string
	pages             []staticPage
}

type staticPage struct {
	path   string
	labels []string // form kinds in document order; nil: the page has no labeled forms
	source string   // where the labels come from
}

// formasaurusPages is how many Formasaurus pages the forms site serves.
const formasaurusPages = 60

// formasaurusKinds maps Formasaurus form types (formasaurus/config.json) to
// the lab's kinds.
var formasaurusKinds = map[string]string{
	"s": "search", "l": "login", "r": "registration", "p": "password", "c": "comment",
	"m": "newsletter", "b": "order", "P": "poll", "V": "options", "N": "navigation", "C": "captcha", "o": "other",
}

// writeStatics writes the hub, which links every lab site, and the forms
// site, which serves real pages from the Formasaurus corpus.
func writeStatics(e *env, apps []app) ([]*static, error) {
	if err := os.RemoveAll(e.path("static")); err != nil {
		return nil, err
	}
	forms, err := writeFormsSite(e)
	if err != nil {
		return nil, err
	}
	hub := &static{host: Hub, title: "A small web of real web software", data: "links to every lab site", root: e.path("static", Hub),
		pages: []staticPage{{path: "/"}}}
	if err := writeFiles(hub.root, map[string]string{
		"index.html":     hubPage(e, apps, forms),
		"directory.html": directoryPage(nil),
		"robots.txt":     "User-agent: *\nAllow: /\n",
	}); err != nil {
		return nil, err
	}
	return []*static{hub, forms}, nil
}

// hubPage is the hub's page: a link to the home of every lab site and to
// the search directory (directoryPage).
func hubPage(e *env, apps []app, forms *static) string {
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>dwcrawl lab: a small web of real web software</title></head>
<body>
<h1>A small web of real web software</h1>
<p>Every site below runs on this machine under its own host name. The applications are installed from
Debian packages and hold real records.</p>
<ul>
`)
	for _, a := range apps {
		in := a.info()
		fmt.Fprintf(&b, "<li><a href=\"%s\">%s</a> — %s, %s</li>\n", e.lab.URL(in.Host, "/"), html.EscapeString(in.Title),
			html.EscapeString(in.Package), html.EscapeString(in.Data))
	}
	fmt.Fprintf(&b, "<li><a href=\"%s\">%s</a> — %s</li>\n", e.lab.URL(forms.host, "/"), html.EscapeString(forms.title), html.EscapeString(forms.data))
	b.WriteString("</ul>\n<p><a href=\"/directory.html\">Where to search each site</a></p>\n</body></html>\n")
	return b.String()
}

// directoryPage lists, as a site directory does, each page of the lab's
// sites that holds a searchable form (see linkSearchPages). It is a page
// of its own so that the hub's text, which the lab profiles' topic models
// learn from as their seed, does not carry every site's words.
func directoryPage(search []Site) string {
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>dwcrawl lab: where to search</title></head>
<body><h1>Search directory</h1>
<ul>
`)
	{
		for _, s := range search {
			seen := map[string]bool{}
			for _, f := range s.SearchForms {
				if f.Example == "" || seen[f.Example] {
					continue
				}
				seen[f.Example] = true
				fmt.Fprintf(&b, "<li><a href=\"%s\">Search %s</a> — %s</li>\n", html.EscapeString(f.Example), html.EscapeString(s.Title), html.EscapeString(s.Data))
			}
		}
	}
	b.WriteString("</ul>\n</body></html>\n")
	return b.String()
}

// linkSearchPages writes the search directory with links to the pages of the
// applications that hold the searchable forms t knows: a crawl from the
// hub reaches them as it reaches a site a directory lists by its search
// page, whatever the application's homepage leads to (links marked
// nofollow, a script page).
func linkSearchPages(e *env, apps []app, statics []*static, t *Truth) error {
	var hub, forms *static
	for _, s := range statics {
		switch s.host {
		case Hub:
			hub = s
		case "forms." + Domain:
			forms = s
		}
	}
	if hub == nil || forms == nil {
		return fmt.Errorf("lab: the hub and the forms site must be written first")
	}
	var search []Site
	for _, s := range t.Sites {
		if s.App != "static" && len(s.SearchForms) > 0 {
			search = append(search, s)
		}
	}
	return writeFiles(hub.root, map[string]string{"directory.html": directoryPage(search)})
}

func writeFiles(root string, files map[string]string) error {
	for name, body := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			return err
		}
	}
	return nil
}

type formasaurusEntry struct {
	Forms []string `json:"forms"`
	URL   string   `json:"url"`
}

// absURL matches absolute and protocol-relative URLs in the attributes a
// crawler follows or submits to.
var absURL = regexp.MustCompile(`(?i)(\s(?:href|src|action)\s*=\s*["']?)(?:https?:)?//([^/"'\s>]+)`)

// writeFormsSite serves Formasaurus pages whose every form is annotated
// (no "X" not-annotated, no "-" skipped) and where an HTML5 parser finds as
// many forms as were labeled, every k-th in name order. Their
// absolute URLs are made local (another host's go under /offsite/HOST), so a
// crawl of the lab never leaves it.
func writeFormsSite(e *env) (*static, error) {
	s := &static{host: "forms." + Domain, title: "Lab forms archive",
		data: "real pages of the Formasaurus corpus (formasaurus/html), forms labeled by its annotators",
		root: e.path("static", "forms."+Domain)}
	idx := filepath.Join(e.data, formsDir, "index.json")
	var index map[string]formasaurusEntry
	if err := readJSON(idx, &index); err != nil {
		return nil, err
	}
	var names []string
	for name, ent := range index {
		if !slices.ContainsFunc(ent.Forms, func(f string) bool { return formasaurusKinds[f] == "" }) && len(ent.Forms) > 0 {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	step := max(1, len(names)/formasaurusPages)
	var list strings.Builder
	list.WriteString("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Lab forms archive</title></head>\n<body>\n" +
		"<h1>Lab forms archive</h1>\n<p>Copies of real web pages with their forms.</p>\n<ul>\n")
	files := map[string]string{"robots.txt": "User-agent: *\nDisallow: /offsite/\n"}
	for i := 0; i < len(names) && len(s.pages) < formasaurusPages; i += step {
		name := names[i]
		ent := index[name]
		b, err := os.ReadFile(filepath.Join(e.data, formsDir, name))
		if err != nil {
			return nil, err
		}
		orig, _ := url.Parse(ent.URL)
		page := absURL.ReplaceAllStringFunc(string(b), func(m string) string {
			sm := absURL.FindStringSubmatch(m)
			if orig != nil && strings.EqualFold(sm[2], orig.Host) {
				return sm[1]
			}
			return sm[1] + "/offsite/" + strings.ToLower(sm[2])
		})
		path := "/pages/" + filepath.Base(name)
		// Pages with a form inside a form hold fewer forms for an HTML5
		// parser than the annotators saw; their labels would not line up.
		if fs, err := ParseForms(&url.URL{Scheme: "http", Host: s.host, Path: path}, strings.NewReader(page)); err != nil || len(fs) != len(ent.Forms) {
			continue
		}
		files[strings.TrimPrefix(path, "/")] = page
		labels := make([]string, len(ent.Forms))
		for j, f := range ent.Forms {
			labels[j] = formasaurusKinds[f]
		}
		s.pages = append(s.pages, staticPage{path: path, labels: labels, source: "formasaurus/" + name})
		fmt.Fprintf(&list, "<li><a href=\"%s\">%s</a></li>\n", path, html.EscapeString(ent.URL))
	}
	list.WriteString("</ul>\n</body></html>\n")
	files["index.html"] = list.String()
	s.pages = append([]staticPage{{path: "/"}}, s.pages...)
	if err := writeFiles(s.root, files); err != nil {
		return nil, err
	}
	return s, nil
}
