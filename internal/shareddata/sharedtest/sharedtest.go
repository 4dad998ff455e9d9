// Package sharedtest gives tests and benchmarks the files of the shared data
// folder (see package shareddata), skipping cleanly when they are absent.
// Only _test.go files import it.
package sharedtest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/dwcrawl/dwcrawl/internal/shareddata"
)

// Path joins elem to the shared data folder, or skips tb when the folder or
// the file is absent.
func Path(tb testing.TB, elem ...string) string {
	tb.Helper()
	d, err := shareddata.Dir()
	if err != nil {
		tb.Skip(err.Error())
	}
	p := filepath.Join(append([]string{d}, elem...)...)
	if _, err := os.Stat(p); err != nil {
		tb.Skipf("shared data not found: %s", p)
	}
	return p
}
