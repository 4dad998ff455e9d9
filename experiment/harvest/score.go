package harvest

import (
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strings"

	"github.com/dwcrawl/dwcrawl/store"
	"github.com/dwcrawl/dwcrawl/testbed/simweb"
)

// Score is what one crawl directory found, judged by the simulated web's
// ground truth for one domain.
type Score struct {
	// Pages is the number of page records (pages fetched, failures
	// included).
	Pages int64 `json:"pages"`
	// RelevantForms counts the distinct forms the crawler reported as
	// relevant that are truly searchable forms of the domain.
	RelevantForms int `json:"relevant_forms"`
	// DeepSites counts the distinct sites with at least one of those forms.
	DeepSites int `json:"deep_sites"`
	// SearchableForms counts the distinct forms the crawler recorded as
	// searchable that are truly searchable (any domain).
	SearchableForms int `json:"searchable_forms"`
	// ClassifierRelevant is the number of form records the crawler marked
	// relevant (its own count, false positives and duplicates included).
	ClassifierRelevant int `json:"classifier_relevant_forms"`
	// ClassifierSearchable is the number of form records the crawler kept
	// as searchable.
	ClassifierSearchable int `json:"classifier_searchable_forms"`
	// FalsePositives are records marked relevant that the truth says are
	// not searchable forms of the domain.
	FalsePositives int `json:"false_positives"`
	// RelevantSeen counts the distinct true relevant forms on the pages the
	// crawler fetched, whatever its classifier said: an upper bound of
	// RelevantForms for the pages fetched.
	RelevantSeen int `json:"relevant_forms_seen"`
	// UnknownForms are stored forms the truth does not know (a page or form
	// index the simulated web never served); 0 in a correct crawl.
	UnknownForms int `json:"unknown_forms,omitempty"`

	// page numbers (crawl sequence) at which each find happened, sorted
	relevantAt, deepAt, claimedAt []int64
}

// HarvestRate is true relevant forms per page fetched.
func (s *Score) HarvestRate() float64 {
	if s.Pages == 0 {
		return 0
	}
	return float64(s.RelevantForms) / float64(s.Pages)
}

// Point is one point of a harvest curve.
type Point struct {
	Pages              int64 `json:"pages"`
	RelevantForms      int   `json:"relevant_forms"`
	DeepSites          int   `json:"deep_sites"`
	ClassifierRelevant int   `json:"classifier_relevant_forms"`
}

// Curve returns the harvest curve: the counts after every step pages, and a
// last point at Pages. step <= 0 means Pages/100.
func (s *Score) Curve(step int64) []Point {
	if s.Pages == 0 {
		return nil
	}
	if step <= 0 {
		step = max(1, s.Pages/100)
	}
	at := func(p int64) Point {
		upto := func(xs []int64) int { return sort.Search(len(xs), func(i int) bool { return xs[i] > p }) }
		return Point{Pages: p, RelevantForms: upto(s.relevantAt), DeepSites: upto(s.deepAt), ClassifierRelevant: upto(s.claimedAt)}
	}
	var out []Point
	for p := step; p < s.Pages; p += step {
		out = append(out, at(p))
	}
	return append(out, at(s.Pages))
}

// pageRecord is the part of the crawl engine's page record (store.TagPages,
// JSON) that scoring reads.
type pageRecord struct {
	URL   string `json:"url"`
	Final string `json:"final"`
	Err   string `json:"err"`
	Seq   int64  `json:"seq"`
	Forms []struct {
		Searchable bool `json:"s"`
	} `json:"forms"`
}

// pageMeta is what scoring keeps of a page that holds stored forms.
type pageMeta struct {
	final string
	seq   int64
}

// truth answers form lookups from the simulated web, remembering the pages
// that stored forms will ask about.
type truth struct {
	w     *simweb.Web
	cache map[string][]simweb.FormInfo
}

func (t *truth) forms(u string) []simweb.FormInfo {
	if fs, ok := t.cache[u]; ok {
		return fs
	}
	return t.w.FormsAt(u)
}

// formKey identifies a form in the truth: the static page's canonical URL
// and index, or the database for the search form of its result pages.
func formKey(fi simweb.FormInfo) string {
	if fi.Source == "hiddendb" && fi.Database != "" {
		return "db:" + fi.Database
	}
	return fi.ID
}

// hostOf returns the lower-case host of a truth form's page.
func hostOf(fi simweb.FormInfo) string {
	if u, err := url.Parse(fi.Page); err == nil && u.Host != "" {
		return strings.ToLower(u.Hostname())
	}
	if i := strings.IndexByte(fi.Database, '/'); i > 0 {
		return fi.Database[:i]
	}
	return fi.Page
}

// relevantFor reports whether a truth form is a searchable form of domain.
func relevantFor(fi simweb.FormInfo, domain string) bool {
	return fi.Searchable && fi.Domain == domain
}

// firsts keeps the first page number at which each key was found.
type firsts map[string]int64

func (f firsts) add(k string, seq int64) {
	if cur, ok := f[k]; !ok || seq < cur {
		f[k] = seq
	}
}

func (f firsts) sorted() []int64 {
	out := make([]int64, 0, len(f))
	for _, s := range f {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// ScoreCrawl judges the crawl recorded in db against the truth of w for domain.
// It reads the page records (for each page's final URL and crawl sequence
// number, and the true forms of every page fetched) and the forms table
// (what the crawler reported).
func ScoreCrawl(db *store.DB, w *simweb.Web, domain string) (*Score, error) {
	s := &Score{}
	t := &truth{w: w, cache: map[string][]simweb.FormInfo{}}
	pages := map[string]pageMeta{}
	seen := map[string]bool{}
	err := db.ScanJSON(store.TagPages, nil, func(key, val []byte) error {
		var rec pageRecord
		if err := json.Unmarshal(val, &rec); err != nil {
			return fmt.Errorf("harvest: page record %q: %w", key, err)
		}
		s.Pages++
		if rec.Err != "" {
			return nil
		}
		u := rec.URL
		if u == "" {
			u = string(key)
		}
		final := u
		if rec.Final != "" {
			final = rec.Final
		}
		fis := w.FormsAt(final)
		for _, fi := range fis {
			if relevantFor(fi, domain) {
				seen[formKey(fi)] = true
			}
		}
		for _, f := range rec.Forms {
			if f.Searchable {
				pages[u] = pageMeta{final: final, seq: rec.Seq}
				t.cache[final] = fis
				break
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("harvest: scanning pages: %w", err)
	}
	s.RelevantSeen = len(seen)

	relevant, deep, searchable := firsts{}, firsts{}, firsts{}
	err = db.ScanForms(func(f store.Form) error {
		s.ClassifierSearchable++
		pm, ok := pages[f.PageURL]
		if !ok {
			pm = pageMeta{final: f.PageURL, seq: int64(f.PagesFetched)}
		}
		if f.Relevant {
			s.ClassifierRelevant++
			s.claimedAt = append(s.claimedAt, pm.seq)
		}
		fis := t.forms(pm.final)
		if f.Index < 0 || f.Index >= len(fis) {
			s.UnknownForms++
			if f.Relevant {
				s.FalsePositives++
			}
			return nil
		}
		fi := fis[f.Index]
		if fi.Searchable {
			searchable.add(formKey(fi), pm.seq)
		}
		if !f.Relevant {
			return nil
		}
		if !relevantFor(fi, domain) {
			s.FalsePositives++
			return nil
		}
		relevant.add(formKey(fi), pm.seq)
		deep.add(hostOf(fi), pm.seq)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("harvest: scanning forms: %w", err)
	}
	s.RelevantForms, s.DeepSites, s.SearchableForms = len(relevant), len(deep), len(searchable)
	s.relevantAt, s.deepAt = relevant.sorted(), deep.sorted()
	sort.Slice(s.claimedAt, func(i, j int) bool { return s.claimedAt[i] < s.claimedAt[j] })
	return s, nil
}
