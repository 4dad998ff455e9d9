package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Crawl states in a Spec.
const (
	StateRunning = "running" // a coordinator runs it
	StateStopped = "stopped" // its coordinator stopped before the end; run it again to resume
	StateDone    = "done"    // budget spent or frontier empty
)

// Spec describes a crawl to every process of the cluster: what a worker
// needs to build the same engine as the coordinator. It is stored in
// BucketCrawls under its name.
type Spec struct {
	Name string `json:"name"`
	// Profile is the profile's path (for messages and relative example
	// files) and ProfileSource its text: workers load the profile from it.
	Profile       string `json:"profile"`
	ProfileSource []byte `json:"profile_source"`
	Strategy      string `json:"strategy"`
	// Pages is the crawl's page budget over all its runs (0: none).
	Pages int   `json:"pages"`
	Seed  int64 `json:"seed"`
	// Testbed is the simulated web's config (JSON) of a testbed crawl:
	// every worker builds the same web and serves it on its own loopback.
	Testbed      json.RawMessage `json:"testbed,omitempty"`
	TestbedSeeds int             `json:"testbed_seeds,omitempty"`
	// Delay, when positive, is the per-host politeness delay (over the
	// profile's, and over the testbed's none).
	Delay time.Duration `json:"delay,omitempty"`
	// AllowPrivate, Resolve, Proxy, Headers and PolitePerIP are the network
	// options of the crawl's fetches, the same on every worker.
	AllowPrivate bool      `json:"allow_private,omitempty"`
	Resolve      []string  `json:"resolve,omitempty"`
	Proxy        string    `json:"proxy,omitempty"`
	Headers      []string  `json:"headers,omitempty"`
	PolitePerIP  bool      `json:"polite_per_ip,omitempty"`
	State        string    `json:"state"`
	Updated      time.Time `json:"updated"`
}

// PutSpec registers (or updates) a crawl.
func (c *Conn) PutSpec(ctx context.Context, s Spec) error {
	if err := CheckName(s.Name); err != nil {
		return err
	}
	s.Updated = time.Now().UTC()
	return c.putJSON(ctx, c.crawls, s.Name, s)
}

// GetSpec returns the spec of crawl name; ok is false when there is none.
func (c *Conn) GetSpec(ctx context.Context, name string) (Spec, bool, error) {
	var s Spec
	if err := CheckName(name); err != nil {
		return s, false, err
	}
	_, ok, err := c.getJSON(ctx, c.crawls, name, &s)
	return s, ok, err
}

// setState changes the state of a crawl's spec.
func (c *Conn) setState(ctx context.Context, name, state string) error {
	_, err := updateJSON(ctx, c, c.crawls, name, func(s *Spec) (bool, error) {
		if s.Name == "" {
			return false, nil
		}
		s.State, s.Updated = state, time.Now().UTC()
		return true, nil
	})
	return err
}

// Crawls lists the crawls registered on the cluster, by name.
func (c *Conn) Crawls(ctx context.Context) ([]Spec, error) {
	var out []Spec
	err := c.do(ctx, func(ctx context.Context) error {
		out = nil
		keys, err := c.crawls.ListKeys(ctx)
		if err != nil {
			return err
		}
		for k := range keys.Keys() {
			e, err := c.crawls.Get(ctx, k)
			if errors.Is(err, jetstream.ErrKeyNotFound) {
				continue
			}
			if err != nil {
				return err
			}
			var s Spec
			if err := json.Unmarshal(e.Value(), &s); err != nil {
				return fmt.Errorf("crawl %s: %w", k, err)
			}
			out = append(out, s)
		}
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, err
}

// noCrawl is the error for a crawl name the cluster does not know.
func (c *Conn) noCrawl(ctx context.Context, name string) error {
	specs, _ := c.Crawls(ctx)
	names := make([]string, 0, len(specs))
	for _, s := range specs {
		names = append(names, s.Name)
	}
	if len(names) == 0 {
		return fmt.Errorf("cluster: no crawl %q on %s (no crawl at all: start one with dwcrawl run --nats)", name, c.url)
	}
	return fmt.Errorf("cluster: no crawl %q on %s (crawls: %v)", name, c.url, names)
}
