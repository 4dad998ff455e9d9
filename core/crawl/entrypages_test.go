package crawl

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/dwcrawl/dwcrawl/core/profile"
)

// wordPages finds a page on topic when its text names word.
type wordPages struct{ word string }

func (w wordPages) Relevant(text string) (bool, float64) {
	if strings.Contains(text, w.word) {
		return true, 1
	}
	return false, 0
}

// TestEntryPages: a site whose root leads nowhere (a script page, links
// marked nofollow) and whose search form sits on a page another site links
// to is explored from that page, by both two-stage strategies, and its form
// is recorded.
func TestEntryPages(t *testing.T) {
	const entry = "http://players.example/players/"
	roots := map[string]string{
		// a script page: no text on topic, no links
		"script root": `<html><head><title>loading</title><script>boot()</script></head><body></body></html>`,
		// on topic, but every link nofollow
		"nofollow root": `<html><head><title>used cars</title></head><body><a rel="nofollow" href="/about">about</a></body></html>`,
	}
	for name, root := range roots {
		w := newHandWeb()
		w.add("http://dir.example/", pageHTML("used cars directory", []string{entry}, ""))
		w.add("http://players.example/", root)
		w.add("http://players.example/about", pageHTML("about", nil, ""))
		w.add(entry, pageHTML("used cars players", []string{"/players/list"}, ""))
		w.add("http://players.example/players/list", pageHTML("used cars list", nil, "/search/cars/find"))
		f := w.serve(t)
		for _, strategy := range []string{SmartCrawler, SCDI} {
			t.Run(fmt.Sprint(name, " ", strategy), func(t *testing.T) {
				c := newHandCrawl(t, t.TempDir(), f, strategy, profile.Stop{}, []string{"http://dir.example/"}, func(_ *profile.Profile, d *Deps) {
					d.Pages = wordPages{"cars"}
				})
				sn, err := c.Run(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				checkCounters(t, c.db, sn)
				if sn.RelevantForms != 1 {
					t.Errorf("%d relevant forms, want 1 (the one below the entry page)", sn.RelevantForms)
				}
				s, ok, err := c.db.GetSite("http://players.example")
				if err != nil || !ok {
					t.Fatalf("site record: %v %v", ok, err)
				}
				if !slices.Equal(s.Entries, []string{entry}) || !s.Deep {
					t.Errorf("site entries %v, deep %v; want [%s], deep", s.Entries, s.Deep, entry)
				}
			})
		}
	}
}

func TestAddEntry(t *testing.T) {
	const site = "http://a.example"
	var k knownSite
	for _, u := range []string{"", site, site + "/", "http://a.example.org/x", "http://b.example/x", site + "/x", site + "/x", site + "/?q=1", site + "/y", site + "/z"} {
		k.addEntry(u, site)
	}
	if want := []string{site + "/x", site + "/?q=1", site + "/y"}; !slices.Equal(k.entries, want) {
		t.Errorf("entries %v, want %v", k.entries, want)
	}
}

// TestOutLinksEntries: the entry pages an explorer found survive the trip
// to its coordinator.
func TestOutLinksEntries(t *testing.T) {
	outs := []outLink{
		{site: "http://a.example", from: "http://x.example/", to: "http://a.example/"},
		{site: "http://a.example", from: "http://x.example/", to: "http://a.example/p"},
		{site: "http://b.example", from: "http://x.example/", to: "http://b.example/q"},
	}
	back := expandOutLinks(groupOutLinks(outs))
	var got []string
	for _, o := range back {
		if o.to != "" {
			got = append(got, o.site+" "+o.to)
		}
	}
	if want := []string{"http://a.example http://a.example/p", "http://b.example http://b.example/q"}; !slices.Equal(got, want) || len(back) != 3 {
		t.Errorf("entries back %v (%d links), want %v", got, len(back), want)
	}
}
