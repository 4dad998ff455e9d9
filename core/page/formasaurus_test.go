package page

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/dwcrawl/dwcrawl/internal/shareddata"
	"github.com/dwcrawl/dwcrawl/internal/shareddata/sharedtest"
)

// fsPage is one annotated page of the shared Formasaurus corpus.
type fsPage struct {
	Name   string
	URL    *url.URL
	Body   []byte
	Labels []string            // form types, one per <form> in document order
	Fields []map[string]string // visible field name -> field type, per form
}

// loadFormasaurus reads every page of the shared Formasaurus corpus, or skips
// tb when the shared data is absent.
func loadFormasaurus(tb testing.TB) []fsPage {
	tb.Helper()
	idxPath := sharedtest.Path(tb, "formasaurus", "index.json")
	raw, err := os.ReadFile(idxPath)
	if err != nil {
		tb.Fatalf("read index: %v", err)
	}
	var idx map[string]struct {
		Forms  []string            `json:"forms"`
		URL    string              `json:"url"`
		Fields []map[string]string `json:"visible_html_fields"`
	}
	if err := json.Unmarshal(raw, &idx); err != nil {
		tb.Fatalf("decode %s: %v", idxPath, err)
	}
	names := make([]string, 0, len(idx))
	for name := range idx {
		names = append(names, name)
	}
	sort.Strings(names)
	dir := filepath.Dir(idxPath)
	pages := make([]fsPage, 0, len(names))
	for _, name := range names {
		e := idx[name]
		body, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			tb.Fatalf("read page: %v", err)
		}
		u, err := url.Parse(e.URL)
		if err != nil {
			tb.Fatalf("%s: url %q: %v", name, e.URL, err)
		}
		pages = append(pages, fsPage{Name: name, URL: u, Body: body, Labels: e.Forms, Fields: e.Fields})
	}
	return pages
}

// loadFormasaurusIfPresent is loadFormasaurus, or nil without the shared
// data (for tests that use it only as more input).
func loadFormasaurusIfPresent(tb testing.TB) []fsPage {
	tb.Helper()
	if _, err := shareddata.Dir(); err != nil {
		return nil
	}
	return loadFormasaurus(tb)
}

// TestFormasaurusFormCount checks that on every annotated page the parser
// finds exactly one form per label, in document order. It also measures how
// well controls are assigned to forms against the annotated visible fields:
// recall (annotated fields found in their form) and precision (visible named
// fields found that the annotation lists for that form).
func TestFormasaurusFormCount(t *testing.T) {
	pages := loadFormasaurus(t)
	match, forms := 0, 0
	var annotated, found, visible, listed int
	for _, pg := range pages {
		p, err := Parse(pg.Body, "", pg.URL)
		if err != nil {
			t.Errorf("%s: %v", pg.Name, err)
			continue
		}
		if len(p.Forms) != len(pg.Labels) {
			t.Errorf("%s: %d forms, %d labels", pg.Name, len(p.Forms), len(pg.Labels))
			continue
		}
		match++
		forms += len(p.Forms)
		for i, want := range pg.Fields {
			have := make(map[string]bool)
			for _, f := range p.Forms[i].Fields {
				have[f.Name] = true
				switch f.Type {
				case "hidden", "submit", "image", "button", "reset":
					continue
				}
				if f.Name != "" {
					visible++
					if _, ok := want[f.Name]; ok {
						listed++
					}
				}
			}
			for name := range want {
				annotated++
				if have[name] {
					found++
				}
			}
		}
	}
	t.Logf("pages with form count == label count: %d/%d (%d forms)", match, len(pages), forms)
	recall := float64(found) / float64(max(annotated, 1))
	precision := float64(listed) / float64(max(visible, 1))
	t.Logf("field ownership: recall %d/%d (%.2f%%), precision %d/%d (%.2f%%)",
		found, annotated, 100*recall, listed, visible, 100*precision)
	if recall < 0.99 || precision < 0.99 {
		t.Errorf("field ownership below 99%%: recall %.4f precision %.4f", recall, precision)
	}
}

// BenchmarkParseFormasaurus parses every shared Formasaurus page per
// iteration; MB/s is over the raw page bytes.
func BenchmarkParseFormasaurus(b *testing.B) {
	pages := loadFormasaurus(b)
	var total int64
	for _, pg := range pages {
		total += int64(len(pg.Body))
	}
	b.SetBytes(total)
	b.ReportAllocs()
	cpu0 := cpuTime()
	b.ResetTimer()
	for range b.N {
		for _, pg := range pages {
			if _, err := Parse(pg.Body, "", pg.URL); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N*len(pages))/b.Elapsed().Seconds(), "pages/s")
	// On a shared machine wall time says little; CPU time (this process,
	// GC included) gives the cost per byte.
	if cpu := (cpuTime() - cpu0).Seconds(); cpu > 0 {
		b.ReportMetric(float64(total)*float64(b.N)/1e6/cpu, "MB/cpu-s")
	}
}
