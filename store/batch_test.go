package store

import (
	"errors"
	"fmt"
	"testing"
)

// TestBatchAtomicity checks that nothing of a batch is visible before Commit,
// everything is after, and a closed uncommitted batch leaves no trace.
func TestBatchAtomicity(t *testing.T) {
	db, _ := openTemp(t)
	fill := func(b *Batch, tag string) {
		t.Helper()
		for i := 0; i < 20; i++ {
			u := fmt.Sprintf("https://%s.example/%d", tag, i)
			must(t, b.SetSite(Site{URL: "https://" + tag + ".example", Host: tag + ".example"}))
			must(t, b.PushFrontier(FrontierEntry{Queue: tag, Score: float64(i), URL: u}))
			must(t, b.SetForm(Form{PageURL: u, Site: tag}))
			must(t, b.AddCounter(tag, 1))
			must(t, b.PutJSON(TagPages, []byte(u), i))
		}
		must(t, b.SetURL(URLState{URL: "https://" + tag + ".example/0", State: StateFetched}))
	}
	visible := func(tag string) (n int) {
		t.Helper()
		if _, ok, _ := db.GetSite("https://" + tag + ".example"); ok {
			n++
		}
		l, _ := db.FrontierLen(tag)
		c, _ := db.Counter(tag)
		var pages int
		must(t, db.ScanJSON(TagPages, []byte("https://"+tag+"."), func(k, v []byte) error { pages++; return nil }))
		var forms int
		must(t, db.ScanForms(func(f Form) error {
			if f.Site == tag {
				forms++
			}
			return nil
		}))
		return n + l + int(c) + pages + forms
	}

	b := db.NewBatch()
	if !b.Empty() {
		t.Fatal("new batch not empty")
	}
	fill(b, "kept")
	if n := visible("kept"); n != 0 {
		t.Fatalf("%d writes visible before commit", n)
	}
	must(t, b.Commit(true))
	must(t, b.Close())
	// 1 site + 19 queued (one marked fetched) + 20 counter + 20 pages + 20 forms
	if n := visible("kept"); n != 1+19+20+20+20 {
		t.Fatalf("%d writes visible after commit", n)
	}
	if err := b.Commit(true); !errors.Is(err, ErrBatchDone) {
		t.Fatalf("second commit: %v", err)
	}
	if err := b.SetSite(Site{URL: "x"}); !errors.Is(err, ErrBatchDone) {
		t.Fatalf("set after commit: %v", err)
	}

	d := db.NewBatch()
	fill(d, "dropped")
	must(t, d.Close())
	if n := visible("dropped"); n != 0 {
		t.Fatalf("%d writes of a discarded batch visible", n)
	}
	if _, ok, _ := db.GetURL("https://dropped.example/1"); ok {
		t.Fatal("URL state of a discarded batch visible")
	}
	checkFrontierInvariants(t, db)
}

// TestBatchSameURLTwice: later ops in one batch see the earlier ones.
func TestBatchSameURLTwice(t *testing.T) {
	db, _ := openTemp(t)
	b := db.NewBatch()
	defer b.Close()
	u := "https://a.example/x"
	must(t, b.PushFrontier(FrontierEntry{Queue: "q", Score: 1, URL: u}))
	must(t, b.PushFrontier(FrontierEntry{Queue: "q", Score: 2, URL: u}))
	must(t, b.PushFrontier(FrontierEntry{Queue: "r", Score: 3, URL: u}))
	must(t, b.Commit(false))
	lens, err := db.FrontierLens()
	must(t, err)
	if lens["q"] != 0 || lens["r"] != 1 {
		t.Fatalf("lens %v", lens)
	}
	checkFrontierInvariants(t, db)
}
