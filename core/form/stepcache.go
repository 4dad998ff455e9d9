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
// has anything to fill in or holds display options only, and the most
// probable kind other than search.
type searchStep struct {
	p           float64
	why         []string // clipped: an append copies it
	fillable    bool
	optionsOnly bool
	nsKind      string
	nsP         float64
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

func (c *stepCache) key(f *page.Form) [2]uint64 {
	var k [2]uint64
	for i, seed := range c.seeds {
		var h maphash.Hash
		h.SetSeed(seed)
		writeForm(&h, f)
		k[i] = h.Sum64()
	}
	return k
}

// writeForm writes every part of f the first step may read: all but Index
// and Context. Strings are length-prefixed so that no two forms write the
// same bytes.
func writeForm(h *maphash.Hash, f *page.Form) {
	var buf [20]byte
	num := func(n int) {
		h.Write(strconv.AppendInt(buf[:0], int64(n), 10))
		h.WriteByte(0)
	}
	str := func(s string) {
		num(len(s))
		h.WriteString(s)
	}
	flag := func(b bool) {
		if b {
			h.WriteByte(1)
		} else {
			h.WriteByte(0)
		}
	}
	str(f.ID)
	str(f.Name)
	str(f.Class)
	str(f.Action)
	str(f.Method)
	str(f.Enctype)
	str(f.Text)
	str(f.LinkText)
	num(len(f.Submits))
	for _, s := range f.Submits {
		str(s)
	}
	num(len(f.Fields))
	for i := range f.Fields {
		fd := &f.Fields[i]
		str(fd.Tag)
		str(fd.Type)
		str(fd.Name)
		str(fd.ID)
		str(fd.Label)
		str(fd.Placeholder)
		str(fd.Value)
		flag(fd.Checked)
		flag(fd.Required)
		flag(fd.Disabled)
		num(fd.Size)
		num(fd.MaxLength)
		num(len(fd.Options))
		for _, o := range fd.Options {
			str(o.Value)
			str(o.Text)
			flag(o.Selected)
		}
	}
}

// computeStep runs the first step on f.
func (h *HIFI) computeStep(f *page.Form) searchStep {
	a := analyze(f)
	p, why := h.Model.SFC.prob(a)
	s := searchStep{p: p, why: slices.Clip(why), fillable: fillable(f), optionsOnly: optionsOnly(a)}
	if h.Model.Kinds != nil {
		s.nsKind, s.nsP = h.bestNonSearch(a)
	}
	return s
}
