package app

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/dwcrawl/dwcrawl/core/fetch"
	"github.com/dwcrawl/dwcrawl/core/keyword"
	"github.com/dwcrawl/dwcrawl/plugins"
	"github.com/dwcrawl/dwcrawl/store"
	"github.com/dwcrawl/dwcrawl/testbed/hiddendb"
)

func TestParseKeywordSpec(t *testing.T) {
	tests := []struct {
		spec    string
		ref     string
		vars    map[string]string
		wantErr string
	}{
		{"keyword/dblp", "keyword/dblp", map[string]string{}, ""},
		{" simweb?url=http://127.0.0.1:8080/db ", "simweb", map[string]string{"url": "http://127.0.0.1:8080/db"}, ""},
		{"./my.lua?action=http%3A%2F%2Fx.test%2Fs%3Fa%3D1&field=q&defaults=%7B%22cat%22%3A%22all%22%7D", "./my.lua",
			map[string]string{"action": "http://x.test/s?a=1", "field": "q", "defaults": `{"cat":"all"}`}, ""},
		{"?url=x", "", nil, "want an http(s) URL of a JSON search API, a plugin name"},
		{"ftp://x/db", "", nil, "want an http(s) URL"},
		{"htmlform?field=a&field=b", "", nil, "variable field given 2 times"},
		{"htmlform?a=%zz", "", nil, "variables: invalid URL escape"},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			ref, vars, err := parseKeywordSpec(tt.spec)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || ref != tt.ref || !reflect.DeepEqual(vars, tt.vars) {
				t.Fatalf("= %q %v %v, want %q %v", ref, vars, err, tt.ref, tt.vars)
			}
		})
	}
}

func TestLoopbackOnly(t *testing.T) {
	tests := []struct {
		vars map[string]string
		want bool
	}{
		{map[string]string{"url": "http://127.0.0.1:8080/db"}, true},
		{map[string]string{"action": "http://localhost/s", "form_page": "http://[::1]:9/", "field": "q"}, true},
		{map[string]string{"action": "http://127.0.0.1/s", "form_page": "https://example.org/"}, false},
		{map[string]string{"url": "https://dblp.org/search/publ/api"}, false},
		{map[string]string{"field": "q"}, false},
		{nil, false},
	}
	for _, tt := range tests {
		if got := loopbackOnly(tt.vars); got != tt.want {
			t.Errorf("loopbackOnly(%v) = %v, want %v", tt.vars, got, tt.want)
		}
	}
}

func TestKeywordPluginFetchPolicy(t *testing.T) {
	ctx := context.Background()
	recs := hiddendb.Synthetic(3, 200)
	srv := httptest.NewServer(hiddendb.New(recs, hiddendb.Options{K: 20, PageSize: 10, Seed: 3}).Handler("/db"))
	defer srv.Close()
	s, err := OpenInterface(ctx, "keyword/simweb?url="+srv.URL+"/db", NetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.(pluginSearcher).Close()
	if k, err := s.(keyword.TopKer).TopK(ctx); err != nil || k != 20 {
		t.Errorf("TopK = %d, %v (want the k the site reports)", k, err)
	}
	p, err := s.Search(ctx, recs[0].Fields["title"], 1)
	if err != nil || len(p.Docs) == 0 || p.Docs[0].URL == "" || p.Docs[0].Text == "" || p.Total != -1 {
		t.Errorf("Search = %+v, %v", p, err)
	}
	// A private address that is not loopback: the real-web policy refuses it
	// before any connection.
	kp, err := openKeywordPlugin(ctx, "keyword/simweb?url=http://10.1.2.3/db", plugins.KeywordOptions{Retries: -1, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer kp.Close()
	// (The fetcher's error crosses Lua as text.)
	if _, err := kp.Search(ctx, "deep", 1); err == nil || !strings.Contains(err.Error(), "10.1.2.3: "+fetch.ErrBlocked.Error()) {
		t.Errorf("private address: %v", err)
	}
}

// TestCookieJarPersists: the crawl's cookies land in the store and a jar
// opened on the same directory (a resumed crawl) sends them.
func TestCookieJarPersists(t *testing.T) {
	dir := t.TempDir()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	db, err := store.Open(dir, store.Options{Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	jar, err := cookieJar(db, log)
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse("http://shop.example.test/cart")
	jar.SetCookies(u, []*http.Cookie{{Name: "sid", Value: "42", Path: "/", MaxAge: 600}, {Name: "gone", Value: "x", MaxAge: -1}})
	db.Close()
	db, err = store.Open(dir, store.Options{Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	jar2, err := cookieJar(db, log)
	if err != nil {
		t.Fatal(err)
	}
	got := jar2.Cookies(&url.URL{Scheme: "http", Host: "shop.example.test", Path: "/search"})
	if len(got) != 1 || got[0].Name != "sid" || got[0].Value != "42" {
		t.Errorf("restored cookies %v", got)
	}
}
