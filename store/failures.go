package store

import (
	"encoding/json"
	"fmt"
	"time"
)

// TagFailures maps a canonical URL to its Failure (JSON): the URLs whose
// latest fetch failed, with the cause. A URL that a later run fetches is
// removed. (Tags 0x19–0x1B are left to the crawl engine's other tables.)
const TagFailures byte = 0x1C

// Failure is a URL whose latest fetch failed, or that the crawl refused
// (scope), and why.
type Failure struct {
	URL   string `json:"url"`
	Site  string `json:"site"`
	Depth int    `json:"depth"`
	// Seed is set for a seed site's page.
	Seed bool `json:"seed,omitempty"`
	// Cause is the short label of why (fetch.Cause: "dns", "refused",
	// "reset", "tls", "timeout", "http-404", "robots", "blocked", ...;
	// "scope" for a URL the profile's scope rules refused).
	Cause string `json:"cause"`
	// Error is the error text.
	Error string `json:"error"`
	// Status is the last HTTP status received (0 if none).
	Status int `json:"status,omitempty"`
	// Attempts counts the HTTP requests made for it over all runs.
	Attempts int `json:"attempts"`
	// Runs counts the crawl runs in which it failed.
	Runs  int       `json:"runs"`
	First time.Time `json:"first"`
	Time  time.Time `json:"time"` // of the latest failure
}

func failureKey(url string) []byte { return tableKey(TagFailures, []byte(url)) }

// SetFailure stages the failure record of f.URL.
func (b *Batch) SetFailure(f Failure) error {
	if err := b.usable(); err != nil {
		return err
	}
	v, err := json.Marshal(&f)
	if err != nil {
		return fmt.Errorf("store: set failure %s: %w", f.URL, err)
	}
	return b.pb.Set(failureKey(f.URL), v, nil)
}

// DeleteFailure stages the removal of url's failure record (none is fine).
func (b *Batch) DeleteFailure(url string) error {
	if err := b.usable(); err != nil {
		return err
	}
	return b.pb.Delete(failureKey(url), nil)
}

// GetFailure returns the failure record of url.
func (db *DB) GetFailure(url string) (Failure, bool, error) {
	var f Failure
	ok, err := db.getJSON(failureKey(url), &f)
	return f, ok, wrapErr("get failure "+url, err)
}

// ScanFailures calls fn for every failure whose URL starts with prefix, in
// URL order; an error from fn stops the scan and is returned as is.
func (db *DB) ScanFailures(prefix string, fn func(Failure) error) error {
	return db.scanTable(TagFailures, []byte(prefix), "scan failures", func(_, v []byte) error {
		var f Failure
		if err := json.Unmarshal(v, &f); err != nil {
			return fmt.Errorf("store: scan failures: %w", err)
		}
		return fn(f)
	})
}

// FailureCauses counts the failures by cause.
func (db *DB) FailureCauses() (map[string]int, error) {
	n := map[string]int{}
	err := db.ScanFailures("", func(f Failure) error {
		n[f.Cause]++
		return nil
	})
	return n, err
}
