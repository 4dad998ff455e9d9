package fpgrowth

import (
	"errors"
	"fmt"
	"sort"
)

// Itemset is a frequent itemset: its items in ascending id order and the
// number of transactions containing all of them.
type Itemset struct {
	Items   []int32
	Support int
}

// Options configures Mine.
type Options struct {
	// MinSupport is the minimum number of transactions an itemset must occur
	// in (at least 1).
	MinSupport int
	// MaxLen bounds the itemset length in the plain (non-closed) mode;
	// 0 means no bound. Ignored when Closed is set, where lengths are
	// decided by the data.
	MaxLen int
	// Closed reports only closed itemsets (see the package comment).
	Closed bool
	// Merge merges perfect extensions like Closed but skips the final
	// filter: the result holds every closed itemset plus some non-closed
	// ones (each with its exact support). For callers that close itemsets
	// themselves.
	Merge bool
	// Limit stops mining with ErrLimit once more than Limit itemsets were
	// produced; 0 means no limit.
	Limit int
}

// ErrLimit is returned when mining produces more than Options.Limit itemsets.
var ErrLimit = errors.New("fpgrowth: itemset limit exceeded")

// tree is an FP-tree whose items are numbered locally: local item 0 is the
// most frequent item of the tree. Node 0 is the root.
type tree struct {
	global []int32 // local item -> global item id
	count  []int32 // local item -> support in this tree
	head   []int32 // local item -> first node of its node-link list (-1 none)

	nItem   []int32 // node -> local item (-1 for the root)
	nCount  []int32 // node -> count
	nParent []int32 // node -> parent node
	nLink   []int32 // node -> next node with the same item
	nChild  []int32 // node -> first child
	nSib    []int32 // node -> next sibling
	root    map[int32]int32
}

func newTree(global, count []int32, nodes int) *tree {
	t := &tree{global: global, count: count, head: make([]int32, len(global))}
	if nodes > 0 {
		t.nItem = make([]int32, 0, nodes+1)
		t.nCount = make([]int32, 0, nodes+1)
		t.nParent = make([]int32, 0, nodes+1)
		t.nLink = make([]int32, 0, nodes+1)
		t.nChild = make([]int32, 0, nodes+1)
		t.nSib = make([]int32, 0, nodes+1)
	}
	for i := range t.head {
		t.head[i] = -1
	}
	t.addNode(-1, -1)
	if len(global) > 64 {
		t.root = make(map[int32]int32)
	}
	return t
}

func (t *tree) addNode(item, parent int32) int32 {
	n := int32(len(t.nItem))
	t.nItem = append(t.nItem, item)
	t.nCount = append(t.nCount, 0)
	t.nParent = append(t.nParent, parent)
	t.nChild = append(t.nChild, -1)
	t.nSib = append(t.nSib, -1)
	if item >= 0 {
		t.nLink = append(t.nLink, t.head[item])
		t.head[item] = n
	} else {
		t.nLink = append(t.nLink, -1)
	}
	return n
}

// child returns parent's child for item, creating it.
func (t *tree) child(parent, item int32) int32 {
	if parent == 0 && t.root != nil {
		if c, ok := t.root[item]; ok {
			return c
		}
		c := t.addNode(item, 0)
		t.root[item] = c
		return c
	}
	for c := t.nChild[parent]; c >= 0; c = t.nSib[c] {
		if t.nItem[c] == item {
			return c
		}
	}
	c := t.addNode(item, parent)
	t.nSib[c] = t.nChild[parent]
	t.nChild[parent] = c
	return c
}

// insert adds a path of local items, most frequent first, with weight w.
func (t *tree) insert(path []int32, w int32) {
	n := int32(0)
	for _, it := range path {
		n = t.child(n, it)
		t.nCount[n] += w
	}
}

type miner struct {
	opt   Options
	merge bool
	fn    func(items []int32, support int) bool
	err   error
	seen  int
	// scratch, indexed by the local items of the tree being processed;
	// always left zeroed / -1
	cnt   []int32
	remap []int32
}

func (m *miner) scratch(n int) {
	if len(m.cnt) < n {
		m.cnt = make([]int32, n)
		m.remap = make([]int32, n)
		for i := range m.remap {
			m.remap[i] = -1
		}
	}
}

// Mine returns the frequent itemsets of tx (each transaction a set of item
// ids; duplicates inside a transaction are ignored), ordered by decreasing
// support then lexicographically by items.
func Mine(tx [][]int32, opt Options) ([]Itemset, error) {
	var out []Itemset
	err := Each(tx, opt, func(items []int32, support int) bool {
		out = append(out, Itemset{Items: append([]int32(nil), items...), Support: support})
		return true
	})
	if err != nil {
		return nil, err
	}
	if opt.Closed {
		out = filterClosed(out)
	}
	for i := range out {
		sort.Slice(out[i].Items, func(a, b int) bool { return out[i].Items[a] < out[i].Items[b] })
	}
	sort.Slice(out, func(a, b int) bool {
		if out[a].Support != out[b].Support {
			return out[a].Support > out[b].Support
		}
		return lessItems(out[a].Items, out[b].Items)
	})
	return out, nil
}

// Each calls fn for every itemset found, in mining order, without
// materialising them: items (in no particular order) is only valid during
// the call. fn returns false to stop. With Closed, Each behaves like Merge
// (the closedness filter needs every itemset; use Mine).
func Each(tx [][]int32, opt Options, fn func(items []int32, support int) bool) error {
	if opt.MinSupport < 1 {
		opt.MinSupport = 1
	}
	maxItem := int32(-1)
	for _, t := range tx {
		for _, it := range t {
			if it < 0 {
				return fmt.Errorf("fpgrowth: negative item id %d", it)
			}
			if it > maxItem {
				maxItem = it
			}
		}
	}
	freq := make([]int32, maxItem+1)
	stamp := make([]int32, maxItem+1)
	for i := range stamp {
		stamp[i] = -1
	}
	for ti, t := range tx {
		for _, it := range t {
			if stamp[it] != int32(ti) {
				stamp[it] = int32(ti)
				freq[it]++
			}
		}
	}
	var items []int32
	for it, f := range freq {
		if int(f) >= opt.MinSupport {
			items = append(items, int32(it))
		}
	}
	sort.Slice(items, func(a, b int) bool {
		fa, fb := freq[items[a]], freq[items[b]]
		if fa != fb {
			return fa > fb
		}
		return items[a] < items[b]
	})
	local := make([]int32, maxItem+1)
	for i := range local {
		local[i] = -1
	}
	counts := make([]int32, len(items))
	for i, it := range items {
		local[it] = int32(i)
		counts[i] = freq[it]
	}
	total := 0
	for _, tr := range tx {
		total += len(tr)
	}
	t := newTree(items, counts, total/2)
	var path []int32
	for ti, tr := range tx {
		path = path[:0]
		for _, it := range tr {
			if l := local[it]; l >= 0 && stamp[it] != -2-int32(ti) {
				stamp[it] = -2 - int32(ti)
				path = append(path, l)
			}
		}
		sort.Slice(path, func(a, b int) bool { return path[a] < path[b] })
		t.insert(path, 1)
	}
	m := &miner{opt: opt, merge: opt.Closed || opt.Merge, fn: fn}
	m.mine(t, nil)
	if m.err == errStop {
		return nil
	}
	return m.err
}

func lessItems(a, b []int32) bool {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return len(a) < len(b)
}

func (m *miner) emit(items []int32, support int32) {
	m.seen++
	if m.opt.Limit > 0 && m.seen > m.opt.Limit {
		m.err = ErrLimit
		return
	}
	if !m.fn(items, int(support)) {
		m.err = errStop
	}
}

var errStop = errors.New("stop")

// mine grows every frequent itemset of t, each extended by suffix (global
// ids).
func (m *miner) mine(t *tree, suffix []int32) {
	plain := !m.merge && m.opt.MaxLen > 0
	for i := len(t.global) - 1; i >= 0 && m.err == nil; i-- {
		s := t.count[i]
		if int(s) < m.opt.MinSupport {
			continue
		}
		cur := make([]int32, len(suffix), len(suffix)+4)
		copy(cur, suffix)
		cur = append(cur, t.global[i])
		// conditional pattern base: for each node of item i, its ancestors
		// (local items < i)
		m.scratch(i)
		cnt := m.cnt
		for nd := t.head[i]; nd >= 0; nd = t.nLink[nd] {
			w := t.nCount[nd]
			for p := t.nParent[nd]; p > 0; p = t.nParent[p] {
				cnt[t.nItem[p]] += w
			}
		}
		var keep []int32 // local items of t kept in the conditional tree
		for it := 0; it < i; it++ {
			c := cnt[it]
			if c == 0 {
				continue
			}
			if int(c) < m.opt.MinSupport {
				continue
			}
			if m.merge && c == s {
				cur = append(cur, t.global[it]) // perfect extension
				continue
			}
			keep = append(keep, int32(it))
		}
		if plain && len(cur) > m.opt.MaxLen {
			clear(cnt[:i])
			continue
		}
		m.emit(cur, s)
		if len(keep) == 0 || m.err != nil || (plain && len(cur) >= m.opt.MaxLen) {
			clear(cnt[:i])
			continue
		}
		ct := m.conditional(t, i, keep, cnt)
		clear(cnt[:i])
		m.mine(ct, cur)
	}
}

// conditional builds the conditional FP-tree of local item i of t keeping
// only the local items in keep (with their conditional counts in cnt).
func (m *miner) conditional(t *tree, i int, keep []int32, cnt []int32) *tree {
	sort.Slice(keep, func(a, b int) bool {
		ca, cb := cnt[keep[a]], cnt[keep[b]]
		if ca != cb {
			return ca > cb
		}
		return keep[a] < keep[b]
	})
	remap := m.remap
	global := make([]int32, len(keep))
	counts := make([]int32, len(keep))
	for j, it := range keep {
		remap[it] = int32(j)
		global[j] = t.global[it]
		counts[j] = cnt[it]
	}
	size := 0
	for nd := t.head[i]; nd >= 0; nd = t.nLink[nd] {
		size++
	}
	ct := newTree(global, counts, size*2)
	var path []int32
	for nd := t.head[i]; nd >= 0; nd = t.nLink[nd] {
		path = path[:0]
		for p := t.nParent[nd]; p > 0; p = t.nParent[p] {
			if l := remap[t.nItem[p]]; l >= 0 {
				path = append(path, l)
			}
		}
		if len(path) == 0 {
			continue
		}
		// ancestors come leaf to root, i.e. by decreasing parent-local id;
		// conditional ids follow the count order, so sort
		sortInt32(path)
		ct.insert(path, t.nCount[nd])
	}
	for _, it := range keep {
		remap[it] = -1
	}
	return ct
}

func sortInt32(a []int32) {
	if len(a) < 12 {
		for i := 1; i < len(a); i++ {
			for j := i; j > 0 && a[j] < a[j-1]; j-- {
				a[j], a[j-1] = a[j-1], a[j]
			}
		}
		return
	}
	sort.Slice(a, func(i, j int) bool { return a[i] < a[j] })
}

// filterClosed drops itemsets that have a proper superset with the same
// support among sets (which must contain every closed itemset).
func filterClosed(sets []Itemset) []Itemset {
	type key struct {
		support int
		item    int32
	}
	idx := make(map[key][]int32)
	for si, s := range sets {
		for _, it := range s.Items {
			k := key{s.Support, it}
			idx[k] = append(idx[k], int32(si))
		}
	}
	var out []Itemset
	mark := map[int32]bool{}
	dup := map[string]bool{}
	for si, s := range sets {
		if k := fmt.Sprint(s.Support, sortedCopy(s.Items)); dup[k] {
			continue
		} else {
			dup[k] = true
		}
		// candidates: sets of the same support containing s's rarest-listed item
		var best []int32
		for _, it := range s.Items {
			l := idx[key{s.Support, it}]
			if best == nil || len(l) < len(best) {
				best = l
			}
		}
		for k := range mark {
			delete(mark, k)
		}
		for _, it := range s.Items {
			mark[it] = true
		}
		closed := true
		for _, oi := range best {
			o := sets[oi]
			if int(oi) == si || len(o.Items) <= len(s.Items) {
				continue
			}
			n := 0
			for _, it := range o.Items {
				if mark[it] {
					n++
				}
			}
			if n == len(s.Items) {
				closed = false
				break
			}
		}
		if closed {
			out = append(out, s)
		}
	}
	return out
}

func sortedCopy(a []int32) []int32 {
	b := append([]int32(nil), a...)
	sort.Slice(b, func(i, j int) bool { return b[i] < b[j] })
	return b
}
