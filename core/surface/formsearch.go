package surface

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"

	"github.com/dwcrawl/dwcrawl/core/canon"
	"github.com/dwcrawl/dwcrawl/core/fetch"
	"github.com/dwcrawl/dwcrawl/core/keyword"
	"github.com/dwcrawl/dwcrawl/core/page"
	"github.com/dwcrawl/dwcrawl/core/records"
	"github.com/dwcrawl/dwcrawl/store"
)

// FormFetcher fetches the pages of a form harvest politely: GET through
// Fetch, POST through Post (fetch.Fetcher implements both, with robots.txt,
// per-host politeness and retries).
type FormFetcher interface {
	Fetch(ctx context.Context, url string) (*fetch.Response, error)
	Post(ctx context.Context, url string, values url.Values) (*fetch.Response, error)
}

// FormOptions configure a FormSearcher.
type FormOptions struct {
	// Details fetches the page of every new record (its text replaces the
	// snippet of the result page); it costs one request per record.
	Details bool
	// Template is the record-like regions of the page that holds the form
	// (records.TemplateOf); when nil, the searcher fetches that page once to
	// read them (and its text).
	Template *records.Template
	// Browse reads every result page of the empty query (the query box
	// left empty, nothing bound) when the form answers it with records: the
	// application's own listing of everything. Otherwise the empty query,
	// which tells whether the box is required, reads its first page only.
	Browse bool
	// Selectors are the site's own selectors for its result pages (a
	// profile's sites table), which replace the inference of the parts
	// they set.
	Selectors records.Selectors
}

// FormSearcher drives a searchable HTML form the crawl discovered as a
// keyword interface, in Go: it fills the query box (and the inputs a query
// binds, see ParseFormQuery), submits the form as a browser would (every
// other control at its default, the default button as submitter), reads
// the records of each result page with package records (the record
// template is learned from the first result page that shows several) and
// follows the application's own next-page control, whether a link or a
// form button. It is safe for concurrent use.
type FormSearcher struct {
	form    page.Form
	box     int // index of the query box in form.Fields
	pageURL string
	fetcher FormFetcher
	opt     FormOptions

	mu       sync.Mutex
	wrapper  records.Wrapper
	walks    map[string]*formWalk
	outcomes map[string]FormOutcome
	detailed map[string]bool
	pageText string
	pageRead bool
	// siteCounts are counts that describe the site, not a query's answer;
	// countSigs the first-page signature each count was first seen with.
	siteCounts map[int]bool
	countSigs  map[int]string
	// explain is the first result page, as Explain reports it.
	explain *explainPage
}

// formWalk remembers the next-page controls of one query's result pages.
type formWalk struct {
	next map[int]*records.Request // page n -> how to get it
}

// FormOutcome is what the first result page of a query said.
type FormOutcome struct {
	// Status is the HTTP status of the answer (a 4xx answer to a
	// submission is the site rejecting it: no records).
	Status int `json:"status"`
	// Records is the number of records on the first page, Total the total
	// the page states (-1 none).
	Records int `json:"records"`
	Total   int `json:"total"`
	// NoResults is the page's phrase saying nothing matched.
	NoResults string `json:"no_results,omitempty"`
	// Signature identifies the set of records on the first page ("" when
	// there are none): equal signatures, equal answers.
	Signature string `json:"signature,omitempty"`
	// Final is the URL answered (after redirects); Size the body's length.
	Final string `json:"final,omitempty"`
	Size  int    `json:"size"`
}

// Empty reports whether the answer held no record.
func (o FormOutcome) Empty() bool { return o.Records == 0 }

// NewFormSearcher returns a searcher over a stored searchable form.
func NewFormSearcher(f store.Form, fetcher FormFetcher, opt FormOptions) (*FormSearcher, error) {
	pf, err := StoredForm(f)
	if err != nil {
		return nil, err
	}
	box := page.QueryBox(pf.Fields)
	if box < 0 {
		return nil, fmt.Errorf("surface: form %s has no text box to type a query into", f.ID)
	}
	return &FormSearcher{form: *pf, box: box, pageURL: f.PageURL, fetcher: fetcher, opt: opt,
		walks: map[string]*formWalk{}, outcomes: map[string]FormOutcome{}, detailed: map[string]bool{}}, nil
}

// StoredForm rebuilds the page.Form of a stored form.
func StoredForm(f store.Form) (*page.Form, error) {
	if f.Action == "" {
		return nil, fmt.Errorf("surface: form %s has no action", f.ID)
	}
	pf := &page.Form{Index: f.Index, Action: f.Action, Method: strings.ToUpper(f.Method)}
	if len(f.Fields) > 0 {
		if err := json.Unmarshal(f.Fields, &pf.Fields); err != nil {
			return nil, fmt.Errorf("surface: form %s fields: %w", f.ID, err)
		}
	}
	if pf.Method != "POST" {
		pf.Method = "GET"
	}
	return pf, nil
}

// Form is the searcher's form.
func (s *FormSearcher) Form() *page.Form { return &s.form }

// Box is the index of the query box in Form().Fields.
func (s *FormSearcher) Box() int { return s.box }

// Wrapper is the record template learned so far.
func (s *FormSearcher) Wrapper() records.Wrapper {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.wrapper
}

// Outcome returns what the first result page of query said, if it was
// asked.
func (s *FormSearcher) Outcome(query string) (FormOutcome, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	o, ok := s.outcomes[query]
	return o, ok
}

// ParseFormQuery splits a form query into its keywords and its bindings:
// "ford [make=Ford&year=1982]" types "ford" into the query box and sets the
// controls make and year; "[make=Ford]" leaves the box empty. The bindings
// are URL-query encoded.
func ParseFormQuery(q string) (keywords string, bind url.Values, err error) {
	q = strings.TrimSpace(q)
	if !strings.HasSuffix(q, "]") {
		return q, nil, nil
	}
	i := strings.LastIndex(q, "[")
	if i < 0 || (i > 0 && q[i-1] != ' ') {
		return q, nil, nil
	}
	bind, err = url.ParseQuery(q[i+1 : len(q)-1])
	if err != nil {
		return "", nil, fmt.Errorf("surface: form query %q: bindings: %w", q, err)
	}
	return strings.TrimSpace(q[:i]), bind, nil
}

// FormQuery writes a form query (see ParseFormQuery).
func FormQuery(keywords string, bind url.Values) string {
	if len(bind) == 0 {
		return keywords
	}
	b := "[" + bind.Encode() + "]"
	if keywords == "" {
		return b
	}
	return keywords + " " + b
}

// stripBindings is the keyword part of a form query.
func stripBindings(q string) string {
	if !strings.HasSuffix(strings.TrimSpace(q), "]") {
		return q
	}
	k, _, err := ParseFormQuery(q)
	if err != nil {
		return q
	}
	return k
}

// Submission returns the request that asks the form query q: the form's
// data set with the default button as submitter, the keywords in the
// query box and the bound controls set.
func (s *FormSearcher) Submission(q string) (page.Submission, error) {
	kw, bind, err := ParseFormQuery(q)
	if err != nil {
		return page.Submission{}, err
	}
	sub := page.NoSubmitter
	if subs := s.form.Submitters(); len(subs) > 0 {
		sub = subs[0]
	}
	vals := s.form.DataSet(sub)
	vals.Set(s.form.Fields[s.box].Name, kw)
	if i, v := PageSizeControl(&s.form); i >= 0 {
		vals.Set(s.form.Fields[i].Name, v)
	}
	for k, vs := range bind {
		vals[k] = vs
	}
	return s.form.Submit(vals)
}

// Search implements Searcher: page 1 submits the form, page n follows the
// next-page control of page n−1 (walking from page 1 when it is not known).
func (s *FormSearcher) Search(ctx context.Context, query string, pageNum int) (Page, error) {
	if pageNum < 1 {
		pageNum = 1
	}
	s.mu.Lock()
	w := s.walks[query]
	if w == nil || pageNum == 1 {
		if len(s.walks) > 64 {
			s.walks = map[string]*formWalk{}
		}
		w = &formWalk{next: map[int]*records.Request{}}
		s.walks[query] = w
	}
	from := 1
	for p := pageNum; p >= 2; p-- {
		if w.next[p] != nil {
			from = p
			break
		}
	}
	s.mu.Unlock()
	var res *records.Result
	for p := from; p <= pageNum; p++ {
		var req *records.Request
		if p > 1 {
			s.mu.Lock()
			req = w.next[p]
			s.mu.Unlock()
			if req == nil {
				return Page{Total: -1}, nil // the site has fewer pages
			}
		}
		r, out, err := s.read(ctx, query, p, req)
		if err != nil {
			return Page{Total: -1}, err
		}
		s.mu.Lock()
		if p == 1 {
			s.outcomes[query] = out
		}
		if r.Next != nil {
			w.next[p+1] = r.Next
		}
		s.mu.Unlock()
		res = r
	}
	pg := Page{Total: res.Total, Next: res.Next != nil}
	if strings.TrimSpace(query) == "" && !s.opt.Browse {
		pg.Next = false
	}
	for _, rec := range res.Records {
		d := Doc{URL: rec.URL, Text: rec.Data, Fields: map[string]string{}}
		if d.Text == "" {
			d.Text = rec.Text
		}
		if rec.Title != "" {
			d.Fields["title"] = rec.Title
		}
		pg.Docs = append(pg.Docs, d)
	}
	if s.opt.Details {
		s.details(ctx, pg.Docs)
	}
	return pg, nil
}

// read fetches one result page (page 1: the submission of query; else the
// request) and extracts its records with the learned template, learning it
// from a page that shows a clear region.
func (s *FormSearcher) read(ctx context.Context, query string, pageNum int, req *records.Request) (*records.Result, FormOutcome, error) {
	var resp *fetch.Response
	var err error
	if req == nil {
		sub, serr := s.Submission(query)
		if serr != nil {
			return nil, FormOutcome{}, keyword.Permanent{Err: serr}
		}
		req = &records.Request{Method: sub.Method, URL: sub.URL, Values: sub.Values}
	}
	if req.Method == "POST" {
		resp, err = s.fetcher.Post(ctx, req.URL, req.Values)
	} else {
		resp, err = s.fetcher.Fetch(ctx, req.URL)
	}
	out := FormOutcome{Total: -1}
	if resp != nil {
		out.Status, out.Final = resp.Status, resp.URL
	}
	var se *fetch.StatusError
	if err != nil && errors.As(err, &se) && se.Code >= 400 && se.Code < 500 && se.Code != 429 && se.Code != 408 {
		// the site rejects the submission (a missing required input, a
		// refused value): an answer without records, not a failure
		s.noteExplain(query, pageNum, req, resp, nil)
		return &records.Result{Total: -1}, out, nil
	}
	if err != nil {
		return nil, out, fmt.Errorf("form %s: %w", canon.Redacted(req.URL), err)
	}
	base, perr := url.Parse(resp.URL)
	if perr != nil {
		return nil, out, fmt.Errorf("form: result page URL %q: %w", resp.URL, perr)
	}
	kw, _, _ := ParseFormQuery(query)
	s.mu.Lock()
	w := s.wrapper
	s.mu.Unlock()
	tmpl, err := s.template(ctx)
	if err != nil {
		return nil, out, err
	}
	res, err := records.Extract(resp.Body, base, records.Options{Wrapper: w, Query: kw, Page: pageNum, Template: tmpl, Selectors: s.opt.Selectors, Fallback: true})
	if err != nil {
		return nil, out, keyword.Permanent{Err: fmt.Errorf("form: %s: %w", canon.Redacted(resp.URL), err)}
	}
	if res.Learned && !w.Known() && res.Score >= minLearnScore {
		s.mu.Lock()
		if !s.wrapper.Known() {
			s.wrapper = res.Wrapper
		}
		s.mu.Unlock()
	}
	out.Signature = records.Signature(res.Records)
	s.pickTotal(ctx, res, out.Signature)
	out.Records, out.Total, out.NoResults, out.Size = len(res.Records), res.Total, res.NoResults, len(resp.Body)
	s.noteExplain(query, pageNum, req, resp, res)
	return res, out, nil
}

// pickTotal sets res.Total to the first count the page states that is the
// query's, not the site's: a count the form's own page states too, or one
// that the pages of two queries with different records state alike ("this
// index contains 2,000 documents"), describes the whole database; a count
// below the records the page lists is not a total either.
func (s *FormSearcher) pickTotal(ctx context.Context, res *records.Result, sig string) {
	if len(res.Counts) == 0 {
		return
	}
	s.template(ctx) // reads the form's page once
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.siteCounts == nil {
		s.siteCounts, s.countSigs = map[int]bool{}, map[int]string{}
		for _, c := range records.CountsIn(s.pageText) {
			s.siteCounts[c.N] = true
		}
	}
	if sig != "" {
		for _, c := range res.Counts {
			if prev, ok := s.countSigs[c.N]; ok && prev != sig {
				s.siteCounts[c.N] = true
			} else if !ok && len(s.countSigs) < 4096 {
				s.countSigs[c.N] = sig
			}
		}
	}
	if res.Total >= 0 && res.TotalText != "" && res.TotalText == res.NoResults {
		return
	}
	res.Total, res.TotalText = -1, ""
	for _, c := range res.Counts {
		if !s.siteCounts[c.N] && c.N >= len(res.Records) {
			res.Total, res.TotalText = c.N, c.Text
			return
		}
	}
}

// minLearnScore is the region score from which a record template is
// learned: about three records with text and links.
const minLearnScore = 2.5

// template returns the record-like regions of the form's page (fetched
// once; a page that cannot be read has none).
func (s *FormSearcher) template(ctx context.Context) (*records.Template, error) {
	s.mu.Lock()
	t, done := s.opt.Template, s.pageRead
	s.mu.Unlock()
	if t != nil || done || s.pageURL == "" {
		return t, nil
	}
	text := ""
	resp, err := s.fetcher.Fetch(ctx, s.pageURL)
	if err != nil && ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err == nil {
		if base, perr := url.Parse(resp.URL); perr == nil {
			t, _ = records.TemplateOf(resp.Body, base)
			if p, perr := page.Parse(resp.Body, "text/html; charset=utf-8", base); perr == nil {
				text = p.Title + " " + p.Text
			}
		}
	}
	s.mu.Lock()
	s.opt.Template, s.pageText, s.pageRead = t, text, true
	s.mu.Unlock()
	return t, nil
}

// PageText returns the visible text of the page that holds the form
// (fetched once, "" when it cannot be read).
func (s *FormSearcher) PageText(ctx context.Context) string {
	if _, err := s.template(ctx); err != nil {
		return ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pageText
}

// maxDetailed bounds the record pages remembered as fetched.
const maxDetailed = 1 << 16

// details replaces the result-page text of each record not fetched before
// by its own page's text and its labelled fields (dt/dd, th/td). A record
// page that cannot be read keeps the snippet.
func (s *FormSearcher) details(ctx context.Context, docs []Doc) {
	for i := range docs {
		d := &docs[i]
		if d.URL == "" {
			continue
		}
		s.mu.Lock()
		done := s.detailed[d.URL]
		if !done {
			if len(s.detailed) >= maxDetailed {
				s.detailed = map[string]bool{}
			}
			s.detailed[d.URL] = true
		}
		s.mu.Unlock()
		if done {
			continue
		}
		resp, err := s.fetcher.Fetch(ctx, d.URL)
		if err != nil {
			continue
		}
		fields, text := records.Detail(resp.Body)
		if text != "" {
			d.Text = text
		}
		for k, v := range fields {
			if _, ok := d.Fields[k]; !ok {
				d.Fields[k] = v
			}
		}
	}
}
