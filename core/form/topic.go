package form

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/dwcrawl/dwcrawl/core/learn"
	"github.com/dwcrawl/dwcrawl/core/page"
	"github.com/dwcrawl/dwcrawl/core/text"
)

// Topic describes a domain outside the twelve built in (a profile's custom
// `domain`, such as "news" or "recipes") by what the user can give about
// it: words, example forms and example pages.
type Topic struct {
	// Name is the domain name decisions report.
	Name string
	// Keywords are words of the topic (a profile's keywords and site
	// keywords): what its pages and forms talk about.
	Keywords []string
	// FormKeywords are words expected in the topic's forms: field labels,
	// options, captions (a profile's forms.keywords).
	FormKeywords []string
	// Forms are example forms of the topic (a profile's forms.examples).
	Forms []page.Form
	// Pages are example pages of the topic: saved pages of its sites, the
	// homepages of the crawl's seeds.
	Pages []TopicPage
}

// TopicPage is one example page of a topic.
type TopicPage struct {
	Source      string // file or URL, for reports
	Title, Text string
}

// TopicReport says what a topic's domain classifier was trained from.
type TopicReport struct {
	Topic        string `json:"topic"`
	Keywords     int    `json:"keywords"`
	FormKeywords int    `json:"form_keywords"`
	Forms        int    `json:"example_forms"`
	Pages        int    `json:"example_pages"`
	// Labels, Phrases, Values and Sentences count the vocabulary built
	// for the topic's generated training forms.
	Labels    int `json:"labels"`
	Phrases   int `json:"phrases"`
	Values    int `json:"values"`
	Sentences int `json:"sentences"`
	// Generated is the number of generated training forms of the topic,
	// Examples the example forms added to them.
	Generated int `json:"generated_forms"`
	Examples  int `json:"example_forms_trained"`
	// HeldOut is the share of held-out generated forms of the topic the
	// trained classifier puts in the topic, at the form level.
	HeldOut float64 `json:"held_out_recall"`
}

// String renders the report in one paragraph for people.
func (r *TopicReport) String() string {
	return fmt.Sprintf("domain classifier for %q trained from %d keywords, %d form keywords, %d example forms and %d example pages "+
		"(vocabulary: %d labels, %d phrases, %d values, %d sentences; %d generated forms + %d examples; held-out recall %.2f)",
		r.Topic, r.Keywords, r.FormKeywords, r.Forms, r.Pages, r.Labels, r.Phrases, r.Values, r.Sentences, r.Generated, r.Examples, r.HeldOut)
}

// topicPerDomain is the number of generated training forms per class when
// a topic is added (as for the bundled model).
const topicPerDomain = 300

// WithTopic returns a copy of m whose domain classifier also knows the
// custom topic t, and what it was trained from. A vocabulary for t is built
// from its keywords, the labels and options of its example forms and the
// sentences of its example pages that use its keywords ([TopicVocab]);
// training forms generated from it, and the example forms themselves, join
// the bundled forms of the twelve domains; the per-class thresholds are
// calibrated again on held-out generated forms and the level thresholds
// (calibrated on real forms) are kept. The searchable form and kind
// classifiers are shared with m.
func (m *Model) WithTopic(t Topic, seed uint64) (*Model, *TopicReport, error) {
	if m.DSFC == nil {
		return nil, nil, fmt.Errorf("topic %q: the model has no domain classifier", t.Name)
	}
	if t.Name == "" || t.Name == OtherDomain || t.Name == NoDomain {
		return nil, nil, fmt.Errorf("topic name %q is reserved", t.Name)
	}
	if slices.Contains(m.DSFC.Domains(), t.Name) {
		return nil, nil, fmt.Errorf("topic %q: the model already knows it", t.Name)
	}
	v := TopicVocab(t)
	if len(v.Labels)+len(v.Phrases) == 0 {
		return nil, nil, fmt.Errorf("topic %q: no keywords, form keywords or example forms to learn it from", t.Name)
	}
	voc, err := Vocabulary()
	if err != nil {
		return nil, nil, err
	}
	all := make(map[string]DomainVocab, len(voc)+1)
	for k, x := range voc {
		all[k] = x
	}
	all[t.Name] = v
	off := OffTopicTexts()
	train := GenerateDomainExamples(all, off, seed, topicPerDomain)
	r := &TopicReport{
		Topic: t.Name, Keywords: len(t.Keywords), FormKeywords: len(t.FormKeywords), Forms: len(t.Forms), Pages: len(t.Pages),
		Labels: len(v.Labels), Phrases: len(v.Phrases), Values: len(v.Values), Sentences: len(v.Context),
		Generated: topicPerDomain,
	}
	// Each example form counts as much as a few generated ones: it is real.
	for range 5 {
		for _, f := range t.Forms {
			train = append(train, DomainExample{Domain: t.Name, Form: f})
			r.Examples++
		}
	}
	d, err := TrainDSFC(train, DSFCOptions{SVM: learn.SVMOptions{Seed: seed}})
	if err != nil {
		return nil, nil, fmt.Errorf("topic %q: %w", t.Name, err)
	}
	held := GenerateDomainExamples(all, off, seed+1, max(topicPerDomain/3, 50))
	d.Calibrate(held, off, CalibrationOptions{})
	d.Levels = m.DSFC.Levels
	n, k := 0, 0
	for i := range held {
		if held[i].Domain != t.Name {
			continue
		}
		n++
		if v := d.Decide(&held[i].Form, Evidence{}, t.Name); v.Relevant && v.Level == LevelForm {
			k++
		}
	}
	if n > 0 {
		r.HeldOut = float64(k) / float64(n)
	}
	c := *m
	c.DSFC = d
	return &c, r, nil
}

// TopicVocab builds a topic's vocabulary for generating training forms:
// field labels from its form keywords and its example forms' labels,
// keyword-box prompts and phrases from its keywords, typical values from
// its example forms' options, and sentences from its example pages that use
// one of its keywords (or, with no pages, the keyword phrases themselves).
func TopicVocab(t Topic) DomainVocab {
	var v DomainVocab
	seen := map[string]bool{}
	add := func(dst *[]string, s string) {
		s = strings.Join(strings.Fields(s), " ")
		if s == "" || len(s) > 80 {
			return
		}
		k := fmt.Sprintf("%p|%s", dst, strings.ToLower(s))
		if seen[k] {
			return
		}
		seen[k] = true
		*dst = append(*dst, s)
	}
	for _, w := range t.FormKeywords {
		add(&v.Labels, titleWords(w))
	}
	for _, f := range t.Forms {
		for _, fd := range f.Fields {
			if strings.EqualFold(fd.Type, "hidden") {
				continue
			}
			add(&v.Labels, fd.Label)
			add(&v.Labels, fd.Placeholder)
			for j, o := range fd.Options {
				if j < maxOptions {
					add(&v.Values, o.Text)
					add(&v.Choices, o.Text)
				}
			}
		}
	}
	for _, w := range t.Keywords {
		add(&v.Phrases, w)
		add(&v.Boxes, "Search "+w)
		add(&v.Boxes, "Find "+w)
	}
	if len(v.Labels) == 0 {
		for _, w := range t.Keywords {
			add(&v.Labels, titleWords(w))
		}
	}
	kw := map[string]bool{}
	for _, w := range append(append([]string{}, t.Keywords...), t.FormKeywords...) {
		for _, s := range text.Terms(w) {
			kw[s] = true
		}
	}
	for _, p := range t.Pages {
		for _, s := range sentences(p.Title + ". " + p.Text) {
			for _, term := range text.Terms(s) {
				if kw[term] {
					add(&v.Context, s)
					break
				}
			}
		}
		for _, term := range topTerms(p.Text, kw, 20) {
			add(&v.Values, term)
		}
	}
	if len(v.Context) == 0 {
		v.Context = append(v.Context, v.Phrases...)
	}
	if len(v.Values) == 0 {
		v.Values = append(v.Values, v.Phrases...)
	}
	if len(v.Boxes) == 0 {
		v.Boxes = append(v.Boxes, genericPrompts...)
	}
	if len(v.Phrases) == 0 {
		v.Phrases = append(v.Phrases, v.Labels...)
	}
	return v
}

// titleWords upper-cases the first letter of each word ("year published"
// gives "Year published"'s label form "Year Published").
func titleWords(s string) string {
	ws := strings.Fields(s)
	for i, w := range ws {
		ws[i] = strings.ToUpper(w[:1]) + w[1:]
	}
	return strings.Join(ws, " ")
}

// sentences splits text into sentences of 4 to 40 words.
func sentences(s string) []string {
	var out []string
	for _, part := range strings.FieldsFunc(s, func(r rune) bool { return r == '.' || r == '!' || r == '?' || r == '\n' }) {
		if n := len(strings.Fields(part)); n >= 4 && n <= 40 {
			out = append(out, strings.TrimSpace(part))
		}
	}
	return out
}

// topTerms returns the n most frequent words of s (three letters or more,
// not stop words), those in skip left out: the words a topic's pages use
// beside its keywords.
func topTerms(s string, skip map[string]bool, n int) []string {
	count := map[string]int{}
	for _, w := range text.Tokenize(s) {
		if len(w) < 3 || text.IsStop(w) || skip[text.Stem(w)] {
			continue
		}
		count[w]++
	}
	ws := make([]string, 0, len(count))
	for w, c := range count {
		if c >= 2 {
			ws = append(ws, w)
		}
	}
	sort.Slice(ws, func(a, b int) bool {
		if count[ws[a]] != count[ws[b]] {
			return count[ws[a]] > count[ws[b]]
		}
		return ws[a] < ws[b]
	})
	if len(ws) > n {
		ws = ws[:n]
	}
	return ws
}

// exampleBase is the URL example snippets and files are parsed against.
var exampleBase = &url.URL{Scheme: "http", Host: "localhost", Path: "/"}

// LoadExampleForms parses example forms: inline HTML snippets (recognised
// by their "<") or HTML files; every form of each is an example.
func LoadExampleForms(examples []string) ([]page.Form, error) {
	var out []page.Form
	for _, ex := range examples {
		b := []byte(ex)
		if !strings.Contains(ex, "<") {
			var err error
			if b, err = os.ReadFile(ex); err != nil {
				return nil, fmt.Errorf("example form: %w", err)
			}
		}
		p, err := page.Parse(b, "text/html; charset=utf-8", exampleBase)
		if err != nil {
			return nil, fmt.Errorf("example form %.40q: %w", ex, err)
		}
		if len(p.Forms) == 0 {
			return nil, fmt.Errorf("example form %.40q: no <form> in it", ex)
		}
		out = append(out, p.Forms...)
	}
	return out, nil
}

// LoadExamplePage parses a saved HTML page of a topic.
func LoadExamplePage(file string) (TopicPage, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return TopicPage{}, fmt.Errorf("example page: %w", err)
	}
	p, err := page.Parse(b, "", exampleBase)
	if err != nil {
		return TopicPage{}, fmt.Errorf("example page %s: %w", file, err)
	}
	return TopicPage{Source: file, Title: p.Title, Text: p.Text}, nil
}

// topicModelKind is the model-file kind of a cached topic model.
const topicModelKind = "form-topic"

// topicModel is what is cached of a model with a topic: its domain
// classifier and the report of what it was trained from.
type topicModel struct {
	DSFC   *DSFC        `json:"dsfc"`
	Report *TopicReport `json:"report"`
}

// TopicModel returns m with topic t added ([Model.WithTopic]), reusing the
// one cached in store (the crawl directory's models, may be nil) when it was
// trained from the same model, topic and seed; key identifies what the
// topic's pages were taken from (the seed URLs) so that pages, which take
// fetching, are only asked for (by pages, may be nil) when training is
// needed. cached reports a model taken from store.
func TopicModel(m *Model, t Topic, key string, pages func() []TopicPage, seed uint64, store learn.BlobStore) (tm *Model, r *TopicReport, cached bool, err error) {
	h := sha256.New()
	b, _ := json.Marshal(struct {
		T    Topic
		Key  string
		Seed uint64
		Base string
	}{t, key, seed, m.id()})
	h.Write(b)
	sum := hex.EncodeToString(h.Sum(nil))
	name := topicModelKind + "/" + t.Name
	if store != nil {
		var c topicModel
		if meta, err := learn.Get(store, name, topicModelKind, &c); err == nil && meta["hash"] == sum && c.DSFC != nil && c.DSFC.Vec != nil && c.DSFC.SVM != nil {
			mc := *m
			mc.DSFC = c.DSFC
			return &mc, c.Report, true, nil
		}
	}
	if pages != nil {
		t.Pages = append(t.Pages, pages()...)
	}
	tm, r, err = m.WithTopic(t, seed)
	if err != nil {
		return nil, nil, false, err
	}
	if store != nil {
		if err := learn.Put(store, name, topicModelKind, map[string]string{"hash": sum, "topic": t.Name}, topicModel{tm.DSFC, r}); err != nil {
			return nil, nil, false, err
		}
	}
	return tm, r, false, nil
}

// id identifies a model for caches: its metadata and a fingerprint of its
// domain classifier (size, thresholds, biases).
func (m *Model) id() string {
	b, _ := json.Marshal(m.Meta)
	s := string(b)
	if d := m.DSFC; d != nil {
		s += fmt.Sprintf("|%d|%v", d.Vec.Dim(), d.Levels)
		for _, x := range d.SVM.Models {
			s += fmt.Sprintf("|%.6g,%.6g,%.6g", x.B, x.PA, x.PB)
		}
	}
	return s
}
