package form

import (
	"hash/maphash"
	"slices"
	"strconv"
	"sync"

	"github.com/dwcrawl/dwcrawl/core/page"
)

// searchStep is what HIFI's first step makes of a form, before the page
// and its site matter: the SFC's probability and reasons, whether the form
// has anything to fill in, why it is a page-options form (if it is one),
// and the most probable kind other than search.
type searchStep struct {
	p        float64
	why      []string // clipped: an append copies it
	fillable bool
	options  string // [pageOptions]
	nsKind   string
	nsP      float64
}

// maxStepCache bounds the cached first steps (about 200 bytes each); a full
// cache starts again empty.
const maxStepCache = 4096

// stepCache remembers the first step by form content: a site repeats its
// forms (search box, log-in, newsletter) on every page, and the step reads
// nothing but the form. The key is 128 bits of two seeded hashes of
// everything the form holds except its index and the page text before it
// (the domain step's), so distinct forms never share a verdict in practice.
type stepCache struct {
	seeds [2]maphash.Seed
	mu    sync.Mutex
	model *Model
	m     map[[2]uint64]searchStep
}

func newStepCache() *stepCache {
	return &stepCache{seeds: [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}, m: map[[2]uint64]searchStep{}}
}

// step returns the first step of f under model m, computing it with fn
// when not cached.
func (c *stepCache) step(m *Model, f *page.Form, fn func(*page.Form) searchStep) searchStep {
	k := c.key(f)
	c.mu.Lock()
	if c.model != m {
		// another model (the field was changed): other verdicts
		c.model = m
		clear(c.m)
	}
	s, ok := c.m[k]
	c.mu.Unlock()
	if ok {
		return s
	}
	s = fn(f)
	c.mu.Lock()
	if c.model == m {
		if len(c.m) >= maxStepCache {
			clear(c.m)
		}
		c.m[k] = s
	}
	c.mu.Unlock()
	return s
}

// keyBufs hold the bytes of the forms being keyed.
var keyBufs = sync.Pool{New: func() any { return new([]byte) }}

func (c *stepCache) key(f *page.Form) [2]uint64 {
	// the form's bytes are laid out once and hashed whole twice: writing
	// its few dozen parts into two hashes took more than the hashing
	bp := keyBufs.Get().(*[]byte)
	b := appendForm((*bp)[:0], f)
	k := [2]uint64{maphash.Bytes(c.seeds[0], b), maphash.Bytes(c.seeds[1], b)}
	if cap(b) <= 64<<10 { // a huge form's buffer is not worth keeping
		*bp = b
		keyBufs.Put(bp)
	}
	return k
}

// appendForm appends every part of f the first step may read: all but
// Index and Context. Strings are length-prefixed so that no two forms write
// the same bytes.
func appendForm(b []byte, f *page.Form) []byte {
	num := func(b []byte, n int) []byte {
		return append(strconv.AppendInt(b, int64(n), 10), 0)
	}
	str := func(b []byte, s string) []byte {
		return append(num(b, len(s)), s...)
	}
	flag := func(b []byte, v bool) []byte {
		if v {
			return append(b, 1)
		}
		return append(b, 0)
	}
	b = str(b, f.ID)
	b = str(b, f.Name)
	b = str(b, f.Class)
	b = str(b, f.Action)
	b = str(b, f.Method)
	b = str(b, f.Enctype)
	b = str(b, f.Text)
	b = str(b, f.LinkText)
	b = num(b, len(f.Submits))
	for _, s := range f.Submits {
		b = str(b, s)
	}
	b = num(b, len(f.Fields))
	for i := range f.Fields {
		fd := &f.Fields[i]
		b = str(b, fd.Tag)
		b = str(b, fd.Type)
		b = str(b, fd.Name)
		b = str(b, fd.ID)
		b = str(b, fd.Label)
		b = str(b, fd.Placeholder)
		b = str(b, fd.Value)
		b = flag(b, fd.Checked)
		b = flag(b, fd.Required)
		b = flag(b, fd.Disabled)
		b = num(b, fd.Size)
		b = num(b, fd.MaxLength)
		b = num(b, len(fd.Options))
		for _, o := range fd.Options {
			b = str(b, o.Value)
			b = str(b, o.Text)
			b = flag(b, o.Selected)
		}
	}
	return b
}

// computeStep runs the first step on f.
func (h *HIFI) computeStep(f *page.Form) searchStep {
	a := analyze(f)
	p, why := h.Model.SFC.prob(a)
	s := searchStep{p: p, why: slices.Clip(why), fillable: fillable(f), options: pageOptions(a)}
	if h.Model.Kinds != nil {
		s.nsKind, s.nsP = h.bestNonSearch(a)
	}
	return s
}
