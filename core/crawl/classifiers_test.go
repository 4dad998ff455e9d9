package crawl

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dwcrawl/dwcrawl/core/form"
	"github.com/dwcrawl/dwcrawl/core/profile"
	"github.com/dwcrawl/dwcrawl/store"
)

// TestCustomTopicCrawl crawls the simulated web with a profile whose
// domain is none of the twelve: the classifiers are trained from the
// profile and its seeds' homepages, the crawl starts, classifies forms and
// records forms of the topic; a second start reads the trained form model
// from the crawl directory.
func TestCustomTopicCrawl(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a domain classifier and crawls")
	}
	p, err := profile.Load(context.Background(), filepath.Join("testdata", "recipes.lua"))
	if err != nil {
		t.Fatal(err)
	}
	if !p.Custom() {
		t.Fatalf("domain %q is built in", p.Domain)
	}
	w := killWeb() // 600 sites: some cooking sites have recipe databases
	if len(w.Seeds(p.Domain, 10)) == 0 {
		t.Fatalf("the simulated web (seed %d) has no %s databases", testSeed, p.Domain)
	}
	dir := t.TempDir()
	c, err := Assemble(context.Background(), Setup{Profile: p, Dir: dir, Strategy: SmartCrawler, Workers: 2, Pages: 600, Web: w, Logger: quiet(), Seed: testSeed})
	if err != nil {
		t.Fatal(err)
	}
	cls := c.Classifiers
	t.Logf("simweb seed %d\n%s", testSeed, cls.Describe())
	if cls.Topic == nil || cls.Cached || cls.Forms.Domain != "cooking" {
		t.Fatalf("classifiers: topic %+v cached %v domain %q", cls.Topic, cls.Cached, cls.Forms.Domain)
	}
	if cls.Topic.Forms != 1 || cls.Topic.Pages < 2 || cls.Topic.Keywords == 0 || cls.Topic.HeldOut < 0.8 {
		t.Errorf("topic trained from %+v: want the example form, the example page and seed homepages, held-out recall ≥ 0.8", *cls.Topic)
	}
	if cls.Sites.Sources.Homepages < 2 || cls.Sites.Sources.Keywords == 0 {
		t.Errorf("site classifier trained from %s", cls.Sites.Sources)
	}
	sn, err := c.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	rel, fp := truthCheck(t, c.DB, w, "cooking")
	searchable := 0
	c.DB.ScanForms(func(f store.Form) error {
		searchable++
		return nil
	})
	t.Logf("%d pages, %d searchable forms recorded, %d relevant: %d truly cooking forms, %d false positives", sn.Pages, searchable, sn.RelevantForms, rel, fp)
	if sn.Pages == 0 || searchable == 0 {
		t.Fatalf("the crawl classified nothing: %d pages, %d searchable forms", sn.Pages, searchable)
	}
	if rel == 0 || fp > rel {
		t.Errorf("%d truly relevant forms, %d false positives", rel, fp)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}

	// A second start of the same crawl reads the form model it trained.
	c2, err := Assemble(context.Background(), Setup{Profile: p, Dir: dir, Strategy: SmartCrawler, Workers: 2, Pages: 600, Web: w, Logger: quiet(), Seed: testSeed})
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	if !c2.Classifiers.Cached || !strings.Contains(c2.Classifiers.Describe(), "crawl directory") {
		t.Errorf("second start retrained the topic model:\n%s", c2.Classifiers.Describe())
	}
	ex, err := form.LoadExampleForms(p.Forms.Examples)
	if err != nil {
		t.Fatal(err)
	}
	for i := range ex {
		if d1, d2 := cls.Forms.Classify(&ex[i], "localhost"), c2.Classifiers.Forms.Classify(&ex[i], "localhost"); !d1.Relevant || d1.Domain != d2.Domain || d1.PDomain != d2.PDomain {
			t.Errorf("example form: trained %+v, cached %+v", d1, d2)
		}
	}
}
