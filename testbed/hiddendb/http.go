package hiddendb

import (
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/dwcrawl/dwcrawl/core/keyword"
)

// QueryFromForm builds the keyword query from submitted form values: every
// non-empty value joined with spaces, except "page", "submit" and names that
// start with "_" (hidden bookkeeping fields). Multi-attribute forms thus
// filter conjunctively on their selects.
func QueryFromForm(v url.Values) string {
	var parts []string
	for name, vals := range v {
		if name == "page" || name == "submit" || strings.HasPrefix(name, "_") {
			continue
		}
		for _, s := range vals {
			if s = strings.TrimSpace(s); s != "" {
				parts = append(parts, s)
			}
		}
	}
	// map order is random; the query is conjunctive so order only affects display
	sort.Strings(parts)
	return strings.Join(parts, " ")
}

// Handler serves the database under prefix (e.g. "/db" or ""):
//
//	GET  prefix/api/search?q=&page=   JSON (keyword.APIResult)
//	GET/POST prefix/search            HTML result list with a rel="next" link
//	GET  prefix/record/{id}           HTML record page
//	GET  prefix/                      HTML search form
func (db *DB) Handler(prefix string) http.Handler {
	prefix = strings.TrimRight(prefix, "/")
	mux := http.NewServeMux()
	mux.HandleFunc(prefix+"/api/search", db.serveAPI(prefix))
	mux.HandleFunc(prefix+"/search", db.serveHTML(prefix))
	mux.HandleFunc(prefix+"/record/", db.serveRecord(prefix))
	mux.HandleFunc(prefix+"/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != prefix+"/" && r.URL.Path != prefix {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		searchTmpl.Execute(w, map[string]any{"Action": prefix + "/search", "Title": "Search"})
	})
	return mux
}

func pageParam(r *http.Request) int {
	p, err := strconv.Atoi(r.FormValue("page"))
	if err != nil || p < 1 {
		return 1
	}
	return p
}

func (db *DB) recordURL(r *http.Request, prefix, id string) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host + prefix + "/record/" + url.PathEscape(id)
}

func (db *DB) serveAPI(prefix string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		q := r.FormValue("q")
		page := pageParam(r)
		res := db.Search(q, page)
		out := keyword.APIResult{Query: q, Page: page, PageSize: db.opt.PageSize, K: db.opt.K, Next: res.Next, Records: []keyword.APIRecord{}}
		if db.opt.ShowTotal {
			t := res.Total
			out.Total = &t
		}
		for _, h := range res.Records {
			out.Records = append(out.Records, keyword.APIRecord{ID: h.ID, URL: db.recordURL(r, prefix, h.ID), Fields: h.Fields, Text: db.Text(h.Index)})
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(out)
	}
}

// Title is the record's display title: its title/name field, else its first field.
func (db *DB) Title(i int) string {
	r := db.recs[i]
	for _, k := range []string{"title", "Title", "name", "Name", "lemmas"} {
		if v := r.Fields[k]; v != "" {
			return v
		}
	}
	for _, k := range db.fieldOrder(r) {
		if k != "id" && r.Fields[k] != "" {
			return r.Fields[k]
		}
	}
	return r.ID
}

type htmlHit struct {
	Rank    int
	URL     string
	Title   string
	Snippet string
}

func (db *DB) serveHTML(prefix string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseForm(); err != nil {
			http.Error(w, "bad form: "+err.Error(), http.StatusBadRequest)
			return
		}
		q := QueryFromForm(r.Form)
		page := pageParam(r)
		res := db.Search(q, page)
		data := map[string]any{"Action": prefix + "/search", "Query": q, "Title": fmt.Sprintf("Results for %q", q), "Page": page}
		if db.opt.ShowTotal {
			data["Total"] = res.Total
		}
		var hits []htmlHit
		for _, h := range res.Records {
			snip := db.Text(h.Index)
			if len(snip) > 200 {
				snip = snip[:200] + "…"
			}
			hits = append(hits, htmlHit{Rank: h.Rank, URL: prefix + "/record/" + url.PathEscape(h.ID), Title: db.Title(h.Index), Snippet: snip})
		}
		data["Hits"] = hits
		if res.Next {
			nv := url.Values{}
			for k, vs := range r.Form {
				if k != "page" {
					nv[k] = vs
				}
			}
			nv.Set("page", strconv.Itoa(page+1))
			data["Next"] = prefix + "/search?" + nv.Encode()
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		resultsTmpl.Execute(w, data)
	}
}

func (db *DB) serveRecord(prefix string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, err := url.PathUnescape(strings.TrimPrefix(r.URL.EscapedPath(), prefix+"/record/"))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		i, ok := db.byID[id]
		if !ok {
			http.NotFound(w, r)
			return
		}
		type kv struct{ K, V string }
		var fields []kv
		for _, k := range db.fieldOrder(db.recs[i]) {
			if v := db.recs[i].Fields[k]; v != "" {
				fields = append(fields, kv{k, v})
			}
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		recordTmpl.Execute(w, map[string]any{"Title": db.Title(i), "ID": id, "Fields": fields, "Home": prefix + "/"})
	}
}

var searchTmpl = template.Must(template.New("s").Parse(`<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>{{.Title}}</title></head><body>
<form action="{{.Action}}" method="get" role="search"><label for="q">Search</label>
<input type="text" id="q" name="q" value="{{.Query}}"><input type="submit" value="Search"></form>
</body></html>
`))

var resultsTmpl = template.Must(template.New("r").Parse(`<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>{{.Title}}</title></head><body>
<form action="{{.Action}}" method="get" role="search"><input type="text" name="q" value="{{.Query}}"><input type="submit" value="Search"></form>
{{with .Total}}<p class="total">{{.}} results</p>{{end}}
{{if .Hits}}<ol class="results">{{range .Hits}}
<li class="result" value="{{.Rank}}"><a class="result-link" href="{{.URL}}">{{.Title}}</a><p class="snippet">{{.Snippet}}</p></li>{{end}}
</ol>{{else}}<p class="empty">No results.</p>{{end}}
{{with .Next}}<a rel="next" class="next" href="{{.}}">Next page</a>{{end}}
</body></html>
`))

var recordTmpl = template.Must(template.New("d").Parse(`<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>{{.Title}}</title></head><body>
<h1>{{.Title}}</h1><dl class="record" data-id="{{.ID}}">{{range .Fields}}
<dt>{{.K}}</dt><dd>{{.V}}</dd>{{end}}
</dl><a href="{{.Home}}">New search</a></body></html>
`))
