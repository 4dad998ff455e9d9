package crawl

import (
	"context"
	"errors"
	"fmt"

	"github.com/dwcrawl/dwcrawl/core/canon"
	"github.com/dwcrawl/dwcrawl/core/fetch"
	"github.com/dwcrawl/dwcrawl/core/frontier"
	"github.com/dwcrawl/dwcrawl/core/sitemap"
)

// sitemapFetcher is a Fetcher that also reads robots.txt's Sitemap: lines
// and files of any type (fetch.Fetcher is one). Without it no sitemap is
// read.
type sitemapFetcher interface {
	Sitemaps(ctx context.Context, rawURL string) ([]string, error)
	FetchFile(ctx context.Context, rawURL string) (*fetch.Response, error)
}

// sitemapURLs reads the sitemaps of site, the robots.txt Sitemap: files and
// /sitemap.xml (index files followed, at most the profile's max_files
// fetched), and returns the canonical URLs of site they list, at most
// max_urls, each with the sitemap file that listed it. A sitemap that
// cannot be fetched or read is skipped: sitemaps only add to the links.
func (e *Engine) sitemapURLs(ctx context.Context, site string) (urls, from []string) {
	cfg := e.prof.Sitemaps
	sf, ok := e.deps.Fetcher.(sitemapFetcher)
	if !cfg.Enabled || !ok {
		return nil, nil
	}
	files, err := sf.Sitemaps(ctx, site+"/")
	if err != nil {
		e.log.Debug("robots.txt sitemaps", "site", site, "err", err)
	}
	files = append(files, site+"/sitemap.xml")
	queued := map[string]bool{}
	seen := map[string]bool{}
	fetched := 0
	for i := 0; i < len(files) && fetched < cfg.MaxFiles && len(urls) < cfg.MaxURLs; i++ {
		f := files[i]
		if queued[f] {
			continue
		}
		queued[f] = true
		fetched++
		resp, err := sf.FetchFile(ctx, f)
		if err != nil {
			if ctx.Err() == nil && !errors.Is(err, fetch.ErrStatus) {
				e.log.Debug("sitemap not fetched", "url", f, "err", err)
			}
			continue
		}
		sm, err := sitemap.Parse(resp.Body, sitemap.Limits{MaxURLs: 10 * cfg.MaxURLs})
		if err != nil {
			e.log.Debug("sitemap not read", "url", f, "err", err)
			continue
		}
		if sm.Index {
			files = append(files, sm.URLs...)
			continue
		}
		for _, raw := range sm.URLs {
			u, err := canon.Canonical(raw)
			if err != nil || seen[u] || canon.Site(u) != site {
				continue
			}
			seen[u] = true
			urls, from = append(urls, u), append(from, resp.URL)
			if len(urls) >= cfg.MaxURLs {
				break
			}
		}
	}
	return urls, from
}

// pushSitemaps queues the URLs of the site's sitemaps at depth 1, ranked by
// the link ranker on their URL alone, and counts them.
func (x *siteExploration) pushSitemaps(ctx context.Context, lf *frontier.LinkFrontier) error {
	e := x.t.e
	urls, from := e.sitemapURLs(ctx, x.site)
	n := 0
	for i, u := range urls {
		if _, dup := x.queued[u]; dup {
			continue
		}
		x.queued[u] = struct{}{}
		ev := &frontier.Evidence{From: from[i]}
		it := frontier.Item{URL: u, Site: x.site, Depth: 1, Score: x.t.rk.link(u, "", ""), Evidence: ev}
		if _, err := lf.Push(it); err != nil {
			return fmt.Errorf("crawl: queueing sitemap URL %s: %w", u, err)
		}
		n++
	}
	if n == 0 {
		return nil
	}
	e.log.Debug("sitemap URLs queued", "site", x.site, "urls", n)
	return e.count(tally{cSitemapURLs: int64(n)})
}
