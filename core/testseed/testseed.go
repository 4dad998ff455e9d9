// Package testseed gives a randomized test its seed: DWCRAWL_SEED when set,
// so that a failed run can be replayed, otherwise one from the time, so
// that runs explore different cases; logged either way.
package testseed

import (
	"os"
	"strconv"
	"testing"
	"time"
)

// Env is the environment variable that fixes the seed.
const Env = "DWCRAWL_SEED"

// Seed returns the seed of t's random choices and logs it with the way to
// replay them; an unreadable DWCRAWL_SEED fails the test.
func Seed(t testing.TB) uint64 {
	t.Helper()
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv(Env); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("%s=%q: %v", Env, s, err)
		}
		seed = v
	}
	t.Logf("seed %d (replay with %s=%d)", seed, Env, seed)
	return seed
}
