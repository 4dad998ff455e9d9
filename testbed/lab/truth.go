package lab

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/PuerkitoBio/goquery"
)

// Record is one record loaded into an application: what a complete surfacing
// of the searchable form in front of it should download.
type Record struct {
	Backend string `json:"backend"`        // the database it belongs to, e.g. "wiki.lab.test/movies"
	ID      string `json:"id"`             // the source's id (DBLP ID, WordNet synset, title)
	Title   string `json:"title"`          // the title its result entry shows
	Path    string `json:"path"`           // its own page on the application's host
	Text    string `json:"text,omitempty"` // the searchable text loaded with it
}

// Truth is the lab's ground truth, written under DIR/truth.
type Truth struct {
	Port    int                 `json:"port"`
	Sites   []Site              `json:"sites"`
	Pages   []Page              `json:"pages"`
	Records map[string][]Record `json:"-"` // backend -> records, written one file per backend
}

// Site is one lab host.
type Site struct {
	Host     string         `json:"host"`
	App      string         `json:"app"` // mediawiki, wordpress, …, static
	Title    string         `json:"title"`
	Package  string         `json:"package,omitempty"`
	Version  string         `json:"version,omitempty"`
	Home     string         `json:"home"`
	Data     string         `json:"data"`
	Backends map[string]int `json:"backends,omitempty"` // backend -> number of records
	// SearchForms are the site's distinct searchable forms (the same form on
	// every page of an application's template counts once): what a crawl of
	// the site should record.
	SearchForms []SearchForm `json:"search_forms"`
}

// SearchForm is a distinct searchable form of a site: its action without the
// query string, its query field and the records behind it.
type SearchForm struct {
	Action      string `json:"action"`
	Method      string `json:"method"`
	QueryField  string `json:"query_field,omitempty"`
	Backend     string `json:"backend,omitempty"`
	PageParam   string `json:"page_param,omitempty"`
	PageControl string `json:"page_control,omitempty"`
	PageSize    int    `json:"page_size,omitempty"`
	Pages       int    `json:"pages"`   // how many of the visited pages hold it
	Example     string `json:"example"` // one page that holds it
}

// Page is a page the lab knows, with every form on it in document order.
type Page struct {
	URL    string `json:"url"`
	Host   string `json:"host"`
	App    string `json:"app"`
	Status int    `json:"status"`
	Forms  []Form `json:"forms"`
}

// Form is a form of a lab page and what it is.
type Form struct {
	Page       string  `json:"page"`
	Index      int     `json:"index"` // among the page's forms, in document order
	ID         string  `json:"id,omitempty"`
	Name       string  `json:"name,omitempty"`
	Class      string  `json:"class,omitempty"`
	Action     string  `json:"action"` // absolute
	Method     string  `json:"method"` // GET or POST
	Fields     []Field `json:"fields"`
	Kind       string  `json:"kind"` // search, login, registration, password, comment, edit, other
	Searchable bool    `json:"searchable"`
	Backend    string  `json:"backend,omitempty"`     // records behind a searchable form ("" when none)
	QueryField string  `json:"query_field,omitempty"` // the text input the query goes in
	PageParam  string  `json:"page_param,omitempty"`  // URL parameter of the result pagination
	// PageControl is "link" (an <a> carrying PageParam) or "button" (a
	// submit button of the result form named PageParam, the page number its
	// value).
	PageControl string `json:"page_control,omitempty"`
	PageSize    int    `json:"page_size,omitempty"` // results per result page
	Source      string `json:"source,omitempty"`    // where the label comes from, for static pages
}

// Field is a named control of a form.
type Field struct {
	Name    string   `json:"name"`
	Type    string   `json:"type"` // input type, select, textarea, button
	Value   string   `json:"value,omitempty"`
	Options []string `json:"options,omitempty"`
	Checked bool     `json:"checked,omitempty"` // a checkbox or radio checked by default
}

// SearchForms are the searchable forms of the truth; with app non-empty, only
// that application's.
func (t *Truth) SearchForms(app string) []Form {
	var out []Form
	for _, p := range t.Pages {
		for _, f := range p.Forms {
			if f.Searchable && (app == "" || p.App == app) {
				out = append(out, f)
			}
		}
	}
	return out
}

// Summary counts, per application, the pages, forms and records of the truth.
type Summary struct {
	App           string         `json:"app"`
	Host          string         `json:"host"`
	Version       string         `json:"version,omitempty"`
	Pages         int            `json:"pages"`
	Distinct      int            `json:"distinct_searchable_forms"`
	Searchable    int            `json:"searchable_forms"`
	NonSearchable int            `json:"non_searchable_forms"`
	Kinds         map[string]int `json:"kinds"`
	Records       int            `json:"records"`
}

// Summaries count the truth per site.
func (t *Truth) Summaries() []Summary {
	var out []Summary
	for _, s := range t.Sites {
		sum := Summary{App: s.App, Host: s.Host, Version: s.Version, Kinds: map[string]int{}, Distinct: len(s.SearchForms)}
		for _, n := range s.Backends {
			sum.Records += n
		}
		for _, p := range t.Pages {
			if p.Host != s.Host {
				continue
			}
			sum.Pages++
			for _, f := range p.Forms {
				sum.Kinds[f.Kind]++
				if f.Searchable {
					sum.Searchable++
				} else {
					sum.NonSearchable++
				}
			}
		}
		out = append(out, sum)
	}
	return out
}

func (t *Truth) write(dir string) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(dir, "records"), 0o755); err != nil {
		return err
	}
	if err := writeJSON(filepath.Join(dir, "sites.json"), t.Sites); err != nil {
		return err
	}
	if err := writeJSON(filepath.Join(dir, "pages.json"), t.Pages); err != nil {
		return err
	}
	if err := writeJSON(filepath.Join(dir, "summary.json"), t.Summaries()); err != nil {
		return err
	}
	var forms []any
	for _, p := range t.Pages {
		for _, f := range p.Forms {
			forms = append(forms, f)
		}
	}
	if err := writeJSONL(filepath.Join(dir, "forms.jsonl"), forms); err != nil {
		return err
	}
	for b, recs := range t.Records {
		rows := make([]any, len(recs))
		for i, r := range recs {
			host, _, _ := strings.Cut(r.Backend, "/")
			rows[i] = struct {
				Record
				URL string `json:"url"`
			}{r, fmt.Sprintf("http://%s:%d%s", host, t.Port, r.Path)}
		}
		if err := writeJSONL(filepath.Join(dir, "records", backendFile(b)), rows); err != nil {
			return err
		}
	}
	return nil
}

// backendFile is the file name of a backend's records under truth/records.
func backendFile(backend string) string {
	return strings.NewReplacer("/", "_", ":", "_").Replace(backend) + ".jsonl"
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

func writeJSONL(path string, rows []any) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	for _, r := range rows {
		if err := enc.Encode(r); err != nil {
			f.Close()
			return err
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// buildTruth fetches every page the applications and static sites name and
// labels each form on it.
func buildTruth(ctx context.Context, l *Lab, apps []app, statics []*static, records map[string][]Record) (*Truth, error) {
	t := &Truth{Port: l.Port, Records: records}
	client := l.Client()
	for _, a := range apps {
		in := a.info()
		site := Site{Host: in.Host, App: in.Name, Title: in.Title, Package: in.Package,
			Version: packageVersion(in.Package), Home: l.URL(in.Host, "/"), Data: in.Data,
			Backends: map[string]int{}}
		var recs []Record
		for b, rs := range records {
			if strings.HasPrefix(b, in.Host+"/") {
				site.Backends[b] = len(rs)
				recs = append(recs, rs...)
			}
		}
		t.Sites = append(t.Sites, site)
		for _, path := range a.pages(recs) {
			p, err := fetchPage(ctx, client, l.URL(in.Host, path))
			if err != nil {
				return nil, err
			}
			p.Host, p.App = in.Host, in.Name
			for i := range p.Forms {
				f := &p.Forms[i]
				lb := a.label(f)
				if err := f.apply(lb); err != nil {
					return nil, fmt.Errorf("%s form %d: %w", p.URL, f.Index, err)
				}
				if lb.Backend != "" && len(records[lb.Backend]) == 0 {
					return nil, fmt.Errorf("%s form %d: backend %s has no records", p.URL, f.Index, lb.Backend)
				}
			}
			t.Pages = append(t.Pages, p)
		}
	}
	for _, s := range statics {
		t.Sites = append(t.Sites, Site{Host: s.host, App: "static", Title: s.title,
			Home: l.URL(s.host, "/"), Data: s.data})
		for _, sp := range s.pages {
			p, err := fetchPage(ctx, client, l.URL(s.host, sp.path))
			if err != nil {
				return nil, err
			}
			p.Host, p.App = s.host, "static"
			if sp.labels != nil && len(sp.labels) != len(p.Forms) {
				return nil, fmt.Errorf("%s: %d forms served, %d labels in %s", p.URL, len(p.Forms), len(sp.labels), sp.source)
			}
			for i := range p.Forms {
				lb := formLabel{Kind: "other"}
				if sp.labels != nil {
					lb.Kind = sp.labels[i]
				}
				p.Forms[i].Source = sp.source
				if err := p.Forms[i].apply(lb); err != nil {
					return nil, err
				}
			}
			t.Pages = append(t.Pages, p)
		}
	}
	for i := range t.Sites {
		t.Sites[i].SearchForms = distinctSearchForms(t.Pages, t.Sites[i].Host)
	}
	return t, nil
}

// distinctSearchForms groups a host's searchable forms by action (without
// its query string), method, query field and backend.
func distinctSearchForms(pages []Page, host string) []SearchForm {
	out := []SearchForm{}
	index := map[string]int{}
	for _, p := range pages {
		if p.Host != host {
			continue
		}
		for _, f := range p.Forms {
			if !f.Searchable {
				continue
			}
			action := f.Action
			if u, err := url.Parse(f.Action); err == nil {
				u.RawQuery, u.Fragment = "", ""
				action = u.String()
			}
			key := strings.Join([]string{action, f.Method, f.QueryField, f.Backend}, "\x00")
			i, ok := index[key]
			if !ok {
				i = len(out)
				index[key] = i
				out = append(out, SearchForm{Action: action, Method: f.Method, QueryField: f.QueryField, Backend: f.Backend,
					PageParam: f.PageParam, PageControl: f.PageControl, PageSize: f.PageSize, Example: p.URL})
			}
			out[i].Pages++
		}
	}
	return out
}

// apply sets a form's label, checking that its query field exists.
func (f *Form) apply(lb formLabel) error {
	f.Kind = lb.Kind
	f.Searchable = lb.Kind == "search"
	f.Backend, f.QueryField, f.PageParam, f.PageSize = lb.Backend, lb.QueryField, lb.PageParam, lb.PageSize
	f.PageControl = lb.PageControl
	if f.PageParam != "" && f.PageControl == "" {
		f.PageControl = "link"
	}
	if lb.QueryField != "" && !slices.ContainsFunc(f.Fields, func(x Field) bool { return x.Name == lb.QueryField }) {
		return fmt.Errorf("query field %q not among the form's fields", lb.QueryField)
	}
	return nil
}

// fetchPage gets a page and extracts its forms; only a 200 is a page.
func fetchPage(ctx context.Context, c *http.Client, u string) (Page, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return Page{}, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return Page{}, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return Page{}, fmt.Errorf("%s: %w", u, err)
	}
	if resp.StatusCode != http.StatusOK {
		return Page{}, fmt.Errorf("%s: HTTP %d: %.300s", u, resp.StatusCode, body)
	}
	final := resp.Request.URL
	forms, err := ParseForms(final, strings.NewReader(string(body)))
	if err != nil {
		return Page{}, fmt.Errorf("%s: %w", u, err)
	}
	return Page{URL: final.String(), Status: resp.StatusCode, Forms: forms}, nil
}

// ParseForms extracts the forms of an HTML page in document order (as an
// HTML5 parser finds them), with actions resolved against base.
func ParseForms(base *url.URL, r io.Reader) ([]Form, error) {
	doc, err := goquery.NewDocumentFromReader(r)
	if err != nil {
		return nil, err
	}
	if href, ok := doc.Find("base[href]").First().Attr("href"); ok {
		if b, err := base.Parse(href); err == nil {
			base = b
		}
	}
	var forms []Form
	doc.Find("form").Each(func(i int, s *goquery.Selection) {
		f := Form{Page: base.String(), Index: i, ID: s.AttrOr("id", ""), Name: s.AttrOr("name", ""),
			Class: s.AttrOr("class", ""), Method: strings.ToUpper(strings.TrimSpace(s.AttrOr("method", "GET")))}
		if f.Method != "POST" {
			f.Method = "GET"
		}
		f.Action = base.String()
		if a := strings.TrimSpace(s.AttrOr("action", "")); a != "" {
			if u, err := base.Parse(a); err == nil {
				// "http://host:port" (WordPress's widgets) is submitted to "/"
				if u.Path == "" && u.Opaque == "" && u.Host != "" {
					u.Path = "/"
				}
				f.Action = u.String()
			}
		}
		s.Find("input, select, textarea, button").Each(func(_ int, c *goquery.Selection) {
			name := c.AttrOr("name", "")
			if name == "" {
				return
			}
			fd := Field{Name: name}
			switch goquery.NodeName(c) {
			case "input":
				fd.Type = strings.ToLower(c.AttrOr("type", "text"))
				fd.Value = c.AttrOr("value", "")
				if fd.Type == "checkbox" || fd.Type == "radio" {
					if fd.Value == "" {
						fd.Value = "on"
					}
					_, fd.Checked = c.Attr("checked")
				}
			case "select":
				fd.Type = "select"
				c.Find("option").Each(func(j int, o *goquery.Selection) {
					v, ok := o.Attr("value")
					if !ok {
						v = strings.TrimSpace(o.Text())
					}
					fd.Options = append(fd.Options, v)
					if _, sel := o.Attr("selected"); sel || j == 0 {
						fd.Value = v
					}
				})
			case "textarea":
				fd.Type = "textarea"
				fd.Value = c.Text()
			case "button":
				fd.Type = "button"
				fd.Value = c.AttrOr("value", "")
			}
			f.Fields = append(f.Fields, fd)
		})
		forms = append(forms, f)
	})
	return forms, nil
}
