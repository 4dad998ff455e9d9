package enrich

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/dwcrawl/dwcrawl/core/hiddendb"
)

// Doc is one record returned by a keyword interface.
type Doc struct {
	ID     string            `json:"id,omitempty"`
	URL    string            `json:"url,omitempty"`
	Text   string            `json:"text,omitempty"`
	Fields map[string]string `json:"fields,omitempty"`
}

// Page is one result page of a keyword query.
type Page struct {
	Docs []Doc
	// Total is the number of matches the interface reports, -1 when hidden.
	Total int
	// Next reports whether a further result page exists (within the top k).
	Next bool
}

// Searcher is a keyword interface: conjunctive keyword search answering
// page (1-based) of a query's top-k results. The HTTP client of a hidden
// database's JSON API and the Lua keyword-plugin adapter implement it.
type Searcher interface {
	Search(ctx context.Context, query string, page int) (Page, error)
}

// TopKer is implemented by searchers that know their result limit k.
type TopKer interface {
	TopK(ctx context.Context) (int, error)
}

// maxPages bounds the pages fetched for one query, against an interface
// whose Next never turns false.
const maxPages = 1000

// Result is the whole answer to one query: every page up to k records.
type Result struct {
	Docs []Doc
	// Total is the reported match count, -1 when the interface hides it.
	Total int
}

// Solid reports whether the query returned every matching record: fewer
// than k records, or a reported total of at most k.
func (r Result) Solid(k int) bool {
	if r.Total >= 0 {
		return r.Total <= k
	}
	return len(r.Docs) < k
}

// FetchAll issues query and collects its pages until the interface reports
// no next page or k records were returned (k ≤ 0: no limit).
func FetchAll(ctx context.Context, s Searcher, query string, k int) (Result, error) {
	res := Result{Total: -1}
	for page := 1; page <= maxPages; page++ {
		p, err := s.Search(ctx, query, page)
		if err != nil {
			return res, fmt.Errorf("search %q page %d: %w", query, page, err)
		}
		if page == 1 {
			res.Total = p.Total
		}
		res.Docs = append(res.Docs, p.Docs...)
		if !p.Next || len(p.Docs) == 0 || (k > 0 && len(res.Docs) >= k) {
			break
		}
	}
	if k > 0 && len(res.Docs) > k {
		res.Docs = res.Docs[:k]
	}
	return res, nil
}

// HTTPSearcher queries a hidden database's JSON search API, the one
// hiddendb.DB.Handler serves: GET base/api/search?q=&page= answering
// {"total": n|null, "records": [{"id","url","fields","text"}], "next", "k"}.
type HTTPSearcher struct {
	// Endpoint is the full search URL (…/api/search).
	Endpoint string
	Client   *http.Client
	// Retries is the number of extra attempts on transport errors and 5xx.
	Retries int
	k       int
}

// NewHTTPSearcher returns a searcher for base, a hidden database's URL
// ("http://host/db" or the API endpoint itself, ".../api/search").
func NewHTTPSearcher(base string) (*HTTPSearcher, error) {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("enrich: interface %q: want an http(s) URL", base)
	}
	ep := strings.TrimRight(base, "/")
	if !strings.HasSuffix(u.Path, "/api/search") {
		ep += "/api/search"
	}
	return &HTTPSearcher{Endpoint: ep, Client: &http.Client{Timeout: 30 * time.Second}, Retries: 2}, nil
}

type apiAnswer struct {
	Total   *int  `json:"total"`
	Records []Doc `json:"records"`
	Next    bool  `json:"next"`
	K       int   `json:"k"`
}

// Search implements Searcher.
func (h *HTTPSearcher) Search(ctx context.Context, query string, page int) (Page, error) {
	a, err := h.get(ctx, query, page)
	if err != nil {
		return Page{}, err
	}
	p := Page{Docs: a.Records, Total: -1, Next: a.Next}
	if a.Total != nil {
		p.Total = *a.Total
	}
	if a.K > 0 {
		h.k = a.K
	}
	return p, nil
}

// TopK implements TopKer: the k the API declares (probed with an empty
// query, which matches nothing).
func (h *HTTPSearcher) TopK(ctx context.Context) (int, error) {
	if h.k > 0 {
		return h.k, nil
	}
	a, err := h.get(ctx, "", 1)
	if err != nil {
		return 0, err
	}
	if a.K <= 0 {
		return 0, errors.New("interface does not declare k")
	}
	h.k = a.K
	return h.k, nil
}

func (h *HTTPSearcher) get(ctx context.Context, query string, page int) (apiAnswer, error) {
	v := url.Values{"q": {query}, "page": {strconv.Itoa(page)}}
	var last error
	for attempt := 0; attempt <= h.Retries; attempt++ {
		if attempt > 0 {
			select {
			case <-ctx.Done():
				return apiAnswer{}, ctx.Err()
			case <-time.After(time.Duration(attempt) * 200 * time.Millisecond):
			}
		}
		a, retry, err := h.once(ctx, h.Endpoint+"?"+v.Encode())
		if err == nil {
			return a, nil
		}
		last = err
		if !retry || ctx.Err() != nil {
			break
		}
	}
	return apiAnswer{}, last
}

func (h *HTTPSearcher) once(ctx context.Context, u string) (apiAnswer, bool, error) {
	var a apiAnswer
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return a, false, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := h.Client.Do(req)
	if err != nil {
		return a, true, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
		return a, resp.StatusCode >= 500, fmt.Errorf("GET %s: %s", u, resp.Status)
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 64<<20)).Decode(&a); err != nil {
		return a, false, fmt.Errorf("GET %s: decode: %w", u, err)
	}
	return a, false, nil
}

// DBSearcher is an in-process keyword interface over a hiddendb.DB, for
// tests and benchmarks that measure the crawler without HTTP.
type DBSearcher struct {
	DB *hiddendb.DB
	// ShowTotal reports match counts (default hidden, -1).
	ShowTotal bool
}

// Search implements Searcher.
func (s DBSearcher) Search(ctx context.Context, query string, page int) (Page, error) {
	if err := ctx.Err(); err != nil {
		return Page{}, err
	}
	r := s.DB.Search(query, page)
	p := Page{Total: -1, Next: r.Next, Docs: make([]Doc, len(r.Records))}
	if s.ShowTotal {
		p.Total = r.Total
	}
	for i, h := range r.Records {
		p.Docs[i] = Doc{ID: h.ID, Fields: h.Fields}
	}
	return p, nil
}

// TopK implements TopKer.
func (s DBSearcher) TopK(context.Context) (int, error) { return s.DB.Options().K, nil }
