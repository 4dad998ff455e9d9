package fetch

import (
	"context"
	"fmt"
	"net/url"
)

// FetchFile GETs rawURL as Fetch does (robots.txt, politeness, retries,
// redirects, the address policy, Options.MaxBody) but accepts any content
// type and returns the body as received, not decoded: for sitemaps and
// other files a crawl reads besides pages.
func (f *Fetcher) FetchFile(ctx context.Context, rawURL string) (*Response, error) {
	return f.fetch(ctx, rawURL, modeFile)
}

// Sitemaps returns the Sitemap: URLs of the robots.txt of rawURL's host,
// fetching robots.txt unless it is cached (nil when robots.txt is absent,
// unreachable or ignored).
func (f *Fetcher) Sitemaps(ctx context.Context, rawURL string) ([]string, error) {
	if f.opt.IgnoreRobots {
		return nil, nil
	}
	u, err := parseURL(rawURL)
	if err != nil {
		return nil, err
	}
	if err := f.checkHost(u.Hostname()); err != nil {
		return nil, fmt.Errorf("sitemaps of %s: %w", u.Host, err)
	}
	h, err := f.acquire(ctx, u.Host)
	if err != nil {
		return nil, err
	}
	defer f.release(h)
	rec, err := f.robotsLocked(ctx, h, &url.URL{Scheme: u.Scheme, Host: u.Host})
	if err != nil {
		return nil, err
	}
	var out []string
	for _, s := range rec.rules.Sitemaps {
		if su, err := u.Parse(s); err == nil && (su.Scheme == "http" || su.Scheme == "https") {
			out = append(out, su.String())
		}
	}
	return out, nil
}
