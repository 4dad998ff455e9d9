// Package shareddata locates the project's shared third-party data folder
// (../shared/data beside the repository), which tests, benchmarks and tools
// read but never copy. See ../shared/data/README.md. Tests use
// sharedtest.Path, which skips when the data is absent; this package stays
// free of package testing so the binary does not link it.
package shareddata

import (
	"errors"
	"os"
	"path/filepath"
)

// EnvVar overrides the search: a path to the data folder.
const EnvVar = "DWCRAWL_SHARED_DATA"

// ErrNotFound is returned when no shared data folder is found.
var ErrNotFound = errors.New("shared data not found: set " + EnvVar + " or place ../shared/data beside the repository")

// Dir returns the shared data folder: $DWCRAWL_SHARED_DATA, else the first
// shared/data found walking up from the working directory.
func Dir() (string, error) {
	if p := os.Getenv(EnvVar); p != "" {
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			return p, nil
		}
		return "", ErrNotFound
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		p := filepath.Join(dir, "shared", "data")
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			return p, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", ErrNotFound
		}
		dir = parent
	}
}
