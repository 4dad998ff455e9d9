package store

import (
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2"
)

func TestDefaultDir(t *testing.T) {
	if got, want := DefaultDir("auto"), filepath.Join("dwcrawl-data", "auto"); got != want {
		t.Fatalf("DefaultDir = %q, want %q", got, want)
	}
}

func TestOpenCreatesDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b", "crawl")
	db, err := Open(dir, Options{Logger: quietLog})
	must(t, err)
	must(t, db.Close())
	must(t, db.Close()) // second close is a no-op
}

func TestOpenTwiceIsLocked(t *testing.T) {
	db, dir := openTemp(t)
	_, err := Open(dir, Options{Logger: quietLog})
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), dir) {
		t.Fatalf("second open: %v (want ErrLocked naming %s)", err, dir)
	}
	t.Logf("second open: %v", err)
	must(t, db.Close())
	db2, err := Open(dir, Options{Logger: quietLog})
	must(t, err)
	must(t, db2.Close())
}

func TestClosedDB(t *testing.T) {
	db, _ := openTemp(t)
	must(t, db.Close())
	for name, err := range map[string]error{
		"PutSite":      db.PutSite(Site{URL: "x"}),
		"PushFrontier": db.PushFrontier(FrontierEntry{URL: "x"}),
		"AddCounter":   db.AddCounter("c", 1),
		"Sync":         db.Sync(),
	} {
		if !errors.Is(err, ErrClosed) {
			t.Errorf("%s on closed DB: %v", name, err)
		}
	}
	if _, _, err := db.PopFrontier("q"); !errors.Is(err, ErrClosed) {
		t.Errorf("PopFrontier on closed DB: %v", err)
	}
	if _, _, err := db.GetURL("x"); !errors.Is(err, ErrClosed) {
		t.Errorf("GetURL on closed DB: %v", err)
	}
}

func TestSchemaVersionNewer(t *testing.T) {
	db, dir := openTemp(t)
	must(t, db.pdb.Set(metaVersionKey, AppendUint64(nil, SchemaVersion+1), pebble.Sync))
	must(t, db.Close())
	_, err := Open(dir, Options{Logger: quietLog})
	if !errors.Is(err, ErrSchemaNewer) {
		t.Fatalf("open newer schema: %v", err)
	}
	t.Logf("newer schema: %v", err)
	// The failed open released the lock.
	db2, err := Open(filepath.Join(t.TempDir(), "other"), Options{Logger: quietLog})
	must(t, err)
	must(t, db2.Close())
	must(t, db.Close())
}

// TestReopenRoundTrip writes every kind of record, closes, reopens and reads
// them back; frontier order, lengths and sequence numbers survive.
func TestReopenRoundTrip(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(dir, Options{Logger: quietLog, NoSync: true, CacheSize: 1 << 20})
	must(t, err)
	site := Site{URL: "https://a.example", Host: "a.example", Status: SiteQueued, Score: 0.3, Queue: QueueLow, FirstSeen: t0}
	form := Form{PageURL: "https://a.example/s", Site: site.URL, Searchable: 1, Relevant: true, FoundAt: t0}
	form.ID = FormID(form.PageURL, form.Index)
	must(t, db.PutSite(site))
	must(t, db.PutForm(form))
	_, err = db.PutModel(Model{Name: "link", Data: []byte("weights"), SavedAt: t0})
	must(t, err)
	must(t, db.AddCounter("pages", 7))
	must(t, db.PutJSON(TagPages, []byte(form.PageURL), pageRec{URL: form.PageURL}))
	for i, s := range []float64{1, 3, 2} {
		must(t, db.PushFrontier(FrontierEntry{Queue: QueueHigh, Score: s, URL: site.URL + "/" + string(rune('a'+i)), Site: site.URL}))
	}
	first, _, err := db.PopFrontier(QueueHigh)
	must(t, err)
	must(t, db.Sync())
	must(t, db.Close())

	db, err = Open(dir, Options{Logger: quietLog})
	must(t, err)
	defer db.Close()
	if got, ok, err := db.GetSite(site.URL); err != nil || !ok || !reflect.DeepEqual(got, site) {
		t.Fatalf("site: %+v %v %v", got, ok, err)
	}
	if got, ok, err := db.GetForm(form.ID); err != nil || !ok || !reflect.DeepEqual(got, form) {
		t.Fatalf("form: %+v %v %v", got, ok, err)
	}
	if m, ok, err := db.GetModel("link"); err != nil || !ok || string(m.Data) != "weights" || m.Version != 1 {
		t.Fatalf("model: %+v %v %v", m, ok, err)
	}
	if n, err := db.Counter("pages"); err != nil || n != 7 {
		t.Fatalf("counter: %d %v", n, err)
	}
	var rec pageRec
	if ok, err := db.GetJSON(TagPages, []byte(form.PageURL), &rec); err != nil || !ok || rec.URL != form.PageURL {
		t.Fatalf("page: %+v %v %v", rec, ok, err)
	}
	if n, err := db.FrontierLen(QueueHigh); err != nil || n != 2 {
		t.Fatalf("frontier len after reopen: %d %v", n, err)
	}
	// Sequence numbers continue: a tie with an old entry pops after it.
	must(t, db.PushFrontier(FrontierEntry{Queue: QueueHigh, Score: 2, URL: "https://a.example/new"}))
	var got []string
	for _, e := range popAll(t, db, QueueHigh) {
		got = append(got, e.URL)
	}
	if first.URL != "https://a.example/b" || strings.Join(got, " ") != "https://a.example/c https://a.example/new https://a.example/a" {
		t.Fatalf("first %s, then %q", first.URL, got)
	}
	checkFrontierInvariants(t, db)
}

// TestMemory reports the block cache's capacity, the memtables that writes
// fill and the tables a flush makes.
func TestMemory(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(dir, Options{Logger: quietLog, CacheSize: 4 << 20, NoSync: true})
	must(t, err)
	defer db.Close()
	m0 := db.Memory()
	if m0.BlockCacheCap != 4<<20 {
		t.Errorf("block cache capacity %d, want %d", m0.BlockCacheCap, 4<<20)
	}
	for i := 0; i < 2000; i++ {
		must(t, db.PutSite(Site{URL: "http://site" + strings.Repeat("x", i%7) + "-" + string(rune('a'+i%26)) + ".example/" + strings.Repeat("p", i%50), Host: "h", Status: SiteQueued}))
	}
	m1 := db.Memory()
	if m1.MemTables <= m0.MemTables {
		t.Errorf("memtables %d bytes after 2,000 writes, %d before", m1.MemTables, m0.MemTables)
	}
	must(t, db.Flush())
	if m2 := db.Memory(); m2.Tables <= m0.Tables || m2.TableBytes <= 0 {
		t.Errorf("after a flush: %d tables (%d bytes), before %d", m2.Tables, m2.TableBytes, m0.Tables)
	}
}

// TestSyncDue: crawl state is synced at most once per SyncInterval, by a
// synced batch (with or without frontier ops) or DB.Sync, and never when
// the DB was opened with NoSync.
func TestSyncDue(t *testing.T) {
	db, _ := openTemp(t)
	if !db.SyncDue() {
		t.Fatal("a DB that never synced: SyncDue false")
	}
	commit := func(sync bool, withURL bool) {
		t.Helper()
		b := db.NewBatch()
		defer b.Close()
		if withURL {
			must(t, b.SetURL(URLState{URL: "http://a.example/", Site: "http://a.example/", State: StateFetched}))
		} else {
			must(t, b.PutJSON(TagPages, []byte("k"), 1))
		}
		must(t, b.Commit(sync))
	}
	for _, tc := range []struct {
		name string
		sync func()
	}{
		{"synced batch", func() { commit(true, false) }},
		{"synced batch with frontier ops", func() { commit(true, true) }},
		{"DB.Sync", func() { must(t, db.Sync()) }},
	} {
		db.lastSync.Store(time.Now().Add(-2 * SyncInterval).UnixNano())
		commit(false, true)
		if !db.SyncDue() {
			t.Fatalf("%s: an unsynced commit reset SyncDue", tc.name)
		}
		tc.sync()
		if db.SyncDue() {
			t.Fatalf("%s: SyncDue right after a sync", tc.name)
		}
	}

	nosync, err := Open(t.TempDir(), Options{Logger: quietLog, NoSync: true})
	must(t, err)
	defer nosync.Close()
	if nosync.SyncDue() {
		t.Fatal("NoSync DB: SyncDue true")
	}
}
