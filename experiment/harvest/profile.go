package harvest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/dwcrawl/dwcrawl/core/profile"
	"github.com/dwcrawl/dwcrawl/testbed/simweb"
)

// maxTopicWords bounds the simulated web's topic words a fallback profile
// takes as keywords.
const maxTopicWords = 24

// LoadProfile returns the profile of domain: dir/<domain>.lua when that file
// exists, else FallbackProfile(domain, w). fallback reports the second case.
// A profile file for another domain is an error.
func LoadProfile(ctx context.Context, dir, domain string, w *simweb.Web) (p *profile.Profile, fallback bool, err error) {
	path := filepath.Join(dir, domain+".lua")
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		p, err := FallbackProfile(domain, w)
		return p, true, err
	}
	p, err = profile.Load(ctx, path)
	if err != nil {
		return nil, false, fmt.Errorf("harvest: %w", err)
	}
	if p.Domain != domain {
		return nil, false, fmt.Errorf("harvest: %s is a profile of domain %q, not %q", path, p.Domain, domain)
	}
	return p, false, nil
}

// FallbackProfile builds a profile for domain in Go, for a domain without a
// profile file: profile.Defaults() with Name and Domain set to domain,
// reverse search through the simulated engine, and words taken from the
// simulated web's vocabulary of the topic — its label, noun and plural and
// topic words as keywords, its section names as site hints, its facets as
// form keywords. It fails when the simulated web has no such topic.
func FallbackProfile(domain string, w *simweb.Web) (*profile.Profile, error) {
	t, ok := w.Data().Topics[domain]
	if !ok || t == nil {
		return nil, fmt.Errorf("harvest: no profile file for domain %q and the simulated web has no such topic", domain)
	}
	p := profile.Defaults()
	p.Name, p.Domain = domain, domain
	p.Description = "built from the simulated web's vocabulary of " + domain + " (no profile file)"
	p.Reverse.Plugin = "search/simweb"
	p.Keywords = words(append([]string{t.Label, t.Plural, t.Noun}, t.Words[:min(len(t.Words), maxTopicWords)]...))
	if len(p.Keywords) == 0 {
		p.Keywords = []string{domain}
	}
	var sections []string
	for _, s := range t.Sections {
		sections = append(sections, strings.NewReplacer("-", " ", "_", " ").Replace(s))
	}
	p.Site.Keywords = words(append([]string{t.Label, t.Plural}, sections...))
	p.Link.Keywords = words([]string{"search", "advanced search", "find", "browse", t.Plural})
	p.Link.Negative = []string{"login", "sign in", "register", "cart", "privacy", "terms", "contact", "help"}
	var facets []string
	for _, f := range t.Facets {
		facets = append(facets, strings.ReplaceAll(f, "_", " "))
	}
	p.Forms.Keywords = words(append([]string{t.Noun, "keywords", "search"}, facets...))
	return &p, nil
}

// words lower-cases, trims and de-duplicates, dropping empty words.
func words(in []string) []string {
	var out []string
	for _, w := range in {
		w = strings.ToLower(strings.Join(strings.Fields(w), " "))
		if w != "" && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}
