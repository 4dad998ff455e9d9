package form

import (
	"reflect"
	"slices"
	"testing"

	"github.com/dwcrawl/dwcrawl/core/domain"
)

func TestBundledDomainExamples(t *testing.T) {
	a, err := BundledDomainExamples(7, 5)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := BundledDomainExamples(7, 5)
	if !reflect.DeepEqual(a, b) {
		t.Error("same seed, different examples")
	}
	if len(a) != 5*(len(domain.BuiltIn)+1) {
		t.Errorf("%d examples", len(a))
	}
	voc, _ := Vocabulary()
	for _, d := range append([]string{OtherDomain}, domain.BuiltIn...) {
		v := voc[d]
		if len(v.Labels) == 0 || len(v.Values) == 0 || len(v.Context) == 0 {
			t.Errorf("domain %s vocabulary: %d labels %d values %d sentences", d, len(v.Labels), len(v.Values), len(v.Context))
		}
	}
}

// TestDSFCHeldOut trains on one seed's generated forms and tests on
// another's: the curated labels are shared, the real values and sentences
// drawn differ.
func TestDSFCHeldOut(t *testing.T) {
	t.Logf("seed 1 (train), 2 (test)")
	train, _ := BundledDomainExamples(1, 120)
	test, _ := BundledDomainExamples(2, 40)
	d, err := TrainDSFC(train, DSFCOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c := d.Evaluate(test)
	if c.Accuracy() < 0.95 {
		t.Errorf("held-out accuracy %.3f\n%s", c.Accuracy(), c)
	}
	f := &test[0].Form
	best, p := d.Best(f)
	if best != test[0].Domain || p <= 0 || p > 1 {
		t.Errorf("best %s %.2f, want %s", best, p, test[0].Domain)
	}
	if in := d.InDomain(f, test[0].Domain); in < 0.5 {
		t.Errorf("in-domain p %.2f", in)
	}
	if d.InDomain(f, "nope") != 0 {
		t.Error("unknown domain scored")
	}
	probs := d.Probs(f)
	var s float64
	for _, v := range probs {
		s += v
	}
	if s < 0.999 || s > 1.001 || len(probs) != len(domain.BuiltIn)+1 {
		t.Errorf("probs %v", probs)
	}
}

func TestURLTerms(t *testing.T) {
	tests := []struct {
		url  string
		want []string
	}{
		{"http://www.usedcars.example.com/inventory/search", []string{"use", "car", "exampl", "inventori", "search"}},
		{"http://abebooks.com/bookdb/find", []string{"abe", "book", "book", "db", "find"}},
		{"/jobs/search", []string{"job", "search"}},
		{"::", nil},
	}
	for _, tt := range tests {
		got := URLTerms(tt.url)
		if !slices.Equal(got, tt.want) {
			t.Errorf("URLTerms(%q) = %q, want %q", tt.url, got, tt.want)
		}
	}
}

func TestWithDomainExamples(t *testing.T) {
	m := mustDefault(t)
	p := fixture(t)
	// Teach the domain classifier that this site's bare search box is a
	// book form.
	var extra []DomainExample
	for range 40 {
		extra = append(extra, DomainExample{Domain: "book", Form: p.Forms[0]})
	}
	m2, err := m.WithDomainExamples(extra, 1)
	if err != nil {
		t.Fatal(err)
	}
	if m2.SFC != m.SFC || m2.DSFC == m.DSFC {
		t.Error("copy shares the wrong parts")
	}
	if d, _ := m2.DSFC.Best(&p.Forms[0]); d != "book" {
		t.Errorf("retrained best domain %s", d)
	}
}
