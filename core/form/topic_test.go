package form

import (
	"io/fs"
	"math"
	"path/filepath"
	"strings"
	"testing"
)

// recipeTopic is a custom topic written for the tests.
func recipeTopic(t *testing.T) Topic {
	t.Helper()
	forms, err := LoadExampleForms([]string{`<form action="/recipes"><label>Ingredients <input name="i"></label>
		<label>Cuisine <select name="c"><option>Italian</option><option>Thai</option><option>Mexican</option></select></label>
		<button>Find recipes</button></form>`})
	if err != nil {
		t.Fatal(err)
	}
	return Topic{
		Name:         "recipes",
		Keywords:     []string{"recipe", "recipes", "cooking", "ingredients", "dinner", "baking"},
		FormKeywords: []string{"ingredient", "cuisine", "course", "cooking time"},
		Forms:        forms,
		Pages: []TopicPage{{Source: "home.html", Title: "Home Kitchen recipes",
			Text: "Thousands of tested recipes for dinner. Every recipe lists its ingredients and the cooking time. Our shop in the old town is open from nine to five."}},
	}
}

func TestTopicVocab(t *testing.T) {
	v := TopicVocab(recipeTopic(t))
	has := func(xs []string, s string) bool {
		for _, x := range xs {
			if x == s {
				return true
			}
		}
		return false
	}
	if !has(v.Labels, "Cooking Time") || !has(v.Labels, "Ingredients") {
		t.Errorf("labels %q: want the form keywords and the example form's labels", v.Labels)
	}
	if !has(v.Values, "Thai") || !has(v.Boxes, "Search recipes") {
		t.Errorf("values %q boxes %q", v.Values, v.Boxes)
	}
	if len(v.Context) == 0 || !strings.Contains(strings.Join(v.Context, "|"), "ingredients") {
		t.Errorf("sentences %q: want the page's sentences that use a keyword", v.Context)
	}
	for _, s := range v.Context {
		if strings.Contains(s, "open from nine") {
			t.Errorf("sentence without a keyword kept: %q", s)
		}
	}
}

func TestWithTopic(t *testing.T) {
	m := mustDefault(t)
	tp := recipeTopic(t)
	tm, r, err := m.WithTopic(tp, 3)
	if err != nil {
		t.Fatal(err)
	}
	t.Log(r)
	if r.Forms != 1 || r.Pages != 1 || r.Keywords != 6 || r.Examples == 0 || r.HeldOut < 0.8 {
		t.Errorf("report %+v", *r)
	}
	if tm.SFC != m.SFC || tm.DSFC == m.DSFC || m.DSFC.Levels != tm.DSFC.Levels {
		t.Error("the copy shares the wrong parts")
	}
	h, err := NewHIFI(tm, "recipes")
	if err != nil {
		t.Fatal(err)
	}
	if d := h.Classify(&tp.Forms[0], "localhost"); !d.Relevant || d.DomainEvidence != LevelForm {
		t.Errorf("example form: %+v", d)
	}
	car := fixture(t).Forms[3]
	if d := h.Classify(&car, "springfieldcars.example"); d.Relevant {
		t.Errorf("car form relevant to recipes: %+v", d)
	}
	ha, _ := NewHIFI(tm, "auto")
	if d := ha.Classify(&car, "springfieldcars.example"); !d.Relevant {
		t.Errorf("car form no longer auto with the topic added: %+v", d)
	}
	for _, bad := range []Topic{{Name: "auto", Keywords: []string{"x"}}, {Name: OtherDomain, Keywords: []string{"x"}}, {Name: "empty"}} {
		if _, _, err := m.WithTopic(bad, 3); err == nil {
			t.Errorf("topic %+v accepted", bad)
		}
	}
}

// memBlobs is an in-memory learn.BlobStore.
type memBlobs map[string][]byte

func (b memBlobs) PutModel(name string, v []byte) error { b[name] = v; return nil }
func (b memBlobs) GetModel(name string) ([]byte, error) {
	if v, ok := b[name]; ok {
		return v, nil
	}
	return nil, fs.ErrNotExist
}

func TestTopicModelCache(t *testing.T) {
	m := mustDefault(t)
	tp := recipeTopic(t)
	store := memBlobs{}
	fetched := 0
	pages := func() []TopicPage {
		fetched++
		return []TopicPage{{Source: "http://seed.example/", Title: "Seed recipes", Text: "Quick dinner recipes with five ingredients."}}
	}
	m1, r1, cached, err := TopicModel(m, tp, "http://seed.example/", pages, 3, store)
	if err != nil || cached || fetched != 1 || r1.Pages != 2 {
		t.Fatalf("first: cached %v fetched %d err %v report %+v", cached, fetched, err, r1)
	}
	m2, r2, cached, err := TopicModel(m, tp, "http://seed.example/", pages, 3, store)
	if err != nil || !cached || fetched != 1 || *r2 != *r1 {
		t.Fatalf("second: cached %v fetched %d err %v", cached, fetched, err)
	}
	f := &tp.Forms[0]
	if a, b := m1.DSFC.Decide(f, Evidence{}, "recipes"), m2.DSFC.Decide(f, Evidence{}, "recipes"); a.Relevant != b.Relevant || math.Abs(a.P-b.P) > 1e-3 {
		t.Errorf("cached model decides otherwise: %+v vs %+v", a, b)
	}
	// Other seeds, other pages: trained again.
	if _, _, cached, err := TopicModel(m, tp, "http://other.example/", pages, 3, store); err != nil || cached || fetched != 2 {
		t.Errorf("other seeds: cached %v fetched %d err %v", cached, fetched, err)
	}
}

func TestLoadExampleForms(t *testing.T) {
	forms, err := LoadExampleForms([]string{"<form><input name=q></form><form><input name=x></form>", filepath.Join("testdata", "forms.html")})
	if err != nil {
		t.Fatal(err)
	}
	if len(forms) != 2+5 {
		t.Errorf("%d forms, want 7", len(forms))
	}
	if _, err := LoadExampleForms([]string{"<p>no form</p>"}); err == nil {
		t.Error("snippet without a form accepted")
	}
	if _, err := LoadExampleForms([]string{filepath.Join("testdata", "nope.html")}); err == nil {
		t.Error("missing file accepted")
	}
	if _, err := LoadExamplePage(filepath.Join("testdata", "apps", "trac.html")); err != nil {
		t.Error(err)
	}
}
