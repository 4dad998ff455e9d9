package store

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"time"
)

// SiteStatus is where a site stands in the two-stage crawl.
type SiteStatus string

// Site statuses.
const (
	SiteNew        SiteStatus = "new"        // discovered, not yet in a site queue
	SiteQueued     SiteStatus = "queued"     // waiting in the site frontier
	SiteVisited    SiteStatus = "visited"    // homepage fetched, not yet classified
	SiteExploring  SiteStatus = "exploring"  // taken by a crawl worker; explored again after a crash
	SiteFailed     SiteStatus = "failed"     // homepage could not be fetched
	SiteRelevant   SiteStatus = "relevant"   // site classifier: on topic, explored in-site
	SiteCut        SiteStatus = "cut"        // on topic; the page budget ended its in-site exploration (resumed by a later run)
	SiteIrrelevant SiteStatus = "irrelevant" // site classifier: off topic
)

// Site frontier queue names (SmartCrawler's two-level site frontier).
const (
	QueueHigh = "high" // sites found on pages that had searchable forms
	QueueLow  = "low"  // all other out-of-site links
)

// Site is one website known to the crawl. Stored as JSON in TagSites under
// its URL.
type Site struct {
	URL       string     `json:"url"`              // site key: canon.Site form "scheme://host[:port]"
	Host      string     `json:"host"`             // lower-case host without port
	Domain    string     `json:"domain,omitempty"` // profile domain it was judged for
	Status    SiteStatus `json:"status"`
	Score     float64    `json:"score"`           // site ranker score
	Queue     string     `json:"queue,omitempty"` // QueueHigh or QueueLow
	Deep      bool       `json:"deep,omitempty"`  // has at least one relevant searchable form
	Forms     int        `json:"forms,omitempty"` // searchable forms found on it
	Pages     int        `json:"pages,omitempty"` // pages fetched from it
	FirstSeen time.Time  `json:"first_seen,omitzero"`
	VisitedAt time.Time  `json:"visited_at,omitzero"`
	From      string     `json:"from,omitempty"` // page URL (or "seed", "reverse:…") it was found from
	// Entries are pages below the site's root that other sites link to (a
	// few, first seen first): exploring the site starts from them too.
	Entries []string `json:"entries,omitempty"`
}

// State is the crawl state of one URL.
type State uint8

// URL states. A URL in StateQueued whose FrontierKey is empty has been popped
// from its queue but its fetch is not recorded yet (in flight); after a crash
// such URLs can be found with ScanURLs and pushed again.
const (
	StateSeen    State = iota // known (e.g. filtered), never queued
	StateQueued               // in a frontier queue, or popped and in flight
	StateFetched              // fetched and recorded
	StateFailed               // fetch failed for good
	StateSkipped              // not fetched by policy (robots.txt, out of scope, budget)
)

var stateNames = [...]string{"seen", "queued", "fetched", "failed", "skipped"}

// String returns the state's lower-case name.
func (s State) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return "state(" + strconv.Itoa(int(s)) + ")"
}

// MarshalText implements encoding.TextMarshaler (state names in JSON output).
func (s State) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (s *State) UnmarshalText(b []byte) error {
	for i, n := range stateNames {
		if n == string(b) {
			*s = State(i)
			return nil
		}
	}
	return fmt.Errorf("store: unknown URL state %q", b)
}

// URLState records that a URL has been seen and what happened to it. Stored in
// TagURLs under the URL, in compact binary.
type URLState struct {
	URL         string
	Site        string // site key of the URL
	State       State
	Depth       int    // link depth from the site's homepage (or from a seed)
	FrontierKey []byte // key of its frontier entry while queued; nil otherwise (owned by the store)
	Fetched     time.Time
	Status      int    // HTTP status of the last fetch
	Err         string // last fetch error
}

func encodeURLState(b []byte, st *URLState) []byte {
	b = append(b, codecV1)
	b = appendSiteOf(b, st.URL, st.Site)
	b = append(b, byte(st.State))
	b = appendVarint(b, int64(st.Depth))
	b = appendBytes(b, st.FrontierKey)
	b = appendTime(b, st.Fetched)
	b = appendVarint(b, int64(st.Status))
	return appendStr(b, st.Err)
}

func decodeURLState(url string, v []byte) (URLState, error) {
	r := reader{b: v}
	r.version("url state")
	st := URLState{URL: url}
	st.Site = r.siteOf(url, "url state site")
	st.State = State(r.byte1("url state"))
	st.Depth = int(r.varint("url state depth"))
	st.FrontierKey = r.bytesCopy("url state frontier key")
	st.Fetched = r.time("url state fetched")
	st.Status = int(r.varint("url state status"))
	st.Err = r.str("url state err")
	if r.err != nil {
		return URLState{}, fmt.Errorf("url %q: %w", url, r.err)
	}
	return st, nil
}

// FrontierEntry is one item of a frontier queue. Queue, Score and Seq make up
// the key (highest score first, then lowest Seq); the rest is the value.
type FrontierEntry struct {
	Queue   string  // queue name: QueueHigh/QueueLow for sites, a strategy's own names for links
	Score   float64 // higher is fetched first; NaN is rejected
	Seq     uint64  // tie-breaker, assigned by the store (first in, first out) when zero
	URL     string  // canonical URL (or site key for site queues)
	Site    string  // site key of URL
	Depth   int
	Payload []byte // strategy-specific data (typically JSON), opaque to the store
}

func frontierPrefix(b []byte, queue string) []byte {
	return AppendString(append(b, TagFrontier), queue)
}

func frontierKey(b []byte, queue string, score float64, seq uint64) []byte {
	b = frontierPrefix(b, queue)
	b = AppendDescFloat(b, score)
	return AppendUint64(b, seq)
}

func encodeFrontierValue(b []byte, e *FrontierEntry) []byte {
	b = append(b, codecV1)
	b = appendStr(b, e.URL)
	b = appendSiteOf(b, e.URL, e.Site)
	b = appendVarint(b, int64(e.Depth))
	return append(b, e.Payload...)
}

func decodeFrontier(key, val []byte) (FrontierEntry, error) {
	var e FrontierEntry
	if len(key) == 0 || key[0] != TagFrontier {
		return e, fmt.Errorf("frontier key %x: %w", key, ErrBadKey)
	}
	q, rest, err := DecodeString(key[1:])
	if err == nil {
		e.Queue = q
		e.Score, rest, err = DecodeDescFloat(rest)
	}
	if err == nil {
		e.Seq, _, err = DecodeUint64(rest)
	}
	if err != nil {
		return e, fmt.Errorf("frontier key %x: %w", key, err)
	}
	r := reader{b: val}
	r.version("frontier entry")
	e.URL = r.str("frontier url")
	e.Site = r.siteOf(e.URL, "frontier site")
	e.Depth = int(r.varint("frontier depth"))
	if r.err != nil {
		return e, fmt.Errorf("frontier entry %x: %w", key, r.err)
	}
	if len(r.b) > 0 {
		e.Payload = append([]byte(nil), r.b...)
	}
	return e, nil
}

// Form is a form found on a fetched page, with the classifiers' verdicts.
// Stored as JSON in TagForms under its ID.
type Form struct {
	ID           string          `json:"id"` // FormID(PageURL, Index); filled in by PutForm when empty
	Site         string          `json:"site"`
	PageURL      string          `json:"page_url"`
	Depth        int             `json:"depth"` // depth of the page in its site
	Index        int             `json:"index"` // position of the form in its page
	Kind         string          `json:"kind,omitempty"`
	Searchable   float64         `json:"searchable"`   // searchable-form classifier confidence
	DomainScore  float64         `json:"domain_score"` // domain form classifier score
	Relevant     bool            `json:"relevant"`     // searchable and in the profile's domain
	Action       string          `json:"action,omitempty"`
	Method       string          `json:"method,omitempty"`
	Fields       json.RawMessage `json:"fields,omitempty"` // the parsed fields, as the page package marshals them
	FoundAt      time.Time       `json:"found_at,omitzero"`
	PagesFetched int             `json:"pages_fetched"` // crawl progress when found (for harvest curves)

	// Reasons are the form classifier's tests and rules behind the verdict.
	Reasons []string `json:"reasons,omitempty"`

	// Probe is the outcome of post-query probing, nil when the form was not
	// probed.
	Probe *Probe `json:"probe,omitempty"`
}

// Probe decisions: what a searchable form fronts, judged from its answers
// to probe queries.
const (
	ProbeTopicDatabase = "topic-database" // a database of the crawl's topic
	ProbeSiteSearch    = "site-search"    // a search, not of the topic (a generic site search)
	ProbeNotDatabase   = "not-database"   // its answers do not depend on the query
)

// Probe is what post-query probing found out about a searchable form: the
// queries submitted, what each answer showed, the decision and the evidence
// behind it.
type Probe struct {
	Decision string       `json:"decision"`
	Evidence []string     `json:"evidence,omitempty"`
	Queries  []ProbeQuery `json:"queries"`
	At       time.Time    `json:"at,omitzero"`
}

// ProbeQuery is one probe query and its answer.
type ProbeQuery struct {
	Query string `json:"query"`
	// Kind is "topic" (a term of the profile), "nonsense" or "general"
	// (a sample of the whole database, core/probe; its OnTopic is the share
	// of its records judged about the topic).
	Kind string `json:"kind"`
	// URL is the request (the form's action, with the query for GET);
	// Final the answer's URL after redirects.
	URL    string `json:"url"`
	Final  string `json:"final,omitempty"`
	Status int    `json:"status,omitempty"`
	// Records is the number of records the result page lists, Total the
	// number it states (-1 none).
	Records int `json:"records"`
	Total   int `json:"total"`
	// NoResults is the page's phrase saying nothing matched.
	NoResults string `json:"no_results,omitempty"`
	// Size is the answer's length in bytes.
	Size int `json:"size"`
	// Signature identifies the records listed ("" when none).
	Signature string `json:"signature,omitempty"`
	// OnTopic is the topic classifier's probability that the records'
	// text is about the crawl's topic (0 without records).
	OnTopic float64 `json:"on_topic,omitempty"`
	// Login is set when the answer is a login page (a redirect to one, or
	// a page whose only form asks for a password).
	Login bool `json:"login,omitempty"`
	// Error is why the query got no answer.
	Error string `json:"error,omitempty"`
}

// FormID is the stable identifier of the index-th form of pageURL: 16 hex
// digits of SHA-256 over the URL and index, so re-finding a form on a
// re-fetched page updates the same record.
func FormID(pageURL string, index int) string {
	h := sha256.New()
	h.Write([]byte(pageURL))
	h.Write([]byte{0})
	h.Write([]byte(strconv.Itoa(index)))
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// Model is a saved classifier or ranker. Stored in TagModels under
// (Name, Version) as a format byte, SavedAt and the raw Data.
type Model struct {
	Name    string
	Version int // 1, 2, …; PutModel assigns the next one when zero
	Data    []byte
	SavedAt time.Time
}

func modelKey(b []byte, name string, version int) []byte {
	b = AppendString(append(b, TagModels), name)
	return AppendUint64(b, uint64(version))
}

func encodeModel(b []byte, m *Model) []byte {
	b = append(b, codecV1)
	b = appendTime(b, m.SavedAt)
	return append(b, m.Data...)
}

func decodeModel(key, val []byte) (Model, error) {
	var m Model
	if len(key) == 0 || key[0] != TagModels {
		return m, fmt.Errorf("model key %x: %w", key, ErrBadKey)
	}
	name, rest, err := DecodeString(key[1:])
	if err != nil {
		return m, fmt.Errorf("model key %x: %w", key, err)
	}
	v, _, err := DecodeUint64(rest)
	if err != nil {
		return m, fmt.Errorf("model key %x: %w", key, err)
	}
	m.Name, m.Version = name, int(v)
	r := reader{b: val}
	r.version("model")
	m.SavedAt = r.time("model saved")
	if r.err != nil {
		return m, fmt.Errorf("model %s v%d: %w", name, v, r.err)
	}
	m.Data = append([]byte(nil), r.b...)
	return m, nil
}
