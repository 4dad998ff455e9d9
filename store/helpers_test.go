package store

import (
	"io"
	"log/slog"
	"math/rand"
	"testing"

	"github.com/dwcrawl/dwcrawl/core/testseed"
)

// testRand returns a generator seeded by testseed (logged; replay with
// DWCRAWL_SEED).
func testRand(t testing.TB) *rand.Rand {
	t.Helper()
	return rand.New(rand.NewSource(int64(testseed.Seed(t))))
}

var quietLog = slog.New(slog.NewTextHandler(io.Discard, nil))

// openTemp opens a DB in a fresh temporary directory, closed at cleanup.
func openTemp(t testing.TB) (*DB, string) {
	t.Helper()
	dir := t.TempDir()
	db, err := Open(dir, Options{Logger: quietLog})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db, dir
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func newRand(seed int64) *rand.Rand { return rand.New(rand.NewSource(seed)) }
