package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/cockroachdb/pebble/v2"
)

func tableKey(tag byte, key []byte) []byte {
	k := make([]byte, 0, 1+len(key))
	return append(append(k, tag), key...)
}

func siteKey(url string) []byte     { return tableKey(TagSites, []byte(url)) }
func urlKey(url string) []byte      { return tableKey(TagURLs, []byte(url)) }
func formKey(id string) []byte      { return tableKey(TagForms, []byte(id)) }
func counterKey(name string) []byte { return tableKey(TagCounters, []byte(name)) }

// --- sites

// PutSite writes a site record under s.URL.
func (db *DB) PutSite(s Site) error {
	return db.write("put site "+s.URL, func(b *Batch) error { return b.SetSite(s) })
}

// GetSite returns the site stored under url (canon.Site form).
func (db *DB) GetSite(url string) (Site, bool, error) {
	var s Site
	ok, err := db.getJSON(siteKey(url), &s)
	return s, ok, wrapErr("get site "+url, err)
}

// ScanSites calls fn for every site in key order; an error from fn stops
// the scan and is returned as is.
func (db *DB) ScanSites(fn func(Site) error) error {
	return db.scanTable(TagSites, nil, "scan sites", func(_, v []byte) error {
		var s Site
		if err := json.Unmarshal(v, &s); err != nil {
			return fmt.Errorf("store: scan sites: %w", err)
		}
		return fn(s)
	})
}

// --- URL states

// MarkURL records a URL's state (see Batch.SetURL for the frontier rules).
func (db *DB) MarkURL(st URLState) error {
	return db.write("mark url "+st.URL, func(b *Batch) error { return b.SetURL(st) })
}

// GetURL returns the state of url; ok is false for a URL never seen.
func (db *DB) GetURL(url string) (URLState, bool, error) {
	st, ok, err := db.getURL(url)
	return st, ok, wrapErr("get url "+url, err)
}

// CachedURL is GetURL answered from the cache of recent URL states when it
// can be (and from the filter of stored URLs for a URL never seen): for
// hot paths that ask about URLs the crawl wrote moments ago. It sees a
// batch's states exactly when its other writes are visible.
func (db *DB) CachedURL(url string) (URLState, bool, error) {
	db.fmu.Lock()
	st, ok, err := db.urlLocked(url)
	db.fmu.Unlock()
	return st, ok, wrapErr("get url "+url, err)
}

// urlLocked is getURL answered from the URL cache when it can be, for the
// writers of URL states. Caller holds db.fmu.
func (db *DB) urlLocked(url string) (URLState, bool, error) {
	c := db.urls
	if st, ok := c.get(url); ok {
		return st, true, nil
	}
	if c != nil {
		if err := db.fillURLFilter(); err != nil {
			return URLState{}, false, err
		}
		if !c.filter.mayHave(url) {
			c.absent++
			return URLState{}, false, nil
		}
		c.misses++
	}
	st, ok, err := db.getURL(url)
	if err == nil {
		db.urls.loaded(st, ok)
	}
	return st, ok, err
}

func (db *DB) getURL(url string) (URLState, bool, error) {
	v, ok, err := db.getRaw(urlKey(url))
	if err != nil || !ok {
		return URLState{}, false, err
	}
	st, err := decodeURLState(url, v)
	return st, err == nil, err
}

// ScanURLs calls fn for every URL state whose URL starts with prefix, in URL
// order (a site's URLs are contiguous: use the site key plus "/" as prefix).
func (db *DB) ScanURLs(prefix string, fn func(URLState) error) error {
	return db.scanTable(TagURLs, []byte(prefix), "scan urls", func(k, v []byte) error {
		st, err := decodeURLState(string(k), v)
		if err != nil {
			return fmt.Errorf("store: scan urls: %w", err)
		}
		return fn(st)
	})
}

// --- forms

// PutForm writes a form record; an empty ID is set to FormID(PageURL, Index).
func (db *DB) PutForm(f Form) error {
	return db.write("put form "+f.ID, func(b *Batch) error { return b.SetForm(f) })
}

// GetForm returns the form with the given ID.
func (db *DB) GetForm(id string) (Form, bool, error) {
	var f Form
	ok, err := db.getJSON(formKey(id), &f)
	return f, ok, wrapErr("get form "+id, err)
}

// ScanForms calls fn for every form in ID order.
func (db *DB) ScanForms(fn func(Form) error) error {
	return db.scanTable(TagForms, nil, "scan forms", func(_, v []byte) error {
		var f Form
		if err := json.Unmarshal(v, &f); err != nil {
			return fmt.Errorf("store: scan forms: %w", err)
		}
		return fn(f)
	})
}

// --- models

// PutModel saves a model version and returns its version number. With
// m.Version zero the next version of m.Name is used; SavedAt defaults to now.
func (db *DB) PutModel(m Model) (int, error) {
	if err := db.checkWrite(); err != nil {
		return 0, err
	}
	if m.Name == "" {
		return 0, errors.New("store: put model: empty name")
	}
	db.mmu.Lock()
	defer db.mmu.Unlock()
	if m.Version <= 0 {
		last, ok, err := db.GetModel(m.Name)
		if err != nil {
			return 0, err
		}
		m.Version = 1
		if ok {
			m.Version = last.Version + 1
		}
	}
	if m.SavedAt.IsZero() {
		m.SavedAt = time.Now().UTC()
	}
	if err := db.pdb.Set(modelKey(nil, m.Name, m.Version), encodeModel(nil, &m), db.wo); err != nil {
		return 0, fmt.Errorf("store: put model %s v%d: %w", m.Name, m.Version, err)
	}
	return m.Version, nil
}

// GetModel returns the latest version of the named model.
func (db *DB) GetModel(name string) (Model, bool, error) {
	if err := db.check(); err != nil {
		return Model{}, false, err
	}
	prefix := AppendString([]byte{TagModels}, name)
	it, err := db.pdb.NewIter(&pebble.IterOptions{LowerBound: prefix, UpperBound: PrefixEnd(prefix)})
	if err != nil {
		return Model{}, false, fmt.Errorf("store: get model %s: %w", name, err)
	}
	defer it.Close()
	if !it.Last() {
		return Model{}, false, wrapErr("get model "+name, it.Error())
	}
	v, err := it.ValueAndErr()
	if err != nil {
		return Model{}, false, fmt.Errorf("store: get model %s: %w", name, err)
	}
	m, err := decodeModel(it.Key(), v)
	return m, err == nil, wrapErr("get model "+name, err)
}

// GetModelVersion returns one version of the named model.
func (db *DB) GetModelVersion(name string, version int) (Model, bool, error) {
	key := modelKey(nil, name, version)
	v, ok, err := db.getRaw(key)
	if err != nil || !ok {
		return Model{}, false, wrapErr(fmt.Sprintf("get model %s v%d", name, version), err)
	}
	m, err := decodeModel(key, v)
	return m, err == nil, wrapErr(fmt.Sprintf("get model %s v%d", name, version), err)
}

// --- counters

// AddCounter adds delta to the named counter (created at zero).
func (db *DB) AddCounter(name string, delta int64) error {
	return db.write("add counter "+name, func(b *Batch) error { return b.AddCounter(name, delta) })
}

// Counter returns the named counter's value (zero if never added to).
func (db *DB) Counter(name string) (int64, error) {
	v, ok, err := db.getRaw(counterKey(name))
	if err != nil || !ok {
		return 0, wrapErr("counter "+name, err)
	}
	n, err := decodeCounter(v)
	return n, wrapErr("counter "+name, err)
}

// Counters returns every counter whose name starts with prefix.
func (db *DB) Counters(prefix string) (map[string]int64, error) {
	out := map[string]int64{}
	err := db.scanTable(TagCounters, []byte(prefix), "counters", func(k, v []byte) error {
		n, err := decodeCounter(v)
		out[string(k)] = n
		return err
	})
	return out, err
}

// --- generic JSON tables

// PutJSON writes v, JSON-encoded, under key in the table tag. The managed
// tables (meta, URLs, frontier, counters) are refused with ErrManagedTable.
func (db *DB) PutJSON(tag byte, key []byte, v any) error {
	return db.write(fmt.Sprintf("put table 0x%02x", tag), func(b *Batch) error { return b.PutJSON(tag, key, v) })
}

// GetJSON decodes the value under key in the table tag into v; ok is false
// (and v untouched) when the key is absent.
func (db *DB) GetJSON(tag byte, key []byte, v any) (bool, error) {
	ok, err := db.getJSON(tableKey(tag, key), v)
	return ok, wrapErr(fmt.Sprintf("get table 0x%02x key %q", tag, key), err)
}

func (db *DB) getJSON(key []byte, v any) (bool, error) {
	raw, ok, err := db.getRaw(key)
	if err != nil || !ok {
		return false, err
	}
	var buf []byte
	if raw, err = unpackJSON(key[0], raw, &buf); err != nil {
		return true, err
	}
	return true, json.Unmarshal(raw, v)
}

// ScanJSON calls fn, in key order, for every entry of the table tag whose key
// (without the tag byte) starts with prefix. key and val are only valid
// during the call; copy them to keep them. An error from fn stops the scan
// and is returned as is. Any table may be read; values of the typed tables
// are not JSON.
func (db *DB) ScanJSON(tag byte, prefix []byte, fn func(key, val []byte) error) error {
	return db.scanTable(tag, prefix, fmt.Sprintf("scan table 0x%02x", tag), fn)
}

// scanTable scans the keys of tag starting with prefix, passing keys without
// the tag byte. Errors from fn are returned unwrapped.
func (db *DB) scanTable(tag byte, prefix []byte, what string, fn func(key, val []byte) error) error {
	lower := tableKey(tag, prefix)
	var fnErr error
	var buf []byte
	err := db.scan(lower, PrefixEnd(lower), func(k, v []byte) error {
		v, err := unpackJSON(tag, v, &buf)
		if err != nil {
			fnErr = fmt.Errorf("%s: key %q: %w", what, k[1:], err)
			return fnErr
		}
		if err := fn(k[1:], v); err != nil {
			fnErr = err
			return err
		}
		return nil
	})
	if fnErr != nil {
		if fnErr == errStopScan {
			return nil
		}
		return fnErr
	}
	return wrapErr(what, err)
}

// Delete removes key from the table tag (not from a managed table).
func (db *DB) Delete(tag byte, key []byte) error {
	return db.write(fmt.Sprintf("delete table 0x%02x", tag), func(b *Batch) error { return b.Delete(tag, key) })
}

// DeletePrefix removes every key of the table tag that starts with prefix
// (the whole table when prefix is empty; not a managed table).
func (db *DB) DeletePrefix(tag byte, prefix []byte) error {
	return db.write(fmt.Sprintf("delete prefix table 0x%02x", tag), func(b *Batch) error { return b.DeletePrefix(tag, prefix) })
}
