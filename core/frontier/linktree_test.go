package frontier

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

const host = "http://cars.example"

type link struct {
	path  string
	score float64
}

func newTree(links []link, budget int) *LinkTree {
	t := NewLinkTree()
	for _, l := range links {
		t.Add(Item{URL: host + l.path, Score: l.score})
	}
	t.SetBudget(budget)
	return t
}

func paths(urls []string) []string {
	out := make([]string, len(urls))
	for i, u := range urls {
		out[i] = strings.TrimPrefix(u, host)
	}
	return out
}

func visit(t *LinkTree, n int) []string {
	var out []string
	for i := 0; i < n || n < 0; i++ {
		it, ok := t.Next()
		if !ok {
			break
		}
		out = append(out, strings.TrimPrefix(it.URL, host))
	}
	return out
}

// TestLinkTreeMergeTenDirs: N = 10 sibling directories with one link each
// and a budget of V = 5: γ = 0.5, every directory has C = 0.5 < 1, so the
// directories are merged in pairs (most relevant first) into 5 groups of
// C = 1, and the first 5 visits take the best link of each pair.
func TestLinkTreeMergeTenDirs(t *testing.T) {
	var links []link
	for i := 0; i < 10; i++ {
		links = append(links, link{fmt.Sprintf("/d%d/page", i), float64(9-i) / 10})
	}
	tr := newTree(links, 5)
	var got [][]string
	for _, b := range tr.Plan() {
		if b.Quota != 1 {
			t.Errorf("quota %v, want 1", b.Quota)
		}
		got = append(got, paths(b.URLs))
	}
	want := [][]string{
		{"/d0/page", "/d1/page"}, {"/d2/page", "/d3/page"}, {"/d4/page", "/d5/page"},
		{"/d6/page", "/d7/page"}, {"/d8/page", "/d9/page"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("plan %v\nwant %v", got, want)
	}
	if v := visit(tr, 5); !reflect.DeepEqual(v, []string{"/d0/page", "/d2/page", "/d4/page", "/d6/page", "/d8/page"}) {
		t.Errorf("first 5 visits %v", v)
	}
	if v := visit(tr, -1); len(v) != 5 || v[0] != "/d1/page" {
		t.Errorf("remaining visits %v", v)
	}
}

// TestLinkTreeUneven works the balanced merge rule by hand on an uneven
// site: N = 12 leaves, V = 6, γ = 0.5.
//
//	/            own links "/" (.5), "/about.html" (.1): M=2, C=1   → bucket B (quota 1)
//	/used/       8 links (.9 … .63):                 M=8, C=4    → recurse: its own links, bucket A (quota 4)
//	/new/        1 link (.6):                        M=1, C=.5   ┐ merged, most relevant first,
//	/parts/      1 link (.2):                        M=1, C=.5   ┘ into bucket C (quota 1)
//
// Buckets ranked by their best link: A (.9), C (.6), B (.5). Visits go to
// the bucket with the lowest visits/quota (ties: better bucket): A, C, B
// (all at 0), then A three times (.25, .5, .75) — exactly the quotas 4, 1,
// 1 within the budget of 6 — then A, C, B again and A's rest.
func TestLinkTreeUneven(t *testing.T) {
	links := []link{
		{"/", .5}, {"/about.html", .1}, {"/new/list", .6}, {"/parts/list", .2},
		{"/used/1", .9}, {"/used/2", .85}, {"/used/3", .8}, {"/used/4", .75},
		{"/used/5", .7}, {"/used/6", .65}, {"/used/7", .64}, {"/used/8", .63},
	}
	tr := newTree(links, 6)
	plan := tr.Plan()
	var quotas []float64
	for _, b := range plan {
		quotas = append(quotas, b.Quota)
	}
	if !reflect.DeepEqual(quotas, []float64{4, 1, 1}) || len(plan[0].URLs) != 8 ||
		!reflect.DeepEqual(paths(plan[1].URLs), []string{"/new/list", "/parts/list"}) ||
		!reflect.DeepEqual(paths(plan[2].URLs), []string{"/", "/about.html"}) {
		t.Fatalf("plan %+v", plan)
	}
	want := []string{
		"/used/1", "/new/list", "/", "/used/2", "/used/3", "/used/4", // the budget of 6
		"/used/5", "/parts/list", "/about.html", "/used/6", "/used/7", "/used/8",
	}
	if got := visit(tr, -1); !reflect.DeepEqual(got, want) {
		t.Errorf("visits %v\nwant   %v", got, want)
	}
}

func TestLinkTreeCases(t *testing.T) {
	tests := []struct {
		name   string
		links  []link
		budget int
		leaves int
		want   []string
	}{
		{
			name:   "query variants count once and come last",
			links:  []link{{"/search?q=a", .9}, {"/search?q=b", .8}, {"/cars/x", .5}, {"/search?q=c", .95}},
			budget: 0,
			leaves: 2,
			want:   []string{"/search?q=c", "/cars/x", "/search?q=a", "/search?q=b"},
		},
		{
			name:   "unlimited budget spreads over directories",
			links:  []link{{"/a/1", .9}, {"/a/2", .8}, {"/a/3", .7}, {"/b/1", .1}},
			budget: 100, // γ capped at 1
			leaves: 4,
			want:   []string{"/a/1", "/b/1", "/a/2", "/a/3"},
		},
		{
			name: "deep merge: small subdirectories of a big one",
			// N=8, V=4, γ=.5. /x (M=5, C=2.5) recurses: /x/p (M=2, C=1) is a
			// bucket; /x/q, /x/r, /x/s (C=.5 each) merge as {q,r} (C=1) and
			// s, the remainder (.5), joins them: a bucket of C=1.5. /y has
			// M=3, C=1.5. Buckets: P(.9, C1), QRS(.8, C1.5), Y(.5, C1.5);
			// visits/C picks P, QRS, Y, then QRS (tie at .67, better), Y, P,
			// QRS, Y.
			links: []link{
				{"/x/p/1", .9}, {"/x/p/2", .1}, {"/x/q/1", .8}, {"/x/r/1", .7}, {"/x/s/1", .6},
				{"/y/1", .5}, {"/y/2", .4}, {"/y/3", .3},
			},
			budget: 4,
			leaves: 8,
			want:   []string{"/x/p/1", "/x/q/1", "/y/1", "/x/r/1", "/y/2", "/x/p/2", "/x/s/1", "/y/3"},
		},
		{
			name:   "double slashes and trailing slash",
			links:  []link{{"//a//b/", .3}, {"/a/b/c", .4}},
			leaves: 2,
			want:   []string{"/a/b/c", "//a//b/"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := newTree(tt.links, tt.budget)
			if tr.Leaves() != tt.leaves || tr.Len() != len(tt.links) {
				t.Errorf("leaves %d len %d, want %d %d", tr.Leaves(), tr.Len(), tt.leaves, len(tt.links))
			}
			if got := visit(tr, -1); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("visits %v\nwant   %v", got, tt.want)
			}
		})
	}
}

func TestLinkTreeChanges(t *testing.T) {
	tr := newTree([]link{{"/a/1", .9}, {"/a/2", .8}, {"/b/1", .5}}, 0)
	if v := visit(tr, 1); v[0] != "/a/1" {
		t.Fatalf("first %v", v)
	}
	tr.Remove(host + "/b/1")
	tr.Add(Item{URL: host + "/c/1", Score: 1}) // added after planning: re-planned
	if tr.Add(Item{URL: host + "/a/2", Score: 1}) {
		t.Error("duplicate URL added")
	}
	tr.Rescore(func(it *Item) float64 {
		if strings.HasSuffix(it.URL, "/a/2") {
			return 2
		}
		return it.Score
	})
	if v := visit(tr, -1); !reflect.DeepEqual(v, []string{"/a/2", "/c/1"}) {
		t.Errorf("visits %v", v)
	}
	tr.Add(Item{URL: host + "/z", Score: 0})
	if d := tr.Drain(); len(d) != 1 || tr.Len() != 0 {
		t.Errorf("drain %v", d)
	}
	if _, ok := tr.Next(); ok {
		t.Error("Next after Drain")
	}
}

func nextAll(t *testing.T, f *LinkFrontier) []string {
	t.Helper()
	var out []string
	for {
		it, ok, err := f.Next()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return out
		}
		out = append(out, fmt.Sprintf("%d%s", it.Depth, strings.TrimPrefix(it.URL, host)))
	}
}

func TestLinkFrontier(t *testing.T) {
	type push struct {
		path  string
		depth int
		score float64
	}
	base := []push{
		{"/", 0, 0}, {"/used/", 1, .2}, {"/new/", 1, .9}, {"/about", 1, .1},
		{"/used/search", 2, 5}, {"/used/list", 2, .3},
	}
	tests := []struct {
		name   string
		opt    LinkOptions
		pushes []push
		want   []string
	}{
		{
			name: "breadth first, ranked within a depth",
			want: []string{"0/", "1/new/", "1/used/", "1/about", "2/used/search", "2/used/list"},
		},
		{
			name: "max per depth (SC2)",
			opt:  LinkOptions{MaxPerDepth: 2},
			want: []string{"0/", "1/new/", "1/used/", "2/used/search", "2/used/list"},
		},
		{
			name: "site budget",
			opt:  LinkOptions{MaxPages: 3},
			want: []string{"0/", "1/new/", "1/used/"},
		},
		{
			name: "max depth (SC1)",
			opt:  LinkOptions{MaxDepth: 1},
			want: []string{"0/", "1/new/", "1/used/", "1/about"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := NewMemStore()
			f := NewLinkFrontier(host, st, tt.opt)
			for _, p := range append(base, tt.pushes...) {
				if _, err := f.Push(Item{URL: host + p.path, Depth: p.depth, Score: p.score}); err != nil {
					t.Fatal(err)
				}
			}
			if ok, _ := f.Push(Item{URL: host + "/", Depth: 3}); ok {
				t.Error("URL pushed twice")
			}
			if got := nextAll(t, f); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %v\nwant %v", got, tt.want)
			}
			rest, err := f.Drain()
			if err != nil || f.Len() != 0 || st.Len() != 0 {
				t.Errorf("drain: %d items, %v; left %d in memory, %d in store", len(rest), err, f.Len(), st.Len())
			}
		})
	}
}

func TestLinkFrontierSkipAndGrow(t *testing.T) {
	st := NewMemStore()
	f := NewLinkFrontier(host, st, LinkOptions{})
	f.Push(Item{URL: host + "/", Depth: 0})
	if got := nextAll(t, f); len(got) != 1 {
		t.Fatal(got)
	}
	// Links found on the homepage arrive after it was taken.
	for i, p := range []string{"/a", "/b", "/c"} {
		f.Push(Item{URL: host + p, Depth: 1, Score: float64(3 - i)})
	}
	it, _, _ := f.Next()
	// While at depth 1, links of depth 2 arrive; they wait for depth 1.
	f.Push(Item{URL: host + "/a/x", Depth: 2, Score: 10})
	it2, _, _ := f.Next()
	if it.URL != host+"/a" || it2.URL != host+"/b" || f.Depth() != 1 {
		t.Fatalf("got %s, %s at depth %d", it.URL, it2.URL, f.Depth())
	}
	// SC3/SC4: enough at this depth.
	skipped, err := f.SkipDepth()
	if err != nil || len(skipped) != 1 || skipped[0].URL != host+"/c" {
		t.Fatalf("skipped %v %v", skipped, err)
	}
	if ok, _ := f.Push(Item{URL: host + "/late", Depth: 1}); ok {
		t.Error("push into a skipped depth accepted")
	}
	if got := nextAll(t, f); !reflect.DeepEqual(got, []string{"2/a/x"}) {
		t.Errorf("after skip %v", got)
	}
	if f.Popped() != 4 || st.Len() != 0 {
		t.Errorf("popped %d, store %d", f.Popped(), st.Len())
	}
}
