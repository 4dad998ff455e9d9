package crawl

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/dwcrawl/dwcrawl/core/fetch"
	"github.com/dwcrawl/dwcrawl/core/profile"
	"github.com/dwcrawl/dwcrawl/store"
)

// outageFetcher fails every URL of the hosts in down as a DNS failure
// would, and counts what it was asked for.
type outageFetcher struct {
	Fetcher
	mu    sync.Mutex
	down  map[string]bool
	asked []string
}

func (o *outageFetcher) Fetch(ctx context.Context, u string) (*fetch.Response, error) {
	o.mu.Lock()
	o.asked = append(o.asked, u)
	down := false
	for h := range o.down {
		down = down || strings.Contains(u, "://"+h+"/")
	}
	o.mu.Unlock()
	if down {
		host := strings.SplitN(strings.SplitN(u, "://", 2)[1], "/", 2)[0]
		err := &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}}
		return &fetch.Response{URL: u}, fmt.Errorf("fetch %s: robots.txt of %s could not be fetched: %w", u, host, err)
	}
	return o.Fetcher.Fetch(ctx, u)
}

func (o *outageFetcher) askedFor(host string) int {
	o.mu.Lock()
	defer o.mu.Unlock()
	n := 0
	for _, u := range o.asked {
		if strings.Contains(u, "://"+host+"/") {
			n++
		}
	}
	return n
}

func TestFailuresRecordedAndRetried(t *testing.T) {
	w := newHandWeb()
	w.addLayeredSite("http://good.example", 2, 1, func(d, i int) bool { return i == 0 })
	w.addLayeredSite("http://flaky.example", 2, 1, func(d, i int) bool { return i == 1 })
	f := w.serve(t)
	dir := t.TempDir()
	seeds := []string{"http://good.example/", "http://flaky.example/"}
	ctx := context.Background()

	run := func(down ...string) (Snapshot, *outageFetcher, *handCrawl) {
		t.Helper()
		of := &outageFetcher{Fetcher: f, down: map[string]bool{}}
		for _, h := range down {
			of.down[h] = true
		}
		c := newHandCrawl(t, dir, of, SmartCrawler, profile.Stop{}, seeds, nil)
		sn, err := c.Run(ctx)
		if err != nil {
			t.Fatal(err)
		}
		checkCounters(t, c.db, sn)
		return sn, of, c
	}

	// run 1: flaky.example does not resolve
	sn, _, c := run("flaky.example")
	if sn.Failures["dns"] != 1 || len(sn.Failures) != 1 || sn.Failed != 1 {
		t.Fatalf("run 1 failures %v (failed %d), want dns 1", sn.Failures, sn.Failed)
	}
	if !strings.Contains(sn.Summary(), "failures by cause    dns 1\n") {
		t.Errorf("summary:\n%s", sn.Summary())
	}
	fl, ok, err := c.db.GetFailure("http://flaky.example/")
	if err != nil || !ok || fl.Cause != "dns" || fl.Runs != 1 || !fl.Seed || !strings.Contains(fl.Error, "no such host") {
		t.Fatalf("failure record %+v %v %v", fl, ok, err)
	}
	if strings.Contains(fl.Error, "disallowed by robots.txt") {
		t.Errorf("a DNS failure reads %q", fl.Error)
	}
	if _, err := c.SeedFailures(); err != nil {
		t.Errorf("one seed of two failed: SeedFailures says %v", err)
	}
	c.db.Close()

	// run 2: it resolves again; its site is explored, the failure cleared
	sn, of, c := run()
	if of.askedFor("flaky.example") == 0 {
		t.Fatal("the failed seed was not retried")
	}
	if len(sn.Failures) != 0 || sn.Failed != 0 {
		t.Errorf("run 2 failures %v, failed %d: want none", sn.Failures, sn.Failed)
	}
	if sn.RelevantForms != 2 || sn.Sites != 2 || sn.RelevantSites != 2 || sn.DeepSites != 2 {
		t.Errorf("run 2: %d relevant forms, %d sites (%d relevant, %d deep), want 2, 2, 2, 2", sn.RelevantForms, sn.Sites, sn.RelevantSites, sn.DeepSites)
	}
	if _, ok, _ := c.db.GetFailure("http://flaky.example/"); ok {
		t.Error("failure record kept after a successful fetch")
	}
	if of.askedFor("good.example") != 0 {
		t.Errorf("run 2 fetched good.example again %d times", of.askedFor("good.example"))
	}
	c.db.Close()

	// run 3: nothing left to retry, nothing fetched
	sn, of, c = run()
	if len(of.asked) != 0 || sn.DeepSites != 2 || sn.Sites != 2 {
		t.Errorf("run 3 fetched %v; deep %d sites %d", of.asked, sn.DeepSites, sn.Sites)
	}
	c.db.Close()
}

func TestRetryLimitAndNoSeed(t *testing.T) {
	for _, strategy := range []string{SmartCrawler, BestFirst} {
		t.Run(strategy, func(t *testing.T) { testRetryLimit(t, strategy) })
	}
}

func testRetryLimit(t *testing.T, strategy string) {
	w := newHandWeb()
	w.addLayeredSite("http://down.example", 1, 1, nil)
	f := w.serve(t)
	dir := t.TempDir()
	for r := 1; r <= MaxFailedRuns+1; r++ {
		of := &outageFetcher{Fetcher: f, down: map[string]bool{"down.example": true}}
		c := newHandCrawl(t, dir, of, strategy, profile.Stop{}, []string{"http://down.example/"}, nil)
		sn, err := c.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		wantAsked := 1
		if r > MaxFailedRuns {
			wantAsked = 0
		}
		if got := of.askedFor("down.example"); got != wantAsked {
			t.Errorf("run %d asked %d times for the dead seed, want %d", r, got, wantAsked)
		}
		fails, err := c.SeedFailures()
		var se *SeedError
		if !errors.As(err, &se) || !errors.Is(err, ErrNoSeed) || len(fails) != 1 || !slices.Equal(se.Causes(), []string{"dns"}) {
			t.Fatalf("run %d: SeedFailures = %v, %v", r, fails, err)
		}
		if want := min(r, MaxFailedRuns); fails[0].Runs != want || sn.Failures["dns"] != 1 {
			t.Errorf("run %d: runs %d (want %d), failures %v", r, fails[0].Runs, want, sn.Failures)
		}
		c.db.Close()
	}
}

// scoped returns p's scope as lua declares it (compiled by the loader).
func scoped(t *testing.T, lua string) profile.Scope {
	t.Helper()
	p, err := profile.LoadSource(context.Background(), filepath.Join(t.TempDir(), "s.lua"),
		[]byte("return { keywords = {'car'}, seeds = {'a.example'}, scope = "+lua+" }"))
	if err != nil {
		t.Fatal(err)
	}
	return p.Scope
}

func TestScopeRules(t *testing.T) {
	w := newHandWeb()
	w.addLayeredSite("http://shop.example", 4, 2, func(d, i int) bool { return d == 2 },
		"/private/admin", "http://elsewhere.example/")
	w.add("http://shop.example/private/admin", pageHTML("admin", nil, "/search/cars/admin"))
	w.addLayeredSite("http://elsewhere.example", 1, 1, func(int, int) bool { return true })
	f := w.serve(t)
	tests := []struct {
		name, scope string
		// pages fetched per host, failures by cause
		shop, elsewhere int
		scopeFails      int
	}{
		{"deny path", `{ deny = { '/private/' } }`, 1 + 8, 2, 1},
		{"allow hosts", `{ allow_hosts = { 'shop.*' } }`, 1 + 8 + 1, 0, 1},
		// the homepage and two of its five in-site links are fetched (one
		// is /private/admin, without links); the other three and the
		// one link below the other page fetched are refused
		{"host cap", `{ max_pages_per_host = 3 }`, 3, 2, 3 + 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cf := &countingFetcher{Fetcher: f}
			sc := scoped(t, tt.scope)
			c := newHandCrawl(t, t.TempDir(), cf, SmartCrawler, profile.Stop{}, []string{"http://shop.example/"},
				func(p *profile.Profile, _ *Deps) { p.Scope = sc })
			sn, err := c.Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			checkCounters(t, c.db, sn)
			shop, other := 0, 0
			for _, u := range cf.urls {
				switch {
				case strings.HasPrefix(u, "http://shop.example/"):
					shop++
				case strings.HasPrefix(u, "http://elsewhere.example/"):
					other++
				}
				if tt.name == "deny path" && strings.Contains(u, "/private/") {
					t.Errorf("fetched %s, which scope.deny refuses", u)
				}
			}
			if shop != tt.shop || other != tt.elsewhere || sn.Failures[CauseScope] != int64(tt.scopeFails) {
				t.Errorf("fetched %d shop + %d elsewhere pages, scope failures %d (%v); want %d + %d, %d",
					shop, other, sn.Failures[CauseScope], sn.Failures, tt.shop, tt.elsewhere, tt.scopeFails)
			}
			n := 0
			c.db.ScanFailures("", func(f store.Failure) error {
				if f.Cause != CauseScope || !strings.Contains(f.Error, "out of scope") {
					t.Errorf("failure %+v", f)
				}
				n++
				return nil
			})
			if n != tt.scopeFails {
				t.Errorf("%d failure records, want %d", n, tt.scopeFails)
			}
		})
	}
}

func gzipString(s string) string {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(s))
	zw.Close()
	return b.String()
}

// TestSitemapsFeedTheSite: a search page no link leads to is found through
// the sitemap index named in robots.txt (gzip sitemap inside).
func TestSitemapsFeedTheSite(t *testing.T) {
	w := newHandWeb()
	w.add("http://maps.example/", pageHTML("used cars home", []string{"/about"}, ""))
	w.add("http://maps.example/about", pageHTML("about us", nil, ""))
	w.add("http://maps.example/robots.txt", "User-agent: *\nDisallow: /private/\nSitemap: http://maps.example/maps/index.xml\n")
	w.add("http://maps.example/maps/index.xml", `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<sitemap><loc>http://maps.example/maps/pages.xml.gz</loc></sitemap></sitemapindex>`)
	w.add("http://maps.example/maps/pages.xml.gz", gzipString(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<url><loc>http://maps.example/inventory/find</loc></url>
<url><loc>http://maps.example/private/hidden</loc></url>
<url><loc>http://other.example/listed</loc></url>
</urlset>`))
	w.add("http://maps.example/inventory/find", pageHTML("find a car", nil, "/search/cars/find"))
	w.add("http://maps.example/private/hidden", pageHTML("hidden", nil, "/search/cars/hidden"))
	f := w.serve(t)
	for _, enabled := range []bool{true, false} {
		t.Run(fmt.Sprint("enabled=", enabled), func(t *testing.T) {
			c := newHandCrawl(t, t.TempDir(), f, SmartCrawler, profile.Stop{}, []string{"http://maps.example/"},
				func(p *profile.Profile, _ *Deps) { p.Sitemaps.Enabled = enabled })
			sn, err := c.Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			checkCounters(t, c.db, sn)
			want, wantURLs := int64(1), int64(2)
			if !enabled {
				want, wantURLs = 0, 0
			}
			if sn.RelevantForms != want || sn.SitemapURLs != wantURLs {
				t.Errorf("%d relevant forms, %d sitemap URLs; want %d, %d", sn.RelevantForms, sn.SitemapURLs, want, wantURLs)
			}
			if _, ok, _ := c.db.GetURL("http://maps.example/private/hidden"); ok != enabled {
				t.Errorf("robots-disallowed sitemap URL known: %v", ok)
			}
			if enabled && sn.Failures["robots"] != 1 {
				t.Errorf("failures %v, want the robots.txt refusal of /private/hidden", sn.Failures)
			}
		})
	}
}
