package surface

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"

	"github.com/dwcrawl/dwcrawl/store"
)

// Persistence layout (tables reserved in store/schema.go):
//
//	TagQueries  AppendString(source) AppendUint64(n)   → storedQuery (JSON)
//	TagDocs     AppendString(source) AppendString(key) → StoredDoc (JSON)
//
// A query and the documents it downloaded first are written in one synced
// batch, so a crash never keeps a query without its documents or the
// reverse.

// StoredDoc is a harvested document as kept in the crawl directory.
type StoredDoc struct {
	Doc
	Key    string `json:"key"`
	Source string `json:"source"`
	Query  int    `json:"query"` // number of the query that downloaded it first
	Seq    int    `json:"seq"`   // download order within the source, from 1
}

type storedQuery struct {
	Log     QueryLog `json:"log"`
	Results []string `json:"results"`
}

// StoreJournal is a Journal in a crawl's Pebble store, under one source name
// (a plugin reference or form ID), so one crawl directory can hold the
// harvests of several interfaces.
type StoreJournal struct {
	DB     *store.DB
	Source string
	seq    int
	loaded bool
}

func (j *StoreJournal) queryKey(n int) []byte {
	return store.AppendUint64(store.AppendString(nil, j.Source), uint64(n))
}

func (j *StoreJournal) docKey(k string) []byte {
	return store.AppendString(store.AppendString(nil, j.Source), k)
}

// Append writes the query and its fresh documents in one synced batch.
func (j *StoreJournal) Append(_ context.Context, e Entry) error {
	if !j.loaded {
		n, err := j.countDocs()
		if err != nil {
			return err
		}
		j.seq, j.loaded = n, true
	}
	b := j.DB.NewBatch()
	defer b.Close()
	if err := b.PutJSON(store.TagQueries, j.queryKey(e.Log.N), storedQuery{Log: e.Log, Results: e.Results}); err != nil {
		return err
	}
	for i, d := range e.Docs {
		j.seq++
		sd := StoredDoc{Doc: d, Key: e.Fresh[i], Source: j.Source, Query: e.Log.N, Seq: j.seq}
		if err := b.PutJSON(store.TagDocs, j.docKey(sd.Key), sd); err != nil {
			return err
		}
	}
	return b.Commit(true)
}

func (j *StoreJournal) countDocs() (int, error) {
	n := 0
	err := j.DB.ScanJSON(store.TagDocs, store.AppendString(nil, j.Source), func(_, _ []byte) error {
		n++
		return nil
	})
	return n, err
}

// Replay yields the stored queries in order with their fresh documents.
func (j *StoreJournal) Replay(ctx context.Context, fn func(Entry) error) error {
	byQuery := map[int][]StoredDoc{}
	n := 0
	err := j.DB.ScanJSON(store.TagDocs, store.AppendString(nil, j.Source), func(_, v []byte) error {
		var sd StoredDoc
		if err := json.Unmarshal(v, &sd); err != nil {
			return fmt.Errorf("surface: stored document: %w", err)
		}
		byQuery[sd.Query] = append(byQuery[sd.Query], sd)
		n++
		return nil
	})
	if err != nil {
		return err
	}
	j.seq, j.loaded = n, true
	return j.DB.ScanJSON(store.TagQueries, store.AppendString(nil, j.Source), func(_, v []byte) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		var sq storedQuery
		if err := json.Unmarshal(v, &sq); err != nil {
			return fmt.Errorf("surface: stored query: %w", err)
		}
		docs := byQuery[sq.Log.N]
		sort.Slice(docs, func(a, b int) bool { return docs[a].Seq < docs[b].Seq })
		e := Entry{Log: sq.Log, Results: sq.Results}
		for _, d := range docs {
			e.Fresh = append(e.Fresh, d.Key)
			e.Docs = append(e.Docs, d.Doc)
		}
		return fn(e)
	})
}

// Sources lists the harvested sources of a crawl directory with their
// document and query counts.
func Sources(db *store.DB) (map[string][2]int, error) {
	out := map[string][2]int{}
	// count the keys of each source in a table: slot 0 documents, 1 queries
	count := func(tag byte, slot int) error {
		return db.ScanJSON(tag, nil, func(k, _ []byte) error {
			src, _, err := store.DecodeString(k)
			if err != nil {
				return err
			}
			c := out[src]
			c[slot]++
			out[src] = c
			return nil
		})
	}
	if err := count(store.TagQueries, 1); err != nil {
		return nil, err
	}
	return out, count(store.TagDocs, 0)
}

// Estimates returns, for every harvested source of a crawl directory, the
// log line of its last journaled coverage estimate (the estimate
// checkpoints, Options.EstimateEvery); sources without one are absent.
func Estimates(db *store.DB) (map[string]QueryLog, error) {
	out := map[string]QueryLog{}
	err := db.ScanJSON(store.TagQueries, nil, func(k, v []byte) error {
		src, _, err := store.DecodeString(k)
		if err != nil {
			return err
		}
		var sq storedQuery
		if err := json.Unmarshal(v, &sq); err != nil {
			return fmt.Errorf("surface: stored query: %w", err)
		}
		if sq.Log.Estimator != "" && sq.Log.N >= out[src].N {
			out[src] = sq.Log
		}
		return nil
	})
	return out, err
}

// ExportDocs writes the harvested documents of a crawl directory as JSON
// lines ({"id","url","text","fields","key","source","query","seq"}), in
// download order per source; source "" exports every source. It returns the
// number of documents written.
func ExportDocs(db *store.DB, source string, w io.Writer) (int, error) {
	var prefix []byte
	if source != "" {
		prefix = store.AppendString(nil, source)
	}
	var docs []StoredDoc
	err := db.ScanJSON(store.TagDocs, prefix, func(_, v []byte) error {
		var sd StoredDoc
		if err := json.Unmarshal(v, &sd); err != nil {
			return fmt.Errorf("surface: stored document: %w", err)
		}
		docs = append(docs, sd)
		return nil
	})
	if err != nil {
		return 0, err
	}
	sort.SliceStable(docs, func(a, b int) bool {
		if docs[a].Source != docs[b].Source {
			return docs[a].Source < docs[b].Source
		}
		return docs[a].Seq < docs[b].Seq
	})
	enc := json.NewEncoder(w)
	for _, d := range docs {
		if err := enc.Encode(d); err != nil {
			return 0, err
		}
	}
	return len(docs), nil
}

// ScanDocs calls fn for every stored document of source ("" every source),
// in key order (source, then document key; Seq gives download order).
func ScanDocs(db *store.DB, source string, fn func(StoredDoc) error) error {
	var prefix []byte
	if source != "" {
		prefix = store.AppendString(nil, source)
	}
	return db.ScanJSON(store.TagDocs, prefix, func(k, v []byte) error {
		var sd StoredDoc
		if err := json.Unmarshal(v, &sd); err != nil {
			return fmt.Errorf("surface: stored document %q: %w", k, err)
		}
		return fn(sd)
	})
}

// GetDoc reads the stored document of source under key (StoredDoc.Key).
func GetDoc(db *store.DB, source, key string) (StoredDoc, bool, error) {
	var sd StoredDoc
	ok, err := db.GetJSON(store.TagDocs, store.AppendString(store.AppendString(nil, source), key), &sd)
	return sd, ok, err
}

// ScanQueries calls fn with the log line of every journaled query of
// source ("" every source), in source then query order.
func ScanQueries(db *store.DB, source string, fn func(source string, l QueryLog) error) error {
	var prefix []byte
	if source != "" {
		prefix = store.AppendString(nil, source)
	}
	return db.ScanJSON(store.TagQueries, prefix, func(k, v []byte) error {
		src, _, err := store.DecodeString(k)
		if err != nil {
			return err
		}
		var sq storedQuery
		if err := json.Unmarshal(v, &sq); err != nil {
			return fmt.Errorf("surface: stored query of %s: %w", src, err)
		}
		return fn(src, sq.Log)
	})
}
