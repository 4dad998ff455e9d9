package frontier

import (
	"fmt"

	"github.com/dwcrawl/dwcrawl/store"
)

// LinkQueue returns the store queue name of a site's link frontier.
func LinkQueue(site string) string { return "link:" + site }

// LinkOptions bound the in-site exploration of one site (SmartCrawler's
// stop-early criteria that concern the frontier; the engine applies the
// others and calls SkipDepth or Drain).
type LinkOptions struct {
	// MaxPages is the budget of visits for the site (0: unlimited); Next
	// reports nothing more once it is spent.
	MaxPages int
	// MaxPerDepth is the budget of visits per depth (SC2; 0: unlimited):
	// once spent, Next moves on to the next depth.
	MaxPerDepth int
	// MaxDepth is the deepest link accepted (SC1; 0: unlimited). The site's
	// homepage has depth 0.
	MaxDepth int
	// Deferred holds the frontier's store writes back until Stage or Flush
	// writes them, so that they cost no commit of their own; unset, every
	// change is written at once.
	Deferred bool
}

// LinkFrontier holds the links of one site during in-site exploring:
// breadth-first by depth (every link of depth d before any of depth d+1),
// and within a depth in the order of a LinkTree whose budget is what is
// left of the site's budget (or MaxPerDepth) when the depth starts. It
// remembers every URL pushed so a site's links are queued once. One worker
// explores one site at a time, so a LinkFrontier is not safe for concurrent
// use.
type LinkFrontier struct {
	site   string
	queue  string
	st     Store
	opt    LinkOptions
	levels []*LinkTree
	used   []int // visits made per depth
	// seen holds every URL pushed; with Deferred, true while the URL may
	// have a stored entry (loaded, or its push staged).
	seen map[string]bool
	// pend are the store writes held back (Deferred), in order; pushAt
	// indexes each URL's pending push, so that a link pushed and popped
	// between two Stages is never written.
	pend   []pendingOp
	pushAt map[string]int
	floor  int // depths below it were skipped
	cur    int // depth of the last link returned (-1 before any)
	popped int // visits made
	inPlan int // depth whose tree was given its budget, -1 none
}

// NewLinkFrontier returns an empty link frontier for site, persisting to st
// under LinkQueue(site) (st may be nil: memory only).
func NewLinkFrontier(site string, st Store, opt LinkOptions) *LinkFrontier {
	return &LinkFrontier{site: site, queue: LinkQueue(site), st: st, opt: opt,
		seen: map[string]bool{}, cur: -1, inPlan: -1}
}

// pendingOp is a store write held back: a push of it, or the deletion of
// it.URL.
type pendingOp struct {
	it         Item
	push, dead bool
}

// defers reports whether the frontier holds its writes back.
func (f *LinkFrontier) defers() bool { return f.opt.Deferred && f.st != nil }

// write persists a push of it, now or held back.
func (f *LinkFrontier) write(it *Item) error {
	if !f.defers() {
		return persist(f.st, f.queue, it)
	}
	if i, ok := f.pushAt[it.URL]; ok {
		f.pend[i].dead = true
	}
	if f.pushAt == nil {
		f.pushAt = map[string]int{}
	}
	f.pushAt[it.URL] = len(f.pend)
	f.pend = append(f.pend, pendingOp{it: *it, push: true})
	return nil
}

// remove deletes url's entry from the store, now or held back: a pending
// push is dropped, and a deletion is needed only if an entry may be stored.
func (f *LinkFrontier) remove(url string) error {
	if !f.defers() {
		return unpersist(f.st, f.queue, url)
	}
	if i, ok := f.pushAt[url]; ok {
		f.pend[i].dead = true
		delete(f.pushAt, url)
	}
	if f.seen[url] {
		f.pend = append(f.pend, pendingOp{it: Item{URL: url}})
	}
	return nil
}

// Stage stages the writes held back (Deferred) in w, a batch the caller
// commits: a page's record, so that the frontier costs no commit of its
// own. Until the batch is committed the store lags the frontier as after
// a crash: a link popped is still stored, to be popped again by a resumed
// crawl, and a link pushed is not, to be pushed again when the page it
// was found on is replayed. A caller whose commit fails must give the
// frontier up.
func (f *LinkFrontier) Stage(w Writer) error {
	for _, op := range f.pend {
		if op.dead {
			continue
		}
		if op.push {
			if err := persist(w, f.queue, &op.it); err != nil {
				return err
			}
			f.seen[op.it.URL] = true
			continue
		}
		if err := unpersist(w, f.queue, op.it.URL); err != nil {
			return err
		}
		f.seen[op.it.URL] = false
	}
	clear(f.pend) // drop the items' evidence
	f.pend = f.pend[:0]
	clear(f.pushAt)
	return nil
}

// Flush writes the writes held back (Deferred) to the store, in one
// write.
func (f *LinkFrontier) Flush() error {
	if len(f.pend) == 0 {
		return nil
	}
	return inOneWrite(f.st, f.Stage)
}

// Pending returns the number of store writes held back.
func (f *LinkFrontier) Pending() int { return len(f.pend) }

// Site returns the site the frontier explores.
func (f *LinkFrontier) Site() string { return f.site }

// Load adds the site's persisted links (a resumed crawl) and returns how
// many were added.
func (f *LinkFrontier) Load() (int, error) {
	if f.st == nil {
		return 0, nil
	}
	n := 0
	err := f.st.ScanFrontier(f.queue, func(e store.FrontierEntry) error {
		if _, ok := f.seen[e.URL]; ok {
			return nil
		}
		it, err := itemFromEntry(e)
		if err != nil {
			return err
		}
		f.add(*it)
		f.seen[e.URL] = true // stored
		n++
		return nil
	})
	if err != nil {
		return n, fmt.Errorf("frontier %s: load: %w", f.queue, err)
	}
	return n, nil
}

// Push queues a link of the site at it.Depth. It returns false, doing
// nothing, when the URL was pushed before or lies deeper than MaxDepth or in
// a skipped depth.
func (f *LinkFrontier) Push(it Item) (bool, error) {
	if _, ok := f.seen[it.URL]; ok {
		return false, nil
	}
	if it.Depth < f.floor || (f.opt.MaxDepth > 0 && it.Depth > f.opt.MaxDepth) || it.Depth < 0 {
		return false, nil
	}
	if it.Site == "" {
		it.Site = SiteOf(it.URL)
	}
	if err := f.write(&it); err != nil {
		return false, err
	}
	f.add(it)
	return true, nil
}

// PushAll pushes the items as Push does, one after the other, and persists
// the new ones in one write; it returns how many were new.
func (f *LinkFrontier) PushAll(items []Item) (int, error) {
	fresh := make([]Item, 0, len(items))
	var here map[string]struct{}
	for _, it := range items {
		if _, ok := f.seen[it.URL]; ok {
			continue
		}
		if _, ok := here[it.URL]; ok {
			continue
		}
		if it.Depth < f.floor || (f.opt.MaxDepth > 0 && it.Depth > f.opt.MaxDepth) || it.Depth < 0 {
			continue
		}
		if it.Site == "" {
			it.Site = SiteOf(it.URL)
		}
		if here == nil {
			here = make(map[string]struct{}, len(items))
		}
		here[it.URL] = struct{}{}
		fresh = append(fresh, it)
	}
	if f.defers() {
		for i := range fresh {
			if err := f.write(&fresh[i]); err != nil {
				return 0, err
			}
		}
	} else if err := persistAll(f.st, f.queue, fresh); err != nil {
		return 0, err
	}
	for _, it := range fresh {
		f.add(it)
	}
	return len(fresh), nil
}

func (f *LinkFrontier) add(it Item) {
	if _, ok := f.seen[it.URL]; !ok {
		f.seen[it.URL] = false
	}
	for len(f.levels) <= it.Depth {
		f.levels = append(f.levels, NewLinkTree())
		f.used = append(f.used, 0)
	}
	f.levels[it.Depth].Add(it)
}

// Next removes and returns the next link to visit: from the shallowest depth
// that still has links and budget. ok is false when nothing is left or the
// site's budget is spent.
func (f *LinkFrontier) Next() (it Item, ok bool, err error) {
	if f.Exhausted() {
		return Item{}, false, nil
	}
	for d := f.floor; d < len(f.levels); d++ {
		t := f.levels[d]
		if t.Len() == 0 || (f.opt.MaxPerDepth > 0 && f.used[d] >= f.opt.MaxPerDepth) {
			continue
		}
		if f.inPlan != d {
			t.SetBudget(f.levelBudget(d))
			f.inPlan = d
		}
		it, ok := t.Next()
		if !ok {
			continue
		}
		if err := f.remove(it.URL); err != nil {
			t.Add(it) // keep memory and store in step
			return Item{}, false, err
		}
		f.used[d]++
		f.popped++
		f.cur = d
		return it, true, nil
	}
	return Item{}, false, nil
}

// levelBudget is V for depth d: what is left of the site's budget, capped
// by MaxPerDepth (0: unlimited).
func (f *LinkFrontier) levelBudget(d int) int {
	v := 0
	if f.opt.MaxPages > 0 {
		v = f.opt.MaxPages - f.popped
	}
	if per := f.opt.MaxPerDepth; per > 0 {
		if rem := per - f.used[d]; v == 0 || rem < v {
			v = rem
		}
	}
	return v
}

// Exhausted reports whether the site's budget (MaxPages) is spent.
func (f *LinkFrontier) Exhausted() bool {
	return f.opt.MaxPages > 0 && f.popped >= f.opt.MaxPages
}

// Depth returns the depth of the last link returned by Next (-1 before the
// first).
func (f *LinkFrontier) Depth() int { return f.cur }

// Popped returns the number of links returned by Next.
func (f *LinkFrontier) Popped() int { return f.popped }

// Len returns the number of queued links.
func (f *LinkFrontier) Len() int {
	n := 0
	for _, t := range f.levels {
		n += t.Len()
	}
	return n
}

// LenAt returns the number of queued links at depth d.
func (f *LinkFrontier) LenAt(d int) int {
	if d < 0 || d >= len(f.levels) {
		return 0
	}
	return f.levels[d].Len()
}

// SkipDepth drops the links left at the current depth and at every
// shallower one (SmartCrawler's SC3/SC4: enough forms, or too many pages
// without one, at this depth) and returns them so the engine can record them
// as skipped. Later pushes at those depths are refused.
func (f *LinkFrontier) SkipDepth() ([]Item, error) {
	if f.cur < 0 {
		return nil, nil
	}
	var out []Item
	for d := f.floor; d <= f.cur && d < len(f.levels); d++ {
		out = append(out, f.levels[d].Drain()...)
	}
	f.floor = f.cur + 1
	return out, f.unpersistAll(out)
}

// Drain removes and returns every queued link, shallowest depth first: the
// engine leaves the site (budget spent, SC5) and records them as skipped.
func (f *LinkFrontier) Drain() ([]Item, error) {
	var out []Item
	for _, t := range f.levels {
		out = append(out, t.Drain()...)
	}
	return out, f.unpersistAll(out)
}

func (f *LinkFrontier) unpersistAll(items []Item) error {
	if f.defers() {
		for i := range items {
			if err := f.remove(items[i].URL); err != nil {
				return err
			}
		}
		return nil
	}
	if len(items) == 0 {
		return nil
	}
	return inOneWrite(f.st, func(w Writer) error {
		for i := range items {
			if err := unpersist(w, f.queue, items[i].URL); err != nil {
				return err
			}
		}
		return nil
	})
}

// Rescore gives every queued link the score fn returns (NaN keeps the old
// one): after the link ranker's feature space was rebuilt. The new scores
// are persisted (in one write, or held back) and the current depth is
// re-planned.
func (f *LinkFrontier) Rescore(fn func(*Item) float64) error {
	var changed []Item
	for _, t := range f.levels {
		t.Rescore(func(p *Item) float64 {
			s := fn(p)
			if s != p.Score && s == s && f.st != nil {
				q := *p
				q.Score = s
				changed = append(changed, q)
			}
			return s
		})
	}
	if f.defers() {
		for i := range changed {
			if err := f.write(&changed[i]); err != nil {
				return err
			}
		}
		return nil
	}
	return persistAll(f.st, f.queue, changed)
}

// Plan returns the plan of the links at depth d (see LinkTree.Plan).
func (f *LinkFrontier) Plan(d int) []Bucket {
	if d < 0 || d >= len(f.levels) {
		return nil
	}
	if f.inPlan != d {
		f.levels[d].SetBudget(f.levelBudget(d))
		f.inPlan = d
	}
	return f.levels[d].Plan()
}
