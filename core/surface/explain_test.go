package surface

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dwcrawl/dwcrawl/core/fetch"
	"github.com/dwcrawl/dwcrawl/core/page"
	"github.com/dwcrawl/dwcrawl/core/records"
	"github.com/dwcrawl/dwcrawl/store"
)

// labSite serves the saved result pages of one lab application
// (core/records/testdata/lab/APP) on loopback: "/" is its empty-query page,
// which holds the search form, and a request whose path and parameters
// (any order, "&" or ";") are a fixture's gets that fixture; any other
// gets the empty-query page.
func labSite(t *testing.T, app string) *httptest.Server {
	t.Helper()
	dir := filepath.Join("..", "records", "testdata", "lab", app)
	raw, err := os.ReadFile(filepath.Join(dir, "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	var idx []struct{ File, URL, Method string }
	if err := json.Unmarshal(raw, &idx); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, p := range idx {
		if u, err := url.Parse(p.URL); err == nil && p.Method != "POST" {
			files[requestKey(u)] = p.File
		}
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		file := "empty.html"
		if f, ok := files[requestKey(r.URL)]; ok {
			file = f
		}
		body, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// labForm fetches a lab site's form page and returns its first form with
// a query box, stored as a crawl stores it, and the fetcher.
func labForm(t *testing.T, site string) (store.Form, *fetch.Fetcher) {
	t.Helper()
	f, err := fetch.New(fetch.Options{AllowPrivate: true, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	resp, err := f.Fetch(context.Background(), site+"/")
	if err != nil {
		t.Fatal(err)
	}
	base, _ := url.Parse(resp.URL)
	p, err := page.Parse(resp.Body, "", base)
	if err != nil {
		t.Fatal(err)
	}
	for i, pf := range p.Forms {
		if page.QueryBox(pf.Fields) >= 0 {
			fields, _ := json.Marshal(pf.Fields)
			return store.Form{ID: "lab", PageURL: resp.URL, Index: i, Action: pf.Action, Method: pf.Method, Fields: fields}, f
		}
	}
	t.Fatalf("%s: no form with a query box", site)
	return store.Form{}, nil
}

// requestKey is a request's path and its parameters in order.
func requestKey(u *url.URL) string {
	v, _ := url.ParseQuery(strings.ReplaceAll(u.RawQuery, ";", "&"))
	return u.Path + "?" + v.Encode()
}

// TestExplain reads the first result page of a harvest of saved real result
// pages and checks the report: the region and how it came, the first
// records, the pager or why none, the page size and the counts.
func TestExplain(t *testing.T) {
	tests := []struct {
		name, app, query string
		sel              records.Selectors
		check            func(t *testing.T, x *Explain)
	}{
		{"learned, numbered pager, page-size select", "namazu", "learning", records.Selectors{}, func(t *testing.T, x *Explain) {
			if x.Region.Origin != OriginLearned || !x.Region.Found || x.Region.Item == "" || x.Region.Score < 2.5 || !strings.Contains(x.Region.Pattern, "/papers/") {
				t.Errorf("region %+v", x.Region)
			}
			if x.PageSize.Param != "max" || x.PageSize.Value != "100" || x.PageSize.Records != 100 || x.RecordCount != 100 {
				t.Errorf("page size %+v, %d records", x.PageSize, x.RecordCount)
			}
			if len(x.Records) != ExplainRecords || !strings.HasSuffix(x.Records[0].URL, "/papers/reference/crc/Woelk04.html") || x.Records[0].Title == "" || len(x.Records[0].Text) > 170 {
				t.Errorf("records %+v", x.Records)
			}
			if !x.Pager.Found || x.Pager.Control != records.ControlNumber || !strings.Contains(x.Pager.URL, "whence=100") || x.Pager.Origin != OriginLearned {
				t.Errorf("pager %+v", x.Pager)
			}
			if x.Totals.Total != 128 || len(x.Totals.Counts) == 0 || x.Totals.Counts[0].Role != CountTotal {
				t.Errorf("totals %+v", x.Totals)
			}
		}},
		{"overridden by a profile", "namazu", "learning",
			records.Selectors{Records: "dl > dt", RecordLink: "a", Next: "a:contains('[2]')", Source: "profile sites.lua"}, func(t *testing.T, x *Explain) {
				if x.Region.Origin != OriginOverride || x.Region.Source != "profile sites.lua" || x.Region.Selectors == nil || x.Region.Selectors.Records != "dl > dt" || x.RecordCount != 100 {
					t.Errorf("region %+v, %d records", x.Region, x.RecordCount)
				}
				if x.Pager.Origin != OriginOverride || !x.Pager.Found || x.Pager.Control != records.ControlSelector || !strings.Contains(x.Pager.URL, "whence=100") {
					t.Errorf("pager %+v", x.Pager)
				}
			}},
		{"no pager: why", "gitit", "god", records.Selectors{}, func(t *testing.T, x *Explain) {
			if x.Pager.Found || x.Pager.Origin != OriginNone || !strings.Contains(x.Pager.Why, "no link or button captioned next") || !strings.Contains(x.Pager.Why, "numbered 2") {
				t.Errorf("pager %+v", x.Pager)
			}
			if x.RecordCount != 46 || x.Totals.Total != 46 {
				t.Errorf("%d records, totals %+v", x.RecordCount, x.Totals)
			}
		}},
		{"override matches nothing", "gitit", "god", records.Selectors{Records: "table.results tr", Source: "profile x.lua"}, func(t *testing.T, x *Explain) {
			if x.Region.Origin != OriginOverride || x.RecordCount != 0 || !strings.Contains(x.Region.Why, `no element matches records "table.results tr"`) {
				t.Errorf("region %+v, %d records", x.Region, x.RecordCount)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := labSite(t, tt.app)
			sf, f := labForm(t, srv.URL)
			s, err := NewFormSearcher(sf, f, FormOptions{Selectors: tt.sel})
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			if s.Explain() != nil {
				t.Fatal("an explanation before any page")
			}
			// the empty query (an analysis query) is not the one explained
			for _, q := range []string{"", tt.query, "other"} {
				if _, err := s.Search(ctx, q, 1); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := s.Search(ctx, tt.query, 2); err != nil {
				t.Fatal(err)
			}
			x := s.Explain()
			if x == nil || x.Query != tt.query || x.Status != 200 || x.Method != "GET" {
				t.Fatalf("explain %+v", x)
			}
			tt.check(t, x)
			var b bytes.Buffer
			x.WriteText(&b)
			for _, want := range []string{"records region:", "pager:", "page size:", "total:"} {
				if !strings.Contains(b.String(), want) {
					t.Errorf("text lacks %q:\n%s", want, b.String())
				}
			}
			if tt.sel.Source != "" && !strings.Contains(b.String(), "overridden by "+tt.sel.Source) {
				t.Errorf("text does not name the override's source:\n%s", b.String())
			}
			raw, err := json.Marshal(x)
			if err != nil {
				t.Fatal(err)
			}
			for _, key := range []string{`"region":`, `"records":`, `"record_count":`, `"pager":`, `"page_size":`, `"totals":`, `"counts":`, `"origin":`} {
				if !bytes.Contains(raw, []byte(key)) {
					t.Errorf("JSON lacks %s: %s", key, raw)
				}
			}
			t.Logf("%s", b.String())
		})
	}
}
