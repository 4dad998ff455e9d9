package store

import (
	"bytes"
	"fmt"

	"github.com/cockroachdb/pebble/v2"
)

func frontierLenKey(queue string) []byte {
	return AppendString(append([]byte(nil), metaFLenPrefix...), queue)
}

// PushFrontier adds (or moves) a frontier entry and points its URL's state at
// it, in one batch; see Batch.PushFrontier. It is not synced on its own.
func (db *DB) PushFrontier(e FrontierEntry) error {
	b := db.NewBatch()
	defer b.Close()
	if err := b.PushFrontier(e); err != nil {
		return err
	}
	if err := b.commit(false); err != nil {
		return fmt.Errorf("store: push frontier %s: %w", e.URL, err)
	}
	return nil
}

// PushFrontiers pushes the entries as PushFrontier does, in one batch: the
// links a page adds to a frontier cost one write, not one each.
func (db *DB) PushFrontiers(es []FrontierEntry) error {
	if len(es) == 0 {
		return nil
	}
	b := db.NewBatch()
	defer b.Close()
	for _, e := range es {
		if err := b.PushFrontier(e); err != nil {
			return err
		}
	}
	if err := b.commit(false); err != nil {
		return fmt.Errorf("store: push %d frontier entries (%s, …): %w", len(es), es[0].URL, err)
	}
	return nil
}

// DeleteFrontier removes url's frontier entry, if any, keeping its state.
func (db *DB) DeleteFrontier(url string) error {
	b := db.NewBatch()
	defer b.Close()
	if err := b.DeleteFrontier(url); err != nil {
		return err
	}
	if err := b.commit(false); err != nil {
		return fmt.Errorf("store: delete frontier %s: %w", url, err)
	}
	return nil
}

// PopFrontier removes and returns the best entry of queue (highest score,
// then first pushed) and clears its URL's frontier pointer, atomically; the
// URL stays StateQueued (in flight) until its fetch is recorded. ok is false
// when the queue is empty. The pop is not synced on its own: if the process
// dies before the next synced write, the entry is simply back in the queue.
func (db *DB) PopFrontier(queue string) (e FrontierEntry, ok bool, err error) {
	if err := db.checkWrite(); err != nil {
		return e, false, err
	}
	db.fmu.Lock()
	defer db.fmu.Unlock()
	it, err := db.frontierIterLocked(queue)
	if err != nil {
		return e, false, fmt.Errorf("store: pop frontier %q: %w", queue, err)
	}
	if !it.First() {
		err := it.Error()
		_ = it.Close()
		if err != nil {
			return e, false, fmt.Errorf("store: pop frontier %q: %w", queue, err)
		}
		return e, false, nil
	}
	key := bytes.Clone(it.Key())
	val, err := it.ValueAndErr()
	if err == nil {
		e, err = decodeFrontier(key, val)
	}
	_ = it.Close()
	if err != nil {
		return e, false, fmt.Errorf("store: pop frontier %q: %w", queue, err)
	}
	if err := db.popCommit(key, &e); err != nil {
		return e, false, fmt.Errorf("store: pop frontier %q: %w", queue, err)
	}
	db.head[queue] = key // nothing in the queue sorts below the popped key now
	return e, true, nil
}

// popCommit deletes the popped entry, clears the URL's pointer and
// decrements the queue length in one batch. Caller holds db.fmu.
func (db *DB) popCommit(key []byte, e *FrontierEntry) error {
	pb := db.pdb.NewBatch()
	defer pb.Close()
	if err := pb.Delete(key, nil); err != nil {
		return err
	}
	if err := pb.Merge(frontierLenKey(e.Queue), encodeCounter(-1), nil); err != nil {
		return err
	}
	st, ok, err := db.urlLocked(e.URL)
	if err != nil {
		return err
	}
	var val []byte
	if ok && bytes.Equal(st.FrontierKey, key) {
		st.FrontierKey = nil
		val = encodeURLState(nil, &st)
		if err := pb.Set(urlKey(e.URL), val, nil); err != nil {
			return err
		}
	}
	if err := pb.Commit(pebble.NoSync); err != nil {
		db.urls.drop(e.URL)
		return err
	}
	if val != nil {
		db.urls.stored(e.URL, val)
	}
	return nil
}

// frontierIterLocked opens an iterator over queue starting at its known
// head, which skips the tombstones that popping leaves at the front of a
// queue. Caller holds db.fmu.
func (db *DB) frontierIterLocked(queue string) (*pebble.Iterator, error) {
	prefix := frontierPrefix(nil, queue)
	lower := prefix
	if h, ok := db.head[queue]; ok {
		lower = h
	}
	return db.pdb.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: PrefixEnd(prefix)})
}

// lowerHead records a new key of queue: if it sorts below the queue's head,
// the head moves down to it. Caller holds db.fmu.
func (db *DB) lowerHead(queue string, key []byte) {
	if h, ok := db.head[queue]; ok && bytes.Compare(key, h) < 0 {
		db.head[queue] = key
	}
}

// PeekFrontier returns up to n entries of queue in pop order without
// removing them.
func (db *DB) PeekFrontier(queue string, n int) ([]FrontierEntry, error) {
	var out []FrontierEntry
	if n <= 0 {
		return out, nil
	}
	err := db.ScanFrontier(queue, func(e FrontierEntry) error {
		out = append(out, e)
		if len(out) == n {
			return errStopScan
		}
		return nil
	})
	return out, err
}

// ScanFrontier calls fn for every entry of queue in pop order, over a
// consistent snapshot of the queue. fn may call other DB methods; an error
// from fn stops the scan and is returned as is.
func (db *DB) ScanFrontier(queue string, fn func(FrontierEntry) error) error {
	if err := db.check(); err != nil {
		return err
	}
	db.fmu.Lock()
	it, err := db.frontierIterLocked(queue)
	db.fmu.Unlock()
	if err != nil {
		return fmt.Errorf("store: scan frontier %q: %w", queue, err)
	}
	defer it.Close()
	for ok := it.First(); ok; ok = it.Next() {
		v, err := it.ValueAndErr()
		if err != nil {
			return fmt.Errorf("store: scan frontier %q: %w", queue, err)
		}
		e, err := decodeFrontier(it.Key(), v)
		if err != nil {
			return fmt.Errorf("store: scan frontier %q: %w", queue, err)
		}
		if err := fn(e); err != nil {
			if err == errStopScan {
				return nil
			}
			return err
		}
	}
	if err := it.Error(); err != nil {
		return fmt.Errorf("store: scan frontier %q: %w", queue, err)
	}
	return nil
}

// FrontierLen returns the number of entries in queue (O(1): queue lengths
// are maintained in the same batches as the entries).
func (db *DB) FrontierLen(queue string) (int, error) {
	v, ok, err := db.getRaw(frontierLenKey(queue))
	if err != nil || !ok {
		return 0, wrapErr("frontier len "+queue, err)
	}
	n, err := decodeCounter(v)
	return int(n), wrapErr("frontier len "+queue, err)
}

// FrontierLens returns the length of every queue that has ever held an
// entry (possibly zero now).
func (db *DB) FrontierLens() (map[string]int, error) {
	out := map[string]int{}
	err := db.scan(metaFLenPrefix, PrefixEnd(metaFLenPrefix), func(k, v []byte) error {
		q, _, err := DecodeString(k[len(metaFLenPrefix):])
		if err != nil {
			return err
		}
		n, err := decodeCounter(v)
		out[q] = int(n)
		return err
	})
	return out, wrapErr("frontier lens", err)
}

// errStopScan stops a scan early without an error.
var errStopScan = fmt.Errorf("stop scan")

func wrapErr(what string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("store: %s: %w", what, err)
}
