package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/bloom"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// Errors returned (wrapped) by the store.
var (
	// ErrClosed is returned by operations on a closed DB.
	ErrClosed = errors.New("store: database is closed")
	// ErrSchemaNewer is returned (wrapped, naming the directory) by Open for
	// a database written by a newer dwcrawl.
	ErrSchemaNewer = errors.New("database schema is newer than this dwcrawl")
	// ErrLocked is returned (wrapped, naming the directory) by Open when the
	// directory is already open, in this process or another one.
	ErrLocked = errors.New("directory in use by another dwcrawl process (or already open in this one)")
	// ErrManagedTable is returned when the generic API is asked to write a
	// table that only typed accessors may change.
	ErrManagedTable = errors.New("store: table is managed by typed accessors")
	// ErrBatchDone is returned when a batch is used after Commit or Close.
	ErrBatchDone = errors.New("store: batch already committed or closed")
)

// DefaultCacheSize is the block cache size when Options.CacheSize is zero.
// Modest on purpose: a 100k-page crawl should stay within 500 MiB in total.
const DefaultCacheSize = 64 << 20

// separateValuesFrom is the smallest value Pebble keeps in a blob file
// rather than in the table: above URL states, frontier entries and site
// records (tens to a few hundred bytes, rewritten as the crawl goes), below
// page and form records (kilobytes, written once).
const separateValuesFrom = 512

// DefaultDataRoot is the directory under which DefaultDir places crawls.
const DefaultDataRoot = "dwcrawl-data"

// Options configure Open. The zero value is ready to use.
type Options struct {
	// NoSync turns off the fsync of the DB's own single-record writes
	// (PutSite, MarkURL, PutForm, PutModel, AddCounter, PutJSON, Delete…).
	// Batches choose per Commit; PushFrontier and PopFrontier never sync on
	// their own (frontier churn), the next synced write covers them.
	NoSync bool
	// Logger receives Pebble's messages (informational ones at Debug level).
	// Nil means slog.Default().
	Logger *slog.Logger
	// CacheSize is Pebble's block cache in bytes; zero means DefaultCacheSize.
	CacheSize int64
	// MemTableSize is the size of one Pebble memtable in bytes; zero means
	// 8 MiB. Up to two are held in memory.
	MemTableSize int64
	// Kind, when set, is the kind of directory the opener makes (KindCrawl,
	// KindSurface, KindEnrich): a directory recorded with another kind,
	// not in AlsoKinds, is refused with ErrKind before anything in it is
	// touched, and a directory without a recorded kind gets Kind.
	Kind      string
	AlsoKinds []string

	// plain writes as SchemaVersion 1 did: JSON records unpacked, values
	// kept in the tables (tests and benchmarks: older directories, costs).
	plain bool
}

// DB is an open crawl database. Its methods are safe for concurrent use, but
// Close must not race with other calls.
type DB struct {
	dir  string
	pdb  *pebble.DB
	lock *pebble.Lock
	wo   *pebble.WriteOptions // for the DB's single-record writes
	log  *slog.Logger

	// fmu serialises every change to URL states and frontier queues, so a
	// URL's frontier pointer and the queue lengths always match the queues.
	fmu  sync.Mutex
	seq  uint64            // last frontier sequence number (guarded by fmu)
	head map[string][]byte // per queue: no live key sorts below this (guarded by fmu)
	urls *urlCache         // recent URL states (guarded by fmu; nil when read-only)

	mmu    sync.Mutex // serialises model version assignment
	closed atomic.Bool

	readOnly  bool
	plain     bool                   // Options.plain
	cacheSize int64                  // Pebble's block cache capacity
	snapDir   string                 // the snapshot a read-only DB reads ("" for dir itself)
	corrupt   atomic.Pointer[string] // the first damaged file Pebble reported
	lastSync  atomic.Int64           // UnixNano of the last synced commit (SyncDue)
}

// DefaultDir returns the default crawl directory of a profile,
// ./dwcrawl-data/<profileName>.
func DefaultDir(profileName string) string {
	return filepath.Join(DefaultDataRoot, profileName)
}

// Open opens the crawl database in dir for reading and writing, creating
// it (and the directory) when dir does not exist or is empty. The directory
// is locked for the lifetime of the DB; opening it twice, from this process
// or another, fails with ErrLocked.
//
// Open never takes over what it does not recognise: a directory of other
// files is ErrNotStore, a Pebble database without dwcrawl's schema record
// is ErrNotStore, and database files without a manifest marker are
// ErrDamaged (Pebble would start a new database there and delete the
// tables). Nothing in dir is changed then.
func Open(dir string, opt Options) (db *DB, err error) {
	if dir == "" {
		return nil, errors.New("store: open: empty directory name")
	}
	st, err := inspectDir(dir)
	if err != nil {
		return nil, err
	}
	if st == dirStore && opt.Kind != "" {
		// refuse another command's directory before opening it for
		// writing, which replays and flushes its log
		if err := peekKind(dir, opt.Kind, opt.AlsoKinds); err != nil {
			return nil, err
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("store: open %s: %w", dir, err)
	}
	lock, err := pebble.LockDirectory(dir, vfs.Default)
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w: %v", dir, ErrLocked, err)
	}
	log := opt.Logger
	if log == nil {
		log = slog.Default()
	}
	db = &DB{dir: dir, lock: lock, log: log, head: map[string][]byte{}, wo: pebble.Sync, urls: newURLCache(urlCacheEntries)}
	opened := db
	defer func() {
		if err != nil {
			opened.release()
		}
	}()
	// again under the lock: another process may have been writing
	if st, err = inspectDir(dir); err != nil {
		return nil, err
	}
	if opt.NoSync {
		db.wo = pebble.NoSync
	}
	if st == dirStore {
		warnTornLog(dir, log)
	}
	po := db.pebbleOptions(opt)
	po.Lock = lock
	po.ErrorIfNotExists = st == dirStore
	if err := db.openPebble(dir, po); err != nil {
		return nil, err
	}
	if err := db.init(st == dirStore); err != nil {
		_ = db.pdb.Close()
		return nil, fmt.Errorf("store: open %s: %w", dir, err)
	}
	if opt.Kind != "" {
		if _, err := db.ClaimKind(opt.Kind, opt.AlsoKinds...); err != nil {
			_ = db.pdb.Close()
			return nil, err
		}
	}
	return db, nil
}

// Flush writes the memtable to a table file (tests and tools; a crawl
// never needs it: the write-ahead log makes writes durable).
func (db *DB) Flush() error {
	if err := db.checkWrite(); err != nil {
		return err
	}
	return wrapErr("flush", db.pdb.Flush())
}

func logDefault() *slog.Logger { return slog.Default() }

// warnTornLog says when the newest write-ahead log ends in a torn record:
// Pebble opens the database without the writes after it, as after a crash
// (a killed crawl resumes from what was synced), and the user should know.
func warnTornLog(dir string, log *slog.Logger) {
	if t := tornLog(dir); t != nil {
		log.Warn("the last writes before the crawl stopped are lost", "dir", dir, "problem", t.Error())
	}
}

func (db *DB) pebbleOptions(opt Options) *pebble.Options {
	cacheSize := opt.CacheSize
	if cacheSize <= 0 {
		cacheSize = DefaultCacheSize
	}
	db.cacheSize = cacheSize
	memtable := opt.MemTableSize
	if memtable <= 0 {
		memtable = 8 << 20
	}
	po := &pebble.Options{
		Cache:              pebble.NewCache(cacheSize),
		MemTableSize:       uint64(memtable),
		Merger:             counterMerger,
		Logger:             pebbleLogger{db.log},
		FormatMajorVersion: pebble.FormatNewest,
	}
	// Bloom filters make "have we seen this URL?" misses cheap.
	for i := range po.Levels {
		po.Levels[i].FilterPolicy = bloom.FilterPolicy(10)
	}
	// Pebble's default answer to a damaged file is Fatalf, a panic in a
	// background goroutine; record the file instead, so that the reads that
	// fail on it return an error naming it.
	po.EventListener = &pebble.EventListener{
		DataCorruption: func(info pebble.DataCorruptionInfo) {
			p := info.Path
			db.corrupt.CompareAndSwap(nil, &p)
			msg, _, _ := strings.Cut(fmt.Sprint(info.Details), "\n")
			db.log.Error("damaged database file", "dir", db.dir, "file", info.Path, "err", msg)
		},
		BackgroundError: func(err error) {
			msg, _, _ := strings.Cut(err.Error(), "\n")
			db.log.Error("database background error", "dir", db.dir, "err", msg)
		},
	}
	// Page and form records (kilobytes each, most of the bytes a crawl
	// writes) go to blob files at flush and stay there: compactions move
	// their handles instead of rewriting them level after level. They are
	// written once and never deleted, so the blob files hold no garbage.
	// On a 10k-page crawl compactions took 0.29 s of client CPU, not 0.78.
	db.plain = opt.plain
	if !db.plain {
		po.Experimental.ValueSeparationPolicy = func() pebble.ValueSeparationPolicy {
			return pebble.ValueSeparationPolicy{
				Enabled:               true,
				MinimumSize:           separateValuesFrom,
				MaxBlobReferenceDepth: 10,
				RewriteMinimumAge:     5 * time.Minute,
				TargetGarbageRatio:    0.2,
			}
		}
	}
	return po
}

// corruptFile is the damaged file Pebble reported, "" if none.
func (db *DB) corruptFile() string {
	if p := db.corrupt.Load(); p != nil {
		return *p
	}
	return ""
}

// annotate turns an error on damaged data into ErrDamaged naming the file.
func (db *DB) annotate(err error) error {
	if err == nil {
		return nil
	}
	f := db.corruptFile()
	if f == "" && !pebble.IsCorruptionError(err) {
		return err
	}
	if f == "" {
		f = "a database file"
	}
	if db.snapDir != "" {
		f = filepath.Join(db.dir, filepath.Base(f))
	}
	msg, _, _ := strings.Cut(err.Error(), "\n") // Pebble appends details on further lines
	return fmt.Errorf("%w: %s: %s (dwcrawl check --dir %s)", ErrDamaged, f, msg, db.dir)
}

// recoverTo turns a panic inside Pebble (on data it cannot make sense of)
// into *err, naming the directory: a damaged store is an error, never a
// crash.
func (db *DB) recoverTo(err *error, what string) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("store: %s %s: %w: %v", what, db.dir, ErrDamaged, r)
		if f := db.corruptFile(); f != "" {
			*err = fmt.Errorf("store: %s %s: %w: %s: %v", what, db.dir, ErrDamaged, f, r)
		}
	}
}

// init checks (or writes) the schema version and loads the frontier sequence.
func (db *DB) init(existed bool) error {
	v, ok, err := db.getRaw(metaVersionKey)
	if err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	if !ok {
		if existed {
			empty, err := db.empty()
			if err != nil {
				return err
			}
			if !empty {
				return fmt.Errorf("%w: a database without dwcrawl's schema record", ErrNotStore)
			}
		}
		if err := db.pdb.Set(metaVersionKey, AppendUint64(nil, db.schemaVersion()), pebble.Sync); err != nil {
			return fmt.Errorf("write schema version: %w", err)
		}
	} else {
		ver, _, err := DecodeUint64(v)
		if err != nil {
			return fmt.Errorf("read schema version: %w", err)
		}
		if ver > SchemaVersion {
			return fmt.Errorf("%w: schema version %d, this build reads up to %d; upgrade dwcrawl", ErrSchemaNewer, ver, SchemaVersion)
		}
		// what this build writes an older one cannot read: say so to it
		if ver < db.schemaVersion() {
			if err := db.pdb.Set(metaVersionKey, AppendUint64(nil, db.schemaVersion()), pebble.Sync); err != nil {
				return fmt.Errorf("write schema version: %w", err)
			}
		}
	}
	s, ok, err := db.getRaw(metaSeqKey)
	if err != nil {
		return fmt.Errorf("read frontier sequence: %w", err)
	}
	if ok {
		if db.seq, _, err = DecodeUint64(s); err != nil {
			return fmt.Errorf("read frontier sequence: %w", err)
		}
	}
	return nil
}

// schemaVersion is the version of what this DB writes.
func (db *DB) schemaVersion() uint64 {
	if db.plain {
		return 1
	}
	return SchemaVersion
}

// SyncsWrites reports whether the DB's own single-record writes are synced
// (Options.NoSync unset): the durability a caller's batch of the same kind
// of record should have.
func (db *DB) SyncsWrites() bool { return db.wo.Sync }

// SyncInterval bounds how long crawl state committed with SyncDue stays
// unsynced.
const SyncInterval = time.Second

// SyncDue reports whether a batch of crawl state that can be rebuilt (a
// site begun or explored, a learning example; not a form or a user's
// record, which are always synced) should be synced: the DB syncs writes
// and no commit was synced for SyncInterval. An fsync per site cost more
// CPU than the crawl's parsing; syncing at most once a second bounds what
// an OS crash takes back, while a killed process loses nothing the log
// was given (the log is sequential: the next synced write covers all
// earlier ones).
func (db *DB) SyncDue() bool {
	return db.wo.Sync && time.Now().UnixNano()-db.lastSync.Load() >= int64(SyncInterval)
}

// synced notes a synced commit (SyncDue).
func (db *DB) synced() { db.lastSync.Store(time.Now().UnixNano()) }

// Dir returns the directory the DB was opened in.
func (db *DB) Dir() string { return db.dir }

// Close closes Pebble and releases the directory lock (every committed write
// is already in the WAL). Closing twice is a no-op.
func (db *DB) Close() error {
	if db.closed.Swap(true) {
		return nil
	}
	db.fmu.Lock()
	db.urls = nil // its memory goes with the DB, even if the DB is kept
	db.fmu.Unlock()
	err := db.pdb.Close()
	if db.lock != nil {
		if lerr := db.lock.Close(); err == nil {
			err = lerr
		}
		db.lock = nil
	}
	db.release()
	if err != nil {
		return fmt.Errorf("store: close %s: %w", db.dir, err)
	}
	return nil
}

// Sync makes every write committed so far durable (one WAL fsync). Use it
// for periodic durability when writes are committed without sync.
func (db *DB) Sync() error {
	if err := db.checkWrite(); err != nil {
		return err
	}
	if err := db.pdb.LogData(nil, pebble.Sync); err != nil {
		return fmt.Errorf("store: sync %s: %w", db.dir, err)
	}
	db.synced()
	return nil
}

func (db *DB) check() error {
	if db.closed.Load() {
		return ErrClosed
	}
	return nil
}

// checkWrite is check for the operations that write.
func (db *DB) checkWrite() error {
	if err := db.check(); err != nil {
		return err
	}
	if db.readOnly {
		return fmt.Errorf("%w: %s", ErrReadOnly, db.dir)
	}
	return nil
}

// getRaw returns a copy of the value at key.
func (db *DB) getRaw(key []byte) (_ []byte, _ bool, err error) {
	if err := db.check(); err != nil {
		return nil, false, err
	}
	defer db.recoverTo(&err, "read")
	v, closer, err := db.pdb.Get(key)
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, db.annotate(err)
	}
	out := append([]byte(nil), v...)
	return out, true, closer.Close()
}

// scan calls fn for every key in [lower, upper) in order. key and val are
// only valid during the call.
func (db *DB) scan(lower, upper []byte, fn func(key, val []byte) error) (err error) {
	if err := db.check(); err != nil {
		return err
	}
	defer db.recoverTo(&err, "read")
	it, err := db.pdb.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: upper})
	if err != nil {
		return db.annotate(err)
	}
	for ok := it.First(); ok; ok = it.Next() {
		v, err := it.ValueAndErr()
		if err != nil {
			_ = it.Close()
			return db.annotate(err)
		}
		if err := fn(it.Key(), v); err != nil {
			_ = it.Close()
			return err
		}
	}
	if err := it.Error(); err != nil {
		_ = it.Close()
		return db.annotate(err)
	}
	return db.annotate(it.Close())
}

// empty reports whether the database holds no key at all.
func (db *DB) empty() (bool, error) {
	found := false
	err := db.scan(nil, nil, func(_, _ []byte) error {
		found = true
		return errStopScan
	})
	if err == errStopScan {
		err = nil
	}
	return !found, err
}

// write commits a single-record batch built by fn with the DB's sync setting.
func (db *DB) write(what string, fn func(b *Batch) error) error {
	b := db.NewBatch()
	defer b.Close()
	if err := fn(b); err != nil {
		return err
	}
	if err := b.commit(db.wo.Sync); err != nil {
		return fmt.Errorf("store: %s: %w", what, err)
	}
	return nil
}

// pebbleLogger sends Pebble's messages to slog; informational ones at Debug
// so a crawl's output is not cluttered.
type pebbleLogger struct{ l *slog.Logger }

func (p pebbleLogger) Infof(format string, args ...any) {
	p.l.Debug(fmt.Sprintf(format, args...), "component", "pebble")
}

func (p pebbleLogger) Errorf(format string, args ...any) {
	p.l.Error(fmt.Sprintf(format, args...), "component", "pebble")
}

// Fatalf is called by Pebble on unrecoverable corruption; Pebble requires
// that it does not return.
func (p pebbleLogger) Fatalf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	p.l.Error(msg, "component", "pebble")
	panic("pebble fatal: " + msg)
}

// counterMerger sums int64 operands (8 bytes, big-endian two's complement).
// Counters and frontier lengths are updated with Merge so that batches can
// add to them without reading them first.
var counterMerger = &pebble.Merger{
	Name: "dwcrawl.counter.v1",
	Merge: func(key, value []byte) (pebble.ValueMerger, error) {
		m := &sumMerger{}
		return m, m.add(value)
	},
}

type sumMerger struct{ sum int64 }

func (m *sumMerger) add(v []byte) error {
	n, err := decodeCounter(v)
	m.sum += n
	return err
}

func (m *sumMerger) MergeNewer(v []byte) error { return m.add(v) }
func (m *sumMerger) MergeOlder(v []byte) error { return m.add(v) }

func (m *sumMerger) Finish(bool) ([]byte, io.Closer, error) {
	return encodeCounter(m.sum), nil, nil
}

func encodeCounter(n int64) []byte {
	return binary.BigEndian.AppendUint64(make([]byte, 0, 8), uint64(n))
}

func decodeCounter(v []byte) (int64, error) {
	if len(v) != 8 {
		return 0, fmt.Errorf("counter value of %d bytes: %w", len(v), ErrBadValue)
	}
	return int64(binary.BigEndian.Uint64(v)), nil
}

// SetTestbed records the configuration (JSON) of the simulated web a
// testbed crawl runs against, so that later commands on the directory (a
// surface of a discovered form) reach the same web.
func (db *DB) SetTestbed(config []byte) error {
	if err := db.checkWrite(); err != nil {
		return err
	}
	if err := db.pdb.Set(metaTestbedKey, config, pebble.Sync); err != nil {
		return wrapErr("record the testbed config", err)
	}
	return nil
}

// Testbed returns the simulated web configuration recorded by SetTestbed;
// ok is false for a crawl of the real web.
func (db *DB) Testbed() (config []byte, ok bool, err error) {
	v, ok, err := db.getRaw(metaTestbedKey)
	if err != nil || !ok {
		return nil, false, wrapErr("read the testbed config", err)
	}
	return v, true, nil
}

// Memory is what the store holds in memory: Pebble's block cache and
// memtables (allocated outside the Go heap when cgo is on) and its open
// tables.
type Memory struct {
	BlockCache, BlockCacheCap int64  // bytes in the block cache, its capacity
	MemTables                 uint64 // bytes of memtables, including those being flushed
	OpenTables                int64  // tables open in the file cache
	Tables                    int64  // live sstables
	TableBytes                int64  // their size on disk
}

// Memory reports the store's memory use (benchmarks and monitoring).
func (db *DB) Memory() Memory {
	m := db.pdb.Metrics()
	t := m.Total()
	return Memory{BlockCache: m.BlockCache.Size, BlockCacheCap: db.cacheSize, MemTables: m.MemTable.Size + m.MemTable.ZombieSize,
		OpenTables: m.FileCache.TableCount, Tables: t.TablesCount, TableBytes: t.TablesSize}
}
