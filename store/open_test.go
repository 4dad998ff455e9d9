package store

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2"
)

// filledStore writes n page records and a counter, flushes them to a table
// file and writes a few more (left in the write-ahead log).
func filledStore(t *testing.T, dir string, n int) {
	t.Helper()
	db, err := Open(dir, Options{Logger: quietLog, NoSync: true})
	must(t, err)
	for i := 0; i < n; i++ {
		must(t, db.PutJSON(TagPages, fmt.Appendf(nil, "p%05d", i), pageRec{URL: fmt.Sprintf("https://a.example/%d", i)}))
	}
	must(t, db.AddCounter("pages", int64(n)))
	must(t, db.pdb.Flush())
	must(t, db.PutJSON(TagPages, []byte("wal"), pageRec{URL: "https://a.example/wal"}))
	must(t, db.Sync())
	must(t, db.Close())
}

// listing is the names and sizes of the files in dir.
func listing(t *testing.T, dir string) string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	must(t, err)
	var out []string
	for _, e := range ents {
		if e.Name() == "LOCK" { // taking the lock touches it
			continue
		}
		info, err := e.Info()
		must(t, err)
		out = append(out, fmt.Sprintf("%s:%d:%d", e.Name(), info.Size(), info.ModTime().UnixNano()))
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

func glob(t *testing.T, dir, pattern string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, pattern))
	must(t, err)
	return m
}

// TestOpenMissingManifestMarker reproduces the loss of a crawl: with the
// manifest marker gone, Pebble took the directory for a new database and
// deleted every table file. Both opens must refuse, name the problem and
// leave every file as it was.
func TestOpenMissingManifestMarker(t *testing.T) {
	for _, open := range []struct {
		name string
		fn   func(string) (*DB, error)
	}{
		{"read-write", func(d string) (*DB, error) { return Open(d, Options{Logger: quietLog}) }},
		{"read-only", func(d string) (*DB, error) { return OpenReadOnly(d, Options{Logger: quietLog}) }},
	} {
		t.Run(open.name, func(t *testing.T) {
			dir := t.TempDir()
			filledStore(t, dir, 200)
			ssts := glob(t, dir, "*.sst")
			if len(ssts) == 0 {
				t.Fatal("fixture has no table file")
			}
			for _, m := range glob(t, dir, "marker.manifest.*") {
				must(t, os.Remove(m))
			}
			before := listing(t, dir)
			db, err := open.fn(dir)
			if err == nil {
				db.Close()
				t.Fatal("opened a database without its manifest marker")
			}
			if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "marker.manifest") || !strings.Contains(err.Error(), filepath.Base(ssts[0])) {
				t.Errorf("error %q: want ErrDamaged naming the marker and the table files", err)
			}
			if after := listing(t, dir); after != before {
				t.Errorf("directory changed:\nbefore %s\nafter  %s", before, after)
			}
		})
	}
}

func TestOpenForeignDirectory(t *testing.T) {
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o644))
	before := listing(t, dir)
	for name, fn := range map[string]func() (*DB, error){
		"read-write": func() (*DB, error) { return Open(dir, Options{Logger: quietLog}) },
		"read-only":  func() (*DB, error) { return OpenReadOnly(dir, Options{Logger: quietLog}) },
	} {
		db, err := fn()
		if err == nil {
			db.Close()
			t.Fatalf("%s: opened a directory of other files", name)
		}
		if !errors.Is(err, ErrNotStore) || !strings.Contains(err.Error(), "notes.txt") || !strings.Contains(err.Error(), dir) {
			t.Errorf("%s: %v (want ErrNotStore naming the directory and its file)", name, err)
		}
	}
	if after := listing(t, dir); after != before {
		t.Errorf("directory changed:\nbefore %s\nafter  %s", before, after)
	}

	// The server's job.json beside a new crawl's database is no stranger.
	jdir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(jdir, "job.json"), []byte("{}"), 0o644))
	jdb, err := Open(jdir, Options{Logger: quietLog})
	if err != nil {
		t.Fatalf("a directory holding only job.json: %v", err)
	}
	jdb.Close()

	// A Pebble database of another program.
	pdir := t.TempDir()
	pdb, err := pebble.Open(pdir, &pebble.Options{Logger: pebbleLogger{quietLog}})
	must(t, err)
	must(t, pdb.Set([]byte("their key"), []byte("value"), pebble.Sync))
	must(t, pdb.Close())
	for name, fn := range map[string]func() (*DB, error){
		"read-write": func() (*DB, error) { return Open(pdir, Options{Logger: quietLog}) },
		"read-only":  func() (*DB, error) { return OpenReadOnly(pdir, Options{Logger: quietLog}) },
	} {
		db, err := fn()
		if err == nil {
			db.Close()
			t.Fatalf("%s: opened another program's database", name)
		}
		if !errors.Is(err, ErrNotStore) {
			t.Errorf("%s: %v (want ErrNotStore)", name, err)
		}
	}
}

func TestOpenReadOnly(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope")
	if _, err := OpenReadOnly(missing, Options{Logger: quietLog}); !errors.Is(err, ErrNotExist) || !strings.Contains(err.Error(), missing) {
		t.Errorf("missing directory: %v", err)
	}
	if _, err := os.Stat(missing); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("read-only open created %s", missing)
	}
	if _, err := OpenReadOnly(t.TempDir(), Options{Logger: quietLog}); !errors.Is(err, ErrNotStore) {
		t.Errorf("empty directory: %v", err)
	}

	dir := t.TempDir()
	filledStore(t, dir, 50)
	before := listing(t, dir)
	db, err := OpenReadOnly(dir, Options{Logger: quietLog})
	must(t, err)
	if db.Snapshotted() {
		t.Error("a directory nobody holds was snapshotted")
	}
	var rec pageRec
	if ok, err := db.GetJSON(TagPages, []byte("wal"), &rec); err != nil || !ok {
		t.Errorf("record left in the write-ahead log: %v %v", ok, err)
	}
	if n, err := db.Counter("pages"); err != nil || n != 50 {
		t.Errorf("counter %d %v", n, err)
	}
	for name, err := range map[string]error{
		"PutJSON":      db.PutJSON(TagPages, []byte("x"), 1),
		"AddCounter":   db.AddCounter("c", 1),
		"PushFrontier": db.PushFrontier(FrontierEntry{Queue: "q", URL: "https://a.example/"}),
		"Sync":         db.Sync(),
		"SetIdentity":  db.SetIdentity(Identity{Kind: KindCrawl}),
	} {
		if !errors.Is(err, ErrReadOnly) {
			t.Errorf("%s on a read-only DB: %v", name, err)
		}
	}
	if _, _, err := db.PopFrontier("q"); !errors.Is(err, ErrReadOnly) {
		t.Errorf("PopFrontier on a read-only DB: %v", err)
	}
	must(t, db.Close())
	if after := listing(t, dir); after != before {
		t.Errorf("read-only open changed the directory:\nbefore %s\nafter  %s", before, after)
	}

	// While a writer holds the directory, a reader gets a snapshot.
	w, err := Open(dir, Options{Logger: quietLog})
	must(t, err)
	defer w.Close()
	must(t, w.AddCounter("pages", 1))
	r, err := OpenReadOnly(dir, Options{Logger: quietLog})
	must(t, err)
	if !r.Snapshotted() {
		t.Error("a held directory was opened in place")
	}
	if n, err := r.Counter("pages"); err != nil || n != 51 {
		t.Errorf("snapshot counter %d %v, want 51", n, err)
	}
	snap := r.snapDir
	must(t, r.Close())
	if _, err := os.Stat(snap); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("snapshot %s left behind", snap)
	}
	must(t, w.AddCounter("pages", 1)) // the writer is unaffected
}

// damage applies one kind of damage to a copy of a store.
type damage struct {
	name string
	fn   func(t *testing.T, dir string) string // returns the file damaged
}

var damages = []damage{
	{"zeroed table footer", func(t *testing.T, dir string) string {
		f := glob(t, dir, "*.sst")[0]
		zeroTail(t, f, 64)
		return f
	}},
	{"zeroed table block", func(t *testing.T, dir string) string {
		f := glob(t, dir, "*.sst")[0]
		zeroAt(t, f, 100, 200)
		return f
	}},
	{"missing table file", func(t *testing.T, dir string) string {
		f := glob(t, dir, "*.sst")[0]
		must(t, os.Remove(f))
		return f
	}},
	{"missing manifest", func(t *testing.T, dir string) string {
		f := glob(t, dir, "MANIFEST-*")
		must(t, os.Remove(f[len(f)-1]))
		return f[len(f)-1]
	}},
}

func zeroTail(t *testing.T, path string, n int64) {
	t.Helper()
	fi, err := os.Stat(path)
	must(t, err)
	zeroAt(t, path, fi.Size()-n, n)
}

func zeroAt(t *testing.T, path string, off, n int64) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	must(t, err)
	_, err = f.WriteAt(make([]byte, n), off)
	must(t, err)
	must(t, f.Close())
}

// TestDamagedStore: every kind of damage is an error naming the file, from
// the open, a read or Check; never a panic, and never a change to the files.
func TestDamagedStore(t *testing.T) {
	for _, d := range damages {
		t.Run(d.name, func(t *testing.T) {
			dir := t.TempDir()
			filledStore(t, dir, 300)
			file := strings.TrimSuffix(filepath.Base(d.fn(t, dir)), ".sst") // Pebble names a missing table by number
			before := listing(t, dir)
			var errs []error
			db, err := OpenReadOnly(dir, Options{Logger: quietLog})
			if err != nil {
				errs = append(errs, err)
			} else {
				errs = append(errs, db.ScanJSON(TagPages, nil, func(_, _ []byte) error { return nil }))
				db.Close()
			}
			if errs[0] == nil {
				t.Fatal("reading a damaged store succeeded")
			}
			if !strings.Contains(errs[0].Error(), file) || !errors.Is(errs[0], ErrDamaged) {
				t.Errorf("error does not name %s: %v", file, errs[0])
			}
			rep, err := Check(context.Background(), dir, Options{Logger: quietLog})
			must(t, err)
			if rep.OK() || !strings.Contains(strings.Join(rep.Problems, "\n"), file) {
				t.Errorf("check: %+v (want a problem naming %s)", rep.Problems, file)
			}
			if after := listing(t, dir); after != before {
				t.Errorf("directory changed:\nbefore %s\nafter  %s", before, after)
			}
			t.Logf("%s: %v; check: %s", d.name, errs[0], strings.Join(rep.Problems, "; "))
		})
	}
}

func TestCheckHealthyStore(t *testing.T) {
	dir := t.TempDir()
	filledStore(t, dir, 300)
	db, err := Open(dir, Options{Logger: quietLog})
	must(t, err)
	for i := 0; i < 5; i++ {
		must(t, db.PushFrontier(FrontierEntry{Queue: QueueHigh, Score: float64(i), URL: fmt.Sprintf("https://b.example/%d", i)}))
	}
	must(t, db.PutForm(Form{PageURL: "https://b.example/", Searchable: 1}))
	must(t, db.Close())
	rep, err := Check(context.Background(), dir, Options{Logger: quietLog})
	must(t, err)
	if !rep.OK() {
		t.Fatalf("problems in a healthy store: %v", rep.Problems)
	}
	if rep.Records["pages"] != 301 || rep.Records["frontier"] != 5 || rep.Records["forms"] != 1 || rep.Records["urls"] != 5 || len(rep.Tables) == 0 {
		t.Errorf("report %+v", rep)
	}
	// A record that does not decode is a problem naming its key.
	db, err = Open(dir, Options{Logger: quietLog})
	must(t, err)
	must(t, db.pdb.Set(tableKey(TagPages, []byte("broken")), []byte("{not json"), pebble.Sync))
	must(t, db.pdb.Set(counterKey("odd"), []byte("abc"), pebble.Sync))
	must(t, db.Close())
	rep, err = Check(context.Background(), dir, Options{Logger: quietLog})
	must(t, err)
	p := strings.Join(rep.Problems, "\n")
	if !strings.Contains(p, `pages record "broken"`) || !strings.Contains(p, `counters record "odd"`) {
		t.Errorf("problems %q", p)
	}
	if _, err := Check(context.Background(), filepath.Join(dir, "nope"), Options{}); !errors.Is(err, ErrNotExist) {
		t.Errorf("check of a missing directory: %v", err)
	}
}

// TestTruncatedLog: Pebble replays a log cut short up to the cut, as after
// a crash; Check names the log and the offset, and an open says so.
func TestTruncatedLog(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(dir, Options{Logger: quietLog})
	must(t, err)
	for i := 0; i < 100; i++ {
		must(t, db.PutJSON(TagPages, fmt.Appendf(nil, "p%05d", i), pageRec{URL: fmt.Sprintf("https://a.example/%d", i)}))
	}
	must(t, db.Close())
	rep, err := Check(context.Background(), dir, Options{Logger: quietLog})
	must(t, err)
	if !rep.OK() {
		t.Fatalf("problems before truncation: %v", rep.Problems)
	}
	logs := glob(t, dir, "*.log")
	last := logs[len(logs)-1]
	fi, err := os.Stat(last)
	must(t, err)
	must(t, os.Truncate(last, fi.Size()/2))
	rep, err = Check(context.Background(), dir, Options{Logger: quietLog})
	must(t, err)
	if rep.OK() || !strings.Contains(rep.Problems[0], filepath.Base(last)) || !strings.Contains(rep.Problems[0], "torn record") {
		t.Fatalf("check of a truncated log: %v", rep.Problems)
	}
	if n := rep.Records["pages"]; n == 0 || n >= 100 {
		t.Errorf("%d page records after cutting the log in half", n)
	}
	var logged strings.Builder
	db, err = OpenReadOnly(dir, Options{Logger: slog.New(slog.NewTextHandler(&logged, nil))})
	must(t, err)
	db.Close()
	if !strings.Contains(logged.String(), filepath.Base(last)) {
		t.Errorf("the open did not name the torn log: %q", logged.String())
	}
	t.Logf("%s; %d of 100 records left", rep.Problems[0], rep.Records["pages"])
}
