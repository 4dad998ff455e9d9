package domains_test

import (
	"context"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dwcrawl/dwcrawl/core/domain"
	"github.com/dwcrawl/dwcrawl/core/profile"
	"github.com/dwcrawl/dwcrawl/plugins"
)

// TestProfiles loads every domains/*.lua profile and checks that it
// validates, is named after its file, covers one of the built-in domains
// with real-web seeds, and names a search plugin that exists.
func TestProfiles(t *testing.T) {
	files, err := filepath.Glob("*.lua")
	if err != nil {
		t.Fatal(err)
	}
	covered := map[string]string{}
	for _, file := range files {
		t.Run(file, func(t *testing.T) {
			p, err := profile.Load(context.Background(), file)
			if err != nil {
				t.Fatal(err)
			}
			base := strings.TrimSuffix(file, ".lua")
			if p.Name != base {
				t.Errorf("name %q, want the file name %q", p.Name, base)
			}
			if !slices.Contains(domain.BuiltIn, p.Domain) {
				t.Errorf("domain %q is not one of %v", p.Domain, domain.BuiltIn)
			}
			if prev, dup := covered[p.Domain]; dup {
				t.Errorf("domain %q also covered by %s", p.Domain, prev)
			}
			covered[p.Domain] = file
			if len(p.Seeds) < 5 {
				t.Errorf("%d seeds, want at least 5 real sites", len(p.Seeds))
			}
			for _, s := range p.Seeds {
				u, err := url.Parse(s)
				if err != nil || u.Scheme != "https" || !strings.Contains(u.Host, ".") || strings.HasSuffix(u.Host, ".test") || strings.HasSuffix(u.Host, ".example") {
					t.Errorf("seed %q is not a real-web https site", s)
				}
			}
			if len(p.Keywords) < 10 || len(p.Forms.Keywords) < 5 || len(p.Forms.Examples) == 0 {
				t.Errorf("thin profile: %d keywords, %d form keywords, %d form examples", len(p.Keywords), len(p.Forms.Keywords), len(p.Forms.Examples))
			}
			if len(p.Site.Keywords) == 0 || len(p.Site.Negative) == 0 || len(p.Link.Keywords) == 0 || len(p.Link.Negative) == 0 {
				t.Errorf("missing site/link hints: %+v %+v", p.Site, p.Link)
			}
			engines := p.Reverse.Engines()
			if len(engines) == 0 {
				t.Error("no reverse-search engine: on the real web reverse search would be off")
			}
			for _, ref := range engines {
				kind, name, err := plugins.SplitRef(ref)
				if err == nil {
					_, _, err = plugins.Find(kind, name)
				}
				if err != nil {
					t.Errorf("reverse engine %s: %v", ref, err)
				}
				if ref == "search/simweb" {
					t.Errorf("reverse engine %s exists only in testbed mode (which uses it anyway)", ref)
				}
			}
			if p.Politeness.Delay <= 0 {
				t.Errorf("politeness.delay %v: a real-web profile must be polite", p.Politeness.Delay)
			}
		})
	}
	for _, d := range domain.BuiltIn {
		if covered[d] == "" {
			t.Errorf("no profile for domain %q", d)
		}
	}
}
