package frontier

import (
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"reflect"
	"sort"
	"testing"

	"github.com/dwcrawl/dwcrawl/store"
)

// Both stores satisfy the interface.
var (
	_ Store = (*store.DB)(nil)
	_ Store = (*MemStore)(nil)
)

func popAll(t *testing.T, q *Queue) []string {
	t.Helper()
	var out []string
	for {
		it, ok, err := q.Pop()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return out
		}
		out = append(out, it.URL)
	}
}

func TestQueueOrder(t *testing.T) {
	tests := []struct {
		name  string
		push  []Item
		want  []string
		after func(*Queue) error
	}{
		{
			name: "score then fifo",
			push: []Item{{URL: "a", Score: 1}, {URL: "b", Score: 3}, {URL: "c", Score: 1}, {URL: "d", Score: 2}},
			want: []string{"b", "d", "a", "c"},
		},
		{
			name: "re-push updates score",
			push: []Item{{URL: "a", Score: 1}, {URL: "b", Score: 2}, {URL: "a", Score: 5}},
			want: []string{"a", "b"},
		},
		{
			name:  "remove",
			push:  []Item{{URL: "a", Score: 1}, {URL: "b", Score: 2}, {URL: "c", Score: 3}},
			after: func(q *Queue) error { _, err := q.Remove("b"); return err },
			want:  []string{"c", "a"},
		},
		{
			name: "rescore",
			push: []Item{{URL: "a", Score: 1}, {URL: "b", Score: 2}, {URL: "c", Score: 3}},
			after: func(q *Queue) error {
				return q.Rescore(func(it *Item) float64 { return -it.Score })
			},
			want: []string{"a", "b", "c"},
		},
		{
			name: "negative and zero scores",
			push: []Item{{URL: "a", Score: -1}, {URL: "b", Score: 0}, {URL: "c", Score: -0.5}},
			want: []string{"b", "c", "a"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, st := range []Store{nil, NewMemStore()} {
				q := NewQueue("best", st)
				for _, it := range tt.push {
					if err := q.Push(it); err != nil {
						t.Fatal(err)
					}
				}
				if tt.after != nil {
					if err := tt.after(q); err != nil {
						t.Fatal(err)
					}
				}
				// A queue loaded from the store pops in the same order.
				if st != nil {
					q2 := NewQueue("best", st)
					if _, err := q2.Load(); err != nil {
						t.Fatal(err)
					}
					if got := popAll(t, q2); !reflect.DeepEqual(got, tt.want) {
						t.Errorf("loaded: got %v, want %v", got, tt.want)
					}
				}
				if got := popAll(t, q); !reflect.DeepEqual(got, tt.want) {
					t.Errorf("store %T: got %v, want %v", st, got, tt.want)
				}
				if st != nil && st.(*MemStore).Len() != 0 {
					t.Errorf("store keeps %d entries after popping all", st.(*MemStore).Len())
				}
			}
		})
	}
}

func TestQueueNaN(t *testing.T) {
	q := NewQueue("best", nil)
	nan := 0.0
	if err := q.Push(Item{URL: "a", Score: nan / nan}); err == nil {
		t.Error("NaN score accepted")
	}
}

// TestQueueRandom checks the heap against sorting, with removals.
func TestQueueRandom(t *testing.T) {
	const seed = 7
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	q := NewQueue("best", nil)
	want := map[string]float64{}
	for i := 0; i < 2000; i++ {
		u := fmt.Sprintf("u%d", rng.IntN(1500))
		switch rng.IntN(5) {
		case 0:
			q.Remove(u)
			delete(want, u)
		default:
			s := float64(rng.IntN(100))
			q.Push(Item{URL: u, Score: s})
			want[u] = s
		}
	}
	prev := 1e18
	n := 0
	for {
		it, ok, _ := q.Pop()
		if !ok {
			break
		}
		if it.Score > prev || want[it.URL] != it.Score {
			t.Fatalf("pop %s score %v after %v (want score %v)", it.URL, it.Score, prev, want[it.URL])
		}
		prev = it.Score
		n++
	}
	if n != len(want) {
		t.Errorf("popped %d, want %d", n, len(want))
	}
}

func TestSiteFrontier(t *testing.T) {
	type op struct {
		push  string
		score float64
		high  bool
		pop   bool
	}
	tests := []struct {
		name      string
		ops       []op
		want      []string // popped in order (ops then the rest)
		promotion int
	}{
		{
			name: "high before low",
			ops: []op{
				{push: "l1", score: 9}, {push: "h1", score: 1, high: true}, {push: "h2", score: 2, high: true}, {push: "l2", score: 5},
			},
			want:      []string{"h2", "h1", "l1", "l2"},
			promotion: 1,
		},
		{
			name: "low moves up when seen on a form page",
			ops: []op{
				{push: "a", score: 1}, {push: "b", score: 2}, {push: "h", score: 0.5, high: true}, {push: "a", score: 1.5, high: true},
			},
			want:      []string{"a", "h", "b"},
			promotion: 1,
		},
		{
			name: "high never moves down",
			ops: []op{
				{push: "a", score: 1, high: true}, {push: "b", score: 9}, {push: "a", score: 0.1},
			},
			want:      []string{"a", "b"},
			promotion: 1,
		},
		{
			// Algorithm 2: the whole low queue joins H when H runs dry; a
			// site found afterwards in H competes with them on rank.
			name: "promotion then new high",
			ops: []op{
				{push: "l1", score: 3}, {push: "l2", score: 1}, {pop: true}, {push: "h", score: 2, high: true},
			},
			want:      []string{"l1", "h", "l2"},
			promotion: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := NewMemStore()
			f := NewSiteFrontier(st)
			var got []string
			for _, o := range tt.ops {
				if o.pop {
					it, ok, err := f.Pop()
					if err != nil || !ok {
						t.Fatal(ok, err)
					}
					got = append(got, it.URL)
					continue
				}
				if err := f.Push(Item{URL: o.push, Score: o.score}, o.high); err != nil {
					t.Fatal(err)
				}
			}
			// Resume: a frontier loaded from the store holds the same sites.
			g := NewSiteFrontier(st)
			if n, err := g.Load(); err != nil || n != sum(f.Len()) {
				t.Fatalf("load: %d sites, %v; want %d", n, err, sum(f.Len()))
			}
			for {
				it, ok, err := f.Pop()
				if err != nil {
					t.Fatal(err)
				}
				if !ok {
					break
				}
				got = append(got, it.URL)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("order %v, want %v", got, tt.want)
			}
			if p := f.Promotions(); p != tt.promotion {
				t.Errorf("promotions = %d, want %d", p, tt.promotion)
			}
			if st.Len() != 0 {
				t.Errorf("store keeps %d entries", st.Len())
			}
		})
	}
}

func sum(a, b int) int { return a + b }

func TestSiteFrontierRescore(t *testing.T) {
	f := NewSiteFrontier(nil)
	for i, s := range []string{"a", "b", "c"} {
		f.Push(Item{URL: s, Score: float64(i), Evidence: &Evidence{Anchor: s}}, i%2 == 0)
	}
	// New feature space: "b" becomes the best low site, "a" the best high one.
	f.Rescore(func(it *Item) float64 { return map[string]float64{"a": 5, "b": 7, "c": 1}[it.Evidence.Anchor] })
	var got []string
	for {
		it, ok, _ := f.Pop()
		if !ok {
			break
		}
		got = append(got, it.URL)
	}
	if want := []string{"a", "c", "b"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// TestWithStoreDB runs a site frontier and a link frontier on the real
// store, closes it and resumes from the directory.
func TestWithStoreDB(t *testing.T) {
	dir := t.TempDir()
	open := func() *store.DB {
		db, err := store.Open(dir, store.Options{NoSync: true, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		if err != nil {
			t.Skipf("store not usable yet: %v", err)
		}
		return db
	}
	db := open()
	sf := NewSiteFrontier(db)
	for i, s := range []string{"http://a.com", "http://b.com", "http://c.com"} {
		if err := sf.Push(Item{URL: s, Score: float64(i), Evidence: &Evidence{From: "http://hub.com/", Anchor: "feat" + s, SF: i + 1}}, i == 0); err != nil {
			t.Fatal(err)
		}
	}
	first, _, err := sf.Pop()
	if err != nil || first.URL != "http://a.com" {
		t.Fatalf("pop = %v, %v", first, err)
	}
	lf := NewLinkFrontier("http://b.com", db, LinkOptions{})
	for i, u := range []string{"http://b.com/", "http://b.com/x/1", "http://b.com/y/2"} {
		if _, err := lf.Push(Item{URL: u, Depth: min(i, 1), Score: float64(i)}); err != nil {
			t.Fatal(err)
		}
	}
	if it, ok, err := lf.Next(); err != nil || !ok || it.URL != "http://b.com/" {
		t.Fatalf("next = %v %v %v", it, ok, err)
	}
	db.Close()

	db = open()
	defer db.Close()
	sf = NewSiteFrontier(db)
	if n, err := sf.Load(); err != nil || n != 2 {
		t.Fatalf("resumed site frontier: %d, %v", n, err)
	}
	it, _, _ := sf.Pop()
	if want := (Evidence{From: "http://hub.com/", Anchor: "feathttp://c.com", SF: 3}); it.URL != "http://c.com" || it.Evidence == nil || *it.Evidence != want {
		t.Errorf("resumed pop = %+v", it)
	}
	lf = NewLinkFrontier("http://b.com", db, LinkOptions{})
	if n, err := lf.Load(); err != nil || n != 2 {
		t.Fatalf("resumed link frontier: %d, %v", n, err)
	}
	if it, _, _ := lf.Next(); it.URL != "http://b.com/y/2" || it.Depth != 1 {
		t.Errorf("resumed link = %+v", it)
	}
}

func TestSiteOf(t *testing.T) {
	for in, want := range map[string]string{
		"http://a.com/x/y?z": "http://a.com",
		"https://a.com:8080": "https://a.com:8080",
		"http://a.com?q=1":   "http://a.com",
		"nonsense":           "",
	} {
		if got := SiteOf(in); got != want {
			t.Errorf("SiteOf(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLevelFrontier(t *testing.T) {
	st := NewMemStore()
	f := NewLevelFrontier(st, LevelOptions{Levels: 3, Capacity: 2})
	pushes := []struct {
		url   string
		level int
		score float64
	}{
		{"o1", 0, 0.9}, {"l3", 3, 0.9}, {"l1a", 1, 0.5}, {"l2", 2, 0.7}, {"l1b", 1, 0.8},
		{"l1c", 1, 0.6}, // level 1 is full: waits in the persistent frontier
		{"l1d", 1, 0.95},
		{"o2", 0, 0.5},
		{"x", 7, 0.1}, // unknown level: other, which is full too
	}
	for _, p := range pushes {
		if err := f.Push(Item{URL: "http://s/" + p.url, Score: p.score, Evidence: &Evidence{Anchor: p.url}}, p.level); err != nil {
			t.Fatal(err)
		}
	}
	levels, spilled := f.Lens()
	if !reflect.DeepEqual(levels, []int{2, 2, 1, 1}) || spilled != 3 || f.Len() != 9 {
		t.Fatalf("lens %v spilled %d len %d", levels, spilled, f.Len())
	}
	// After relearning, the classifier promotes "x" to level 1.
	f.SetClassifier(func(it *Item) (int, float64) {
		a := it.Evidence.Anchor
		if a == "x" {
			return 1, 0.99
		}
		return map[byte]int{'l': int(a[1] - '0'), 'o': 0}[a[0]], it.Score
	})
	var got []string
	for {
		it, level, ok, err := f.Pop()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		got = append(got, fmt.Sprintf("%s@%d", it.Evidence.Anchor, level))
	}
	// Memory first (level 1, 2, 3, other), then the reloaded overflow,
	// re-classified ("x" now level 1 and best).
	want := []string{"l1b@1", "l1a@1", "l2@2", "l3@3", "o1@0", "o2@0", "x@1", "l1d@1", "l1c@1"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("order %v\nwant  %v", got, want)
	}
	if f.Reloads() != 2 || st.Len() != 0 { // level 1 holds two at a time: l1c waits for a second reload
		t.Errorf("reloads %d, store left %d", f.Reloads(), st.Len())
	}
}

func TestLevelFrontierReloadAndResume(t *testing.T) {
	st := NewMemStore()
	f := NewLevelFrontier(st, LevelOptions{Capacity: 100})
	for i := 0; i < 10; i++ {
		f.Push(Item{URL: fmt.Sprintf("http://s/%d", i), Score: float64(i) / 10, Evidence: &Evidence{Anchor: fmt.Sprint(i)}}, 2)
	}
	// Relearning: even links become level 1.
	f.SetClassifier(func(it *Item) (int, float64) {
		if (it.Evidence.Anchor[0]-'0')%2 == 0 {
			return 1, it.Score
		}
		return 3, it.Score
	})
	if n, err := f.Reload(); err != nil || n != 10 {
		t.Fatalf("reload: %d %v", n, err)
	}
	if levels, _ := f.Lens(); !reflect.DeepEqual(levels, []int{0, 5, 0, 5}) {
		t.Errorf("levels after reload %v", levels)
	}
	// Resume from the store: same levels.
	g := NewLevelFrontier(st, LevelOptions{Capacity: 100})
	if n, err := g.Load(); err != nil || n != 10 {
		t.Fatalf("load: %d %v", n, err)
	}
	it, level, _, _ := g.Pop()
	if it.Evidence.Anchor != "8" || level != 1 {
		t.Errorf("first after resume: %s@%d, want 8@1", it.Evidence.Anchor, level)
	}
}

func TestMemStoreMoves(t *testing.T) {
	m := NewMemStore()
	m.PushFrontier(store.FrontierEntry{Queue: "a", URL: "u", Score: 1})
	m.PushFrontier(store.FrontierEntry{Queue: "b", URL: "u", Score: 2})
	na, _ := m.FrontierLen("a")
	nb, _ := m.FrontierLen("b")
	if na != 0 || nb != 1 {
		t.Errorf("after move: a=%d b=%d", na, nb)
	}
	var scores []float64
	m.PushFrontier(store.FrontierEntry{Queue: "b", URL: "v", Score: 3})
	m.ScanFrontier("b", func(e store.FrontierEntry) error { scores = append(scores, e.Score); return nil })
	if !sort.IsSorted(sort.Reverse(sort.Float64Slice(scores))) || len(scores) != 2 {
		t.Errorf("scan order %v", scores)
	}
}
