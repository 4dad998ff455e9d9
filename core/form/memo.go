package form

import "sync"

// memo is a bounded, concurrency-safe cache of a pure function of a
// string: once full it computes without storing, so hostile input cannot
// grow it without limit.
type memo[V any] struct {
	mu  sync.RWMutex
	m   map[string]V
	max int
}

func newMemo[V any](max int) *memo[V] { return &memo[V]{m: make(map[string]V), max: max} }

func (c *memo[V]) get(k string, f func(string) V) V {
	c.mu.RLock()
	v, ok := c.m[k]
	c.mu.RUnlock()
	if ok {
		return v
	}
	v = f(k)
	c.mu.Lock()
	if len(c.m) < c.max {
		c.m[k] = v
	}
	c.mu.Unlock()
	return v
}
