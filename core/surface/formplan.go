package surface

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"net/url"
	"sort"
	"strings"
	"sync"
	"unicode"

	"github.com/dwcrawl/dwcrawl/core/page"
	"github.com/dwcrawl/dwcrawl/core/text"
)

// FormPlanOptions configure a FormPolicy.
type FormPlanOptions struct {
	// Seeds are the first keyword queries, in order (the profile's
	// keywords); the form's own option texts and the most frequent words of
	// its page follow. They are issued until one returns records; then the
	// inner policy takes over.
	Seeds []string
	// Budget is the harvest's query budget (0: none): the form's analysis
	// and the queries that bind its other inputs take at most half of it.
	Budget int
	// TestValues is the number of values of an input submitted to test
	// whether it is informative (default 5).
	TestValues int
	// MaxValues bounds the values of one template enumerated (default 100).
	MaxValues int
}

// FormPolicy is the query policy of a multi-field HTML form. It follows
// Madhavan et al., "Google's Deep-Web Crawl" (VLDB 2008, §3–4) for the
// form's other inputs and Ntoulas et al. for its query box:
//
//   - the first queries are seed keywords with every other input at its
//     default, until one returns records (the record template is learned
//     from it);
//   - the empty query tells whether the query box is required: a form that
//     answers it with an error or no record needs a keyword (an input is
//     required when the page without it shows no record while pages with
//     it do);
//   - each select and radio group is tested alone (a template of one bound
//     input): a few of its values are submitted and the input is
//     informative when the result pages differ (distinct record sets ≥ 25%
//     of the submissions, the paper's distinctness threshold). An input
//     tested with the box empty that returns nothing is tested again with a
//     productive keyword;
//   - the values of every informative input are enumerated; when some of
//     those queries hit the site's result limit, templates of two
//     informative inputs are tested and enumerated the same way
//     (incremental, as the paper's ISIT);
//   - then the inner policy (adaptive) chooses the keywords.
//
// The decisions are rebuilt from the observed queries, so a resumed harvest
// continues where it stopped.
type FormPolicy struct {
	inner Policy
	s     *FormSearcher
	opt   FormPlanOptions

	mu       sync.Mutex
	inputs   []*formInput
	seeds    []string
	observed map[string]observedQuery
	proposed map[string]bool
	turn     int // keyword queries given a required input's value
	kwTurn   int // keyword queries routed to the informative text boxes
}

// observedQuery is what the policy learned from one answered query.
type observedQuery struct {
	keyword string
	bind    url.Values
	n       int
	sig     string
	limited bool
}

// formInput is a select, radio group or text box (other than the query
// box) of the form and what the tests found.
type formInput struct {
	name   string
	kind   string // "select", "radio" or "text"
	values []string
	// keyword is the keyword its bindings carry ("" while the box may stay
	// empty with it bound).
	keyword     string
	retested    bool
	informative bool
	decided     bool
	// required names another input found required, bound to
	// requiredValue in this input's tests
	required, requiredValue string
}

// InputReport describes what the analysis found about one input.
type InputReport struct {
	Name        string `json:"name"`
	Kind        string `json:"kind"`
	Values      int    `json:"values"`
	Tested      int    `json:"tested"`
	Distinct    int    `json:"distinct"`
	Informative bool   `json:"informative"`
	Decided     bool   `json:"decided"`
	// Required: every query that left the input at its default listed no
	// record while queries that set it did.
	Required bool `json:"required,omitempty"`
	// Keyword is the keyword its bindings carried ("" for none).
	Keyword string `json:"keyword,omitempty"`
}

// FormReport describes the analysis of a form.
type FormReport struct {
	// Box is the query box; BoxRequired tells whether it must be filled
	// (every query that left it empty listed no record; nil before the
	// empty query was asked).
	Box         string        `json:"box"`
	BoxRequired *bool         `json:"box_required,omitempty"`
	Inputs      []InputReport `json:"inputs,omitempty"`
	// Templates are the informative templates (input names joined by "+").
	Templates []string `json:"templates,omitempty"`
	// BindingQueries counts the queries that bound inputs other than the
	// box (tests and enumeration).
	BindingQueries int `json:"binding_queries"`
}

// NewFormPolicy returns the policy of s's form, handing the keywords to
// inner.
func NewFormPolicy(s *FormSearcher, inner Policy, opt FormPlanOptions) *FormPolicy {
	if opt.TestValues <= 0 {
		opt.TestValues = 5
	}
	if opt.MaxValues <= 0 {
		opt.MaxValues = 100
	}
	p := &FormPolicy{inner: inner, s: s, opt: opt, observed: map[string]observedQuery{}, proposed: map[string]bool{}}
	p.inputs = formInputs(s.Form(), s.Box())
	return p
}

// formInputs are the selects and radio groups of f (other than the box)
// with at least two values besides the default.
func formInputs(f *page.Form, box int) []*formInput {
	var out []*formInput
	radios := map[string]*formInput{}
	size, _ := PageSizeControl(f)
	for i, fl := range f.Fields {
		if i == box || i == size || fl.Name == "" || fl.Disabled {
			continue // the page size is set to its largest, not tested
		}
		switch {
		case fl.TextBox():
			// another text box: its test values are words of the
			// downloaded records (textValues), its values afterwards the
			// inner policy's keywords
			out = append(out, &formInput{name: fl.Name, kind: "text"})
		case fl.Tag == "select" && fl.Type != "select-multiple":
			def := selectDefault(fl)
			in := &formInput{name: fl.Name, kind: "select"}
			for _, o := range fl.Options {
				if o.Value != def && !contains(in.values, o.Value) {
					in.values = append(in.values, o.Value)
				}
			}
			if len(in.values) >= 1 && len(fl.Options) >= 2 {
				out = append(out, in)
			}
		case fl.Type == "radio":
			in := radios[fl.Name]
			if in == nil {
				in = &formInput{name: fl.Name, kind: "radio"}
				radios[fl.Name] = in
				out = append(out, in)
			}
			if !fl.Checked && !contains(in.values, fl.Value) {
				in.values = append(in.values, fl.Value)
			}
		}
	}
	keep := out[:0]
	for _, in := range out {
		if len(in.values) >= 1 || in.kind == "text" {
			keep = append(keep, in)
		}
	}
	return keep
}

func selectDefault(fl page.Field) string {
	for _, o := range fl.Options {
		if o.Selected {
			return o.Value
		}
	}
	if len(fl.Options) > 0 {
		return fl.Options[0].Value
	}
	return ""
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// Name is "form+" and the inner policy's name.
func (p *FormPolicy) Name() string { return "form+" + p.inner.Name() }

// Observe records the answer of a query and hands it to the inner policy.
func (p *FormPolicy) Observe(st *State, q QueryLog, fresh []Doc) {
	kw, bind, _ := ParseFormQuery(q.Query)
	p.mu.Lock()
	p.proposed[q.Query] = true
	p.observed[q.Query] = observedQuery{keyword: kw, bind: bind, n: q.Returned, sig: keySignature(st.LastResults()), limited: q.Limited}
	p.mu.Unlock()
	if ob, ok := p.inner.(Observer); ok {
		ob.Observe(st, q, fresh)
	}
}

func keySignature(keys []string) string {
	if len(keys) == 0 {
		return ""
	}
	ks := append([]string(nil), keys...)
	sort.Strings(ks)
	h := sha1.New()
	for _, k := range ks {
		h.Write([]byte(k))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// Next proposes the next query: a seed, the empty query, an input test, an
// enumeration, or the inner policy's keyword.
func (p *FormPolicy) Next(ctx context.Context, st *State) (Proposal, error) {
	if p.seeds == nil {
		seeds := p.seedList(ctx)
		p.mu.Lock()
		p.seeds = seeds
		p.mu.Unlock()
	}
	p.mu.Lock()
	q, ok := p.next(st)
	if ok {
		p.proposed[q] = true
	}
	p.mu.Unlock()
	if ok {
		return Proposal{Query: q, Analysis: true}, nil
	}
	for i := 0; i < 1000; i++ {
		prop, err := p.inner.Next(ctx, st)
		if err != nil {
			return prop, err
		}
		p.mu.Lock()
		kw, bind := prop.Query, url.Values{}
		if targets := p.textTargets(); len(targets) > 0 {
			// the keywords go to the informative text boxes in turn
			// (the query box among them when it is informative)
			if t := targets[p.kwTurn%len(targets)]; t != "" {
				// "smith [author=smith&q=]": the keyword stays the
				// query's terms (the statistics, the estimates) while
				// the submission types it into the text box only
				bind.Set(t, kw)
				bind.Set(p.boxName(), "")
			}
			p.kwTurn++
		}
		if in := p.requiredInput(); in != nil && len(in.values) > 0 && in.kind != "text" {
			// a keyword alone lists nothing: bind the required input,
			// its values in turn
			p.turn++
			bind.Set(in.name, in.values[p.turn%len(in.values)])
		}
		prop.Query = FormQuery(kw, bind)
		dup := p.proposed[prop.Query]
		p.proposed[prop.Query] = true
		p.mu.Unlock()
		if !dup {
			return prop, nil
		}
	}
	return Proposal{}, ErrExhausted
}

// next is the policy's own next query (ok false: hand over to inner).
func (p *FormPolicy) next(st *State) (string, bool) {
	if st.Docs() == 0 {
		for _, s := range p.seeds {
			if !p.proposed[s] && !st.Issued(s) {
				return s, true
			}
		}
	}
	if len(st.Log()) == 0 {
		return "", false
	}
	if !p.proposed[""] {
		return "", true
	}
	// Every keyword the user gave is asked, not only the first that finds
	// records: each may open a part of the database (a category) that
	// the words of the records found first never lead to. A quarter of
	// the budget at most.
	if p.opt.Budget <= 0 || 4*len(st.Log()) < p.opt.Budget {
		for _, s := range p.opt.Seeds {
			s = strings.ToLower(strings.TrimSpace(s))
			if s != "" && !p.proposed[s] && !st.Issued(s) {
				return s, true
			}
		}
	}
	if p.opt.Budget > 0 && 2*p.bindings() >= p.opt.Budget {
		return "", false
	}
	for _, in := range p.inputs {
		if q, ok := p.test(in, st); ok {
			return q, true
		}
	}
	for _, in := range p.inputs {
		if !in.informative || in.kind == "text" {
			continue
		}
		for i, v := range in.values {
			if i >= p.opt.MaxValues {
				break
			}
			q := p.enumQuery(in, i, v)
			if !p.proposed[q] {
				return q, true
			}
		}
	}
	if q, ok := p.pairs(); ok {
		return q, true
	}
	return "", false
}

// enumQuery is the query that enumerates value v (the i-th) of an
// informative input: its test query for a tested value; else the input
// bound, with an input found required set to its values in turn.
func (p *FormPolicy) enumQuery(in *formInput, i int, v string) string {
	for _, t := range sampleValues(in.values, p.opt.TestValues) {
		if t == v {
			return p.testQuery(in, v)
		}
	}
	bind := url.Values{in.name: {v}}
	if r := p.requiredInput(); r != nil && r != in && len(r.values) > 0 {
		bind.Set(r.name, r.values[i%len(r.values)])
	}
	return FormQuery(in.keyword, bind)
}

// bindings counts the queries proposed that bind inputs other than the
// box (resumed ones included: they were observed), keyword queries routed
// to a text box apart.
func (p *FormPolicy) bindings() int {
	n := 0
	box := p.boxName()
	for q := range p.proposed {
		if strings.HasSuffix(q, "]") {
			if _, b, err := ParseFormQuery(q); err == nil && b.Has(box) && b.Get(box) == "" {
				continue
			}
			n++
		}
	}
	return n
}

// boxName is the name of the query box.
func (p *FormPolicy) boxName() string { return p.s.Form().Fields[p.s.Box()].Name }

// testQuery is the query that tests value v of an input: the input bound,
// with its keyword, and an input found required bound to its first value.
func (p *FormPolicy) testQuery(in *formInput, v string) string {
	bind := url.Values{in.name: {v}}
	if in.required != "" {
		bind.Set(in.required, in.requiredValue)
	}
	return FormQuery(in.keyword, bind)
}

// test proposes the next test query of an input, or decides it once its
// tests are answered.
func (p *FormPolicy) test(in *formInput, st *State) (string, bool) {
	if in.decided {
		return "", false
	}
	if in.required == "" && !in.retested {
		if r := p.requiredInput(); r != nil && r != in && len(r.values) > 0 {
			// another input must be set for any record to show
			in.required, in.requiredValue = r.name, r.values[0]
		}
	}
	if in.kind == "text" && len(in.values) == 0 {
		in.values = textValues(st, p.opt.TestValues)
		if len(in.values) == 0 {
			return "", false // no record yet to take words from
		}
	}
	sample := sampleValues(in.values, p.opt.TestValues)
	for _, v := range sample {
		q := p.testQuery(in, v)
		if !p.proposed[q] {
			return q, true
		}
	}
	distinct, empty := p.distinct(in, sample)
	if empty == len(sample) && in.keyword == "" && !in.retested {
		// nothing with the box empty: try again with a keyword that works
		if kw := p.productiveKeyword(); kw != "" {
			in.keyword, in.retested = kw, true
			return p.test(in, st)
		}
	}
	in.decided = true
	in.informative = len(sample) >= 2 && distinct >= 2 && float64(distinct) >= 0.25*float64(len(sample)) ||
		len(sample) == 1 && distinct == 1 && !p.sameAsDefault(in, sample[0])
	return "", false
}

// textValues are the test values of a text box: frequent words of the
// first records downloaded (words the database holds, so that a box
// that searches them answers; Madhavan et al. §4 seed a text box from the
// site's own words the same way).
func textValues(st *State, n int) []string {
	var b strings.Builder
	for i := 0; i < st.Docs() && i < 100; i++ {
		b.WriteString(st.Doc(i).Content())
		b.WriteByte(' ')
	}
	// spread over the ranks of the first 10·n words: the commonest words
	// of the records may all belong to another field (titles), while the
	// box may search one whose words are rarer (names)
	return sampleValues(topWords(b.String(), 10*n), n)
}

// boxInformative reports whether the query box changes the answer: the
// keyword queries without bindings that listed records gave distinct
// record sets for at least a quarter of them (the threshold of the
// inputs' tests). Fewer than two such queries: assumed informative.
func (p *FormPolicy) boxInformative() bool {
	sigs, n := map[string]bool{}, 0
	for q, o := range p.observed {
		if q == "" || o.keyword == "" || len(o.bind) > 0 || o.n == 0 {
			continue
		}
		sigs[o.sig] = true
		n++
	}
	return n < 2 || len(sigs) >= 2 && float64(len(sigs)) >= 0.25*float64(n)
}

// textTargets are the text boxes the inner policy's keywords go to, in
// turn: "" for the query box when it is informative, and the informative
// text boxes; none when no other text box is informative (then the query
// box takes every keyword).
func (p *FormPolicy) textTargets() []string {
	var t []string
	for _, in := range p.inputs {
		if in.kind == "text" && in.informative {
			t = append(t, in.name)
		}
	}
	if len(t) == 0 {
		return nil
	}
	if p.boxInformative() {
		t = append([]string{""}, t...)
	}
	return t
}

// distinct counts the distinct non-empty answers of an input's tests and
// the empty ones.
func (p *FormPolicy) distinct(in *formInput, sample []string) (distinct, empty int) {
	sigs := map[string]bool{}
	for _, v := range sample {
		o := p.observed[p.testQuery(in, v)]
		if o.n == 0 {
			empty++
			continue
		}
		sigs[o.sig] = true
	}
	return len(sigs), empty
}

// sameAsDefault reports whether binding the input to v answered as the
// query without it did.
func (p *FormPolicy) sameAsDefault(in *formInput, v string) bool {
	a := p.observed[p.testQuery(in, v)]
	def := url.Values{}
	if in.required != "" {
		def.Set(in.required, in.requiredValue)
	}
	b, ok := p.observed[FormQuery(in.keyword, def)]
	return ok && a.sig == b.sig
}

// productiveKeyword is the seed or keyword query that returned the most
// records.
func (p *FormPolicy) productiveKeyword() string {
	best, bn := "", 0
	for q, o := range p.observed {
		if strings.HasSuffix(q, "]") || q == "" {
			continue
		}
		if o.n > bn || (o.n == bn && q < best) {
			best, bn = q, o.n
		}
	}
	return best
}

// pairs proposes the tests and the enumeration of templates of two
// informative inputs, once an enumerated value of one hit the result limit.
func (p *FormPolicy) pairs() (string, bool) {
	var inf []*formInput
	for _, in := range p.inputs {
		if in.informative && in.kind != "text" {
			inf = append(inf, in)
		}
	}
	for i, a := range inf {
		var limited []string
		for i, v := range a.values {
			if o, ok := p.observed[p.enumQuery(a, i, v)]; ok && o.limited {
				limited = append(limited, v)
			}
		}
		if len(limited) == 0 {
			continue
		}
		for _, b := range inf[i+1:] {
			kw := a.keyword
			if kw == "" {
				kw = b.keyword
			}
			for _, va := range limited {
				for j, vb := range b.values {
					if j >= p.opt.MaxValues {
						break
					}
					q := FormQuery(kw, url.Values{a.name: {va}, b.name: {vb}})
					if !p.proposed[q] {
						return q, true
					}
				}
			}
		}
	}
	return "", false
}

// sampleValues picks n values spread over vs (all when fewer).
func sampleValues(vs []string, n int) []string {
	if len(vs) <= n {
		return vs
	}
	out := make([]string, 0, n)
	for i := 0; i < n; i++ {
		out = append(out, vs[i*len(vs)/n])
	}
	return out
}

// seedList is the seeds, the most frequent words of the form's page and
// the texts of its options that are not numbers.
func (p *FormPolicy) seedList(ctx context.Context) []string {
	seen := map[string]bool{}
	var out []string
	add := func(s string) {
		s = strings.ToLower(strings.TrimSpace(s))
		if s == "" || seen[s] || len(s) > 60 {
			return
		}
		seen[s] = true
		out = append(out, s)
	}
	for _, s := range p.opt.Seeds {
		add(s)
	}
	// the page's words before the options' texts: a page says what its
	// records are about, while an option is often a number (a year, a
	// price) that a keyword box matches in no record's text
	// a few of each: while nothing is found, the inner policy's frequent
	// generic words follow them
	for _, w := range topWords(p.s.PageText(ctx), 3) {
		add(w)
	}
	opts := 0
	f := p.s.Form()
	for i, fl := range f.Fields {
		if i == p.s.Box() || fl.Tag != "select" {
			continue
		}
		def := selectDefault(fl)
		for _, o := range fl.Options {
			if o.Value != def && o.Text != "" && !text.IsStop(strings.ToLower(o.Text)) && !numeric(o.Text) && opts < 3 {
				add(o.Text)
				opts++
			}
		}
	}
	return out
}

// topWords are the n most frequent words of s (three letters or more, no
// stop words, no numbers).
func topWords(s string, n int) []string {
	cnt := map[string]int{}
	for _, t := range text.Tokenize(s) {
		if len([]rune(t)) < 3 || text.IsStop(t) || strings.IndexFunc(t, func(r rune) bool { return r < '0' || r > '9' }) < 0 {
			continue
		}
		cnt[t]++
	}
	ws := make([]string, 0, len(cnt))
	for w := range cnt {
		ws = append(ws, w)
	}
	sort.Slice(ws, func(i, j int) bool {
		if cnt[ws[i]] != cnt[ws[j]] {
			return cnt[ws[i]] > cnt[ws[j]]
		}
		return ws[i] < ws[j]
	})
	if len(ws) > n {
		ws = ws[:n]
	}
	return ws
}

// required reports whether an input ("" for the query box) is required:
// every answered query that left it at its default listed no record, while
// some query that set it did.
func (p *FormPolicy) required(name string) bool {
	without, with := 0, false
	for _, o := range p.observed {
		set := o.keyword != ""
		if name != "" {
			_, set = o.bind[name]
		}
		if set {
			with = with || o.n > 0
			continue
		}
		if o.n > 0 {
			return false
		}
		without++
	}
	return without > 0 && with
}

// requiredInput is the first input found required, nil when none is.
func (p *FormPolicy) requiredInput() *formInput {
	for _, in := range p.inputs {
		if in.decided && p.required(in.name) {
			return in
		}
	}
	return nil
}

// Report describes what the analysis found so far.
func (p *FormPolicy) Report() FormReport {
	p.mu.Lock()
	defer p.mu.Unlock()
	f := p.s.Form()
	r := FormReport{Box: f.Fields[p.s.Box()].Name, BindingQueries: p.bindings()}
	if _, ok := p.observed[""]; ok {
		req := p.required("")
		r.BoxRequired = &req
	}
	for _, in := range p.inputs {
		sample := sampleValues(in.values, p.opt.TestValues)
		d, _ := p.distinct(in, sample)
		ir := InputReport{Name: in.name, Kind: in.kind, Values: len(in.values), Tested: len(sample), Distinct: d,
			Informative: in.informative, Decided: in.decided, Keyword: in.keyword, Required: p.required(in.name)}
		r.Inputs = append(r.Inputs, ir)
		if in.informative {
			r.Templates = append(r.Templates, in.name)
		}
	}
	return r
}

// numeric reports whether s holds no letter (a year, a price, a range).
func numeric(s string) bool {
	return strings.IndexFunc(s, unicode.IsLetter) < 0
}
