package store

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/record"

	"github.com/cockroachdb/pebble/v2/sstable"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// CheckReport is what Check found in a directory.
type CheckReport struct {
	Dir string `json:"dir"`
	// Snapshot is set when another process held the directory and a
	// snapshot of it was checked.
	Snapshot bool `json:"snapshot"`
	// Identity is the directory's recorded identity, if any.
	Identity *Identity `json:"identity,omitempty"`
	// Tables are the live table files, with their level and size.
	Tables []TableCheck `json:"tables"`
	// Records counts the records of each table (by TableName).
	Records map[string]int64 `json:"records"`
	// Problems lists everything wrong, each naming the file or the key.
	Problems []string `json:"problems"`
}

// TableCheck is one table file's verdict.
type TableCheck struct {
	File  string `json:"file"`
	Level int    `json:"level"`
	Size  uint64 `json:"size"`
	OK    bool   `json:"ok"`
}

// OK reports whether nothing is wrong.
func (r *CheckReport) OK() bool { return len(r.Problems) == 0 }

func (r *CheckReport) problem(format string, args ...any) {
	r.Problems = append(r.Problems, fmt.Sprintf(format, args...))
}

// TableName names the table of a tag for reports.
func TableName(tag byte) string {
	switch tag {
	case TagMeta:
		return "meta"
	case TagSites:
		return "sites"
	case TagURLs:
		return "urls"
	case TagFrontier:
		return "frontier"
	case TagForms:
		return "forms"
	case TagModels:
		return "models"
	case TagCounters:
		return "counters"
	case TagPages:
		return "pages"
	case TagFeatures:
		return "features"
	case TagCrawl:
		return "crawl"
	case TagDocs:
		return "docs"
	case TagQueries:
		return "queries"
	case TagHarvest:
		return "harvest"
	}
	if tag >= TagEnrichFirst && tag <= TagEnrichLast {
		return fmt.Sprintf("enrich-%02x", tag)
	}
	return fmt.Sprintf("0x%02x", tag)
}

// Check verifies the crawl database in dir without changing it: it opens
// it read-only (which reads the manifest and replays the write-ahead log),
// reads every block of every live table file checking its checksum, checks
// the ordering of the keys across levels, and decodes every record of
// every table. An error is returned only when dir cannot be checked at all
// (no such directory); everything found wrong is in the report.
func Check(ctx context.Context, dir string, opt Options) (*CheckReport, error) {
	r := &CheckReport{Dir: dir, Records: map[string]int64{}, Tables: []TableCheck{}, Problems: []string{}}
	db, initErr, err := openReadOnly(dir, opt)
	if err != nil {
		if errors.Is(err, ErrNotExist) {
			return nil, err
		}
		r.problem("%v", err)
		return r, nil
	}
	defer db.Close()
	if initErr != nil {
		r.problem("%v", initErr)
	}
	r.Snapshot = db.Snapshotted()
	db.checkTables(ctx, r)
	if !r.Snapshot { // a running crawl's log ends mid-write by nature
		checkLastLog(dir, r)
	}
	if err := ctx.Err(); err != nil {
		return r, err
	}
	if err := db.checkLevels(); err != nil {
		r.problem("key order across levels: %v", err)
	}
	db.checkRecords(r)
	if id, ok, err := db.Identity(); err != nil {
		r.problem("%v", err)
	} else if ok {
		r.Identity = &id
	}
	return r, ctx.Err()
}

// checkTables validates the checksum of every block of every live table.
func (db *DB) checkTables(ctx context.Context, r *CheckReport) {
	levels, err := db.pdb.SSTables()
	if err != nil {
		r.problem("listing the table files: %v", db.annotate(err))
		return
	}
	src := db.dir
	if db.snapDir != "" {
		src = db.snapDir
	}
	po := db.pebbleOptions(Options{CacheSize: 1 << 20})
	po.Cache.Unref()
	po.EnsureDefaults()
	ro := po.MakeReaderOptions()
	for level, tables := range levels {
		for _, t := range tables {
			if ctx.Err() != nil {
				return
			}
			name := fmt.Sprintf("%06d.sst", uint64(t.BackingSSTNum))
			tc := TableCheck{File: filepath.Join(db.dir, name), Level: level, Size: t.Size}
			if err := validateTable(ctx, filepath.Join(src, name), ro); err != nil {
				r.problem("table %s (level %d): %v", tc.File, level, err)
			} else {
				tc.OK = true
			}
			r.Tables = append(r.Tables, tc)
		}
	}
}

// validateTable reads every block of one table file, checking checksums.
func validateTable(ctx context.Context, path string, ro sstable.ReaderOptions) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("unreadable: %v", p)
		}
	}()
	f, err := vfs.Default.Open(path)
	if err != nil {
		return err
	}
	readable, err := sstable.NewSimpleReadable(f)
	if err != nil {
		f.Close()
		return err
	}
	rd, err := sstable.NewReader(ctx, readable, ro)
	if err != nil {
		readable.Close()
		return err
	}
	defer rd.Close()
	return rd.ValidateBlockChecksums()
}

// checkLastLog reports a torn newest write-ahead log (see tornLog).
func checkLastLog(dir string, r *CheckReport) {
	if t := tornLog(dir); t != nil {
		r.problem("%v", t)
	}
}

// tornLogError describes a write-ahead log that ends in a torn record.
type tornLogError struct {
	file    string
	off     int64
	records int
	err     error
}

func (t *tornLogError) Error() string {
	if t.err != nil {
		return fmt.Sprintf("write-ahead log %s: %v", t.file, t.err)
	}
	return fmt.Sprintf("write-ahead log %s: ends in a torn record at offset %d after %d whole records (a crash or kill mid-write, or a truncated file): what was written after it is lost",
		t.file, t.off, t.records)
}

// tornLog reads the newest write-ahead log of dir record by record. Pebble
// replays a log up to its first torn record and drops the rest silently
// (what a crash leaves), so a log cut short is only seen here. A log closed
// cleanly ends with a trailer; one that a kill or a crash interrupted may
// end in a torn record, whose writes (never acknowledged as synced) are
// lost, as are those after a truncation. nil when the log reads to its end.
func tornLog(dir string) *tornLogError {
	logs, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	if len(logs) == 0 {
		return nil
	}
	sort.Strings(logs)
	last := logs[len(logs)-1]
	num, err := strconv.ParseUint(strings.TrimSuffix(filepath.Base(last), ".log"), 10, 64)
	if err != nil {
		return nil
	}
	f, err := os.Open(last)
	if err != nil {
		return &tornLogError{file: last, err: err}
	}
	defer f.Close()
	// record.NewReader wants the log number in Pebble's internal type
	var logNum = pebble.SSTableInfo{}.BackingSSTNum
	reflect.ValueOf(&logNum).Elem().SetUint(num)
	rd := record.NewReader(bufio.NewReaderSize(f, 1<<16), logNum)
	records := 0
	for {
		off := rd.Offset()
		rec, err := rd.Next()
		if err == nil {
			_, err = io.Copy(io.Discard, rec)
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return &tornLogError{file: last, off: off, records: records}
		}
		records++
	}
}

// checkLevels iterates every key of every level checking Pebble's ordering
// invariants (and, reading every block, their checksums again).
func (db *DB) checkLevels() (err error) {
	defer db.recoverTo(&err, "check")
	return db.annotate(db.pdb.CheckLevels(nil))
}

// checkRecords decodes every record of every table and checks that the
// frontier lengths match the queues.
func (db *DB) checkRecords(r *CheckReport) {
	queues := map[string]int{}
	lens := map[string]int64{}
	bad := 0
	note := func(format string, args ...any) {
		bad++
		if bad <= 20 {
			r.problem(format, args...)
		}
	}
	var buf []byte
	err := db.scan(nil, nil, func(k, v []byte) error {
		tag := k[0]
		r.Records[TableName(tag)]++
		key := k[1:]
		v, err := unpackJSON(tag, v, &buf)
		if err != nil {
			note("%s record %q: %v", TableName(tag), key, err)
			return nil
		}
		switch tag {
		case TagMeta:
			err = checkMeta(k, v, lens)
		case TagSites, TagForms:
			var x map[string]any
			err = json.Unmarshal(v, &x)
		case TagURLs:
			_, err = decodeURLState(string(key), v)
		case TagFrontier:
			var e FrontierEntry
			if e, err = decodeFrontier(k, v); err == nil {
				queues[e.Queue]++
			}
		case TagModels:
			_, err = decodeModel(k, v)
		case TagCounters:
			_, err = decodeCounter(v)
		default:
			if !json.Valid(v) {
				err = fmt.Errorf("not JSON")
			}
		}
		if err != nil {
			note("%s record %q: %v", TableName(tag), key, err)
		}
		return nil
	})
	if err != nil {
		r.problem("reading the records: %v", err)
		return
	}
	if bad > 20 {
		r.problem("… %d bad records in all", bad)
	}
	names := make([]string, 0, len(lens))
	for q := range lens {
		names = append(names, q)
	}
	for q := range queues {
		if _, ok := lens[q]; !ok {
			names = append(names, q)
		}
	}
	sort.Strings(names)
	for _, q := range names {
		if int64(queues[q]) != lens[q] {
			r.problem("frontier queue %q: length recorded %d, entries %d", q, lens[q], queues[q])
		}
	}
}

// checkMeta decodes one bookkeeping record; frontier lengths go to lens.
func checkMeta(k, v []byte, lens map[string]int64) error {
	switch {
	case string(k) == string(metaVersionKey), string(k) == string(metaSeqKey):
		_, _, err := DecodeUint64(v)
		return err
	case len(k) > len(metaFLenPrefix) && string(k[:len(metaFLenPrefix)]) == string(metaFLenPrefix):
		q, _, err := DecodeString(k[len(metaFLenPrefix):])
		if err != nil {
			return err
		}
		n, err := decodeCounter(v)
		lens[q] = n
		return err
	case string(k) == string(metaTestbedKey), string(k) == string(metaIdentityKey), string(k) == string(metaProfileKey):
		if !json.Valid(v) {
			return fmt.Errorf("not JSON")
		}
	}
	return nil
}
