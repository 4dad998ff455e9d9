package crawl

import (
	"net/http"

	"github.com/dwcrawl/dwcrawl/core/fetch"
	"github.com/dwcrawl/dwcrawl/core/profile"
)

// FetchOptions returns the fetcher options the profile's politeness
// settings ask for (User-Agent, extra headers, delay, per-address delay,
// timeout, body limit)
// over fetch.DefaultOptions.
func FetchOptions(p *profile.Profile) fetch.Options {
	fo := fetch.DefaultOptions()
	fo.UserAgent = p.Politeness.UserAgent
	fo.Delay = p.Politeness.Delay
	fo.PolitePerIP = p.Politeness.PerIP
	if p.Politeness.Timeout > 0 {
		fo.Timeout = p.Politeness.Timeout
	}
	if len(p.Politeness.Headers) > 0 {
		fo.Header = http.Header{}
		for k, v := range p.Politeness.Headers {
			fo.Header.Set(k, v)
		}
	}
	if p.Politeness.MaxBodyBytes > 0 {
		fo.MaxBody = p.Politeness.MaxBodyBytes
	}
	return fo
}
