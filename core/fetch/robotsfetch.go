package fetch

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"time"
)

// maxRobotsRedirects is how many redirects a robots.txt fetch follows
// (RFC 9309 §2.3.1.2: at least five).
const maxRobotsRedirects = 5

// robotsLocked returns the robots.txt rules for u's scheme and host, from
// the cache or by fetching /robots.txt. The caller holds h. Only the
// caller's cancellation is an error: every other outcome is a set of rules
// (DisallowAll with the reason when robots.txt is unavailable).
func (f *Fetcher) robotsLocked(ctx context.Context, h *hostState, u *url.URL) (*robotsRecord, error) {
	if rec := h.robots[u.Scheme]; rec != nil && f.opt.Clock.Now().Before(rec.expires) {
		return rec, nil
	}
	rules, ttl, why, err := f.fetchRobots(ctx, h, u)
	if err != nil {
		return nil, err
	}
	now := f.opt.Clock.Now()
	if h.robots == nil {
		h.robots = make(map[string]*robotsRecord, 1)
	}
	rec := &robotsRecord{rules: rules, expires: now.Add(ttl), why: why}
	h.robots[u.Scheme] = rec
	h.delay = max(f.opt.Delay, min(rules.CrawlDelay, f.opt.MaxCrawlDelay))
	if t := now.Add(h.delay); t.After(h.next) {
		h.next = t // the robots.txt request counts as a request to the host
	}
	return rec, nil
}

// fetchRobots fetches and parses robots.txt for u's scheme and host and
// says how long the answer may be cached and, for DisallowAll, why.
func (f *Fetcher) fetchRobots(ctx context.Context, h *hostState, u *url.URL) (rules *Rules, ttl time.Duration, why, err error) {
	ru := &url.URL{Scheme: u.Scheme, Host: u.Host, Path: "/robots.txt"}
	cur := h
	for hop := 0; hop <= maxRobotsRedirects; hop++ {
		req, rerr := f.newRequest(ctx, http.MethodGet, ru, nil)
		if rerr != nil {
			return AllowAll, f.opt.RobotsTTL, nil, nil
		}
		req.Header.Set("Accept", "text/plain,*/*;q=0.5")
		ex, err := f.roundTrip(ctx, cur, req, modeRobots)
		if ctx.Err() != nil {
			return nil, 0, nil, fmt.Errorf("robots.txt of %s: %w", u.Host, ctx.Err())
		}
		st := ex.status
		switch {
		case st == 0 || st >= 500 || st == http.StatusTooManyRequests:
			f.opt.Logger.Debug("robots.txt unavailable", "host", u.Host, "status", st, "err", err)
			if err == nil {
				err = &StatusError{Code: st}
			}
			return DisallowAll, f.opt.RobotsErrorTTL, err, nil
		case isRedirect(st):
			next, perr := ru.Parse(ex.header.Get("Location"))
			if perr != nil || (next.Scheme != "http" && next.Scheme != "https") || f.checkHost(next.Hostname()) != nil {
				return AllowAll, f.opt.RobotsTTL, nil, nil
			}
			if next.Host != u.Host {
				cur = &hostState{} // another host: not paced by u's slot
			}
			ru = next
		case st >= 200 && st <= 299:
			return ParseRobots(ex.body).For(f.opt.RobotsAgent), f.opt.RobotsTTL, nil, nil
		default: // 4xx and the odd 1xx/3xx: no usable robots.txt, everything allowed
			return AllowAll, f.opt.RobotsTTL, nil, nil
		}
	}
	return AllowAll, f.opt.RobotsTTL, nil, nil
}
