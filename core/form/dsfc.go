package form

import (
	"fmt"
	"math/rand/v2"
	"net"
	"net/url"
	"sort"
	"strings"
	"sync"

	"github.com/dwcrawl/dwcrawl/core/domain"
	"github.com/dwcrawl/dwcrawl/core/learn"
	"github.com/dwcrawl/dwcrawl/core/page"
	"github.com/dwcrawl/dwcrawl/core/text"
)

// DSFC is HIFI's domain-specific form classifier: for a searchable form,
// is it in a given domain? One linear SVM per domain (one-vs-rest over the
// twelve domains and [OtherDomain]) on the tf-idf vector of the form's text
// ([FormTerms]: labels, option texts, captions, placeholders, field names,
// the form's own text and the text around it), with Platt-scaled
// probabilities.
type DSFC struct {
	Vec *learn.TFIDF `json:"tfidf"`
	SVM *learn.OVR   `json:"svm"`
	// Min are the calibrated thresholds of each class ([DSFC.Calibrate]).
	Min map[string]Thresholds `json:"min,omitempty"`
	// Levels are the least thresholds of every domain class at each
	// evidence level, calibrated on real labelled forms
	// ([DSFC.CalibrateLevels]).
	Levels Thresholds `json:"levels"`
}

// DomainExample is a form labelled with its domain.
type DomainExample struct {
	Domain string
	Form   page.Form
}

// maxOptions bounds the options read from one select: long country or
// year lists say little and cost time.
const maxOptions = 30

// FormText returns the text the domain classifier reads from f: its own
// text ([OwnText]) and the text just before it (f.Context).
func FormText(f *page.Form) string {
	s := OwnText(f)
	if f.Context != "" {
		s += f.Context + " "
	}
	return s
}

// OwnText returns the text of the form itself: the labels, placeholders,
// names, values and options of its visible controls, its captions and its
// visible text (the first few thousand bytes: a form that wraps a whole
// page would otherwise bring the page in).
func OwnText(f *page.Form) string {
	var sb strings.Builder
	w := func(s string) {
		if s != "" {
			sb.WriteString(s)
			sb.WriteByte(' ')
		}
	}
	for i := range f.Fields {
		fd := &f.Fields[i]
		if strings.EqualFold(fd.Type, "hidden") {
			continue
		}
		w(fd.Label)
		w(fd.Placeholder)
		w(fd.Name)
		if !strings.EqualFold(fd.Type, "password") && len(fd.Value) < 60 {
			w(fd.Value)
		}
		for j, o := range fd.Options {
			if j >= maxOptions {
				break
			}
			w(o.Text)
		}
	}
	for _, s := range f.Submits {
		w(s)
	}
	w(capText(f.Text))
	return sb.String()
}

// FormTerms returns the terms the domain classifier reads: the stemmed,
// stop-word-free terms of [FormText] and of the action URL's host and path
// ([URLTerms]).
func FormTerms(f *page.Form) []string { return append(text.Terms(FormText(f)), URLTerms(f.Action)...) }

// URLTerms returns the terms of a URL's host (without "www" and the
// top-level domain) and path, each token split on the domain vocabulary's
// words as SmartCrawler splits URL terms ("usedcars" → "used", "car";
// "bookdb" → "book", "db"), then stemmed, stop words dropped.
func URLTerms(raw string) []string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" && u.Path == "" {
		return nil
	}
	labels := strings.Split(strings.ToLower(u.Hostname()), ".")
	if net.ParseIP(u.Hostname()) != nil {
		labels = nil
	}
	if len(labels) > 1 {
		labels = labels[:len(labels)-1]
	}
	var toks []string
	for _, l := range labels {
		if l != "www" {
			toks = append(toks, tokenize(l)...)
		}
	}
	toks = append(toks, tokenize(u.Path)...)
	var out []string
	for _, t := range toks {
		out = append(out, urlTokenTerms(t)...)
	}
	return out
}

var urlMemo = newMemo[[]string](1 << 16)

// urlTokenTerms splits and stems one URL token (memoised; callers must not
// modify the result).
func urlTokenTerms(tok string) []string {
	return urlMemo.get(tok, func(tok string) []string {
		var out []string
		for _, p := range learn.SplitCompound(tok, splitVocab()) {
			if len(p) < 2 || text.IsStop(p) {
				continue
			}
			out = append(out, text.Stem(p))
		}
		return out
	})
}

var (
	splitOnce sync.Once
	splitSet  map[string]bool
)

// splitVocab is the set of words URL tokens are split on: every word (and
// its stem) of the curated domain vocabulary, three letters or more.
func splitVocab() map[string]bool {
	splitOnce.Do(func() {
		splitSet = make(map[string]bool)
		add := func(s string) {
			for _, w := range text.Tokenize(s) {
				if len(w) >= 3 && !text.IsStop(w) {
					splitSet[w] = true
					if st := text.Stem(w); len(st) >= 3 {
						splitSet[st] = true
					}
				}
			}
		}
		for _, c := range curatedVocab {
			add(c.labels + " " + c.boxes + " " + c.context + " " + c.choices)
		}
		for _, d := range domain.BuiltIn {
			add(d)
		}
		for _, w := range strings.Fields("car cars flight flights person people rent rental apartment job jobs movie film music song book hotel route map product shop store search find query") {
			add(w)
		}
	})
	return splitSet
}

// DSFCOptions tune [TrainDSFC].
type DSFCOptions struct {
	SVM         learn.SVMOptions
	MinDF       int // drop terms in fewer training forms (default 2)
	MaxFeatures int // keep the most frequent terms (default 5000)
}

// TrainDSFC trains the domain classifier on labelled forms (at least two
// domains).
func TrainDSFC(ex []DomainExample, opt DSFCOptions) (*DSFC, error) {
	if opt.MinDF <= 0 {
		opt.MinDF = 2
	}
	if opt.MaxFeatures <= 0 {
		opt.MaxFeatures = 5000
	}
	opt.SVM.Balanced = true
	docs := make([][]string, len(ex))
	labels := make([]string, len(ex))
	for i := range ex {
		docs[i] = FormTerms(&ex[i].Form)
		labels[i] = ex[i].Domain
	}
	vec := learn.FitTFIDF(docs, opt.MinDF, opt.MaxFeatures)
	X := make([]learn.Sparse, len(docs))
	for i, d := range docs {
		X[i] = vec.Transform(d)
	}
	svm, err := learn.TrainOVR(X, labels, vec.Dim(), opt.SVM)
	if err != nil {
		return nil, fmt.Errorf("train dsfc: %w", err)
	}
	return &DSFC{Vec: vec, SVM: svm}, nil
}

// Domains returns the classes the classifier knows.
func (d *DSFC) Domains() []string { return d.SVM.Classes }

// Probs returns P(domain | f) for every class, normalised over classes.
func (d *DSFC) Probs(f *page.Form) map[string]float64 {
	p := d.SVM.Probs(d.Vec.Transform(FormTerms(f)))
	out := make(map[string]float64, len(p))
	for i, c := range d.SVM.Classes {
		out[c] = p[i]
	}
	return out
}

// Best returns the most probable domain of f and its probability.
func (d *DSFC) Best(f *page.Form) (string, float64) {
	return d.SVM.Predict(d.Vec.Transform(FormTerms(f)))
}

// InDomain returns the in-domain probability of f for one domain: the
// Platt output of that domain's own SVM (in-domain vs out-of-domain). It is
// 0 for an unknown domain.
func (d *DSFC) InDomain(f *page.Form, domain string) float64 {
	x := d.Vec.Transform(FormTerms(f))
	if len(d.SVM.Models) == 1 {
		p := d.SVM.Probs(x)
		for i, c := range d.SVM.Classes {
			if c == domain {
				return p[i]
			}
		}
		return 0
	}
	for i, c := range d.SVM.Classes {
		if c == domain {
			return d.SVM.Models[i].Prob(x)
		}
	}
	return 0
}

// Evaluate scores the classifier on labelled forms.
func (d *DSFC) Evaluate(ex []DomainExample) *learn.Confusion {
	c := learn.NewConfusion(d.SVM.Classes...)
	for i := range ex {
		p, _ := d.Best(&ex[i].Form)
		c.Add(ex[i].Domain, p)
	}
	return c
}

// BundledDomainExamples generates perDomain training forms for each of the
// twelve domains and [OtherDomain] from the bundled vocabulary
// ([Vocabulary]) and off-topic texts ([OffTopicTexts]); see
// [GenerateDomainExamples]. The same seed gives the same forms.
func BundledDomainExamples(seed uint64, perDomain int) ([]DomainExample, error) {
	voc, err := Vocabulary()
	if err != nil {
		return nil, err
	}
	return GenerateDomainExamples(voc, OffTopicTexts(), seed, perDomain), nil
}

// GenerateDomainExamples generates perDomain searchable forms for each
// class of voc (sorted by name): keyword boxes and multi-attribute forms
// whose labels, options and surrounding text are drawn from the class's
// vocabulary. Half the forms also carry a few words or a sentence of
// off-topic text (a link inside the form, a headline before it), as real
// forms do, so that no single word weighs as domain evidence unless the
// domain's forms use it; and half the forms of [OtherDomain] are bare
// search boxes among off-topic text.
func GenerateDomainExamples(voc map[string]DomainVocab, offTopic []string, seed uint64, perDomain int) []DomainExample {
	rng := rand.New(rand.NewPCG(seed, 0xd5fc))
	nz := newNoise(offTopic)
	classes := make([]string, 0, len(voc))
	for c := range voc {
		classes = append(classes, c)
	}
	sort.Strings(classes)
	var out []DomainExample
	for _, d := range classes {
		v := voc[d]
		for i := range perDomain {
			var f page.Form
			if d == OtherDomain && i%2 == 1 && nz.ok() {
				f = genBareBox(rng, nz)
			} else {
				f = genForm(rng, v)
				nz.add(rng, &f)
			}
			out = append(out, DomainExample{Domain: d, Form: f})
		}
	}
	return out
}

// noise draws off-topic words and sentences.
type noise struct {
	snippets, words []string
}

func newNoise(texts []string) *noise {
	n := &noise{}
	for _, t := range texts {
		for _, s := range strings.Split(t, "; ") {
			if s = strings.TrimSpace(s); s != "" {
				n.snippets = append(n.snippets, s)
			}
		}
		for _, w := range text.Tokenize(t) {
			if len(w) >= 3 && !text.IsStop(w) {
				n.words = append(n.words, w)
			}
		}
	}
	return n
}

func (n *noise) ok() bool { return len(n.snippets) > 0 }

// add puts off-topic words into half the forms' own text and an
// off-topic sentence before half of them.
func (n *noise) add(rng *rand.Rand, f *page.Form) {
	if !n.ok() {
		return
	}
	if rng.IntN(2) == 0 {
		for range 1 + rng.IntN(2) {
			f.Text += " " + pick(rng, n.words)
		}
	}
	if rng.IntN(2) == 0 {
		f.Context = pick(rng, n.snippets) + ". " + f.Context
	}
}

// genBareBox makes a search box with no domain words among off-topic text.
func genBareBox(rng *rand.Rand, n *noise) page.Form {
	prompt := pick(rng, genericPrompts)
	fd := page.Field{Tag: "input", Type: "text", Name: pick(rng, boxNames), Placeholder: prompt}
	f := page.Form{Method: "GET", Action: "http://example.test/search", Fields: []page.Field{fd}, Text: prompt}
	if c := pick(rng, captions); c != "" {
		f.Submits = []string{c}
	}
	if rng.IntN(2) == 0 {
		f.Text += " " + pick(rng, n.words)
	}
	ctx := []string{pick(rng, siteText)}
	for range 1 + rng.IntN(3) {
		ctx = append(ctx, pick(rng, n.snippets))
	}
	f.Context = strings.Join(ctx, ". ")
	return f
}

// Words of any search interface, whatever its domain: every class's
// generated forms use them, so they carry no domain evidence.
var (
	boxNames       = []string{"q", "query", "keywords", "search", "s", "kw", "term", "k", "w", "text"}
	captions       = []string{"Search", "Go", "Find", "Submit", "Search now", "GO", "Show results", "OK", ""}
	siteText       = []string{"Home", "About us", "Contact", "Sign in", "Help", "Advanced search", "Privacy", "My account", "Search our database", "Search by keyword", "Browse", "Latest", "Popular"}
	genericPrompts = []string{"Search", "Search this site", "Search site", "Enter keywords", "Keywords", "Search for", "Any words", "Search all", "Search the catalog", "Search our database", "What are you looking for?"}
	genericLabels  = []string{"Keywords", "Category", "Sort by", "Results per page", "Search in", "Match", "Order"}
)

func pick(rng *rand.Rand, xs []string) string {
	if len(xs) == 0 {
		return ""
	}
	return xs[rng.IntN(len(xs))]
}

func fieldName(label string) string {
	return strings.Join(text.Tokenize(label), "_")
}

// genForm makes one synthetic searchable form of a domain.
func genForm(rng *rand.Rand, v DomainVocab) page.Form {
	f := page.Form{Method: "GET", Action: "http://example.test/search"}
	var words []string
	if rng.IntN(3) == 0 {
		// Keyword box, maybe with a category select.
		prompt := pick(rng, v.Boxes)
		if rng.IntN(5) < 2 {
			prompt = pick(rng, genericPrompts)
		}
		fd := page.Field{Tag: "input", Type: "text", Name: pick(rng, boxNames)}
		if rng.IntN(2) == 0 {
			fd.Placeholder = prompt
		} else {
			fd.Label = prompt
		}
		f.Fields = append(f.Fields, fd)
		words = append(words, prompt)
		if rng.IntN(3) == 0 {
			f.Fields = append(f.Fields, genSelect(rng, pick(rng, v.Labels), v.Values))
		}
	} else {
		n := 2 + rng.IntN(5)
		for range n {
			label := pick(rng, v.Labels)
			if rng.IntN(6) == 0 {
				label = pick(rng, genericLabels)
			}
			if rng.IntN(2) == 0 && len(v.Values) > 0 {
				vals := v.Values
				if len(v.Choices) > 0 && rng.IntN(2) == 0 {
					vals = v.Choices
				}
				f.Fields = append(f.Fields, genSelect(rng, label, vals))
			} else {
				fd := page.Field{Tag: "input", Type: "text", Name: fieldName(label), Label: label}
				if rng.IntN(3) == 0 {
					fd.Placeholder = "e.g. " + pick(rng, v.Values)
				}
				f.Fields = append(f.Fields, fd)
			}
			words = append(words, label)
		}
		if rng.IntN(3) == 0 {
			f.Method = "POST"
		}
	}
	if c := pick(rng, captions); c != "" {
		f.Submits = []string{c}
		words = append(words, c)
	}
	f.Text = strings.Join(words, " ")
	var ctx []string
	ctx = append(ctx, pick(rng, siteText), pick(rng, siteText))
	for range 1 + rng.IntN(3) {
		ctx = append(ctx, pick(rng, v.Phrases))
	}
	if len(v.Context) > 0 && rng.IntN(2) == 0 {
		ctx = append(ctx, pick(rng, v.Context))
	}
	for range rng.IntN(4) {
		ctx = append(ctx, pick(rng, v.Values))
	}
	rng.Shuffle(len(ctx), func(i, j int) { ctx[i], ctx[j] = ctx[j], ctx[i] })
	f.Context = strings.Join(ctx, ". ")
	return f
}

func genSelect(rng *rand.Rand, label string, values []string) page.Field {
	fd := page.Field{Tag: "select", Name: fieldName(label), Label: label}
	fd.Options = append(fd.Options, page.Option{Value: "", Text: "Any " + strings.ToLower(label), Selected: true})
	for range 3 + rng.IntN(6) {
		val := pick(rng, values)
		fd.Options = append(fd.Options, page.Option{Value: fieldName(val), Text: val})
	}
	return fd
}

// DefaultMaxOut is the share of out-of-domain search forms the level
// thresholds may mark relevant on the labelled data they are calibrated on
// (the target is at most 10 % on real pages; 8 % leaves a margin for pages
// not seen).
const DefaultMaxOut = 0.08
