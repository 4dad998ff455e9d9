package frontier

import (
	"math"
	"sort"
	"strings"

	"github.com/dwcrawl/dwcrawl/core/pqueue"
)

// LinkTree holds the links of one site at one depth and decides the order in
// which they are visited, after SmartCrawler's balanced link prioritizing
// (Zhao et al. 2016, §3.3.1):
//
//   - the links form a tree whose internal nodes are directory paths and
//     whose leaves are URLs; URLs that differ only in their query string are
//     one leaf (the best-scored of them stands for the leaf, the others are
//     visited only after every leaf);
//   - with a budget of V visits and N leaves, γ = V/N (at most 1); a node
//     with M leaves gets C = M·γ visits; a directory with C ≥ 1 splits its
//     visits among its children the same way, and siblings with C < 1
//     (most relevant first) are merged until their combined C reaches 1;
//   - each resulting group ("bucket") is visited most relevant link first,
//     and the visits are spread evenly over the buckets in proportion to
//     their C: the next visit goes to the bucket with the lowest
//     visits-made/C, ties to the bucket holding the more relevant links.
//
// The plan is computed when the first link is taken and again after links
// are added, removed or re-scored. A LinkTree is not safe for concurrent use.
type LinkTree struct {
	byURL   map[string]*Item // every unvisited item
	primary map[string]*Item // leaf key (URL without query) → the item standing for the leaf
	budget  int              // V; ≤ 0: unlimited
	used    int              // visits since the budget was set

	planned bool
	buckets pqueue.Queue[*bucket]
	extra   itemHeap // query-string variants, after all leaves
	seq     uint64
}

// NewLinkTree returns an empty tree with an unlimited budget.
func NewLinkTree() *LinkTree {
	return &LinkTree{byURL: map[string]*Item{}, primary: map[string]*Item{},
		buckets: pqueue.New(bucketBefore), extra: newItemHeap()}
}

// leafKey is the URL without its query string and fragment.
func leafKey(u string) string {
	if i := strings.IndexAny(u, "?#"); i >= 0 {
		return u[:i]
	}
	return u
}

// Add inserts a link; false if its URL is already in the tree.
func (t *LinkTree) Add(it Item) bool {
	if t.byURL[it.URL] != nil {
		return false
	}
	if it.Site == "" {
		it.Site = SiteOf(it.URL)
	}
	p := &it
	t.add(p)
	return true
}

func (t *LinkTree) add(p *Item) {
	t.seq++
	p.seq, p.pos = t.seq, -1
	t.byURL[p.URL] = p
	key := leafKey(p.URL)
	if old := t.primary[key]; old == nil || better(p, old) {
		t.primary[key] = p
	}
	t.planned = false
}

// better orders items by score, then by arrival.
func better(a, b *Item) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	return a.seq < b.seq
}

// SetBudget sets V, the number of visits the plan is made for (≤ 0:
// unlimited), and restarts the count of visits made.
func (t *LinkTree) SetBudget(v int) {
	t.budget, t.used, t.planned = v, 0, false
}

// Len returns the number of unvisited links.
func (t *LinkTree) Len() int { return len(t.byURL) }

// Leaves returns N, the number of unvisited leaves (links counted once per
// URL without query string).
func (t *LinkTree) Leaves() int { return len(t.primary) }

// Next removes and returns the next link to visit.
func (t *LinkTree) Next() (Item, bool) {
	if !t.planned {
		t.plan()
	}
	for t.buckets.Len() > 0 {
		b := t.buckets.Top()
		p := b.items[b.next]
		b.next++
		live := t.byURL[p.URL] == p // else removed since the plan
		if live {
			b.used++
		}
		if b.next == len(b.items) {
			t.buckets.Pop()
		} else {
			t.buckets.Fix(0)
		}
		if !live {
			continue
		}
		t.used++
		t.take(p)
		return *p, true
	}
	for t.extra.len() > 0 {
		p := t.extra.pop()
		if t.byURL[p.URL] != p {
			continue
		}
		t.used++
		t.take(p)
		return *p, true
	}
	return Item{}, false
}

// take forgets p (visited or removed). Its leaf passes to the best
// remaining variant at the next plan.
func (t *LinkTree) take(p *Item) {
	delete(t.byURL, p.URL)
	key := leafKey(p.URL)
	if t.primary[key] == p {
		delete(t.primary, key)
	}
}

// Remove deletes a link, reporting whether it was there.
func (t *LinkTree) Remove(url string) bool {
	p := t.byURL[url]
	if p == nil {
		return false
	}
	t.take(p)
	if t.extra.holds(p) {
		t.extra.remove(p)
	}
	return true
}

// Rescore gives every link the score fn returns (NaN keeps the old one).
func (t *LinkTree) Rescore(fn func(*Item) float64) {
	for _, p := range t.byURL {
		if s := fn(p); !math.IsNaN(s) {
			p.Score = s
		}
	}
	t.planned = false
}

// Drain removes and returns every unvisited link, best first.
func (t *LinkTree) Drain() []Item {
	out := make([]Item, 0, len(t.byURL))
	for _, p := range t.byURL {
		out = append(out, *p)
	}
	sort.Slice(out, func(i, j int) bool { return better(&out[i], &out[j]) })
	clear(t.byURL)
	clear(t.primary)
	t.buckets.Clear()
	t.extra.clear()
	t.planned = true
	return out
}

// Bucket is one group of links of a plan, for inspection and tests.
type Bucket struct {
	Quota float64  // C: the visits the group was given
	URLs  []string // its links, most relevant first
}

// Plan returns the current plan's buckets in the order of their most
// relevant links, planning first if needed; visited links are left out.
func (t *LinkTree) Plan() []Bucket {
	if !t.planned {
		t.plan()
	}
	bs := append([]*bucket(nil), t.buckets.Items()...)
	sort.Slice(bs, func(i, j int) bool { return bs[i].order < bs[j].order })
	out := make([]Bucket, 0, len(bs))
	for _, b := range bs {
		var urls []string
		for _, p := range b.items[b.next:] {
			if t.byURL[p.URL] == p {
				urls = append(urls, p.URL)
			}
		}
		out = append(out, Bucket{Quota: b.quota, URLs: urls})
	}
	return out
}

// plan builds the directory tree of the unvisited leaves and divides the
// remaining budget among them.
func (t *LinkTree) plan() {
	t.planned = true
	t.buckets.Clear()
	t.extra.clear()
	for _, p := range t.byURL {
		if t.primary[leafKey(p.URL)] != p {
			t.extra.push(p)
		}
	}
	n := len(t.primary)
	if n == 0 {
		return
	}
	gamma := 1.0
	if t.budget > 0 {
		gamma = min(1, float64(max(t.budget-t.used, 0))/float64(n))
	}
	root := &dirNode{}
	for _, p := range t.primary {
		root.insert(p)
	}
	pl := planner{gamma: gamma}
	pl.alloc(root)
	sort.Slice(pl.out, func(i, j int) bool { return better(pl.out[i].items[0], pl.out[j].items[0]) })
	for i, b := range pl.out {
		b.order = i
	}
	t.buckets.Init(pl.out)
}

// dirNode is a directory of the link tree during planning.
type dirNode struct {
	name   string
	dirs   map[string]*dirNode
	leaves []*Item // links whose URL lies directly in this directory
	m      int     // leaves in the subtree
	best   *Item   // most relevant link in the subtree
}

// insert files p under its directory path: "/a/b/c.html" and "/a/b/" both
// live in directory a/b.
func (n *dirNode) insert(p *Item) {
	path := strings.TrimPrefix(urlPath(p.URL), "/")
	for {
		n.m++
		if n.best == nil || better(p, n.best) {
			n.best = p
		}
		seg, rest, more := strings.Cut(path, "/")
		for more && seg == "" { // "//": no directory
			seg, rest, more = strings.Cut(rest, "/")
		}
		if !more {
			n.leaves = append(n.leaves, p)
			return
		}
		if n.dirs == nil {
			n.dirs = map[string]*dirNode{}
		}
		c := n.dirs[seg]
		if c == nil {
			c = &dirNode{name: seg}
			n.dirs[seg] = c
		}
		n, path = c, rest
	}
}

// urlPath returns the path of a URL without query and fragment.
func urlPath(u string) string {
	if i := strings.Index(u, "://"); i >= 0 {
		u = u[i+3:]
		j := strings.IndexAny(u, "/?#")
		if j < 0 {
			return "/"
		}
		u = u[j:]
	}
	return leafKey(u)
}

func (n *dirNode) collect(out []*Item) []*Item {
	out = append(out, n.leaves...)
	for _, c := range n.dirs {
		out = c.collect(out)
	}
	return out
}

// unit is a child of a directory while its visits are divided: a
// subdirectory, or the directory's own links taken together.
type unit struct {
	dir    *dirNode // nil for the own links
	leaves []*Item
	m      int
	c      float64
	best   *Item
	name   string
}

type planner struct {
	gamma float64
	out   []*bucket
}

const epsilon = 1e-9

// alloc divides the visits of directory n (C = n.m·γ) among its children.
func (pl *planner) alloc(n *dirNode) {
	units := make([]unit, 0, len(n.dirs)+1)
	if len(n.leaves) > 0 {
		best := n.leaves[0]
		for _, p := range n.leaves[1:] {
			if better(p, best) {
				best = p
			}
		}
		units = append(units, unit{leaves: n.leaves, m: len(n.leaves), best: best})
	}
	for name, d := range n.dirs {
		units = append(units, unit{dir: d, m: d.m, best: d.best, name: name})
	}
	for i := range units {
		units[i].c = float64(units[i].m) * pl.gamma
	}
	// Most relevant first: the order in which small siblings are merged.
	sort.Slice(units, func(i, j int) bool {
		if units[i].best != units[j].best {
			return better(units[i].best, units[j].best)
		}
		return units[i].name < units[j].name
	})
	var acc []*Item
	sum, last := 0.0, -1
	for _, u := range units {
		if u.c >= 1-epsilon {
			if u.dir != nil {
				pl.alloc(u.dir)
			} else {
				pl.emit(u.leaves, u.c)
			}
			continue
		}
		if u.dir != nil {
			acc = u.dir.collect(acc)
		} else {
			acc = append(acc, u.leaves...)
		}
		sum += u.c
		if sum >= 1-epsilon {
			last = pl.emit(acc, sum)
			acc, sum = nil, 0
		}
	}
	if len(acc) > 0 {
		if last >= 0 { // a remainder below 1 joins the last merged group
			b := pl.out[last]
			b.items = append(b.items, acc...)
			b.quota += sum
			sortItems(b.items)
		} else {
			pl.emit(acc, sum)
		}
	}
}

func (pl *planner) emit(items []*Item, quota float64) int {
	items = append([]*Item(nil), items...)
	sortItems(items)
	pl.out = append(pl.out, &bucket{items: items, quota: quota})
	return len(pl.out) - 1
}

func sortItems(items []*Item) {
	sort.Slice(items, func(i, j int) bool { return better(items[i], items[j]) })
}

// bucket is a group of links sharing a number of visits.
type bucket struct {
	items []*Item // most relevant first
	next  int     // first unvisited
	quota float64 // C
	used  int     // visits made
	order int     // rank of its best link among the buckets
}

// key is the bucket's share already used: the bucket with the lowest goes
// next, which spreads visits evenly in proportion to the quotas.
func (b *bucket) key() float64 {
	return float64(b.used) / math.Max(b.quota, epsilon)
}

// bucketBefore orders the buckets of a plan: the lowest share used first,
// ties to the bucket holding the more relevant links. Keys only grow.
func bucketBefore(a, b *bucket) bool {
	ka, kb := a.key(), b.key()
	if ka != kb {
		return ka < kb
	}
	return a.order < b.order
}
