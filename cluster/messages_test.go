package cluster

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/dwcrawl/dwcrawl/core/crawl"
)

func TestCheckName(t *testing.T) {
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"auto", true}, {"auto-2_b", true}, {"", false}, {"a.b", false}, {"a b", false}, {"a*", false}, {"a>", false},
		{strings.Repeat("x", 64), true}, {strings.Repeat("x", 65), false},
	} {
		if err := CheckName(tc.name); (err == nil) != tc.ok {
			t.Errorf("CheckName(%q) = %v, want ok %v", tc.name, err, tc.ok)
		}
	}
}

func TestSubjects(t *testing.T) {
	site := "http://www.example.com"
	for _, subj := range []string{siteSubject("auto", site), pageSubject("auto", site, "holder1"), doneSubject("auto", site), formSubject("auto", "0123456789abcdef")} {
		kind, crawlName, ok := subjectCrawl(subj)
		if !ok || crawlName != "auto" || !strings.HasPrefix(subj, "dwcrawl."+kind+".") {
			t.Errorf("%s: kind %q crawl %q ok %v", subj, kind, crawlName, ok)
		}
	}
	if siteSubject("auto", site) == siteSubject("auto", site+":8080") {
		t.Error("two sites share a subject")
	}
	if _, _, ok := subjectCrawl("other.site.auto.x"); ok {
		t.Error("a foreign subject parsed")
	}
}

// TestEncodeLimits checks that a page or an outcome too large for the
// server is cut down to fit, keeping what matters most.
func TestEncodeLimits(t *testing.T) {
	var links []map[string]string
	for i := range 2000 {
		links = append(links, map[string]string{"u": "http://example.com/p/" + strings.Repeat("x", 40) + string(rune('a'+i%26)), "a": "anchor text"})
	}
	rec, _ := json.Marshal(map[string]any{"url": "http://example.com/", "site": "http://example.com", "text": "hello", "links": links})
	p := crawl.PageResult{URL: "http://example.com/", Site: "http://example.com", Record: rec}
	for _, tc := range []struct {
		limit   int
		dropped bool
		fails   bool
	}{{1 << 20, false, false}, {40000, true, false}, {100, false, true}} {
		data, dropped, err := encodePage(p, tc.limit)
		if (err != nil) != tc.fails {
			t.Fatalf("limit %d: err %v", tc.limit, err)
		}
		if err != nil {
			continue
		}
		if len(data) > tc.limit || (dropped > 0) != tc.dropped {
			t.Errorf("limit %d: %d bytes, %d links dropped", tc.limit, len(data), dropped)
		}
		var back crawl.PageResult
		if err := json.Unmarshal(data, &back); err != nil || back.URL != p.URL {
			t.Errorf("limit %d: decoded %v %v", tc.limit, back.URL, err)
		}
	}

	o := crawl.SiteOutcome{Site: "http://example.com", Status: "relevant", Pages: 10, HomeText: strings.Repeat("home ", 100)}
	for i := range 300 {
		o.Out = append(o.Out, crawl.OutLinks{Site: "http://s" + strings.Repeat("y", i%50) + ".com", Links: []crawl.LinkText{{Anchor: strings.Repeat("a", 300), Around: strings.Repeat("t", 300)}}})
	}
	full, err := encodeOutcome(o, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	cut, err := encodeOutcome(o, len(full)/2)
	if err != nil {
		t.Fatal(err)
	}
	var back crawl.SiteOutcome
	if err := json.Unmarshal(cut, &back); err != nil {
		t.Fatal(err)
	}
	kept, more := 0, 0
	for _, g := range back.Out {
		kept += len(g.Links)
		more += g.More
	}
	if len(cut) > len(full)/2 || len(back.Out) != 300 || kept+more != 300 || kept == 0 || back.HomeText == "" {
		t.Errorf("cut outcome: %d bytes, %d sites, %d links kept, %d counted, home text %d", len(cut), len(back.Out), kept, more, len(back.HomeText))
	}
}
