package keyword

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
	"sync/atomic"
	"time"

	"github.com/dwcrawl/dwcrawl/core/canon"
	"github.com/dwcrawl/dwcrawl/core/retry"
)

// maxAnswer bounds the JSON answer read for one page.
const maxAnswer = 64 << 20

// APIRecord is one record in an answer of the JSON search API.
type APIRecord struct {
	ID     string            `json:"id"`
	URL    string            `json:"url"`
	Fields map[string]string `json:"fields"`
	Text   string            `json:"text"`
}

// APIResult is the JSON search API's answer to one search page: the wire
// format APISearcher reads and the simulated hidden databases serve.
type APIResult struct {
	Query    string      `json:"query"`
	Page     int         `json:"page"`
	PageSize int         `json:"page_size"`
	K        int         `json:"k"`
	Total    *int        `json:"total"` // null when the site hides counts
	Records  []APIRecord `json:"records"`
	Next     bool        `json:"next"`
}

// HTTPDoer sends requests; *http.Client satisfies it.
type HTTPDoer interface {
	Do(req *http.Request) (*http.Response, error)
}

// HTTPError is a non-2xx answer of a keyword interface.
type HTTPError struct {
	// URL is the request's URL.
	URL    string
	Status int
	// RetryAfter is the server's Retry-After, 0 when absent.
	RetryAfter time.Duration
	// Body is the start of the answer's body.
	Body string
}

// Error names the request, the status and the start of the body.
func (e *HTTPError) Error() string {
	msg := fmt.Sprintf("HTTP %d", e.Status)
	if e.Body != "" {
		msg += ": " + e.Body
	}
	if e.URL != "" {
		msg = "GET " + canon.Redacted(e.URL) + ": " + msg
	}
	return msg
}

// Temporary reports whether retrying may help (408, 429 and 5xx but 501
// and 505; see retry.Status).
func (e *HTTPError) Temporary() bool { return retry.Status(e.Status) }

// ParseRetryAfter reads a Retry-After header (seconds or HTTP date).
func ParseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(v); err == nil && s >= 0 {
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// APISearcher is the client of a hidden database's JSON search API (the
// one the testbed's hidden databases serve): GET …/api/search?q=&page=
// answering APIResult, {"total": n|null, "records": [...],
// "next": bool, "k": n}. It makes one attempt per call: wrap it with
// Retrying. It is also a TopKer, remembering the k the API declares.
type APISearcher struct {
	// Base is the database's URL (http://host/db) or its search endpoint
	// (http://host/db/api/search).
	Base string
	// Client sends the requests; nil means http.DefaultClient.
	Client HTTPDoer
	// k is the result limit the API last declared, 0 while unknown.
	k atomic.Int64
}

// NewAPISearcher returns the client of the JSON search API at base, a
// hidden database's http(s) URL or its …/api/search endpoint, with a 30 s
// timeout per request.
func NewAPISearcher(base string) (*APISearcher, error) {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("keyword interface %q: want an http(s) URL", base)
	}
	return &APISearcher{Base: base, Client: &http.Client{Timeout: 30 * time.Second}}, nil
}

// endpoint is the search URL: Base, with /api/search appended unless it is
// there already.
func (s *APISearcher) endpoint() string {
	b := strings.TrimRight(s.Base, "/")
	if strings.HasSuffix(b, "/api/search") {
		return b
	}
	return b + "/api/search"
}

// Search implements Searcher.
func (s *APISearcher) Search(ctx context.Context, query string, page int) (Page, error) {
	r, err := s.get(ctx, query, page)
	if err != nil {
		return Page{}, err
	}
	pg := Page{Total: -1, Next: r.Next}
	if r.Total != nil {
		pg.Total = *r.Total
	}
	for _, rec := range r.Records {
		pg.Docs = append(pg.Docs, Doc{ID: rec.ID, URL: rec.URL, Text: rec.Text, Fields: rec.Fields})
	}
	return pg, nil
}

// TopK implements TopKer: the k the API declared in its last answer, else
// in its answer to a probe with the empty query (which matches nothing).
func (s *APISearcher) TopK(ctx context.Context) (int, error) {
	if k := s.k.Load(); k > 0 {
		return int(k), nil
	}
	if _, err := s.get(ctx, "", 1); err != nil {
		return 0, err
	}
	if k := s.k.Load(); k > 0 {
		return int(k), nil
	}
	return 0, Permanent{fmt.Errorf("keyword interface %s declares no result limit k", s.endpoint())}
}

// get fetches and decodes one answer, remembering its k.
func (s *APISearcher) get(ctx context.Context, query string, page int) (APIResult, error) {
	var r APIResult
	u := s.endpoint() + "?" + url.Values{"q": {query}, "page": {strconv.Itoa(page)}}.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return r, Permanent{fmt.Errorf("keyword interface: %w", err)}
	}
	req.Header.Set("Accept", "application/json")
	c := s.Client
	if c == nil {
		c = http.DefaultClient
	}
	resp, err := c.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			ue.URL = canon.Redacted(ue.URL)
		}
		return r, err // an *url.Error, naming the URL
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		// drain a little more so the connection can be reused
		io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		return r, &HTTPError{URL: u, Status: resp.StatusCode, RetryAfter: ParseRetryAfter(resp.Header.Get("Retry-After"), time.Now()), Body: strings.TrimSpace(string(b))}
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxAnswer)).Decode(&r); err != nil {
		err = fmt.Errorf("GET %s: decode: %w", canon.Redacted(u), err)
		// a body that is not the API's JSON stays so; a cut one may not
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		if errors.As(err, &syn) || errors.As(err, &typ) {
			err = Permanent{err}
		}
		return r, err
	}
	if r.K > 0 {
		s.k.Store(int64(r.K))
	}
	return r, nil
}
