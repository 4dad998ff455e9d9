// Package clock provides the fake clock tests inject wherever the code
// reads the time and sleeps through a clock (retry.Clock and the
// now/sleep functions of fetching, plugins and the cluster's page budget):
// sleeping advances it at once and is recorded, so waits are checked
// exactly and no test waits on a real timer.
package clock

import (
	"context"
	"sync"
	"time"
)

// Fake is a clock that moves only when slept on or advanced. It is safe
// for concurrent use.
type Fake struct {
	// OnSleep, when set (before the clock is used), is called with every
	// requested sleep before it takes effect: a test cancels a context
	// there to see a wait interrupted.
	OnSleep func(d time.Duration)

	mu     sync.Mutex
	now    time.Time
	sleeps []time.Duration
}

// NewFake returns a fake clock that reads start.
func NewFake(start time.Time) *Fake { return &Fake{now: start} }

// Now returns the clock's time.
func (c *Fake) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Sleep advances the clock by d and records d, unless ctx is done, when it
// returns ctx.Err() and the clock stays.
func (c *Fake) Sleep(ctx context.Context, d time.Duration) error {
	if c.OnSleep != nil {
		c.OnSleep(d)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	c.sleeps = append(c.sleeps, d)
	return nil
}

// Advance moves the clock forward by d without recording a sleep.
func (c *Fake) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// Sleeps returns the sleeps so far, in order.
func (c *Fake) Sleeps() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.sleeps...)
}
