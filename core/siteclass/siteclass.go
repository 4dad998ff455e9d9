package siteclass

import (
	"crypto/sha256"
	_ "embed"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/dwcrawl/dwcrawl/core/learn"
	"github.com/dwcrawl/dwcrawl/core/text"
)

// Class labels of the underlying Naive Bayes model.
const (
	Relevant   = "relevant"
	Background = "background"
)

// ModelKind names the model-file kind of a [Classifier].
const ModelKind = "siteclass"

//go:embed background.txt
var backgroundFile string

// backgroundTerms are the Terms of each bundled document, one line each,
// after a header naming the SHA-256 of background.txt they were computed
// from: stemming them took a good part of every start-up. Rebuild with
// `go generate ./core/siteclass/` after changing background.txt or Terms
// (TestBundledBackgroundTerms fails until then).
//
//go:generate go run gen_terms.go
//go:embed background.terms
var backgroundTerms string

// Doc is one off-topic background document.
type Doc struct {
	Topic string
	Text  string
	terms []string // Terms(Text), when precomputed
}

// BundledBackground returns the embedded off-topic documents.
func BundledBackground() []Doc {
	var out []Doc
	for _, line := range strings.Split(backgroundFile, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		topic, txt, ok := strings.Cut(line, "\t")
		if !ok {
			continue
		}
		out = append(out, Doc{Topic: topic, Text: txt})
	}
	head, body, _ := strings.Cut(backgroundTerms, "\n")
	lines := strings.Split(strings.TrimSuffix(body, "\n"), "\n")
	if head != backgroundTermsHeader() || len(lines) != len(out) {
		return out // stale: Train computes the terms
	}
	for i := range out {
		out[i].terms = strings.Fields(lines[i])
	}
	return out
}

// backgroundTermsHeader is the first line of background.terms for the
// embedded background.txt.
func backgroundTermsHeader() string {
	return fmt.Sprintf("# siteclass.Terms of background.txt sha256 %x", sha256.Sum256([]byte(backgroundFile)))
}

// docTerms returns d's terms, precomputed or not.
func docTerms(d Doc) []string {
	if d.terms != nil {
		return d.terms
	}
	return Terms(d.Text)
}

// boilerplate are words every homepage carries whatever its topic; they
// would otherwise look like evidence for the positive class, which is
// learnt from homepages while the background is not.
var boilerplate = func() map[string]bool {
	m := make(map[string]bool)
	for _, w := range strings.Fields(`home homepage page site website web about contact contacts
	privacy policy terms conditions condition copyright rights reserved login logon log sign signin
	signup register registration account password subscribe newsletter follow facebook twitter
	instagram youtube linkedin pinterest search menu news blog help faq faqs careers sitemap cookie
	cookies welcome click here online free new email mail phone call tel fax address skip content
	main navigation nav toggle close open share like view more read next previous prev back top
	inc ltd llc com net org co`) {
		m[text.Stem(w)] = true
	}
	return m
}()

// Terms returns the features of a homepage: stemmed, stop-word-free terms
// without web boilerplate.
func Terms(s string) []string {
	ts := text.Terms(s)
	out := ts[:0]
	for _, t := range ts {
		if !boilerplate[t] {
			out = append(out, t)
		}
	}
	return out
}

// Options tune [Train].
type Options struct {
	Alpha      float64 // Laplace smoothing (default 1)
	Features   int     // terms kept per class by document frequency (default 300)
	Threshold  float64 // P(relevant) above which a site is relevant (default 0.5)
	Background []Doc   // off-topic documents; nil means [BundledBackground]
	// KeywordWeight repeats the keyword document this many times (default 3),
	// since a profile's keywords are few but central.
	KeywordWeight int
}

func (o *Options) defaults() {
	if o.Alpha <= 0 {
		o.Alpha = 1
	}
	if o.Features <= 0 {
		o.Features = 300
	}
	if o.Threshold <= 0 {
		o.Threshold = 0.5
	}
	if o.Background == nil {
		o.Background = BundledBackground()
	}
	if o.KeywordWeight <= 0 {
		o.KeywordWeight = 3
	}
}

// Classifier decides whether a site's homepage is on topic.
type Classifier struct {
	Topic     string   `json:"topic"`
	Threshold float64  `json:"threshold"`
	Features  []string `json:"features"`   // selected terms (sorted)
	PosWeight float64  `json:"pos_weight"` // weight of a relevant document (class term-mass balance)
	// KeywordMass is the filtered term count of one keyword document: a
	// relevant homepage learned online weighs as much as one (see Learn).
	KeywordMass int       `json:"keyword_mass,omitempty"`
	NB          *learn.NB `json:"nb"`
	// Sources says what the classifier was trained from.
	Sources Sources         `json:"sources"`
	feats   map[string]bool // set of Features, web boilerplate left out (Terms drops it)
}

// Sources counts what a classifier was trained from.
type Sources struct {
	Keywords   int `json:"keywords"`   // topic keywords (phrases)
	Homepages  int `json:"homepages"`  // positive pages with at least one term
	Background int `json:"background"` // off-topic documents kept
	// Left are the background documents left out for mentioning the topic.
	Left int `json:"background_left_out"`
	// Learned counts the homepages learned during a crawl ([Classifier.Learn]).
	Learned int `json:"learned,omitempty"`
}

// String renders the sources in one line for people.
func (s Sources) String() string {
	out := fmt.Sprintf("%d keywords, %d homepages, %d background documents (%d left out for mentioning the topic)",
		s.Keywords, s.Homepages, s.Background, s.Left)
	if s.Learned > 0 {
		out += fmt.Sprintf(", %d homepages learned", s.Learned)
	}
	return out
}

// Train builds a classifier for topic from positive homepage texts and
// keywords (either may be empty, not both) against the background.
func Train(topic string, homepages, keywords []string, opt Options) (*Classifier, error) {
	opt.defaults()
	var pos [][]string
	var src Sources
	for _, h := range homepages {
		if ts := Terms(h); len(ts) > 0 {
			pos = append(pos, ts)
			src.Homepages++
		}
	}
	src.Keywords = len(keywords)
	kwTerms := make(map[string]bool)
	for _, k := range keywords {
		ts := Terms(k)
		for _, t := range ts {
			kwTerms[t] = true
		}
		if len(ts) > 0 {
			pos = append(pos, ts)
		}
	}
	if len(kwTerms) > 0 {
		var all []string
		for _, k := range keywords {
			all = append(all, Terms(k)...)
		}
		for range opt.KeywordWeight {
			pos = append(pos, all)
		}
	}
	if len(pos) == 0 {
		return nil, fmt.Errorf("train site classifier %q: no positive text or keywords", topic)
	}
	var neg [][]string
	for _, d := range opt.Background {
		ts := docTerms(d)
		if mentions(ts, kwTerms) {
			src.Left++
			continue
		}
		neg = append(neg, ts)
	}
	src.Background = len(neg)
	if len(neg) == 0 {
		return nil, fmt.Errorf("train site classifier %q: empty background", topic)
	}
	feats := make(map[string]bool)
	for _, t := range learn.SelectDF(pos, opt.Features) {
		feats[t] = true
	}
	for _, t := range learn.SelectDF(neg, opt.Features) {
		feats[t] = true
	}
	c := &Classifier{Topic: topic, Threshold: opt.Threshold, NB: learn.NewNB([]string{Background, Relevant}, opt.Alpha), Sources: src, feats: feats}
	c.NB.Uniform = true
	for t := range feats {
		c.Features = append(c.Features, t)
	}
	sort.Strings(c.Features)
	// Give both classes the same term mass: a few positive pages against
	// hundreds of background documents would otherwise make every term the
	// positive class never saw look like evidence for it (its smoothed
	// P(t|c) has a much smaller denominator).
	pos = c.filterAll(pos)
	neg = c.filterAll(neg)
	if len(kwTerms) > 0 {
		c.KeywordMass = len(pos[len(pos)-1])
	}
	w := float64(termCount(neg)) / float64(max(termCount(pos), 1))
	c.PosWeight = w
	for _, d := range pos {
		if err := c.NB.AddWeighted(d, Relevant, w); err != nil {
			return nil, err
		}
	}
	for _, d := range neg {
		if err := c.NB.Add(d, Background); err != nil {
			return nil, err
		}
	}
	c.NB.Freeze()
	return c, nil
}

func termCount(docs [][]string) int {
	n := 0
	for _, d := range docs {
		n += len(d)
	}
	return n
}

func (c *Classifier) filterAll(docs [][]string) [][]string {
	out := make([][]string, len(docs))
	for i, d := range docs {
		out[i] = c.filter(d)
	}
	return out
}

func mentions(ts []string, kw map[string]bool) bool {
	for _, t := range ts {
		if kw[t] {
			return true
		}
	}
	return false
}

// filter returns the selected features among ts, leaving ts as it is.
func (c *Classifier) filter(ts []string) []string { return c.keep(slices.Clone(ts)) }

// keep is filter in place, for terms the caller owns (a fresh Terms).
func (c *Classifier) keep(ts []string) []string {
	out := ts[:0]
	for _, t := range ts {
		if c.feats[t] {
			out = append(out, t)
		}
	}
	return out
}

// Prob returns P(relevant | homepage text). A page with none of the
// selected terms scores 0.5 (no evidence).
func (c *Classifier) Prob(homepage string) float64 {
	// the terms are read one by one, the features kept as met: a
	// homepage's few hundred terms are not collected to keep a dozen
	return c.NB.ProbOf(func(yield func(string) bool) {
		for t := range text.AllTerms(homepage) {
			if c.feats[t] && !yield(t) {
				return
			}
		}
	}, Relevant)
}

// Relevant reports whether the homepage is on topic, with its probability.
func (c *Classifier) Relevant(homepage string) (bool, float64) {
	p := c.Prob(homepage)
	return p > c.Threshold, p
}

// Learn adds one more labelled homepage (online learning during a crawl,
// e.g. the homepages of the deep sites found). Only already-selected terms
// are counted. A relevant homepage weighs as much as one keyword document,
// so a crawl learns the vocabulary of the sites it finds (a travel portal's
// flights and car words for a hotel crawl) without its homepages' filler
// words outweighing the profile. Learn must not run concurrently with Prob
// or Relevant (the crawler serialises updates).
func (c *Classifier) Learn(homepage string, relevant bool) {
	ts := c.keep(Terms(homepage))
	if len(ts) == 0 {
		return
	}
	label, w := Background, 1.0
	if relevant {
		mass := c.KeywordMass
		if mass <= 0 {
			mass = len(ts)
		}
		label, w = Relevant, c.PosWeight*float64(mass)/float64(len(ts))
	}
	if w <= 0 {
		w = 1
	}
	_ = c.NB.AddWeighted(ts, label, w) // both labels exist
	c.NB.Freeze()
	c.Sources.Learned++
}

// Marshal encodes the classifier as a versioned model file.
func (c *Classifier) Marshal() ([]byte, error) {
	return learn.Marshal(ModelKind, map[string]string{"topic": c.Topic}, c)
}

// Unmarshal decodes a classifier written by [Classifier.Marshal].
func Unmarshal(b []byte) (*Classifier, error) {
	var c Classifier
	if _, err := learn.Unmarshal(b, ModelKind, &c); err != nil {
		return nil, err
	}
	if c.NB == nil {
		return nil, fmt.Errorf("site classifier: model has no Naive Bayes part")
	}
	c.feats = make(map[string]bool, len(c.Features))
	for _, t := range c.Features {
		if !boilerplate[t] {
			c.feats[t] = true
		}
	}
	c.NB.Freeze()
	return &c, nil
}
