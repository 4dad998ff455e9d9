package store

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/cockroachdb/pebble/v2"
)

// CrawlProfile is what a crawl records of its profile, so that later
// commands on its directory (a surface of a form it found) query and
// fetch as the crawl did: the profile's keywords and politeness.
type CrawlProfile struct {
	Name       string     `json:"name"`
	Domain     string     `json:"domain,omitempty"`
	Keywords   []string   `json:"keywords,omitempty"`
	Politeness Politeness `json:"politeness"`
}

// Politeness is how a crawl fetched: the delay between two requests to
// one host (and, with PerIP, to one address), the request timeout, the user agent, the largest body read
// and the extra request headers (zero values: the fetcher's defaults,
// except Delay, which is the delay in force).
type Politeness struct {
	Delay        time.Duration     `json:"delay_ns"`
	PerIP        bool              `json:"per_ip,omitempty"`
	Timeout      time.Duration     `json:"timeout_ns,omitempty"`
	UserAgent    string            `json:"user_agent,omitempty"`
	MaxBodyBytes int64             `json:"max_body_bytes,omitempty"`
	Headers      map[string]string `json:"headers,omitempty"`
}

var metaProfileKey = []byte{TagMeta, 'p'}

// SetCrawlProfile records the profile of the crawl run in the directory
// (synced), replacing an earlier run's.
func (db *DB) SetCrawlProfile(p CrawlProfile) error {
	if err := db.checkWrite(); err != nil {
		return err
	}
	v, err := json.Marshal(p)
	if err != nil {
		return fmt.Errorf("store: the crawl's profile: %w", err)
	}
	if err := db.pdb.Set(metaProfileKey, v, pebble.Sync); err != nil {
		return wrapErr("record the crawl's profile", err)
	}
	return nil
}

// CrawlProfile returns the profile recorded by SetCrawlProfile; ok is
// false for a directory no crawl recorded one in.
func (db *DB) CrawlProfile() (p CrawlProfile, ok bool, err error) {
	v, ok, err := db.getRaw(metaProfileKey)
	if err != nil || !ok {
		return p, false, wrapErr("read the crawl's profile", err)
	}
	if err := json.Unmarshal(v, &p); err != nil {
		return p, false, fmt.Errorf("store: %s: the crawl's profile record: %w", db.dir, err)
	}
	return p, true, nil
}
