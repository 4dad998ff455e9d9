package form

import (
	"github.com/dwcrawl/dwcrawl/core/domain"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dwcrawl/dwcrawl/core/learn"
)

// toyDSFC is a domain classifier over three classes whose decisions are
// driven by hand-set scores: only its classes and thresholds matter to
// decide.
func toyDSFC() *DSFC {
	return &DSFC{
		SVM: &learn.OVR{Classes: []string{"auto", "book", OtherDomain}},
		Min: map[string]Thresholds{
			"auto":      {Form: 0.3, Page: 0.3},
			"book":      {Form: 0.3, Page: 0.3},
			OtherDomain: {Form: 0.9, Page: 0.4},
		},
		Levels: Thresholds{Form: 0.7, Page: 0.6},
	}
}

func TestDecideLevels(t *testing.T) {
	d := toyDSFC()
	site := Evidence{SiteKnown: true, SiteP: 0.8}
	tests := []struct {
		name     string
		s        formScores
		ev       Evidence
		target   string
		domain   string
		relevant bool
		level    string
	}{
		{"form says auto", formScores{form: []float64{0.9, 0.1, 0.2}}, Evidence{}, "", "auto", true, LevelForm},
		{"form beats page", formScores{form: []float64{0.9, 0.1, 0.2}, page: []float64{0.1, 0.9, 0.1}}, Evidence{}, "", "auto", true, LevelForm},
		{"bare box borrows from page", formScores{form: []float64{0.2, 0.2, 0.95}, page: []float64{0.1, 0.8, 0.1}}, Evidence{}, "", "book", true, LevelPage},
		{"page out of domain", formScores{form: []float64{0.2, 0.2, 0.95}, page: []float64{0.1, 0.2, 0.7}}, Evidence{}, "", NoDomain, false, LevelPage},
		{"no evidence", formScores{form: []float64{0.2, 0.2, 0.5}, page: []float64{0.3, 0.2, 0.3}}, Evidence{}, "", NoDomain, false, ""},
		{"unknown terms", formScores{}, Evidence{}, "", NoDomain, false, ""},
		{"site vouches for the target", formScores{}, site, "book", "book", true, LevelSite},
		{"site does not", formScores{}, Evidence{SiteKnown: true, SiteP: 0.2}, "book", NoDomain, false, LevelSite},
		{"site ignored without target", formScores{}, site, "", NoDomain, false, ""},
		{"page beats site", formScores{page: []float64{0.1, 0.2, 0.7}}, site, "book", NoDomain, false, LevelPage},
		{"target's own form evidence", formScores{form: []float64{0.9, 0.75, 0.1}}, Evidence{}, "book", "book", true, LevelForm},
		{"another domain's form", formScores{form: []float64{0.9, 0.2, 0.1}}, Evidence{}, "book", "auto", false, LevelForm},
		{"page: only the best domain", formScores{page: []float64{0.9, 0.7, 0.1}}, Evidence{}, "book", "auto", false, LevelPage},
		{"target leads below the level threshold", formScores{form: []float64{0.2, 0.5, 0.4}}, Evidence{}, "book", "book", true, LevelForm},
		{"another domain leads", formScores{form: []float64{0.5, 0.4, 0.1}, page: []float64{0.1, 0.8, 0.1}}, Evidence{}, "book", "auto", false, LevelForm},
		{"leading is for targets only", formScores{form: []float64{0.2, 0.5, 0.4}}, Evidence{}, "", NoDomain, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := d.decide(tt.s, tt.ev, tt.target)
			if v.Domain != tt.domain || v.Relevant != tt.relevant || v.Level != tt.level {
				t.Errorf("got domain %q relevant %v level %q (%s), want %q %v %q", v.Domain, v.Relevant, v.Level, v.Reason, tt.domain, tt.relevant, tt.level)
			}
			if v.Reason == "" || (v.Level != "" && !strings.Contains(v.Reason, v.Level)) {
				t.Errorf("reason %q does not name the level %q", v.Reason, v.Level)
			}
		})
	}
}

func TestOwnTermsLeaveTheHostOut(t *testing.T) {
	p := fixture(t) // served from springfieldcars.example
	bare := &p.Forms[0]
	for _, term := range OwnTerms(bare) {
		if term == "car" {
			t.Errorf("own terms %q read the host name", OwnTerms(bare))
		}
	}
	found := false
	for _, term := range PageTerms(bare, Evidence{}) {
		found = found || term == "car"
	}
	if !found {
		t.Errorf("page terms %q miss the host name's words", PageTerms(bare, Evidence{}))
	}
}

// TestCalibrate checks the synthetic calibration: every threshold is at
// least the floor, and the held-out forms of a class mostly reach it.
func TestCalibrate(t *testing.T) {
	train, err := BundledDomainExamples(11, 80)
	if err != nil {
		t.Fatal(err)
	}
	held, _ := BundledDomainExamples(12, 30)
	d, err := TrainDSFC(train, DSFCOptions{SVM: learn.SVMOptions{Seed: 11}})
	if err != nil {
		t.Fatal(err)
	}
	recall := d.Calibrate(held, OffTopicTexts(), CalibrationOptions{MaxFPR: 0.02, Floor: 0.3})
	if len(d.Min) != len(domain.BuiltIn)+1 {
		t.Fatalf("%d classes calibrated", len(d.Min))
	}
	for c, th := range d.Min {
		if th.Form < 0.3 || th.Page < 0.3 || th.Form > 1 || th.Page > 1 {
			t.Errorf("%s: thresholds %v", c, th)
		}
		if c != OtherDomain && recall[c].Form < 0.8 {
			t.Errorf("%s: held-out recall at the form level %.2f", c, recall[c].Form)
		}
	}
	if len(OffTopicTexts()) < 1000 {
		t.Errorf("%d off-topic texts", len(OffTopicTexts()))
	}
}

// TestDomainsFormasaurus scores the domain step on the hand-labelled
// search forms of the Formasaurus pages (testdata/formasaurus-domains.tsv),
// with level thresholds calibrated on other hosts than those scored
// (5-fold cross-validation grouped by host): the target is at most
// 10 % of the out-of-domain forms marked relevant to a domain.
func TestDomainsFormasaurus(t *testing.T) {
	if testing.Short() {
		t.Skip("long: cross-validates on the shared Formasaurus pages")
	}
	ex, _ := formasaurus(t)
	labels, err := LoadDomainLabels(filepath.Join("testdata", "formasaurus-domains.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := DomainCrossValidate(mustDefault(t), ex, labels, 5, DefaultMaxOut, 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Log("seed 1\n" + r.Text())
	if r.AnyOut.N < 150 || r.AnyOut.Rate() > 0.10 {
		t.Errorf("out-of-domain forms marked relevant: %s", r.AnyOut)
	}
	if r.AnyIn.Rate() < 0.45 || r.TargetIn.Rate() < 0.45 {
		t.Errorf("in-domain recall %s (no target), %s (targets)", r.AnyIn, r.TargetIn)
	}
	if r.TargetOut.Rate() > 0.03 {
		t.Errorf("out-of-domain forms relevant to a target: %s", r.TargetOut)
	}
}

func writeFile(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLoadDomainLabels(t *testing.T) {
	labels, err := LoadDomainLabels(filepath.Join("testdata", "formasaurus-domains.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	n := map[string]int{}
	for _, l := range labels {
		n[l.Domain]++
	}
	if len(labels) < 600 || n[NoDomain] < 200 || n["product"] < 100 {
		t.Errorf("%d labels: %v", len(labels), n)
	}
	dir := t.TempDir()
	for _, bad := range []string{"html/a.html\tx\ts\tauto\n", "html/a.html\t0\ts\tcars\n", "html/a.html\t0\n"} {
		p := filepath.Join(dir, "bad.tsv")
		writeFile(t, p, "# header\n"+bad)
		if _, err := LoadDomainLabels(p); err == nil || !strings.Contains(err.Error(), "bad.tsv:2") {
			t.Errorf("%q: error %v, want one naming bad.tsv:2", bad, err)
		}
	}
}

func TestCalibrateLevelsBoundsOutOfDomain(t *testing.T) {
	if testing.Short() {
		t.Skip("long: reads the shared Formasaurus pages")
	}
	ex, _ := formasaurus(t)
	labels, err := LoadDomainLabels(filepath.Join("testdata", "formasaurus-domains.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	m := mustDefault(t)
	for _, maxOut := range []float64{0.03, 0.15} {
		d := *m.DSFC
		out, in := d.CalibrateLevels(ex, labels, maxOut)
		t.Logf("max out %.2f: levels %s, out %s, in %s", maxOut, d.Levels, out, in)
		top := levelGrid[len(levelGrid)-1]
		if in.N == 0 || out.N == 0 || out.Rate() > maxOut && d.Levels != (Thresholds{Form: top, Page: top}) {
			t.Errorf("max out %.2f: levels %s out %s in %s", maxOut, d.Levels, out, in)
		}
	}
}
