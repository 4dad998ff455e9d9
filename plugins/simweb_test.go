package plugins

import (
	"context"
	"net/http"
	"reflect"
	"testing"

	"github.com/dwcrawl/dwcrawl/core/script"
	"github.com/dwcrawl/dwcrawl/testbed/simweb"
)

// clientDoer adapts an *http.Client to script.HTTPDoer.
type clientDoer struct{ c *http.Client }

func (d clientDoer) Do(ctx context.Context, req *http.Request) (*http.Response, error) {
	return d.c.Do(req.WithContext(ctx))
}

// TestSimwebPluginAgainstSimweb runs search/simweb against the simulated
// web's engine, in process (no sockets), at its default base URL.
func TestSimwebPluginAgainstSimweb(t *testing.T) {
	cfg := simweb.SmallConfig()
	cfg.Seed = 7
	t.Logf("seed %d", cfg.Seed)
	w, err := simweb.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	pool := script.NewPool(PoolOptions(script.Options{HTTP: clientDoer{w.Client()}, Env: envMap(nil)}))
	defer pool.Close()
	ctx := context.Background()
	e, _ := openEngine(t, pool, "search/simweb", SearchOptions{})

	urls := func(sp SearchPage) []string {
		var out []string
		for _, r := range sp.Results {
			out = append(out, r.URL)
		}
		return out
	}
	// The adapter keeps repeated URLs once (the engine lists a page once
	// per link it has to the target).
	truth := func(q string, page int) []string {
		var out []string
		seen := map[string]bool{}
		for _, h := range w.EngineSearch(q, page).Results {
			if !seen[h.URL] {
				seen[h.URL] = true
				out = append(out, h.URL)
			}
		}
		return out
	}
	var linked int
	for _, domain := range []string{"auto", "book", "job"} {
		for _, seed := range w.Seeds(domain, 3) {
			sp, err := e.Links(ctx, seed, 1)
			if err != nil {
				t.Fatal(err)
			}
			if want := truth("link:"+seed, 1); !reflect.DeepEqual(urls(sp), want) {
				t.Errorf("Links(%s) = %v, want %v", seed, urls(sp), want)
			}
			linked += len(sp.Results)
			host := seed[len("http://") : len(seed)-1]
			sp, err = e.Site(ctx, host, 1)
			if err != nil {
				t.Fatal(err)
			}
			if want := truth("site:"+host, 1); len(sp.Results) == 0 || !reflect.DeepEqual(urls(sp), want) {
				t.Errorf("Site(%s) = %v, want %v", host, urls(sp), want)
			}
		}
		sp, err := e.Search(ctx, domain, 1)
		if err != nil {
			t.Fatal(err)
		}
		if want := truth(domain, 1); !reflect.DeepEqual(urls(sp), want) || sp.Next != w.EngineSearch(domain, 1).Next {
			t.Errorf("Search(%s) = %v next %v, want %v", domain, urls(sp), sp.Next, want)
		}
	}
	if linked == 0 {
		t.Error("no seed site has an in-link in the simulated web")
	}
	t.Logf("stats %+v", e.Stats())
}
