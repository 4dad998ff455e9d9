package crawl

import (
	"fmt"

	"github.com/dwcrawl/dwcrawl/core/fetch"
	"github.com/dwcrawl/dwcrawl/core/form"
	"github.com/dwcrawl/dwcrawl/core/profile"
	"github.com/dwcrawl/dwcrawl/core/siteclass"
)

// FetchOptions returns the fetcher options the profile's politeness
// settings ask for (User-Agent, delay, timeout, body limit) over
// fetch.DefaultOptions.
func FetchOptions(p *profile.Profile) fetch.Options {
	fo := fetch.DefaultOptions()
	fo.UserAgent = p.Politeness.UserAgent
	fo.Delay = p.Politeness.Delay
	if p.Politeness.Timeout > 0 {
		fo.Timeout = p.Politeness.Timeout
	}
	if p.Politeness.MaxBodyBytes > 0 {
		fo.MaxBody = p.Politeness.MaxBodyBytes
	}
	return fo
}

// Classifiers builds the two classifiers a crawl of p judges with: HIFI
// over the embedded form model for the profile's domain (Deps.Forms), and
// the site classifier trained on the profile's keywords (Deps.Pages).
func Classifiers(p *profile.Profile) (*form.HIFI, *siteclass.Classifier, error) {
	model, err := form.Default()
	if err != nil {
		return nil, nil, fmt.Errorf("crawl: loading the form classifier: %w", err)
	}
	hifi, err := form.NewHIFI(model, p.Domain)
	if err != nil {
		return nil, nil, fmt.Errorf("crawl: form classifier for domain %q: %w", p.Domain, err)
	}
	kw := append(append(append([]string{}, p.Keywords...), p.Site.Keywords...), p.Forms.Keywords...)
	sc, err := siteclass.Train(p.Domain, nil, kw, siteclass.Options{})
	if err != nil {
		return nil, nil, fmt.Errorf("crawl: training the site classifier: %w", err)
	}
	return hifi, sc, nil
}
