package form

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/dwcrawl/dwcrawl/core/page"
	"github.com/dwcrawl/dwcrawl/internal/shareddata"
	"github.com/dwcrawl/dwcrawl/internal/shareddata/sharedtest"
)

var (
	fsOnce  sync.Once
	fsEx    []Example
	fsStats LoadStats
	fsErr   error
)

// formasaurus loads the shared Formasaurus forms once per test binary, or
// skips.
func formasaurus(tb testing.TB) ([]Example, LoadStats) {
	tb.Helper()
	dir := filepath.Dir(sharedtest.Path(tb, "formasaurus", "index.json"))
	fsOnce.Do(func() { fsEx, fsStats, fsErr = LoadFormasaurus(context.Background(), dir) })
	if fsErr != nil {
		tb.Fatal(fsErr)
	}
	return fsEx, fsStats
}

// fixture parses testdata/forms.html as if served from springfieldcars.example.
func fixture(tb testing.TB) *page.Page {
	tb.Helper()
	b, err := os.ReadFile("testdata/forms.html")
	if err != nil {
		tb.Fatal(err)
	}
	u, _ := url.Parse("http://springfieldcars.example/")
	p, err := page.Parse(b, "text/html; charset=utf-8", u)
	if err != nil {
		tb.Fatal(err)
	}
	if len(p.Forms) != 5 {
		tb.Fatalf("fixture has %d forms, want 5", len(p.Forms))
	}
	return p
}

func mustDefault(tb testing.TB) *Model {
	tb.Helper()
	m, err := Default()
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

// formasaurusDir returns the shared Formasaurus folder or "".
func formasaurusDir() (string, error) {
	d, err := shareddata.Dir()
	if err != nil {
		return "", err
	}
	p := filepath.Join(d, "formasaurus")
	if _, err := os.Stat(filepath.Join(p, "index.json")); err != nil {
		return "", err
	}
	return p, nil
}
