package store

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// Errors about what a directory holds, returned (wrapped, naming the
// directory and the files concerned) by Open and OpenReadOnly.
var (
	// ErrNotExist: the directory does not exist (read-only opens never
	// create one).
	ErrNotExist = errors.New("no such crawl directory")
	// ErrNotStore: the directory exists but holds no dwcrawl database.
	ErrNotStore = errors.New("not a dwcrawl crawl directory")
	// ErrDamaged: the directory holds a database that cannot be read as it
	// is (a manifest marker missing, a table file damaged…). Nothing was
	// changed; `dwcrawl check --dir D` says more.
	ErrDamaged = errors.New("damaged crawl directory")
	// ErrReadOnly is returned by writes to a DB opened with OpenReadOnly.
	ErrReadOnly = errors.New("store: opened read-only")
)

// dirState is what inspectDir found in a directory.
type dirState int

const (
	dirAbsent dirState = iota // no such directory
	dirEmpty                  // nothing in it (a lock file at most): a new store may go there
	dirStore                  // a Pebble database with its manifest marker
)

// pebbleFile reports whether name is one of the files Pebble keeps in a
// database directory.
func pebbleFile(name string) bool {
	switch {
	case name == "LOCK", name == "CURRENT",
		strings.HasSuffix(name, ".sst"), strings.HasSuffix(name, ".log"), strings.HasSuffix(name, ".blob"),
		strings.HasSuffix(name, ".dbtmp"),
		strings.HasPrefix(name, "MANIFEST-"), strings.HasPrefix(name, "OPTIONS-"), strings.HasPrefix(name, "marker."):
		return true
	}
	return false
}

// companionFiles are the files dwcrawl itself keeps beside a database: the
// server's job record, inline profile, uploaded local table and enriched
// output (package serve), written before the job opens its store. They do
// not make a directory foreign.
var companionFiles = []string{"job.json", "profile.lua", "local.csv", "enriched.csv"}

func companionFile(name string) bool {
	for _, c := range companionFiles {
		if name == c {
			return true
		}
	}
	return false
}

// inspectDir says what dir holds without changing anything in it. A
// directory with database files but no manifest marker is ErrDamaged:
// Pebble would take it for a new database and delete its tables (a crawl
// was lost that way); a directory of other files is ErrNotStore.
func inspectDir(dir string) (dirState, error) {
	fi, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return dirAbsent, nil
	}
	if err != nil {
		return 0, fmt.Errorf("store: %s: %w", dir, err)
	}
	if !fi.IsDir() {
		return 0, fmt.Errorf("store: %s: %w (a file, not a directory)", dir, ErrNotStore)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return 0, fmt.Errorf("store: %s: %w", dir, err)
	}
	var data, other []string
	marker := false
	for _, e := range ents {
		n := e.Name()
		switch {
		case strings.HasPrefix(n, "marker.manifest."):
			marker = true
		case n == "LOCK":
		case pebbleFile(n) && !e.IsDir():
			data = append(data, n)
		case companionFile(n):
		default:
			other = append(other, n)
		}
	}
	switch {
	case marker:
		return dirStore, foreignMerger(dir, data)
	case len(data) > 0:
		return 0, fmt.Errorf("store: %s: %w: it holds database files (%s) but no manifest marker (marker.manifest.*); nothing was changed (dwcrawl check --dir %s)",
			dir, ErrDamaged, listNames(data), dir)
	case len(other) > 0:
		return 0, fmt.Errorf("store: %s: %w: it holds %s and no database; give a new or empty directory", dir, ErrNotStore, listNames(other))
	}
	return dirEmpty, nil
}

// foreignMerger returns ErrNotStore when the latest options file in dir
// names another merge operator than dwcrawl's: a Pebble database of
// another program.
func foreignMerger(dir string, files []string) error {
	latest := ""
	for _, f := range files {
		if strings.HasPrefix(f, "OPTIONS-") && f > latest {
			latest = f
		}
	}
	if latest == "" {
		return nil
	}
	b, err := os.ReadFile(filepath.Join(dir, latest))
	if err != nil {
		return nil // Pebble will say what is wrong
	}
	for _, line := range strings.Split(string(b), "\n") {
		if m, ok := strings.CutPrefix(strings.TrimSpace(line), "merger="); ok && m != counterMerger.Name {
			return fmt.Errorf("store: %s: %w: a Pebble database of another program (merge operator %q in %s)", dir, ErrNotStore, m, latest)
		}
	}
	return nil
}

// listNames renders up to five names.
func listNames(names []string) string {
	sort.Strings(names)
	if len(names) > 5 {
		return strings.Join(names[:5], ", ") + fmt.Sprintf(", … (%d files)", len(names))
	}
	return strings.Join(names, ", ")
}

// OpenReadOnly opens the existing crawl database in dir for reading: it
// never creates, rewrites or compacts anything there, and fails with
// ErrNotExist, ErrNotStore or ErrDamaged (naming the directory and file)
// when dir holds no readable dwcrawl database.
//
// When another process (a running crawl) or this one holds the directory,
// the DB reads a consistent snapshot taken at open: the table files are
// hard-linked (copied when linking is not possible) and the manifest and
// write-ahead logs copied into a temporary directory next to dir, removed
// again by Close. Writes fail with ErrReadOnly.
func OpenReadOnly(dir string, opt Options) (*DB, error) {
	db, initErr, err := openReadOnly(dir, opt)
	if err != nil {
		return nil, err
	}
	if initErr != nil {
		db.Close()
		return nil, fmt.Errorf("store: open %s: %w", dir, initErr)
	}
	return db, nil
}

// openReadOnly is OpenReadOnly that keeps the DB open when it cannot read
// its bookkeeping records (initErr), for Check.
func openReadOnly(dir string, opt Options) (db *DB, initErr, err error) {
	if dir == "" {
		return nil, nil, errors.New("store: open: empty directory name")
	}
	switch st, err := inspectDir(dir); {
	case err != nil:
		return nil, nil, err
	case st == dirAbsent:
		return nil, nil, fmt.Errorf("store: %s: %w", dir, ErrNotExist)
	case st == dirEmpty:
		return nil, nil, fmt.Errorf("store: %s: %w (no database in it)", dir, ErrNotStore)
	}
	log := opt.Logger
	if log == nil {
		log = logDefault()
	}
	src, snap := dir, ""
	lock, lerr := pebble.LockDirectory(dir, vfs.Default)
	if lerr != nil {
		// a writer holds it: read a snapshot rather than its live files,
		// which its compactions delete under a reader's feet
		if snap, err = snapshot(dir); err != nil {
			return nil, nil, fmt.Errorf("store: open %s read-only while in use: %w", dir, err)
		}
		src = snap
	} else {
		warnTornLog(dir, log)
	}
	db = &DB{dir: dir, lock: lock, log: log, head: map[string][]byte{}, wo: pebble.NoSync, readOnly: true, snapDir: snap}
	opened := db
	defer func() {
		if err != nil {
			opened.release()
		}
	}()
	po := db.pebbleOptions(opt)
	po.ReadOnly, po.ErrorIfNotExists = true, true
	po.Lock = lock
	if err := db.openPebble(src, po); err != nil {
		return nil, nil, err
	}
	return db, db.initReadOnly(), nil
}

// openPebble opens Pebble on src for db, turning a panic or a corruption
// into an error that names the directory (and the damaged file).
func (db *DB) openPebble(src string, po *pebble.Options) (err error) {
	defer db.recoverTo(&err, "open")
	pdb, err := pebble.Open(src, po)
	po.Cache.Unref() // the DB holds its own reference
	if err != nil {
		if pebble.IsCorruptionError(err) || db.corruptFile() != "" {
			return fmt.Errorf("store: open %s: %w", db.dir, db.annotate(err))
		}
		if errors.Is(err, fs.ErrPermission) {
			return fmt.Errorf("store: open %s: %w", db.dir, err)
		}
		// the directory holds a database (inspectDir), which Pebble
		// cannot open: a manifest, a table or a log is missing or unreadable
		return fmt.Errorf("store: open %s: %w: %v (dwcrawl check --dir %s)", db.dir, ErrDamaged, err, db.dir)
	}
	db.pdb = pdb
	return nil
}

// release frees what a failed or closed DB holds besides Pebble: the lock
// and the snapshot directory.
func (db *DB) release() {
	if db.lock != nil {
		_ = db.lock.Close()
		db.lock = nil
	}
	if db.snapDir != "" {
		_ = os.RemoveAll(db.snapDir)
		db.snapDir = ""
	}
}

// initReadOnly checks that the database is a dwcrawl one this build reads.
func (db *DB) initReadOnly() error {
	v, ok, err := db.getRaw(metaVersionKey)
	if err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	if !ok {
		return fmt.Errorf("%w: a database without dwcrawl's schema record", ErrNotStore)
	}
	ver, _, err := DecodeUint64(v)
	if err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	if ver > SchemaVersion {
		return fmt.Errorf("%w: schema version %d, this build reads up to %d; upgrade dwcrawl", ErrSchemaNewer, ver, SchemaVersion)
	}
	s, ok, err := db.getRaw(metaSeqKey)
	if err == nil && ok {
		db.seq, _, err = DecodeUint64(s)
	}
	if err != nil {
		return fmt.Errorf("read frontier sequence: %w", err)
	}
	return nil
}

// ReadOnly reports whether the DB was opened with OpenReadOnly.
func (db *DB) ReadOnly() bool { return db.readOnly }

// Snapshotted reports whether a read-only DB reads a snapshot of a
// directory another process was writing when it was opened.
func (db *DB) Snapshotted() bool { return db.snapDir != "" }

// snapshotAttempts bounds the retries of a snapshot that a concurrent
// flush or compaction invalidated.
const snapshotAttempts = 50

// snapshot copies a consistent view of the Pebble database in dir, which
// another process may be writing, into a new temporary directory and
// returns it.
//
// A view is consistent when the manifest (the list of live tables and the
// oldest write-ahead log still needed) did not change while the files were
// taken: Pebble deletes a table or a log only after a manifest edit that no
// longer needs it, and appends every edit to the manifest (or starts a new
// manifest and moves the marker). So: copy the manifest, copy the logs,
// link the tables, then check that the marker and the manifest's size are
// unchanged; otherwise start again. The last log may end in a torn record,
// which Pebble's recovery drops, like after a crash.
func snapshot(dir string) (string, error) {
	parent := filepath.Dir(filepath.Clean(dir))
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(filepath.Clean(dir))+".snapshot-")
	if err != nil {
		if tmp, err = os.MkdirTemp("", "dwcrawl-snapshot-"); err != nil {
			return "", err
		}
	}
	var last error
	for attempt := 0; attempt < snapshotAttempts; attempt++ {
		ok, err := trySnapshot(dir, tmp)
		if err != nil {
			os.RemoveAll(tmp)
			return "", err
		}
		if ok {
			return tmp, nil
		}
		last = errors.New("the database kept changing while it was copied")
		ents, _ := os.ReadDir(tmp)
		for _, e := range ents {
			os.Remove(filepath.Join(tmp, e.Name()))
		}
		time.Sleep(time.Duration(attempt+1) * 10 * time.Millisecond)
	}
	os.RemoveAll(tmp)
	return "", fmt.Errorf("snapshot of %s: %w (%d attempts)", dir, last, snapshotAttempts)
}

// manifestMarker returns the manifest file the marker in dir points at.
func manifestMarker(dir string) (marker, manifest string, err error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return "", "", err
	}
	for _, e := range ents {
		n := e.Name()
		if strings.HasPrefix(n, "marker.manifest.") {
			parts := strings.SplitN(n, ".", 4)
			if len(parts) != 4 || !strings.HasPrefix(parts[3], "MANIFEST-") {
				return "", "", fmt.Errorf("%w: unexpected manifest marker %s", ErrDamaged, filepath.Join(dir, n))
			}
			if marker == "" || n > marker {
				marker, manifest = n, parts[3]
			}
		}
	}
	if marker == "" {
		return "", "", fmt.Errorf("%w: no manifest marker (marker.manifest.*) in %s", ErrDamaged, dir)
	}
	return marker, manifest, nil
}

// trySnapshot takes one snapshot of dir into the empty directory tmp; ok is
// false when the database changed meanwhile.
func trySnapshot(dir, tmp string) (ok bool, err error) {
	marker, manifest, err := manifestMarker(dir)
	if err != nil {
		return false, err
	}
	mpath := filepath.Join(dir, manifest)
	before, err := os.Stat(mpath)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil // rotated meanwhile
	}
	if err != nil {
		return false, err
	}
	n, err := copyFile(mpath, filepath.Join(tmp, manifest))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if n != before.Size() {
		return false, nil
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return false, err
	}
	for _, e := range ents {
		name := e.Name()
		src, dst := filepath.Join(dir, name), filepath.Join(tmp, name)
		switch {
		case name == marker, strings.HasPrefix(name, "marker.format-version."):
			err = os.WriteFile(dst, nil, 0o644) // markers are their names
		case strings.HasSuffix(name, ".log"), strings.HasPrefix(name, "OPTIONS-"):
			_, err = copyFile(src, dst)
		case strings.HasSuffix(name, ".sst"), strings.HasSuffix(name, ".blob"):
			if err = os.Link(src, dst); err != nil && !errors.Is(err, fs.ErrNotExist) {
				_, err = copyFile(src, dst)
			}
		default:
			continue
		}
		// a file deleted meanwhile was obsolete, or the manifest changed
		// (checked below)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return false, err
		}
	}
	marker2, _, err := manifestMarker(dir)
	if err != nil {
		return false, err
	}
	after, err := os.Stat(mpath)
	if err != nil || marker2 != marker || after.Size() != before.Size() || !os.SameFile(before, after) {
		return false, nil
	}
	return true, nil
}

// copyFile copies src to dst and returns the bytes copied.
func copyFile(src, dst string) (int64, error) {
	in, err := os.Open(src)
	if err != nil {
		return 0, err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return n, err
}
