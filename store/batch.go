package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sync"

	"github.com/cockroachdb/pebble/v2"
)

// Batch collects writes that must land together: either all of them are
// visible after Commit, or (after a crash before Commit returns) none is.
// A Batch is not safe for concurrent use; reads through the DB do not see
// its writes until Commit.
//
// Site, form, counter and generic writes are staged in the Pebble batch
// directly. URL-state and frontier changes (SetURL, PushFrontier,
// DeleteFrontier) are recorded and applied at Commit, under the DB's frontier
// lock, against the then-current URL states: that keeps each URL's frontier
// pointer and the queue lengths exact even with many writers.
type Batch struct {
	db   *DB
	pb   *pebble.Batch
	ops  []urlOp
	buf  []byte
	done bool

	written []*urlSlot // the URL states resolve wrote, cached once committed
}

type urlOpKind uint8

const (
	opSetURL urlOpKind = iota
	opPush
	opDeleteFrontier
)

type urlOp struct {
	kind urlOpKind
	st   URLState      // opSetURL
	e    FrontierEntry // opPush
	url  string        // opDeleteFrontier
}

// NewBatch starts a batch. Always Close it (after Commit, or to discard it).
func (db *DB) NewBatch() *Batch {
	b := &Batch{db: db, pb: db.pdb.NewBatch()}
	if bp, _ := batchBufs.Get().(*[]byte); bp != nil {
		b.buf = (*bp)[:0]
	}
	return b
}

// batchBufs recycles the scratch buffers of closed batches: a crawl makes
// one batch per page and packs the page's record (kilobytes) in its buffer.
var batchBufs sync.Pool

// maxPooledBuf bounds the buffers kept in batchBufs.
const maxPooledBuf = 256 << 10

func (b *Batch) usable() error {
	if b.done {
		return ErrBatchDone
	}
	return b.db.checkWrite()
}

// SetSite stages a site record under s.URL.
func (b *Batch) SetSite(s Site) error {
	if err := b.usable(); err != nil {
		return err
	}
	if s.URL == "" {
		return fmt.Errorf("store: set site %q: empty URL", s.Host)
	}
	v, err := json.Marshal(&s)
	if err != nil {
		return fmt.Errorf("store: set site %s: %w", s.URL, err)
	}
	return b.pb.Set(siteKey(s.URL), v, nil)
}

// SetURL stages a URL state. The stored FrontierKey is kept (the store owns
// it), and so is a stored Fetched time when st has none (a URL skipped after
// it was fetched was still fetched); a state other than StateQueued also
// removes the URL's frontier entry, so a URL recorded as fetched, failed or
// skipped is never popped again.
func (b *Batch) SetURL(st URLState) error {
	if err := b.usable(); err != nil {
		return err
	}
	if st.URL == "" {
		return fmt.Errorf("store: set url: empty URL")
	}
	st.FrontierKey = nil
	b.ops = append(b.ops, urlOp{kind: opSetURL, st: st})
	return nil
}

// PushFrontier stages a frontier entry and points the URL's state at it,
// creating the state (StateQueued) if the URL is new. A URL is in at most one
// queue: pushing a URL that is already queued moves it (new queue, score and
// sequence). Seq zero means "assign the next sequence number", giving
// first-in first-out order among equal scores.
func (b *Batch) PushFrontier(e FrontierEntry) error {
	if err := b.usable(); err != nil {
		return err
	}
	if e.URL == "" {
		return fmt.Errorf("store: push frontier %q: empty URL", e.Queue)
	}
	if math.IsNaN(e.Score) {
		return fmt.Errorf("store: push frontier %s: score is NaN", e.URL)
	}
	e.Payload = bytes.Clone(e.Payload)
	b.ops = append(b.ops, urlOp{kind: opPush, e: e})
	return nil
}

// DeleteFrontier stages the removal of url's frontier entry, if it has one.
// Its URL state is kept, without a frontier pointer.
func (b *Batch) DeleteFrontier(url string) error {
	if err := b.usable(); err != nil {
		return err
	}
	b.ops = append(b.ops, urlOp{kind: opDeleteFrontier, url: url})
	return nil
}

// SetForm stages a form record; an empty ID is set to FormID(PageURL, Index).
func (b *Batch) SetForm(f Form) error {
	if err := b.usable(); err != nil {
		return err
	}
	if f.ID == "" {
		if f.PageURL == "" {
			return fmt.Errorf("store: set form: no ID and no page URL")
		}
		f.ID = FormID(f.PageURL, f.Index)
	}
	v, err := json.Marshal(&f)
	if err != nil {
		return fmt.Errorf("store: set form %s: %w", f.ID, err)
	}
	return b.pb.Set(formKey(f.ID), v, nil)
}

// AddCounter stages delta to be added to the named counter.
func (b *Batch) AddCounter(name string, delta int64) error {
	if err := b.usable(); err != nil {
		return err
	}
	return b.pb.Merge(counterKey(name), encodeCounter(delta), nil)
}

// PutJSON stages v, JSON-encoded, under key in the table tag.
func (b *Batch) PutJSON(tag byte, key []byte, v any) error {
	if err := b.usable(); err != nil {
		return err
	}
	if managedTag(tag) {
		return fmt.Errorf("store: put table 0x%02x: %w", tag, ErrManagedTable)
	}
	val, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("store: put table 0x%02x key %q: %w", tag, key, err)
	}
	if b.db.plain {
		return b.pb.Set(tableKey(tag, key), val, nil)
	}
	b.buf = packJSON(b.buf[:0], tag, val)
	return b.pb.Set(tableKey(tag, key), b.buf, nil)
}

// PutJSONText stages text, a JSON value the caller encoded itself, under
// key in the table tag; it is read back like PutJSON's. text is not
// checked: it must be valid JSON.
func (b *Batch) PutJSONText(tag byte, key, text []byte) error {
	if err := b.usable(); err != nil {
		return err
	}
	if managedTag(tag) {
		return fmt.Errorf("store: put table 0x%02x: %w", tag, ErrManagedTable)
	}
	if b.db.plain {
		return b.pb.Set(tableKey(tag, key), text, nil)
	}
	b.buf = packJSON(b.buf[:0], tag, text)
	return b.pb.Set(tableKey(tag, key), b.buf, nil)
}

// Delete stages the removal of key from the table tag.
func (b *Batch) Delete(tag byte, key []byte) error {
	if err := b.usable(); err != nil {
		return err
	}
	if managedTag(tag) {
		return fmt.Errorf("store: delete table 0x%02x: %w", tag, ErrManagedTable)
	}
	return b.pb.Delete(tableKey(tag, key), nil)
}

// DeletePrefix stages the removal of every key of the table tag that starts
// with prefix (the whole table when prefix is empty).
func (b *Batch) DeletePrefix(tag byte, prefix []byte) error {
	if err := b.usable(); err != nil {
		return err
	}
	if managedTag(tag) {
		return fmt.Errorf("store: delete prefix table 0x%02x: %w", tag, ErrManagedTable)
	}
	start := tableKey(tag, prefix)
	end := PrefixEnd(start)
	if end == nil { // tag 0xFF with an all-0xFF prefix: bound by the largest key
		end = append(bytes.Repeat([]byte{0xFF}, len(start)+1), 0xFF)
	}
	return b.pb.DeleteRange(start, end, nil)
}

// Empty reports whether nothing has been staged.
func (b *Batch) Empty() bool { return len(b.ops) == 0 && b.pb.Empty() }

// Commit applies the batch atomically. With sync it returns only once the
// write is durable (WAL fsync). The batch cannot be used afterwards, except
// for Close.
func (b *Batch) Commit(sync bool) error {
	if err := b.commit(sync); err != nil {
		return fmt.Errorf("store: commit: %w", err)
	}
	return nil
}

func (b *Batch) commit(sync bool) error {
	if err := b.usable(); err != nil {
		return err
	}
	b.done = true
	db := b.db
	if len(b.ops) == 0 {
		if err := b.pb.Commit(writeOptions(sync)); err != nil || !sync {
			return err
		}
		db.synced()
		return nil
	}
	// URL states must be read and written under the frontier lock. The
	// commit itself is not synced under the lock, so that concurrent
	// committers still share fsyncs: the WAL is sequential, and syncing it
	// afterwards makes this batch durable.
	db.fmu.Lock()
	seq := db.seq
	err := b.resolve()
	if err == nil {
		err = b.pb.Commit(pebble.NoSync)
	}
	if err != nil {
		db.seq = seq // queue heads only moved down, which stays correct
		b.forget()
	} else {
		for _, s := range b.written {
			b.buf = encodeURLState(b.buf[:0], &s.st)
			db.urls.stored(s.st.URL, b.buf)
		}
	}
	db.fmu.Unlock()
	if err != nil || !sync {
		return err
	}
	if err := db.pdb.LogData(nil, pebble.Sync); err != nil {
		return err
	}
	db.synced()
	return nil
}

// Close releases the batch; an uncommitted batch is discarded.
func (b *Batch) Close() error {
	if b.buf != nil && cap(b.buf) <= maxPooledBuf {
		buf := b.buf[:0] // pebble copied what was set from it
		batchBufs.Put(&buf)
	}
	b.buf = nil
	b.done = true
	if b.pb == nil {
		return nil
	}
	err := b.pb.Close()
	b.pb = nil
	return err
}

func writeOptions(sync bool) *pebble.WriteOptions {
	if sync {
		return pebble.Sync
	}
	return pebble.NoSync
}

// urlSlot is a URL state loaded once per commit and updated by the ops.
type urlSlot struct {
	st     URLState
	exists bool
	dirty  bool
}

// forget drops every URL the batch's ops name from the URL cache after a
// failed commit: whether Pebble applied the batch is then not known. Caller
// holds db.fmu.
func (b *Batch) forget() {
	for i := range b.ops {
		op := &b.ops[i]
		switch op.kind {
		case opSetURL:
			b.db.urls.drop(op.st.URL)
		case opPush:
			b.db.urls.drop(op.e.URL)
		case opDeleteFrontier:
			b.db.urls.drop(op.url)
		}
	}
}

// resolve turns the recorded URL and frontier ops into Pebble writes.
// Caller holds db.fmu.
func (b *Batch) resolve() error {
	db := b.db
	slots := make(map[string]*urlSlot, len(b.ops))
	load := func(url string) (*urlSlot, error) {
		if s, ok := slots[url]; ok {
			return s, nil
		}
		st, ok, err := db.urlLocked(url)
		if err != nil {
			return nil, err
		}
		s := &urlSlot{st: st, exists: ok}
		if !ok {
			s.st = URLState{URL: url}
		}
		slots[url] = s
		return s, nil
	}
	lens := map[string]int64{}
	unlink := func(s *urlSlot) error {
		fk := s.st.FrontierKey
		if fk == nil {
			return nil
		}
		q, _, err := DecodeString(fk[1:])
		if err != nil {
			return fmt.Errorf("url %s: frontier key: %w", s.st.URL, err)
		}
		lens[q]--
		s.st.FrontierKey = nil
		s.dirty = true
		return b.pb.Delete(fk, nil)
	}
	seqDirty := false
	for i := range b.ops {
		op := &b.ops[i]
		switch op.kind {
		case opSetURL:
			s, err := load(op.st.URL)
			if err != nil {
				return err
			}
			fk, fetched := s.st.FrontierKey, s.st.Fetched
			s.st, s.exists, s.dirty = op.st, true, true
			s.st.FrontierKey = fk
			if s.st.Fetched.IsZero() {
				// a URL once fetched keeps the time: its page record says
				// it was (the crawl looks for records only then)
				s.st.Fetched = fetched
			}
			if s.st.State != StateQueued {
				if err := unlink(s); err != nil {
					return err
				}
			}
		case opPush:
			e := &op.e
			s, err := load(e.URL)
			if err != nil {
				return err
			}
			if err := unlink(s); err != nil {
				return err
			}
			if e.Seq == 0 {
				db.seq++
				e.Seq = db.seq
				seqDirty = true
			} else if e.Seq > db.seq {
				db.seq = e.Seq
				seqDirty = true
			}
			key := frontierKey(nil, e.Queue, e.Score, e.Seq)
			b.buf = encodeFrontierValue(b.buf[:0], e)
			if err := b.pb.Set(key, b.buf, nil); err != nil {
				return err
			}
			lens[e.Queue]++
			db.lowerHead(e.Queue, key)
			if !s.exists {
				s.st = URLState{URL: e.URL, Site: e.Site}
				s.exists = true
			}
			if s.st.Site == "" {
				s.st.Site = e.Site
			}
			s.st.State, s.st.Depth, s.st.FrontierKey, s.dirty = StateQueued, e.Depth, key, true
		case opDeleteFrontier:
			s, err := load(op.url)
			if err != nil {
				return err
			}
			if err := unlink(s); err != nil {
				return err
			}
		}
	}
	for url, s := range slots {
		if !s.dirty {
			continue
		}
		b.buf = encodeURLState(b.buf[:0], &s.st)
		if err := b.pb.Set(urlKey(url), b.buf, nil); err != nil {
			return err
		}
		db.urls.added(url) // before the commit: the filter may only err towards "may be stored"
		b.written = append(b.written, s)
	}
	for q, d := range lens {
		if d == 0 {
			continue
		}
		if err := b.pb.Merge(frontierLenKey(q), encodeCounter(d), nil); err != nil {
			return err
		}
	}
	if seqDirty {
		return b.pb.Set(metaSeqKey, AppendUint64(nil, db.seq), nil)
	}
	return nil
}
