package probe

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/dwcrawl/dwcrawl/core/fetch"
	"github.com/dwcrawl/dwcrawl/core/form"
	"github.com/dwcrawl/dwcrawl/core/page"
	"github.com/dwcrawl/dwcrawl/core/records"
	"github.com/dwcrawl/dwcrawl/core/text"
	"github.com/dwcrawl/dwcrawl/store"
)

// Fetcher submits forms politely: GET through Fetch, POST through Post
// (fetch.Fetcher implements both, with robots.txt, per-host politeness,
// retries and the address policy).
type Fetcher interface {
	Fetch(ctx context.Context, url string) (*fetch.Response, error)
	Post(ctx context.Context, url string, values url.Values) (*fetch.Response, error)
}

// Topic judges whether a text is about the crawl's topic (the crawl's
// site classifier, siteclass.Classifier, implements it). It is an alias so
// that the crawl can declare the same interface without naming this
// package.
type Topic = interface {
	Relevant(text string) (bool, float64)
}

// ErrNotSearchable is returned for a form that was not classified
// searchable: it is never submitted.
var ErrNotSearchable = errors.New("probe: only forms classified searchable are submitted")

// Options configure a Prober.
type Options struct {
	// Queries is the number of probe queries per form, the nonsense term
	// included (at least 2).
	Queries int
	// Terms are the topic terms (the profile's keywords), tried in order;
	// without them (a second probe) only Learned's words are asked.
	Terms []string
	// MinOnTopic is the topic probability from which listed records are
	// about the topic (default 0.5).
	MinOnTopic float64
	// Learned, when set, returns words that records of the topic hold
	// (a harvest's most common words of the records it downloaded): they
	// are asked first when none of Terms finds records.
	Learned func() []string
}

// Prober submits probe queries to searchable forms and decides what each
// fronts. It is safe for concurrent use.
type Prober struct {
	f   Fetcher
	opt Options
}

// New returns a prober that submits through f.
func New(f Fetcher, opt Options) (*Prober, error) {
	if f == nil {
		return nil, errors.New("probe: no fetcher")
	}
	if opt.Queries < 2 {
		return nil, fmt.Errorf("probe: %d queries per form: want at least 2 (a topic term and a nonsense term)", opt.Queries)
	}
	var terms []string
	for _, t := range opt.Terms {
		if t = strings.TrimSpace(t); t != "" {
			terms = append(terms, t)
		}
	}
	if len(terms) == 0 && opt.Learned == nil {
		return nil, errors.New("probe: no topic terms")
	}
	opt.Terms = terms
	if opt.MinOnTopic <= 0 {
		opt.MinOnTopic = 0.5
	}
	return &Prober{f: f, opt: opt}, nil
}

// Queries is the number of probe queries per form.
func (p *Prober) Queries() int { return p.opt.Queries }

// Submittable returns ErrNotSearchable (wrapped, with the reason) unless d
// classified f searchable and f asks for nothing a search form never does
// (a password, a file).
func Submittable(f *page.Form, d form.Decision) error {
	if !d.Searchable || d.Kind != form.KindSearch {
		return fmt.Errorf("form %d (%s) is of kind %s: %w", f.Index, f.Action, d.Kind, ErrNotSearchable)
	}
	for _, fl := range f.Fields {
		if fl.Type == "password" || fl.Type == "file" {
			return fmt.Errorf("form %d (%s) has a %s input: %w", f.Index, f.Action, fl.Type, ErrNotSearchable)
		}
	}
	return nil
}

// Probe submits the first Queries−1 topic terms and a nonsense term to f,
// a form that d classified searchable of a page whose visible text is
// pageText, and decides
// what it fronts (store.ProbeTopicDatabase, ProbeSiteSearch or
// ProbeNotDatabase) from how the answers differ. tmpl is the record-like
// regions of the form's page (records.TemplateOf; nil: none): a region of
// an answer that repeats one is the site's furniture, not results. topic
// judges the text of the records a topic term lists (nil: only whether
// records are listed is judged). A form not classified searchable is refused with
// ErrNotSearchable and nothing is sent. The error is otherwise only the
// context's: a probe that fails is recorded with its cause.
func (p *Prober) Probe(ctx context.Context, f *page.Form, d form.Decision, pageText string, tmpl *records.Template, topic Topic) (*store.Probe, error) {
	if err := Submittable(f, d); err != nil {
		return nil, err
	}
	box := page.QueryBox(f.Fields)
	if box < 0 {
		return nil, fmt.Errorf("form %d (%s) has no text box to type a query into: %w", f.Index, f.Action, ErrNotSearchable)
	}
	n := min(p.opt.Queries-1, len(p.opt.Terms))
	qs := []store.ProbeQuery{{Query: Nonsense(f.Action), Kind: "nonsense"}}
	for _, t := range p.opt.Terms[:n] {
		qs = append(qs, store.ProbeQuery{Query: t, Kind: "topic"})
	}
	// The topic terms are asked first and the nonsense term last, read
	// with the record template their answers taught: a page that lists the
	// same offers whatever the query shows them to the nonsense term too,
	// even though none of its records echoes that term.
	var w records.Wrapper
	// the texts of the records the profile's terms list: a term of the
	// topic that finds a corner of another topic's database (papers on car
	// sharing asked "car") is checked against what else those records
	// say; words of the form's own page or options need no such check
	var sample []string
	for i := range qs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		j := (i + 1) % len(qs)
		w = p.ask(ctx, f, box, &qs[j], w, tmpl, topic, &sample)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	decision, evidence := decide(qs, topic != nil, p.opt.MinOnTopic)
	if decision != store.ProbeTopicDatabase && topic != nil && !anyResponds(qs) {
		// The profile's words are the topic's, not necessarily its
		// records' (a database of cars holds makes and models, not "used
		// car"): words the topic's records are known to hold, the form's
		// own options and the words of its page the topic model rates
		// highest are asked too.
		var learned []string
		if p.opt.Learned != nil {
			learned = p.opt.Learned()
		}
		terms := fallbackTerms(learned, pageText, f, box, qs, topic, pageProbes)
		for _, t := range terms {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			q := store.ProbeQuery{Query: t, Kind: "page"}
			w = p.ask(ctx, f, box, &q, w, tmpl, topic, nil)
			qs = append(qs, q)
		}
		if len(terms) > 0 {
			decision, evidence = decide(qs, true, p.opt.MinOnTopic)
			evidence = append(evidence, fmt.Sprintf("none of the profile's terms found records: asked %s (words of the topic's records, the form's options, its page)", quoteAll(terms)))
		}
	}
	if decision == store.ProbeTopicDatabase && topic != nil {
		qs, decision, evidence = p.general(ctx, f, box, qs, w, tmpl, topic, decision, evidence, sample)
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	return &store.Probe{Decision: decision, Evidence: evidence, Queries: qs, At: time.Now()}, nil
}

// pageProbes is the most words of a form's page a probe asks when none of
// the profile's terms found records.
const pageProbes = 2

// anyResponds reports whether a topic term's answer lists records the
// nonsense term's does not.
func anyResponds(qs []store.ProbeQuery) bool {
	var nonsense *store.ProbeQuery
	for i := range qs {
		if qs[i].Kind == "nonsense" {
			nonsense = &qs[i]
		}
	}
	for i := range qs {
		if qs[i].Kind == "topic" && responds(&qs[i], nonsense) {
			return true
		}
	}
	return false
}

// fallbackTerms are up to n words to ask when none of the profile's terms
// found records: first the learned words of the topic's records, then the
// words of the form's options, then the words of its page that the topic
// model rates on the topic (probability above one half, highest first,
// ties in the order seen); never stop words, numbers, words under 3
// letters or words already asked.
func fallbackTerms(learned []string, pageText string, f *page.Form, box int, asked []store.ProbeQuery, topic Topic, n int) []string {
	seen := map[string]bool{}
	for _, q := range asked {
		for _, w := range text.Tokenize(q.Query) {
			seen[w] = true
		}
	}
	type cand struct {
		w    string
		tier int
		p    float64
	}
	var cands []cand
	add := func(s string, tier int, judge bool) {
		for _, w := range text.Tokenize(s) {
			if len(w) < 3 || seen[w] || text.IsStop(w) || strings.Trim(w, "0123456789") == "" {
				continue
			}
			seen[w] = true
			p := 1.0
			if judge {
				if _, p = topic.Relevant(w); p <= 0.5 {
					continue
				}
			}
			cands = append(cands, cand{w, tier, p})
		}
	}
	for _, w := range learned {
		add(w, 0, false)
	}
	// a select's options are values of the database (makes, genres),
	// asked in the order given; the option with no value is a placeholder
	// ("Any make")
	for i, fl := range f.Fields {
		if i == box {
			continue
		}
		for _, o := range fl.Options {
			if o.Value != "" {
				add(o.Text, 1, false)
			}
		}
	}
	add(pageText, 2, true)
	sort.SliceStable(cands, func(a, b int) bool {
		if cands[a].tier != cands[b].tier {
			return cands[a].tier < cands[b].tier
		}
		return cands[a].p > cands[b].p
	})
	var out []string
	for _, c := range cands[:min(n, len(cands))] {
		out = append(out, c.w)
	}
	return out
}

func quoteAll(ws []string) string {
	q := make([]string, len(ws))
	for i, w := range ws {
		q[i] = strconv.Quote(w)
	}
	return strings.Join(q, ", ")
}

// maxGeneralDrop is how much less on the topic a general sample may be
// than the records the topic's terms list: in a database of the topic a
// record is about the topic whether or not it holds those terms, so the
// two agree; a sample far below says the terms found a corner of a
// database of something else.
const maxGeneralDrop = 0.3

// generalVerdict judges a general sample whose share of on-topic records
// is share, against the topic answers' topic probability topic.
func generalVerdict(share, topic, minOnTopic float64) (bool, string) {
	switch {
	case share < minOnTopic:
		return false, fmt.Sprintf("%.0f%% of its records are about the topic (< %.0f%%)", 100*share, 100*minOnTopic)
	case share < topic-maxGeneralDrop:
		return false, fmt.Sprintf("%.0f%% of its records are about the topic, against p=%.2f for the records the topic's terms list", 100*share, topic)
	}
	return true, ""
}

// topicOn is the mean topic probability of the topic answers that list
// records unlike the nonsense term's.
func topicOn(qs []store.ProbeQuery, nonsense store.ProbeQuery) float64 {
	var sum float64
	n := 0
	for _, q := range qs {
		if q.Kind == "topic" && q.Records > 0 && q.Error == "" && (nonsense.Error != "" || q.Signature != nonsense.Signature) {
			sum += q.OnTopic
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

// generalQueries sample what a database holds whatever the topic: the
// empty query (many searches list everything, the site's own listing)
// and, when that lists nothing, the commonest English word (replaced by a
// word of the records the topic's terms listed, sampleWord, when there is
// one).
var generalQueries = []string{"", "the"}

// sampleWord is the word most of the texts hold (in the most texts, ties
// alphabetical) that is none of the words asked or of the topic's terms,
// no stop word, number or word under 4 letters; "" when no word is in two
// texts.
func sampleWord(texts []string, asked []store.ProbeQuery, terms []string) string {
	skip := map[string]bool{}
	for _, q := range asked {
		for _, w := range text.Tokenize(q.Query) {
			skip[w] = true
		}
	}
	for _, t := range terms {
		for _, w := range text.Tokenize(t) {
			skip[w] = true
		}
	}
	df := map[string]int{}
	for _, s := range texts {
		seen := map[string]bool{}
		for _, w := range text.Tokenize(s) {
			if len(w) < 4 || seen[w] || skip[w] || text.IsStop(w) || strings.Trim(w, "0123456789") == "" {
				continue
			}
			seen[w] = true
			df[w]++
		}
	}
	best, n := "", 1
	for w, c := range df {
		if c > n || c == n && best != "" && w < best {
			best, n = w, c
		}
	}
	return best
}

// general checks a topic-database decision against a general sample of
// the database: topic terms also find the few records of another topic's
// database that use them (papers on car sharing asked "car"), and those
// records read as the topic; a database whose general contents are not
// about the topic is then a site search of another topic. The sample is
// the first general query whose answer lists records unlike the nonsense
// term's; a database none of whose general queries lists records keeps
// its decision. The queries are recorded, so the budget counts them.
func (p *Prober) general(ctx context.Context, f *page.Form, box int, qs []store.ProbeQuery, w records.Wrapper, tmpl *records.Template, topic Topic, decision string, ev []string, sample []string) ([]store.ProbeQuery, string, []string) {
	var nonsense store.ProbeQuery
	for _, q := range qs {
		if q.Kind == "nonsense" {
			nonsense = q
		}
	}
	general := generalQueries
	if word := sampleWord(sample, qs, p.opt.Terms); word != "" {
		// a word of the records the topic's terms listed, none of the
		// topic's: what else the database holds where those records are
		// (a search that ignores stop words and lists nothing for the
		// empty query still answers it)
		general = []string{generalQueries[0], word, generalQueries[1]}
	}
	for _, g := range general {
		if ctx.Err() != nil {
			break
		}
		q := store.ProbeQuery{Query: g, Kind: "general"}
		w = p.ask(ctx, f, box, &q, w, tmpl, topic, nil)
		qs = append(qs, q)
		ev = append(ev, describe(q))
		if q.Error != "" || q.Login || q.Records == 0 || (nonsense.Error == "" && q.Signature == nonsense.Signature) {
			continue
		}
		if ok, why := generalVerdict(q.OnTopic, topicOn(qs, nonsense), p.opt.MinOnTopic); !ok {
			return qs, store.ProbeSiteSearch, append(ev, fmt.Sprintf("but a general sample of the database (query %q) is not about the topic: %s; the topic's terms match a corner of it only", g, why))
		}
		return qs, decision, append(ev, fmt.Sprintf("a general sample of the database (query %q) is about the topic too (%.0f%% of its records)", g, 100*q.OnTopic))
	}
	return qs, decision, append(ev, "no general query listed records: the topic terms' records decide")
}

// Nonsense is the nonsense term of a form: nine consonants no language
// writes, derived from the form's action so that a probe is repeatable.
func Nonsense(action string) string {
	const letters = "bcdfghjklmnpqrstvwxz"
	h := fnv.New64a()
	h.Write([]byte(action))
	v := h.Sum64()
	b := make([]byte, 9)
	for i := range b {
		b[i] = letters[v%uint64(len(letters))]
		v /= uint64(len(letters))
		if v == 0 {
			v = 0x9e3779b97f4a7c15 + uint64(i)
		}
	}
	b[0] = 'q'
	return string(b)
}

// loginPath matches the paths and parameters of login pages.
var loginPath = regexp.MustCompile(`(?i)(^|[/_.=?&-])(login|log-in|logon|signin|sign-in|sign_in|auth|authenticate|sso|wp-login)([/_.=?&-]|$)`)

// ask submits one probe query and fills q with what the answer showed; it
// returns the record template, learned from the first answer that shows
// one.
func (p *Prober) ask(ctx context.Context, f *page.Form, box int, q *store.ProbeQuery, w records.Wrapper, tmpl *records.Template, topic Topic, sample *[]string) records.Wrapper {
	q.Total = -1
	sub := page.NoSubmitter
	if subs := f.Submitters(); len(subs) > 0 {
		sub = subs[0]
	}
	vals := f.DataSet(sub)
	vals.Set(f.Fields[box].Name, q.Query)
	s, err := f.Submit(vals)
	if err != nil {
		q.Error = err.Error()
		return w
	}
	q.URL = s.URL
	var resp *fetch.Response
	if s.Method == "POST" {
		resp, err = p.f.Post(ctx, s.URL, s.Values)
	} else {
		resp, err = p.f.Fetch(ctx, s.URL)
	}
	if resp != nil {
		q.Status = resp.Status
		if resp.URL != s.URL {
			q.Final = resp.URL
		}
		if len(resp.Redirects) > 0 && loginPath.MatchString(finalPath(resp.URL)) {
			q.Login = true
		}
	}
	var se *fetch.StatusError
	if err != nil {
		if errors.As(err, &se) && se.Code >= 400 && se.Code < 500 {
			return w // the site's answer: the submission refused
		}
		q.Error = fetch.Reason(err)
		if q.Error == "" {
			q.Error = err.Error()
		}
		return w
	}
	base, err := url.Parse(resp.URL)
	if err != nil {
		q.Error = err.Error()
		return w
	}
	q.Size = len(resp.Body)
	res, err := records.Extract(resp.Body, base, records.Options{Wrapper: w, Query: q.Query, Template: tmpl})
	if err != nil {
		q.Error = err.Error()
		return w
	}
	q.Records, q.Total, q.NoResults = len(res.Records), res.Total, res.NoResults
	q.Signature = records.Signature(res.Records)
	if q.Records == 0 && passwordPage(res.Forms) {
		q.Login = true
	}
	if q.Records > 0 && topic != nil && q.Kind == "general" {
		// a sample of the database: the share of its records about the
		// topic, so that a few strongly on-topic records do not carry
		// the rest
		held := keywordRecords(res.Records, p.otherKeywords(q.Query))
		on := 0
		for i, r := range res.Records {
			if ok, _ := topic.Relevant(withoutQuery(r.Text, q.Query)); ok || held[i] {
				on++
			}
		}
		q.OnTopic = float64(on) / float64(len(res.Records))
	} else if q.Records > 0 && topic != nil {
		var b strings.Builder
		held := 0
		for _, h := range keywordRecords(res.Records, p.otherKeywords(q.Query)) {
			if h {
				held++
			}
		}
		for _, r := range res.Records {
			b.WriteString(r.Text)
			b.WriteByte(' ')
			if sample != nil {
				*sample = append(*sample, cmp.Or(r.Data, r.Text))
			}
		}
		_, q.OnTopic = topic.Relevant(withoutQuery(b.String(), q.Query))
		// The topic model learned from home pages; a short record (a
		// glossary entry, a title) can read as nothing to it and still use
		// the profile's other words: the share of records that do is
		// evidence of the topic too.
		q.OnTopic = max(q.OnTopic, float64(held)/float64(len(res.Records)))
	}
	if !w.Known() && res.Learned && res.Score >= 2.5 {
		w = res.Wrapper
	}
	return w
}

// otherKeywords returns the stemmed terms of the profile's keywords that
// are not terms of query: a record that holds one says more of the topic
// than the words asked.
func (p *Prober) otherKeywords(query string) map[string]bool {
	asked := map[string]bool{}
	for _, t := range text.Terms(query) {
		asked[t] = true
	}
	kw := map[string]bool{}
	for _, k := range p.opt.Terms {
		for _, t := range text.Terms(k) {
			if !asked[t] && len(t) >= 3 {
				kw[t] = true
			}
		}
	}
	return kw
}

// keywordRecords reports for each record whether it holds one of the
// stemmed terms kw. A term that (nearly) every record of three or more
// holds is the listing's furniture ("Score: 12" beside each hit), not what
// the records say: it counts for none.
func keywordRecords(recs []records.Record, kw map[string]bool) []bool {
	held := make([]bool, len(recs))
	if len(kw) == 0 {
		return held
	}
	found := make([][]string, len(recs))
	n := map[string]int{}
	for i, r := range recs {
		seen := map[string]bool{}
		for _, t := range text.Terms(r.Text) {
			if kw[t] && !seen[t] {
				seen[t] = true
				found[i] = append(found[i], t)
				n[t]++
			}
		}
	}
	for i := range recs {
		for _, t := range found[i] {
			if len(recs) < 3 || float64(n[t]) < 0.9*float64(len(recs)) {
				held[i] = true
				break
			}
		}
	}
	return held
}

func finalPath(u string) string {
	pu, err := url.Parse(u)
	if err != nil {
		return u
	}
	return pu.EscapedPath() + "?" + pu.RawQuery
}

// passwordPage reports whether a page's forms ask for a password: a login
// page answered instead of results.
func passwordPage(forms []page.Form) bool {
	for _, f := range forms {
		for _, fl := range f.Fields {
			if fl.Type == "password" {
				return true
			}
		}
	}
	return false
}

// wordRE matches the words of a text.
var wordRE = regexp.MustCompile(`[\p{L}\p{N}]+`)

// withoutQuery removes from text the words of the query that listed it
// (and the words they begin: "music" takes "musical"): a search answer
// holds its query's words by construction, so they say nothing about what
// the database is about; the rest of the records' words do.
func withoutQuery(text, query string) string {
	var qs []string
	for _, w := range wordRE.FindAllString(strings.ToLower(query), -1) {
		if len([]rune(w)) >= 3 {
			qs = append(qs, w)
		}
	}
	if len(qs) == 0 {
		return text
	}
	return wordRE.ReplaceAllStringFunc(text, func(w string) string {
		lw := strings.ToLower(w)
		for _, q := range qs {
			if strings.HasPrefix(lw, q) {
				return ""
			}
		}
		return w
	})
}
