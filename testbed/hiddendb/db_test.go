package hiddendb

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/dwcrawl/dwcrawl/core/keyword"
)

func sample() []Record {
	mk := func(id, title, author string) Record {
		return Record{ID: id, Fields: map[string]string{"id": id, "title": title, "author": author}, Order: []string{"id", "title", "author"}}
	}
	return []Record{
		mk("1", "Deep web crawling with keyword queries", "Ntoulas"),
		mk("2", "Crawling the hidden web", "Raghavan"),
		mk("3", "An adaptive crawler for hidden web entry points", "Barbosa"),
		mk("4", "Progressive deep web crawling", "Wang"),
		mk("5", "The cat sat on the mat", "Nobody"),
	}
}

func ids(db *DB, idx []int) []string {
	var out []string
	for _, i := range idx {
		out = append(out, db.Record(i).ID)
	}
	sort.Strings(out)
	return out
}

func TestMatchConjunctive(t *testing.T) {
	db := New(sample(), Options{K: 2, PageSize: 1})
	cases := []struct {
		q    string
		want []string
	}{
		{"crawling", []string{"1", "2", "4"}},
		{"deep crawling", []string{"1", "4"}},
		{"Deep  WEB", []string{"1", "4"}},
		{"the hidden web", []string{"2", "3"}}, // "the" is a stop word
		{"hidden raghavan", []string{"2"}},
		{"crawl", nil}, // no stemming
		{"the", nil},   // stop words only
		{"", nil},
		{"zebra web", nil},
	}
	for _, c := range cases {
		t.Run(c.q, func(t *testing.T) {
			got := ids(db, db.Match(c.q))
			if strings.Join(got, ",") != strings.Join(c.want, ",") {
				t.Fatalf("Match(%q) = %v, want %v", c.q, got, c.want)
			}
			if db.Count(c.q) != len(c.want) {
				t.Fatalf("Count(%q) = %d", c.q, db.Count(c.q))
			}
		})
	}
}

// TestTopKAndPagination checks that paging a query returns exactly its
// top-k matches, in rank order, each once, on a random corpus.
func TestTopKAndPagination(t *testing.T) {
	const seed = 7
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewSource(seed))
	words := []string{"alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"}
	var recs []Record
	for i := 0; i < 500; i++ {
		var ws []string
		for j := 0; j < 4; j++ {
			ws = append(ws, words[rng.Intn(len(words))])
		}
		recs = append(recs, Record{ID: fmt.Sprint(i), Fields: map[string]string{"text": strings.Join(ws, " ")}})
	}
	for _, k := range []int{5, 37, 1000} {
		db := New(recs, Options{K: k, PageSize: 10, Seed: seed})
		for _, q := range []string{"alpha", "alpha beta", "zeta eta theta", "nothing"} {
			all := db.Match(q)
			want := all
			if len(want) > k {
				want = want[:k]
			}
			var got []int
			prevRank := 0
			for p := 1; ; p++ {
				res := db.Search(q, p)
				if res.Total != len(all) {
					t.Fatalf("k=%d %q: total %d, want %d", k, q, res.Total, len(all))
				}
				for _, h := range res.Records {
					if h.Rank != prevRank+1 {
						t.Fatalf("rank %d after %d", h.Rank, prevRank)
					}
					prevRank = h.Rank
					got = append(got, h.Index)
				}
				if !res.Next {
					break
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("k=%d %q: paged %v, want top-k %v", k, q, got, want)
			}
			if fmt.Sprint(db.TopK(q)) != fmt.Sprint(want) {
				t.Fatalf("TopK differs from paging")
			}
			// every match really contains every term
			for _, i := range all {
				txt := recs[i].Fields["text"]
				for _, term := range QueryTerms(q) {
					if !strings.Contains(" "+txt+" ", " "+term+" ") {
						t.Fatalf("record %q matched %q", txt, q)
					}
				}
			}
		}
	}
}

func TestRankingIsFixedAndSeeded(t *testing.T) {
	a := New(sample(), Options{Seed: 1}).Match("web")
	b := New(sample(), Options{Seed: 1}).Match("web")
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Fatal("same seed, different ranking")
	}
	differs := false
	for s := int64(2); s < 20 && !differs; s++ {
		differs = fmt.Sprint(New(sample(), Options{Seed: s}).Match("web")) != fmt.Sprint(a)
	}
	if !differs {
		t.Fatal("ranking ignores the seed")
	}
}

func TestHTTPInterfaces(t *testing.T) {
	db := New(sample(), Options{K: 3, PageSize: 2, ShowTotal: true})
	srv := httptest.NewServer(db.Handler("/db"))
	defer srv.Close()

	get := func(u string) string {
		resp, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %d", u, resp.StatusCode)
		}
		return string(b)
	}
	// JSON API: walk pages
	var seen []string
	for p := 1; ; p++ {
		var res keyword.APIResult
		if err := json.Unmarshal([]byte(get(srv.URL+"/db/api/search?q=web&page="+fmt.Sprint(p))), &res); err != nil {
			t.Fatal(err)
		}
		if res.Total == nil || *res.Total != 4 {
			t.Fatalf("total = %v, want 4", res.Total)
		}
		for _, r := range res.Records {
			seen = append(seen, r.ID)
			if !strings.HasPrefix(r.URL, srv.URL+"/db/record/") {
				t.Fatalf("record url %q", r.URL)
			}
		}
		if !res.Next {
			break
		}
	}
	if len(seen) != 3 {
		t.Fatalf("JSON pages gave %v, want the top 3", seen)
	}
	// HTML: follow rel=next links, then open each record page
	nextRe := regexp.MustCompile(`rel="next" class="next" href="([^"]+)"`)
	linkRe := regexp.MustCompile(`class="result-link" href="([^"]+)"`)
	u := srv.URL + "/db/search?q=" + url.QueryEscape("hidden web")
	var links []string
	for u != "" {
		body := get(u)
		for _, m := range linkRe.FindAllStringSubmatch(body, -1) {
			links = append(links, m[1])
		}
		u = ""
		if m := nextRe.FindStringSubmatch(body); m != nil {
			u = srv.URL + strings.ReplaceAll(m[1], "&amp;", "&")
		}
	}
	if len(links) != 2 {
		t.Fatalf("HTML results %v, want 2", links)
	}
	for _, l := range links {
		if !strings.Contains(get(srv.URL+l), "<dt>title</dt>") {
			t.Fatalf("record page %s lacks fields", l)
		}
	}
	// POST form with a multi-attribute filter and a hidden field
	resp, err := http.PostForm(srv.URL+"/db/search", url.Values{"q": {"web"}, "author": {"Barbosa"}, "_src": {"home"}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if n := len(linkRe.FindAllString(string(b), -1)); n != 1 {
		t.Fatalf("POST filter gave %d results, want 1", n)
	}
	// unknown record
	r404, _ := http.Get(srv.URL + "/db/record/nope")
	if r404.StatusCode != 404 {
		t.Fatalf("unknown record: %d", r404.StatusCode)
	}
}

func TestLoaders(t *testing.T) {
	recs, err := ReadJSONL(strings.NewReader(`{"id":"a","title":"x y","year":1999,"tags":["p","q"],"nested":{"z":1}}
{"title":"no id"}
`), "t.jsonl", "id")
	if err != nil {
		t.Fatal(err)
	}
	if recs[0].ID != "a" || recs[0].Fields["year"] != "1999" || recs[0].Fields["tags"] != "p q" || recs[1].ID != "2" {
		t.Fatalf("jsonl: %+v", recs)
	}
	if strings.Join(recs[0].Order, ",") != "id,title,year,tags" {
		t.Fatalf("order %v", recs[0].Order)
	}
	if _, err := ReadJSONL(strings.NewReader("{\"a\":1}\n{bad\n"), "t.jsonl", ""); err == nil || !strings.Contains(err.Error(), "t.jsonl:2:") {
		t.Fatalf("want line error, got %v", err)
	}
	crecs, err := ReadCSV(strings.NewReader("\ufeffID,title\n1,\"a, b\"\n,c\n"), "t.csv", "ID")
	if err != nil {
		t.Fatal(err)
	}
	if crecs[0].ID != "1" || crecs[0].Fields["title"] != "a, b" || crecs[1].ID != "row-2" {
		t.Fatalf("csv: %+v", crecs)
	}
	if _, err := ReadCSV(strings.NewReader("ID,title\n1,a\n2,b,c\n"), "t.csv", ""); err == nil || !strings.Contains(err.Error(), "t.csv:3:") {
		t.Fatalf("want line error, got %v", err)
	}
	if _, err := ReadCSV(strings.NewReader("a,b\n"), "t.csv", "ID"); err == nil {
		t.Fatal("missing id column accepted")
	}
}
