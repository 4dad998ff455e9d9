package form

import (
	"testing"

	"github.com/dwcrawl/dwcrawl/core/page"
)

// benchForms returns the shared Formasaurus forms, or the fixture's.
func benchForms(b *testing.B) []page.Form {
	var forms []page.Form
	dir, _ := formasaurusDir()
	if dir != "" {
		ex, _ := formasaurus(b)
		for i := range ex {
			forms = append(forms, ex[i].Form)
		}
	} else {
		forms = fixture(b).Forms
	}
	return forms
}

// BenchmarkClassify measures HIFI end to end (SFC, external rule, kind
// classifier or DSFC) on real forms, each seen for the first time (no
// cache); forms/s is the figure to compare with the 5,000 forms/s target.
func BenchmarkClassify(b *testing.B) {
	benchClassify(b, true)
}

// BenchmarkClassifyRepeated measures HIFI on forms it has seen before (a
// site's search box or log-in form on every page): the first step comes
// from the cache.
func BenchmarkClassifyRepeated(b *testing.B) {
	benchClassify(b, false)
}

func benchClassify(b *testing.B, cold bool) {
	forms := benchForms(b)
	h, err := NewHIFI(nil, "")
	if err != nil {
		b.Fatal(err)
	}
	h.noSteps = cold
	if !cold {
		for i := range forms {
			h.Classify(&forms[i], "")
		}
	}
	b.ResetTimer()
	n := 0
	for b.Loop() {
		h.Classify(&forms[n%len(forms)], "")
		n++
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "forms/s")
}

// BenchmarkSFC measures the searchable form classifier alone.
func BenchmarkSFC(b *testing.B) {
	forms := benchForms(b)
	m := mustDefault(b)
	b.ResetTimer()
	n := 0
	for b.Loop() {
		m.SFC.Prob(&forms[n%len(forms)])
		n++
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "forms/s")
}
