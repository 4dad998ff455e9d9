package store

import (
	"encoding/json"
	"fmt"
)

// TagCookies maps a host ("host[:port]") to the crawl's cookies for it
// (JSON, the cookie jar's saved form): a resumed crawl sends them again.
const TagCookies byte = 0x1D

// PutCookies writes the cookies of host (JSON-encodable, nil or empty to
// forget them).
func (db *DB) PutCookies(host string, cookies any) error {
	key := tableKey(TagCookies, []byte(host))
	return db.write("put cookies "+host, func(b *Batch) error {
		if err := b.usable(); err != nil {
			return err
		}
		v, err := json.Marshal(cookies)
		if err != nil {
			return fmt.Errorf("store: put cookies %s: %w", host, err)
		}
		return b.pb.Set(key, v, nil)
	})
}

// ScanCookies calls fn with every host's cookies as stored (JSON, valid
// during the call only).
func (db *DB) ScanCookies(fn func(host string, cookies []byte) error) error {
	return db.scanTable(TagCookies, nil, "scan cookies", func(k, v []byte) error {
		return fn(string(k), v)
	})
}
