package crawl

import (
	"encoding/json"
	"fmt"

	"github.com/dwcrawl/dwcrawl/core/rank"
	"github.com/dwcrawl/dwcrawl/store"
)

// CheckCounters recounts, from the records of a crawl directory, what the
// crawl's counters (the numbers its summary prints) count, and lists every
// counter that disagrees. Each counter changes only in the batch that
// records what it counts, so after a kill they must still agree. The
// centre pages of reverse search are counted but not recorded one by one,
// so they are not checked.
func CheckCounters(db *store.DB) ([]string, error) {
	ctr, err := db.Counters("crawl.")
	if err != nil {
		return nil, err
	}
	r := recount{pageSites: map[string]bool{}}
	for _, scan := range []func(*store.DB) error{r.pages, r.forms, r.sites, r.learning, r.crawlMarks} {
		if err := scan(db); err != nil {
			return nil, err
		}
	}
	return r.compare(ctr), nil
}

// recount is what CheckCounters counts from the records.
type recount struct {
	got       tally
	pageSites map[string]bool // site → a relevant form on its pages
	twoStage  bool            // sites recorded by the two-stage strategies
	rounds    int64           // reverse-search rounds
	marks     bool            // sitemap counts recorded per site
}

func (r *recount) pages(db *store.DB) error {
	return db.ScanJSON(store.TagPages, nil, func(key, val []byte) error {
		var rec pageRecord
		if err := json.Unmarshal(val, &rec); err != nil {
			return fmt.Errorf("page record %s: %w", key, err)
		}
		r.got.add(cPages, 1+int64(rec.Refetches))
		if rec.Err != "" {
			r.got.add(cFailed, 1)
		}
		r.got.add(cForms, int64(len(rec.Forms)))
		deep := r.pageSites[rec.Site]
		for _, f := range rec.Forms {
			deep = deep || f.Relevant
		}
		r.pageSites[rec.Site] = deep
		return nil
	})
}

func (r *recount) forms(db *store.DB) error {
	return db.ScanForms(func(f store.Form) error {
		r.got.add(cSearchable, 1)
		if f.Relevant {
			r.got.add(cRelevant, 1)
		}
		return nil
	})
}

func (r *recount) sites(db *store.DB) error {
	return db.ScanSites(func(s store.Site) error {
		switch s.Status {
		case store.SiteExploring, store.SiteVisited, store.SiteRelevant, store.SiteCut, store.SiteIrrelevant, store.SiteFailed:
			r.twoStage = r.twoStage || s.Status == store.SiteExploring || s.Status == store.SiteRelevant || s.Status == store.SiteCut || s.Status == store.SiteIrrelevant
			r.got.add(cSites, 1)
		}
		// a site the budget cut is relevant, its exploration to be resumed
		if s.Status == store.SiteRelevant || s.Status == store.SiteCut {
			r.got.add(cRelSites, 1)
		}
		if s.Deep {
			r.got.add(cDeep, 1)
		}
		return nil
	})
}

// learning counts the learning rounds.
func (r *recount) learning(db *store.DB) error {
	return db.ScanJSON(store.TagFeatures, nil, func(key, val []byte) error {
		var it rank.Iteration
		if err := json.Unmarshal(val, &it); err != nil {
			return fmt.Errorf("learning round %q: %w", key, err)
		}
		if it.Space == rank.SpaceFSS {
			r.got.add(cFSS, 1)
		} else {
			r.got.add(cFSL, 1)
		}
		return nil
	})
}

// crawlMarks counts the reverse-search queries and rounds and the sitemap
// URLs.
func (r *recount) crawlMarks(db *store.DB) error {
	return db.ScanJSON(store.TagCrawl, nil, func(key, val []byte) error {
		switch key[0] {
		case reverseTargetKey:
			r.got.add(cRevQueries, 1)
		case reverseRoundKey:
			r.rounds++
		case sitemapSiteKey:
			var c sitemapCount
			if err := json.Unmarshal(val, &c); err != nil {
				return fmt.Errorf("sitemap count %q: %w", key, err)
			}
			r.got.add(cSitemapURLs, int64(c.URLs))
			r.marks = true
		}
		return nil
	})
}

// compare lists the counters of ctr that disagree with the recount.
func (r *recount) compare(ctr map[string]int64) []string {
	var problems []string
	got := &r.got
	check := func(c counter, want int64, what string) {
		if n := ctr[counterNames[c]]; n != want {
			problems = append(problems, fmt.Sprintf("counter %s = %d, but %s: %d", counterNames[c], n, what, want))
		}
	}
	check(cPages, got[cPages], "page records (with their refetches)")
	check(cFailed, got[cFailed], "failed page records")
	check(cForms, got[cForms], "forms on the page records")
	check(cSearchable, got[cSearchable], "searchable forms recorded")
	check(cRelevant, got[cRelevant], "relevant forms recorded")
	if r.twoStage {
		check(cSites, got[cSites], "sites whose exploration began")
		check(cRelSites, got[cRelSites], "relevant sites recorded")
		check(cDeep, got[cDeep], "deep sites recorded")
	} else {
		deep := int64(0)
		for _, d := range r.pageSites {
			if d {
				deep++
			}
		}
		check(cSites, int64(len(r.pageSites)), "sites with a page recorded")
		check(cDeep, deep, "sites with a relevant form on a page recorded")
	}
	check(cFSS, got[cFSS], "FSS rounds recorded")
	check(cFSL, got[cFSL], "FSL/ACHE rounds recorded")
	check(cRevQueries, got[cRevQueries], "reverse-search queries recorded")
	check(cReverse, r.rounds, "reverse-search rounds recorded")
	if r.marks || ctr[counterNames[cSitemapURLs]] == 0 { // directories of older versions have no marks
		check(cSitemapURLs, got[cSitemapURLs], "sitemap URLs recorded per site")
	}
	return problems
}
