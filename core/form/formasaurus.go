package form

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/dwcrawl/dwcrawl/core/page"
)

// Example is one labelled form.
type Example struct {
	Form  page.Form
	Label string // Formasaurus label: s, l, r, p, c, m, b, P, V, N, C, o
	Kind  string // [KindOfLabel] of Label
	URL   string // URL of the page
	Host  string // host of URL: the cross-validation group
	File  string // page file, relative to the data folder
	// Title and Text are the title and (the first maxPageText bytes of) the
	// visible text of the page: the page evidence of the domain step.
	Title, Text string
}

// maxPageText bounds the page text kept per example.
const maxPageText = 4000

// Searchable reports whether the example is a search form.
func (e *Example) Searchable() bool { return e.Kind == KindSearch }

// LoadStats reports what [LoadFormasaurus] read.
type LoadStats struct {
	Pages      int      // pages in index.json
	Forms      int      // labelled forms kept
	Skipped    int      // forms labelled "-" or "X"
	Mismatched []string // pages whose form count differs from their label count (skipped)
}

// LoadFormasaurus reads a folder in the Formasaurus layout: index.json maps
// "html/<file>" to {"forms": [labels in document order], "url": ...}; each
// page is parsed with [page.Parse] and its forms paired with the labels in
// order. Forms labelled "-" (skip) or "X" (not annotated) are left out; a
// page whose form count differs from its label count is skipped whole and
// listed in the stats. Examples come back sorted by file, then form index.
func LoadFormasaurus(ctx context.Context, dir string) ([]Example, LoadStats, error) {
	var st LoadStats
	raw, err := os.ReadFile(filepath.Join(dir, "index.json"))
	if err != nil {
		return nil, st, fmt.Errorf("load formasaurus: %w", err)
	}
	var idx map[string]struct {
		Forms []string `json:"forms"`
		URL   string   `json:"url"`
	}
	if err := json.Unmarshal(raw, &idx); err != nil {
		return nil, st, fmt.Errorf("load formasaurus %s: %w", dir, err)
	}
	files := make([]string, 0, len(idx))
	for f := range idx {
		files = append(files, f)
	}
	sort.Strings(files)
	st.Pages = len(files)

	type result struct {
		ex       []Example
		skipped  int
		mismatch bool
		err      error
	}
	results := make([]result, len(files))
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range runtime.NumCPU() { // not GOMAXPROCS, which dwcrawl lowers while a crawl waits (internal/procs)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				e := idx[files[i]]
				results[i].ex, results[i].skipped, results[i].mismatch, results[i].err = loadPage(dir, files[i], e.URL, e.Forms)
			}
		}()
	}
	for i := range files {
		if ctx.Err() != nil {
			break
		}
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, st, err
	}
	var out []Example
	for i, r := range results {
		if r.err != nil {
			return nil, st, r.err
		}
		if r.mismatch {
			st.Mismatched = append(st.Mismatched, files[i])
			continue
		}
		st.Skipped += r.skipped
		out = append(out, r.ex...)
	}
	st.Forms = len(out)
	return out, st, nil
}

func loadPage(dir, file, rawURL string, labels []string) (ex []Example, skipped int, mismatch bool, err error) {
	body, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(file)))
	if err != nil {
		return nil, 0, false, fmt.Errorf("load formasaurus: %w", err)
	}
	base, err := url.Parse(rawURL)
	if err != nil {
		return nil, 0, false, fmt.Errorf("load formasaurus %s: url %q: %w", file, rawURL, err)
	}
	// Formasaurus stores every page re-encoded as UTF-8 but keeps its
	// original <meta charset> (windows-1251, Shift_JIS, …); valid UTF-8 is
	// therefore declared as such, as an HTTP header would.
	ct := ""
	if utf8.Valid(body) {
		ct = "text/html; charset=utf-8"
	}
	p, err := page.Parse(body, ct, base)
	if err != nil {
		return nil, 0, false, fmt.Errorf("load formasaurus %s: %w", file, err)
	}
	if len(p.Forms) != len(labels) {
		return nil, 0, true, nil
	}
	host := strings.ToLower(base.Hostname())
	for i, l := range labels {
		k, ok := KindOfLabel(l)
		if !ok {
			skipped++
			continue
		}
		ex = append(ex, Example{Form: p.Forms[i], Label: l, Kind: k, URL: rawURL, Host: host, File: file, Title: p.Title, Text: capBytes(p.Text, maxPageText)})
	}
	return ex, skipped, false, nil
}
