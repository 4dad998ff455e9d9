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
	var got tally
	pageSites := map[string]bool{} // site → a relevant form on its pages
	err = db.ScanJSON(store.TagPages, nil, func(key, val []byte) error {
		var rec pageRecord
		if err := json.Unmarshal(val, &rec); err != nil {
			return fmt.Errorf("page record %s: %w", key, err)
		}
		got.add(cPages, 1+int64(rec.Refetches))
		if rec.Err != "" {
			got.add(cFailed, 1)
		}
		got.add(cForms, int64(len(rec.Forms)))
		deep := pageSites[rec.Site]
		for _, f := range rec.Forms {
			deep = deep || f.Relevant
		}
		pageSites[rec.Site] = deep
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := db.ScanForms(func(f store.Form) error {
		got.add(cSearchable, 1)
		if f.Relevant {
			got.add(cRelevant, 1)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	twoStage := false
	if err := db.ScanSites(func(s store.Site) error {
		switch s.Status {
		case store.SiteExploring, store.SiteVisited, store.SiteRelevant, store.SiteCut, store.SiteIrrelevant, store.SiteFailed:
			twoStage = twoStage || s.Status == store.SiteExploring || s.Status == store.SiteRelevant || s.Status == store.SiteCut || s.Status == store.SiteIrrelevant
			got.add(cSites, 1)
		}
		// a site the budget cut is relevant, its exploration to be resumed
		if s.Status == store.SiteRelevant || s.Status == store.SiteCut {
			got.add(cRelSites, 1)
		}
		if s.Deep {
			got.add(cDeep, 1)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	if err := db.ScanJSON(store.TagFeatures, nil, func(key, val []byte) error {
		var it rank.Iteration
		if err := json.Unmarshal(val, &it); err != nil {
			return fmt.Errorf("learning round %q: %w", key, err)
		}
		if it.Space == rank.SpaceFSS {
			got.add(cFSS, 1)
		} else {
			got.add(cFSL, 1)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	rounds, marks := int64(0), false
	if err := db.ScanJSON(store.TagCrawl, nil, func(key, val []byte) error {
		switch key[0] {
		case reverseTargetKey:
			got.add(cRevQueries, 1)
		case reverseRoundKey:
			rounds++
		case sitemapSiteKey:
			var c sitemapCount
			if err := json.Unmarshal(val, &c); err != nil {
				return fmt.Errorf("sitemap count %q: %w", key, err)
			}
			got.add(cSitemapURLs, int64(c.URLs))
			marks = true
		}
		return nil
	}); err != nil {
		return nil, err
	}
	var problems []string
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
	if twoStage {
		check(cSites, got[cSites], "sites whose exploration began")
		check(cRelSites, got[cRelSites], "relevant sites recorded")
		check(cDeep, got[cDeep], "deep sites recorded")
	} else {
		deep := int64(0)
		for _, d := range pageSites {
			if d {
				deep++
			}
		}
		check(cSites, int64(len(pageSites)), "sites with a page recorded")
		check(cDeep, deep, "sites with a relevant form on a page recorded")
	}
	check(cFSS, got[cFSS], "FSS rounds recorded")
	check(cFSL, got[cFSL], "FSL/ACHE rounds recorded")
	check(cRevQueries, got[cRevQueries], "reverse-search queries recorded")
	check(cReverse, rounds, "reverse-search rounds recorded")
	if marks || ctr[counterNames[cSitemapURLs]] == 0 { // directories of older versions have no marks
		check(cSitemapURLs, got[cSitemapURLs], "sitemap URLs recorded per site")
	}
	return problems, nil
}
