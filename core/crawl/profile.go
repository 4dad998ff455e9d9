package crawl

import (
	"github.com/dwcrawl/dwcrawl/core/fetch"
	"github.com/dwcrawl/dwcrawl/core/profile"
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
