package crawl

import (
	"fmt"
	"sync/atomic"
	"time"
)

// Stats are the live counters of a crawl. All fields are updated atomically;
// read them through Snapshot.
type Stats struct {
	pages, failed, replayed        atomic.Int64
	sites, sitesRelevant, deep     atomic.Int64
	forms, searchable, relevant    atomic.Int64
	reverseTriggers, centrePages   atomic.Int64
	reverseQueries                 atomic.Int64
	learnSites, learnForms         atomic.Int64
	frontierSites, frontierLinks   atomic.Int64
	start                          time.Time
	basePages, baseForms, baseDeep int64
}

// Snapshot is a consistent-enough copy of the counters, for progress lines,
// summaries and JSON output.
type Snapshot struct {
	Pages           int64         `json:"pages"`
	Failed          int64         `json:"failed"`
	Replayed        int64         `json:"replayed"`
	Sites           int64         `json:"sites"`
	RelevantSites   int64         `json:"relevant_sites"`
	DeepSites       int64         `json:"deep_sites"`
	Forms           int64         `json:"forms"`
	SearchableForms int64         `json:"searchable_forms"`
	RelevantForms   int64         `json:"relevant_forms"`
	HarvestRate     float64       `json:"harvest_rate"`
	ReverseTriggers int64         `json:"reverse_triggers"`
	ReverseQueries  int64         `json:"reverse_queries"`
	CentrePages     int64         `json:"centre_pages"`
	LearnSites      int64         `json:"fss_rebuilds"`
	LearnForms      int64         `json:"fsl_rebuilds"`
	FrontierSites   int64         `json:"frontier_sites"`
	FrontierLinks   int64         `json:"frontier_links"`
	Elapsed         time.Duration `json:"elapsed_ns"`
	PagesPerSecond  float64       `json:"pages_per_second"`
}

// Snapshot copies the counters.
func (s *Stats) Snapshot() Snapshot {
	sn := Snapshot{
		Pages: s.pages.Load(), Failed: s.failed.Load(), Replayed: s.replayed.Load(),
		Sites: s.sites.Load(), RelevantSites: s.sitesRelevant.Load(), DeepSites: s.deep.Load(),
		Forms: s.forms.Load(), SearchableForms: s.searchable.Load(), RelevantForms: s.relevant.Load(),
		ReverseTriggers: s.reverseTriggers.Load(), ReverseQueries: s.reverseQueries.Load(), CentrePages: s.centrePages.Load(),
		LearnSites: s.learnSites.Load(), LearnForms: s.learnForms.Load(),
		FrontierSites: s.frontierSites.Load(), FrontierLinks: s.frontierLinks.Load(),
	}
	if sn.Pages > 0 {
		sn.HarvestRate = float64(sn.RelevantForms) / float64(sn.Pages)
	}
	if !s.start.IsZero() {
		sn.Elapsed = time.Since(s.start)
		if d := sn.Elapsed.Seconds(); d > 0 {
			sn.PagesPerSecond = float64(sn.Pages-s.basePages) / d
		}
	}
	return sn
}

// StatusLine renders the snapshot as one terminal line.
func (sn Snapshot) StatusLine() string {
	return fmt.Sprintf("pages %d (%.0f/s) · sites %d · deep %d · forms %d searchable / %d relevant · frontier %d sites %d links",
		sn.Pages, sn.PagesPerSecond, sn.Sites, sn.DeepSites, sn.SearchableForms, sn.RelevantForms, sn.FrontierSites, sn.FrontierLinks)
}

// Summary renders the final report of a crawl.
func (sn Snapshot) Summary() string {
	return fmt.Sprintf(`pages fetched        %d (%d failed, %d replayed from the store)
sites visited        %d (%d relevant)
deep sites           %d
forms                %d (%d searchable, %d relevant)
harvest rate         %.4f relevant forms per page
reverse searches     %d triggers, %d engine queries, %d centre pages
adaptive learning    %d FSS rebuilds, %d FSL rebuilds
elapsed              %s (%.0f pages/s)
`, sn.Pages, sn.Failed, sn.Replayed, sn.Sites, sn.RelevantSites, sn.DeepSites,
		sn.Forms, sn.SearchableForms, sn.RelevantForms, sn.HarvestRate,
		sn.ReverseTriggers, sn.ReverseQueries, sn.CentrePages, sn.LearnSites, sn.LearnForms,
		sn.Elapsed.Round(time.Millisecond), sn.PagesPerSecond)
}
