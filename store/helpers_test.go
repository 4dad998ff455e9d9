package store

import (
	"flag"
	"io"
	"log/slog"
	"math/rand"
	"testing"
	"time"
)

var seedFlag = flag.Int64("seed", 0, "random seed for property tests (0: time-based)")

// testRand returns a seeded generator and logs the seed so failures can be
// replayed with -seed.
func testRand(t testing.TB) *rand.Rand {
	t.Helper()
	seed := *seedFlag
	if seed == 0 {
		seed = time.Now().UnixNano()
	}
	t.Logf("seed %d", seed)
	return rand.New(rand.NewSource(seed))
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
