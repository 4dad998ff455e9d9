package profile

import (
	"net"
	"regexp"
	"sort"
	"strings"

	"github.com/dwcrawl/dwcrawl/core/records"
	"github.com/dwcrawl/dwcrawl/core/script"
)

// Site holds the CSS selectors (goquery's syntax, :contains("…") and
// :has(…) included) of one site's result pages, each replacing the
// inference of its part:
//
//	sites = {
//	  ["archive.example.org"] = {
//	    records = "dl > dt",                       -- each match is one record
//	    record_link = "a.title",                   -- the record's own link inside it
//	    next = "a[rel=next], a:contains('Next')",  -- the first match is the next page
//	  },
//	}
type Site struct {
	// Records matches the record elements of a result page.
	Records string `lua:"records"`
	// RecordLink matches, inside a record, the link to its own page (else
	// the record's primary link is taken). It needs Records.
	RecordLink string `lua:"record_link"`
	// Next matches the next-page control: a link, an element holding one,
	// or a submit button of a form.
	Next string `lua:"next"`
}

// Selectors are the site's selectors for package records; source names the
// profile in reports.
func (s Site) Selectors(source string) records.Selectors {
	return records.Selectors{Records: s.Records, RecordLink: s.RecordLink, Next: s.Next, Source: source}
}

// SiteFor returns the rules of the site a URL's host belongs to: the entry
// for "host:port", else for the host name, else the longest glob that
// matches the host name.
func (p *Profile) SiteFor(host string) (Site, bool) {
	if len(p.Sites) == 0 {
		return Site{}, false
	}
	host = strings.ToLower(host)
	if s, ok := p.Sites[host]; ok {
		return s, true
	}
	name := host
	if h, _, err := net.SplitHostPort(host); err == nil {
		name = h
	}
	if s, ok := p.Sites[name]; ok {
		return s, true
	}
	var globs []string
	for k := range p.Sites {
		if strings.Contains(k, "*") {
			globs = append(globs, k)
		}
	}
	sort.Slice(globs, func(i, j int) bool {
		return len(globs[i]) > len(globs[j]) || len(globs[i]) == len(globs[j]) && globs[i] < globs[j]
	})
	for _, g := range globs {
		if globRe(g).MatchString(name) {
			return p.Sites[g], true
		}
	}
	return Site{}, false
}

// globRe is a host glob as an anchored regexp ("*" any run of characters).
func globRe(g string) *regexp.Regexp {
	parts := strings.Split(g, "*")
	for i := range parts {
		parts[i] = regexp.QuoteMeta(parts[i])
	}
	return regexp.MustCompile("^" + strings.Join(parts, ".*") + "$")
}

// siteKey is a valid key of the sites table: a host name, a host glob or
// host:port, lower-case.
var siteKey = regexp.MustCompile(`^[a-z0-9*]([a-z0-9*.-]*[a-z0-9*])?(:[0-9]{1,5})?$`)

// validateSites checks every site's key and selectors.
func (p *Profile) validateSites(c *script.Chunk) error {
	keys := make([]string, 0, len(p.Sites))
	for k := range p.Sites {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, host := range keys {
		key := "sites" + luaKey(host)
		if !siteKey.MatchString(host) {
			return c.Errorf(key, "want a lower-case host name, host glob (\"*.example.org\") or host:port, got %q", host)
		}
		s := p.Sites[host]
		if s == (Site{}) {
			return c.Errorf(key, "set at least one of records, record_link, next")
		}
		if k, err := s.Selectors("").Check(); err != nil {
			return c.Errorf(key+"."+k, "%v", err)
		}
	}
	return nil
}
