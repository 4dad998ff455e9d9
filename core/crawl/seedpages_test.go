package crawl

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/dwcrawl/dwcrawl/core/profile"
)

// TestDeepSeedPages: a seed naming a page below its site's homepage (one
// no link leads to, with a query string) is fetched when its site is
// explored, by both two-stage strategies, and its form is found.
func TestDeepSeedPages(t *testing.T) {
	w := newHandWeb()
	w.add("http://deep.example/", pageHTML("used cars home", []string{"/about"}, ""))
	w.add("http://deep.example/about", pageHTML("about us", nil, ""))
	w.add("http://deep.example/?p=cars.git;a=summary", pageHTML("cars repository", nil, "/search/cars/find"))
	f := w.serve(t)
	for _, strategy := range []string{SmartCrawler, SCDI} {
		for _, seed := range []string{"http://deep.example/?p=cars.git;a=summary", "http://deep.example/"} {
			t.Run(fmt.Sprint(strategy, " ", seed), func(t *testing.T) {
				c := newHandCrawl(t, t.TempDir(), f, strategy, profile.Stop{}, []string{seed}, nil)
				sn, err := c.Run(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				checkCounters(t, c.db, sn)
				want := int64(0)
				if seed != "http://deep.example/" {
					want = 1
				}
				if sn.RelevantForms != want {
					t.Errorf("%d relevant forms, want %d", sn.RelevantForms, want)
				}
				_, fetched, _ := c.db.GetURL("http://deep.example/?p=cars.git;a=summary")
				if fetched != (want == 1) {
					t.Errorf("deep seed page fetched: %v, want %v", fetched, want == 1)
				}
			})
		}
	}
}

func TestDeepSeedPagesMap(t *testing.T) {
	got := deepSeedPages([]string{"http://a.example/x?b=2&a=1", "http://a.example/", "http://A.example/x?a=1&b=2", "http://b.example", "not a url\x7f"})
	if len(got) != 1 || !slices.Equal(got["http://a.example"], []string{"http://a.example/x?a=1&b=2"}) {
		t.Fatalf("deep seeds %v, want one page of a.example", got)
	}
}
