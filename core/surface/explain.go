package surface

import (
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/dwcrawl/dwcrawl/core/canon"
	"github.com/dwcrawl/dwcrawl/core/fetch"
	"github.com/dwcrawl/dwcrawl/core/records"
)

// Explain is how the first result page of a form harvest was read: the
// records region, the first records, the pager (or why there is none), the
// page size and every count the page states, with the one taken as the
// query's total. It is what a person reads to see why a harvest stalls.
// The page explained is page 1 of the first query with keywords (of the
// first query at all when none had keywords).
type Explain struct {
	// Query is the form query (see ParseFormQuery); Method and URL the
	// request, Final the URL answered and Status its HTTP status.
	Query  string     `json:"query"`
	Method string     `json:"method"`
	URL    string     `json:"url"`
	Values url.Values `json:"values,omitempty"`
	Final  string     `json:"final,omitempty"`
	Status int        `json:"status"`
	// Rejected is set when the site answered the submission with an error
	// status (a missing required input, a refused value).
	Rejected bool `json:"rejected,omitempty"`
	// Region is the records region; Records the first records read
	// (ExplainRecords at most) of RecordCount.
	Region      ExplainRegion    `json:"region"`
	Records     []records.Record `json:"records"`
	RecordCount int              `json:"record_count"`
	// Pager is the next-page control found, or why none.
	Pager ExplainPager `json:"pager"`
	// PageSize is the page size asked for and read.
	PageSize ExplainPageSize `json:"page_size"`
	// Totals are the counts the page states.
	Totals ExplainTotals `json:"totals"`
	// NoResults is the page's phrase saying nothing matched.
	NoResults string `json:"no_results,omitempty"`
}

// ExplainRecords is the number of records an Explain lists.
const ExplainRecords = 5

// Origins of a records region or a pager.
const (
	// OriginLearned: inferred on the explained page.
	OriginLearned = "learned"
	// OriginGiven: the record template learned from an earlier page of the
	// harvest.
	OriginGiven = "given"
	// OriginOverride: the site's selectors (a profile's sites table).
	OriginOverride = "override"
	// OriginNone: nothing found.
	OriginNone = "none"
	// OriginFallback: no record list understood; the records are the
	// page's new links to its own site (records.Result.Fallback).
	OriginFallback = "fallback"
)

// ExplainRegion is the records region of the explained page.
type ExplainRegion struct {
	Found bool `json:"found"`
	// Origin is OriginLearned, OriginGiven, OriginOverride, OriginFallback or OriginNone;
	// Source who gave an override ("profile F").
	Origin string `json:"origin"`
	Source string `json:"source,omitempty"`
	// Selectors are the override's selectors.
	Selectors *records.Selectors `json:"selectors,omitempty"`
	// The wrapper: the tag path of the records' parent, the shape of a
	// record element (its tag and its children's), the classes the records
	// share, the URL pattern of their own pages, and the region's score.
	Parent  string   `json:"parent,omitempty"`
	Item    string   `json:"item,omitempty"`
	Classes []string `json:"classes,omitempty"`
	Pattern string   `json:"pattern,omitempty"`
	Score   float64  `json:"score"`
	// Why says why no region was taken; Candidates are the best repeated
	// regions weighed then.
	Why        string              `json:"why,omitempty"`
	Candidates []records.Candidate `json:"candidates,omitempty"`
}

// ExplainPager is the next-page control of the explained page.
type ExplainPager struct {
	Found bool `json:"found"`
	// Origin is OriginLearned (inferred), OriginOverride or OriginNone.
	Origin string `json:"origin"`
	Source string `json:"source,omitempty"`
	// Control is what the page offered (records.Request.Control);
	// Method, URL and Values how the next page is asked for.
	Control string     `json:"control,omitempty"`
	Method  string     `json:"method,omitempty"`
	URL     string     `json:"url,omitempty"`
	Values  url.Values `json:"values,omitempty"`
	// Why says why there is no next page.
	Why string `json:"why,omitempty"`
}

// ExplainPageSize is the page size of the explained page.
type ExplainPageSize struct {
	// Records is the number of records the first page lists.
	Records int `json:"records"`
	// Param and Value are the form's results-per-page control and the
	// value asked for (PageSizeControl), "" when the form has none.
	Param string `json:"param,omitempty"`
	Value string `json:"value,omitempty"`
	// Next is the page size the next-page request asks for when the pager
	// offers page sizes (0: the site's own).
	Next int `json:"next,omitempty"`
}

// ExplainTotals are the counts the explained page states.
type ExplainTotals struct {
	// Total is the count taken as the query's total (-1 none), TotalText
	// the phrase it was read from.
	Total     int    `json:"total"`
	TotalText string `json:"total_text,omitempty"`
	// Counts are every count the page states, in the page's order, with
	// the role each played.
	Counts []ExplainCount `json:"counts"`
}

// Roles of a count.
const (
	// CountTotal: taken as the query's total.
	CountTotal = "total"
	// CountSite: the site's, set aside (a count of the whole collection).
	CountSite = "site"
	// CountBelow: below the records the page lists, set aside.
	CountBelow = "below_records"
	// CountOther: another count of the query's (the first one wins).
	CountOther = "other"
)

// ExplainCount is one count the page states and what was made of it.
type ExplainCount struct {
	N    int    `json:"n"`
	Text string `json:"text"`
	Role string `json:"role"`
	Why  string `json:"why,omitempty"`
}

// explainPage is what Explain is built from, kept when the page is read.
type explainPage struct {
	query    string
	req      records.Request
	status   int
	final    string
	rejected bool
	res      *records.Result
	total    int
	totalTxt string
	cands    []records.Candidate
	noNext   string
}

// noteExplain keeps what Explain reports of a first result page: the first
// one read, until the first one of a query with keywords.
func (s *FormSearcher) noteExplain(query string, pageNum int, req *records.Request, resp *fetch.Response, res *records.Result) {
	if pageNum != 1 || req == nil {
		return
	}
	kw := strings.TrimSpace(stripBindings(query))
	s.mu.Lock()
	prev := s.explain
	s.mu.Unlock()
	if prev != nil && (kw == "" || strings.TrimSpace(stripBindings(prev.query)) != "") {
		return
	}
	e := &explainPage{query: query, req: *req, total: -1}
	if resp != nil {
		e.status, e.final = resp.Status, resp.URL
	}
	if res == nil {
		e.rejected = true
	} else {
		e.res, e.total, e.totalTxt = res, res.Total, res.TotalText
		if resp != nil {
			if base, err := url.Parse(resp.URL); err == nil {
				if !res.Wrapper.Known() {
					e.cands, _ = records.Candidates(resp.Body, base, kw, 3)
				}
				if res.Next == nil {
					e.noNext = records.NoNextReason(resp.Body, base, 1)
				}
			}
		}
	}
	s.mu.Lock()
	if s.explain == prev {
		s.explain = e
	}
	s.mu.Unlock()
}

// Explain reports how the first result page of the harvest was read (nil
// before one was). The counts are judged with what the harvest knows now:
// a count that pages of other queries stated alike is the site's.
func (s *FormSearcher) Explain() *Explain {
	s.mu.Lock()
	e := s.explain
	site := make(map[int]bool, len(s.siteCounts))
	for n := range s.siteCounts {
		site[n] = true
	}
	s.mu.Unlock()
	if e == nil {
		return nil
	}
	sel := s.opt.Selectors
	x := &Explain{Query: e.query, Method: e.req.Method, URL: canon.Redacted(e.req.URL), Values: e.req.Values,
		Final: canon.Redacted(e.final), Status: e.status, Rejected: e.rejected, Records: []records.Record{}}
	x.Totals = ExplainTotals{Total: e.total, TotalText: e.totalTxt, Counts: []ExplainCount{}}
	if i, v := PageSizeControl(&s.form); i >= 0 {
		x.PageSize.Param, x.PageSize.Value = s.form.Fields[i].Name, v
	}
	res := e.res
	if res == nil {
		x.Region = ExplainRegion{Origin: OriginNone, Why: fmt.Sprintf("the site rejected the submission (HTTP %d)", e.status)}
		x.Pager = ExplainPager{Origin: OriginNone, Why: "no result page"}
		return x
	}
	x.Region = explainRegion(res, sel, e.cands)
	x.RecordCount, x.PageSize.Records, x.NoResults = len(res.Records), len(res.Records), res.NoResults
	for _, r := range res.Records[:min(ExplainRecords, len(res.Records))] {
		r.Text = prefix(r.Text, 160)
		x.Records = append(x.Records, r)
	}
	x.Pager = explainPager(res, sel, e.noNext)
	if res.Next != nil {
		x.PageSize.Next = res.Next.PageSize
	}
	x.Totals.Counts = explainCounts(res, site, e.total, e.totalTxt)
	return x
}

// explainRegion describes the records region of res.
func explainRegion(res *records.Result, sel records.Selectors, cands []records.Candidate) ExplainRegion {
	w := res.Wrapper
	r := ExplainRegion{Found: w.Known(), Parent: w.Parent, Item: w.Item, Classes: w.Classes, Pattern: w.Pattern, Score: round2(res.Score)}
	switch {
	case sel.Records != "":
		r.Origin, r.Source = OriginOverride, sel.Source
		s := sel
		s.Source = ""
		r.Selectors = &s
		if len(res.Records) == 0 {
			r.Why = fmt.Sprintf("no element matches records %q", sel.Records)
			if res.NoResults != "" {
				r.Why = fmt.Sprintf("the page says nothing matched (%q)", res.NoResults)
			}
		}
	case !w.Known():
		r.Origin, r.Candidates = OriginNone, cands
		switch {
		case res.NoResults != "":
			r.Why = fmt.Sprintf("the page says nothing matched (%q)", res.NoResults)
		case len(cands) == 0:
			r.Why = "nothing on the page repeats: no run of sibling elements built alike"
		default:
			r.Why = fmt.Sprintf("no repeated region scores as records: the best, %d × %s under %s, scores %.2f (at least 1.5 needed: about two items with text, each linking to a page of its own, showing the query's words)",
				cands[0].Items, cands[0].Wrapper.Item, cands[0].Wrapper.Parent, cands[0].Score)
		}
		if res.Fallback {
			r.Origin = OriginFallback
			r.Why += fmt.Sprintf("; read instead as records: the page's %d new links to its own site, outside navigation, that the form's page does not show", len(res.Records))
		}
	case res.Learned:
		r.Origin = OriginLearned
	default:
		r.Origin = OriginGiven
	}
	return r
}

// explainPager describes the next-page control of res.
func explainPager(res *records.Result, sel records.Selectors, noNext string) ExplainPager {
	p := ExplainPager{Origin: OriginLearned}
	if sel.Next != "" {
		p.Origin, p.Source = OriginOverride, sel.Source
	}
	if n := res.Next; n != nil {
		p.Found, p.Control, p.Method, p.URL, p.Values = true, n.Control, n.Method, canon.Redacted(n.URL), n.Values
		return p
	}
	switch {
	case sel.Next != "":
		p.Why = fmt.Sprintf("no element matches next %q (a link, an element holding one, or a submit button)", sel.Next)
	case noNext != "":
		p.Origin, p.Why = OriginNone, noNext
	default:
		p.Origin, p.Why = OriginNone, "no next-page control"
	}
	return p
}

// explainCounts gives each count of res its role: the one taken as the
// total, the site's, one below the records listed, or another.
func explainCounts(res *records.Result, site map[int]bool, total int, totalText string) []ExplainCount {
	out := []ExplainCount{}
	taken := false
	for _, c := range res.Counts {
		ec := ExplainCount{N: c.N, Text: c.Text}
		switch {
		case !taken && c.N == total && c.Text == totalText:
			taken = true
			ec.Role = CountTotal
			if site[c.N] {
				ec.Why = "taken when the page was read; pages of other queries have since stated it alike"
			}
		case c.Site:
			ec.Role, ec.Why = CountSite, "it counts the whole collection (\"the index contains …\")"
		case site[c.N]:
			ec.Role, ec.Why = CountSite, "the form's own page, or the pages of queries with other records, state it too"
		case c.N < len(res.Records):
			ec.Role, ec.Why = CountBelow, fmt.Sprintf("below the %d records the page lists", len(res.Records))
		default:
			ec.Role = CountOther
			if total >= 0 {
				ec.Why = "an earlier count was taken"
			}
		}
		out = append(out, ec)
	}
	return out
}

// WriteText writes the report for people, one part a paragraph.
func (x *Explain) WriteText(w io.Writer) {
	fmt.Fprintf(w, "explain: first result page of %q\n", x.Query)
	fmt.Fprintf(w, "  request: %s %s", x.Method, x.URL)
	if x.Method == "POST" && len(x.Values) > 0 {
		fmt.Fprintf(w, " (%s)", x.Values.Encode())
	}
	fmt.Fprintf(w, " -> HTTP %d", x.Status)
	if x.Final != "" && x.Final != x.URL {
		fmt.Fprintf(w, " %s", x.Final)
	}
	fmt.Fprintln(w)
	r := x.Region
	switch r.Origin {
	case OriginOverride:
		fmt.Fprintf(w, "  records region: overridden by %s: records = %q", firstNonEmpty(r.Source, "selectors"), r.Selectors.Records)
		if r.Selectors.RecordLink != "" {
			fmt.Fprintf(w, ", record_link = %q", r.Selectors.RecordLink)
		}
		fmt.Fprintln(w)
	case OriginNone:
		fmt.Fprintf(w, "  records region: none: %s\n", r.Why)
		for _, c := range r.Candidates {
			fmt.Fprintf(w, "    candidate: %d × %s under %s, score %.2f", c.Items, c.Wrapper.Item, c.Wrapper.Parent, c.Score)
			if c.Nav {
				fmt.Fprint(w, " (navigation)")
			}
			fmt.Fprintln(w)
		}
	default:
		how := "learned on this page"
		if r.Origin == OriginGiven {
			how = "learned from an earlier page"
		}
		fmt.Fprintf(w, "  records region: %s, score %.2f\n", how, r.Score)
	}
	if r.Found {
		fmt.Fprintf(w, "    parent %s\n    item %s", r.Parent, r.Item)
		if len(r.Classes) > 0 {
			fmt.Fprintf(w, " .%s", strings.Join(r.Classes, "."))
		}
		fmt.Fprintf(w, "\n    record URLs %s\n", firstNonEmpty(r.Pattern, "(none)"))
	}
	if r.Origin == OriginOverride && r.Why != "" {
		fmt.Fprintf(w, "    %s\n", r.Why)
	}
	fmt.Fprintf(w, "  records: %d on the page\n", x.RecordCount)
	for i, rec := range x.Records {
		fmt.Fprintf(w, "    %d. %s\n", i+1, firstNonEmpty(rec.URL, "(no link)"))
		if rec.Title != "" {
			fmt.Fprintf(w, "       title: %s\n", rec.Title)
		}
		fmt.Fprintf(w, "       text: %s\n", rec.Text)
	}
	p := x.Pager
	src := ""
	if p.Origin == OriginOverride {
		src = " (overridden by " + firstNonEmpty(p.Source, "selectors") + ")"
	}
	if p.Found {
		fmt.Fprintf(w, "  pager: %s%s: %s %s", p.Control, src, p.Method, p.URL)
		if p.Method == "POST" && len(p.Values) > 0 {
			fmt.Fprintf(w, " (%s)", p.Values.Encode())
		}
		fmt.Fprintln(w)
	} else {
		fmt.Fprintf(w, "  pager: none%s: %s\n", src, p.Why)
	}
	ps := x.PageSize
	fmt.Fprintf(w, "  page size: %d records on page 1", ps.Records)
	if ps.Param != "" {
		fmt.Fprintf(w, "; asked %s=%s (the form's results-per-page control)", ps.Param, ps.Value)
	}
	if ps.Next > 0 {
		fmt.Fprintf(w, "; the next pages ask for %d (the pager's page sizes)", ps.Next)
	}
	fmt.Fprintln(w)
	t := x.Totals
	if t.Total >= 0 {
		fmt.Fprintf(w, "  total: %d (%q)\n", t.Total, t.TotalText)
	} else {
		fmt.Fprintln(w, "  total: none stated")
	}
	for _, c := range t.Counts {
		fmt.Fprintf(w, "    %d %q: %s", c.N, c.Text, c.Role)
		if c.Why != "" {
			fmt.Fprintf(w, " (%s)", c.Why)
		}
		fmt.Fprintln(w)
	}
	if x.NoResults != "" {
		fmt.Fprintf(w, "  no results: %q\n", x.NoResults)
	}
}

// prefix cuts s to at most n bytes at a word boundary, with "…".
func prefix(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := strings.LastIndexByte(s[:n], ' ')
	if cut < n/2 {
		cut = n
		for cut > 0 && s[cut]&0xc0 == 0x80 {
			cut-- // not inside a UTF-8 sequence
		}
	}
	return s[:cut] + "…"
}

func round2(x float64) float64 { return float64(int(x*100+0.5)) / 100 }

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
