package app

import (
	"maps"
	"slices"
	"time"

	"github.com/dwcrawl/dwcrawl/core/profile"
	"github.com/dwcrawl/dwcrawl/store"
)

// recordCrawlProfile records in db the name, keywords and politeness of
// the crawl's profile p, with delay (the run's, when positive) over the
// profile's: a later surface of a form the crawl found fetches and
// queries as the crawl did.
func recordCrawlProfile(db *store.DB, p *profile.Profile, delay time.Duration) error {
	pol := p.Politeness
	if delay > 0 {
		pol.Delay = delay
	}
	return db.SetCrawlProfile(store.CrawlProfile{Name: p.Name, Domain: p.Domain, Keywords: slices.Clone(p.Keywords),
		Politeness: store.Politeness{Delay: pol.Delay, PerIP: pol.PerIP, Timeout: pol.Timeout, UserAgent: pol.UserAgent,
			MaxBodyBytes: pol.MaxBodyBytes, Headers: maps.Clone(pol.Headers)}})
}

// recordedProfile returns the profile a crawl recorded in db (its name,
// domain, keywords and politeness only), nil when none did.
func recordedProfile(db *store.DB) (*profile.Profile, error) {
	r, ok, err := db.CrawlProfile()
	if err != nil || !ok {
		return nil, err
	}
	pol := r.Politeness
	return &profile.Profile{Name: r.Name, Domain: r.Domain, Keywords: r.Keywords,
		Politeness: profile.Politeness{Delay: pol.Delay, PerIP: pol.PerIP, Timeout: pol.Timeout, UserAgent: pol.UserAgent,
			MaxBodyBytes: pol.MaxBodyBytes, Headers: pol.Headers}}, nil
}

// formProfile completes the options of a form harvest from the crawl
// that found the form: without a Profile, the politeness of the one
// recorded in db; without Seeds, a given profile's keywords. A recorded
// profile's keywords are not seeds: a topic's words may be absent from a
// database of that topic, and a harvest without a profile starts from the
// form's own page, whose words its database holds.
func formProfile(opt SurfaceOptions, db *store.DB) (SurfaceOptions, error) {
	if opt.Form == "" {
		return opt, nil
	}
	if opt.Seeds == nil && opt.Profile != nil {
		opt.Seeds = opt.Profile.Keywords
	}
	if opt.Profile == nil {
		p, err := recordedProfile(db)
		if err != nil {
			return opt, err
		}
		opt.Profile = p
	}
	return opt, nil
}
