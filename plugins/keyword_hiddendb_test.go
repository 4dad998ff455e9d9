package plugins

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/dwcrawl/dwcrawl/core/script"
	"github.com/dwcrawl/dwcrawl/testbed/hiddendb"
)

// testDB builds a small hidden database of generated records.
func testDB(t *testing.T, seed int64, opt hiddendb.Options) *hiddendb.DB {
	t.Helper()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewSource(seed))
	words := strings.Fields("deep web crawl query keyword hidden database form search result page record " +
		"table index sample budget ranking harvest surface enrich site link frontier")
	var recs []hiddendb.Record
	for i := 0; i < 300; i++ {
		var title []string
		for _, j := range rng.Perm(len(words))[:2+rng.Intn(5)] {
			title = append(title, words[j])
		}
		recs = append(recs, hiddendb.Record{ID: fmt.Sprintf("rec %d", i), Order: []string{"title", "year"},
			Fields: map[string]string{"title": strings.Join(title, " "), "year": fmt.Sprint(1990 + rng.Intn(30))}})
	}
	opt.Seed = seed
	return hiddendb.New(recs, opt)
}

// hiddenQueries cover many matches (cut at k), a few, one page, none.
var hiddenQueries = []string{"web", "deep crawl", "the hidden database", "frontier harvest surface", "zzz nothing"}

// walk reads every page of query through ki.
func walk(t *testing.T, ki *KeywordInterface, query string) (ids, urls []string, pages []KeywordPage) {
	t.Helper()
	for page := 1; page <= 50; page++ {
		kp, err := ki.Search(context.Background(), query, page)
		if err != nil {
			t.Fatalf("%q page %d: %v", query, page, err)
		}
		pages = append(pages, kp)
		for _, r := range kp.Records {
			ids = append(ids, r.ID)
			urls = append(urls, r.URL)
		}
		if !kp.Next {
			break
		}
	}
	return ids, urls, pages
}

// truth is the record URLs of q's top k, as the database links them.
func truth(db *hiddendb.DB, base, q string) (ids, urls []string) {
	for _, i := range db.TopK(q) {
		id := db.Record(i).ID
		ids = append(ids, id)
		urls = append(urls, base+"/record/"+url.PathEscape(id))
	}
	return ids, urls
}

func TestSimwebKeywordAgainstHiddendb(t *testing.T) {
	db := testDB(t, 11, hiddendb.Options{K: 25, PageSize: 10, ShowTotal: true})
	srv := httptest.NewServer(db.Handler("/db"))
	defer srv.Close()
	pool := script.NewPool(PoolOptions(script.Options{HTTP: loopbackDoer{srv.Client()}, Env: envMap(map[string]string{"DWCRAWL_KEYWORD_URL": srv.URL + "/db"})}))
	defer pool.Close()
	ki, _ := openKeyword(t, pool, "keyword/simweb", KeywordOptions{})
	if ki.Info().K != 0 {
		t.Errorf("K known before any query: %d", ki.Info().K)
	}
	for _, q := range hiddenQueries {
		ids, urls, pages := walk(t, ki, q)
		wantIDs, wantURLs := truth(db, srv.URL+"/db", q)
		if !reflect.DeepEqual(ids, wantIDs) || !reflect.DeepEqual(urls, wantURLs) {
			t.Errorf("%q: ids %q\nwant %q", q, ids, wantIDs)
		}
		if pages[0].Total != db.Count(q) {
			t.Errorf("%q: total %d, want %d", q, pages[0].Total, db.Count(q))
		}
		if len(ids) > 0 && pages[0].Records[0].Text != db.Text(db.TopK(q)[0]) {
			t.Errorf("%q: text %q", q, pages[0].Records[0].Text)
		}
	}
	if info := ki.Info(); info.K != 25 || info.PageSize != 10 || !info.StopWords || !info.Conjunctive {
		t.Errorf("info after queries: %+v", info)
	}
}

// navMiddleware adds a navigation list and a footer to every HTML page of
// h, as real sites do: the list also stands on the form page (so only the
// form page tells it apart), the footer is recognised by its element.
func navMiddleware(h http.Handler, nav string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		body := rec.Body.String()
		if strings.HasPrefix(rec.Header().Get("Content-Type"), "text/html") {
			body = strings.Replace(body, "<body>", "<body>"+nav, 1)
			body = strings.Replace(body, "</body>", `<footer><ul><li><a href="/terms">Terms</a></li><li><a href="/privacy">Privacy</a></li><li><a href="/jobs">Jobs</a></li></ul></footer></body>`, 1)
		}
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		io.WriteString(w, body)
	})
}

func htmlFormSite(t *testing.T, db *hiddendb.DB) *httptest.Server {
	t.Helper()
	var nav strings.Builder
	nav.WriteString(`<ul class="categories">`)
	for i := 1; i <= 30; i++ { // more links than any result page holds
		fmt.Fprintf(&nav, `<li><a href="/category/%d">Category %d</a></li>`, i, i)
	}
	nav.WriteString(`</ul>`)
	mux := http.NewServeMux()
	mux.Handle("/db/", db.Handler("/db"))
	for _, method := range []string{"get", "post"} {
		mux.HandleFunc("/db/form-"+method, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, `<!DOCTYPE html><html><head><title>Search</title></head><body>
<form action="/db/search" method="%s"><input type="text" name="q"><input type="hidden" name="_src" value="home">
<select name="cat"><option value="" selected>All</option><option value="book">Books</option></select>
<input type="submit" name="submit" value="Search"></form></body></html>`, method)
		})
	}
	// The static pages (other layouts) are served without the navigation.
	outer := http.NewServeMux()
	outer.Handle("/", navMiddleware(mux, nav.String()))
	outer.HandleFunc("/static/", func(w http.ResponseWriter, r *http.Request) {
		name := map[string]string{"/static/table": "results_table.html", "/static/more": "results_div.html"}[r.URL.Path]
		if name == "" {
			http.NotFound(w, r)
			return
		}
		b, err := os.ReadFile(filepath.Join("testdata", "keyword", name))
		if err != nil {
			t.Error(err)
		}
		w.Header().Set("Content-Type", "text/html")
		w.Write(b)
	})
	srv := httptest.NewServer(outer)
	t.Cleanup(srv.Close)
	return srv
}

func TestHTMLFormAgainstHiddendb(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		method    string
		showTotal bool
		defaults  string
	}{
		{"GET", true, `{"_src":"home","cat":"","submit":"Search"}`},
		{"POST", false, `{"_src":"home","cat":"","_tags":["a","b"]}`},
	} {
		t.Run(tt.method, func(t *testing.T) {
			db := testDB(t, 5, hiddendb.Options{K: 25, PageSize: 10, ShowTotal: tt.showTotal})
			srv := htmlFormSite(t, db)
			pool := script.NewPool(PoolOptions(script.Options{HTTP: loopbackDoer{srv.Client()}, Env: envMap(nil)}))
			defer pool.Close()
			ki, _ := openKeyword(t, pool, "keyword/htmlform", KeywordOptions{Vars: map[string]string{
				"action": srv.URL + "/db/search", "method": tt.method, "field": "q", "defaults": tt.defaults,
				"form_page": srv.URL + "/db/form-" + strings.ToLower(tt.method), "k": "25",
			}})
			for _, q := range hiddenQueries {
				_, urls, pages := walk(t, ki, q)
				_, want := truth(db, srv.URL+"/db", q)
				if !reflect.DeepEqual(urls, want) {
					t.Errorf("%q: %d urls %q\nwant %d %q", q, len(urls), urls, len(want), want)
				}
				wantTotal := -1
				if tt.showTotal && db.Count(q) > 0 {
					wantTotal = db.Count(q)
				}
				if pages[0].Total != wantTotal {
					t.Errorf("%q: total %d, want %d", q, pages[0].Total, wantTotal)
				}
				if len(urls) > 0 {
					r := pages[0].Records[0]
					title := db.Title(db.TopK(q)[0])
					if r.Fields["title"] != title || !strings.HasPrefix(r.Text, title) || r.Fields["snippet"] == "" {
						t.Errorf("%q: first record %+v, want title %q", q, r, title)
					}
				}
			}
			// Pages are reached by following next links; asking for a page
			// far beyond the last one answers an empty last page.
			kp, err := ki.Search(ctx, "web", 9)
			if err != nil || len(kp.Records) != 0 || kp.Next {
				t.Errorf("page 9 = %+v, %v", kp, err)
			}
			if info := ki.Info(); info.K != 25 || info.PageSize != 0 {
				t.Errorf("info %+v", info)
			}
			// fetch reads the record page's fields.
			_, urls, _ := walk(t, ki, "deep crawl")
			rec, err := ki.Fetch(ctx, KeywordRecord{ID: urls[0], URL: urls[0], Fields: map[string]string{"snippet": "s"}})
			i := db.TopK("deep crawl")[0]
			if err != nil || rec.Fields["title"] != db.Record(i).Fields["title"] || rec.Fields["year"] != db.Record(i).Fields["year"] ||
				rec.Fields["snippet"] != "s" || !strings.Contains(rec.Text, db.Record(i).Fields["title"]) {
				t.Errorf("Fetch = %+v, %v; want the fields of %+v", rec, err, db.Record(i))
			}
		})
	}
}

// TestHTMLFormHeuristics runs the result-link and next-link heuristics on
// a table layout and a div layout without rel=next.
func TestHTMLFormHeuristics(t *testing.T) {
	db := testDB(t, 5, hiddendb.Options{})
	srv := htmlFormSite(t, db)
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil)) // the missing form page is logged
	pool := script.NewPool(PoolOptions(script.Options{HTTP: loopbackDoer{srv.Client()}, Env: envMap(nil), Logger: quiet}))
	defer pool.Close()
	ctx := context.Background()
	ki, _ := openKeyword(t, pool, "htmlform", KeywordOptions{Vars: map[string]string{"action": srv.URL + "/static/table", "field": "q", "form_page": srv.URL + "/static/none"}})
	ids := func(kp KeywordPage) []string {
		var out []string
		for _, r := range kp.Records {
			out = append(out, strings.TrimPrefix(r.ID, srv.URL))
		}
		return out
	}
	kp, err := ki.Search(ctx, "x", 1)
	if want := []string{"/item?id=1", "/item?id=2", "/static/item?id=3"}; err != nil || !reflect.DeepEqual(ids(kp), want) || !kp.Next || kp.Total != 1234 {
		t.Errorf("table page = %q next %v total %d, %v; want %q", ids(kp), kp.Next, kp.Total, err, want)
	}
	if r := kp.Records[1]; r.Fields["title"] != "Second item" || r.Fields["snippet"] != "2002" || r.Text != "Second item 2002" {
		t.Errorf("table record %+v", r)
	}
	kp, err = ki.Search(ctx, "x", 2)
	if want := []string{"/book/42-deep-web", "/book/43-hidden-data"}; err != nil || !reflect.DeepEqual(ids(kp), want) || kp.Next || kp.Total != -1 {
		t.Errorf("div page = %q next %v total %d, %v; want %q", ids(kp), kp.Next, kp.Total, err, want)
	}
	// A fresh query asked for page 2 first walks from page 1.
	kp, err = ki.Search(ctx, "y", 2)
	if err != nil || len(kp.Records) != 2 {
		t.Errorf("page 2 of a new query = %+v, %v", kp, err)
	}
	// result_selector and next_selector replace the heuristics.
	ks, _ := openKeyword(t, pool, "htmlform", KeywordOptions{Vars: map[string]string{"action": srv.URL + "/static/table", "field": "q",
		"result_selector": "ul:not(.pager) a", "next_selector": "a[href*=nowhere]"}})
	kp, err = ks.Search(ctx, "x", 1)
	if want := []string{"/about", "/contact"}; err != nil || !reflect.DeepEqual(ids(kp), want) || kp.Next {
		t.Errorf("with selectors = %q next %v, %v; want %q", ids(kp), kp.Next, err, want)
	}
	// Errors: a missing page is a plain failure, a bad defaults variable a
	// configuration error; neither is retried.
	for _, tt := range []struct {
		vars map[string]string
		code string
		msg  string
	}{
		{map[string]string{"action": srv.URL + "/static/missing", "field": "q"}, CodeFailed, "HTTP 404"},
		{map[string]string{"action": srv.URL + "/static/table", "field": "q", "defaults": "[1]"}, CodeConfig, "variable defaults: want a JSON object"},
		{map[string]string{"action": srv.URL + "/static/table", "field": "q", "method": "PUT"}, CodeConfig, "variable method: want GET or POST, got PUT"},
	} {
		ke, clk := openKeyword(t, pool, "htmlform", KeywordOptions{Vars: tt.vars})
		_, err := ke.Search(ctx, "x", 1)
		var e *Error
		if !errors.As(err, &e) || e.Code != tt.code || !strings.Contains(err.Error(), tt.msg) || len(clk.Sleeps()) != 0 {
			t.Errorf("vars %v: err = %v, want code %s with %q", tt.vars, err, tt.code, tt.msg)
		}
	}
}
