// Package soakbench runs one crawl against a simulated web whose fault
// rates are raised far above the default (dwcrawl bench soak) and accounts
// for every faulty response the web served. The web is served on a
// loopback listener with a request log; each logged request is classified
// on the server's side (simweb.Web.Fault), and at the end each faulty URL
// must be explained by the crawl's records:
//
//   - a permanent fault (500, 404, redirect loop) by a failure record
//     (store.Failure) with the matching cause;
//   - a transient one (503 with Retry-After, connection reset) by a failure
//     record with its cause, or by a later request of the same URL and a
//     page recorded without error (the retry worked);
//   - a slow page by its page record, or a failure with cause "timeout";
//   - an oversized or malformed page by its page record (truncated at the
//     fetcher's size limit; parsed as well as it can be).
//
// Links to hosts the web does not have never reach the server; they are
// counted from the failure records (cause "blocked": in testbed mode a
// host outside the web is refused before any connection).
package soakbench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"sort"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/dwcrawl/dwcrawl/core/crawl"
	"github.com/dwcrawl/dwcrawl/core/profile"
	"github.com/dwcrawl/dwcrawl/internal/app"
	"github.com/dwcrawl/dwcrawl/store"
	"github.com/dwcrawl/dwcrawl/testbed/simweb"
)

// Options configure a soak.
type Options struct {
	Profile *profile.Profile
	// Pages is the crawl's page budget; Workers its workers; Sites the
	// size of the web.
	Pages, Workers, Sites int
	// Seed seeds the web and the crawl.
	Seed int64
	// Faults are the web's fault rates (Faults() when zero).
	Faults *simweb.FaultConfig
	// Dir is the crawl directory (a temporary one, removed, when "").
	Dir string
	// Progress, when set, is called with the crawl's snapshots.
	Progress func(crawl.Snapshot)
}

// Faults are the soak's fault rates: every kind simweb has, about 30 times
// the default rates, so that a 30,000-page crawl meets over 10,000 faulty
// responses.
func Faults() simweb.FaultConfig {
	return simweb.FaultConfig{
		Error: 0.06, Flaky: 0.08, Slow: 0.01, SlowDelay: simweb.Duration(300 * time.Millisecond), Reset: 0.06,
		Oversize: 0.004, OversizeBytes: 5 << 20, Malformed: 0.10,
		BrokenLink: 0.08, Redirect: 0.05, Loop: 0.02, Calendar: 0.03, SessionID: 0.04,
	}
}

// Kind is what was measured for one fault kind.
type Kind struct {
	Kind      string `json:"kind"`
	Responses int    `json:"responses"`   // faulty responses served
	URLs      int    `json:"urls"`        // distinct URLs served them
	Failures  int    `json:"failures"`    // URLs explained by a failure record with the matching cause
	Recovered int    `json:"recovered"`   // URLs explained by a page recorded without error
	Missing   int    `json:"unexplained"` // URLs neither explains
	// Causes counts the failure records' causes of this kind's URLs.
	Causes map[string]int `json:"causes"`
	// Examples are a few unexplained URLs.
	Examples []string `json:"examples,omitempty"`
}

// Result is what a soak measured.
type Result struct {
	Pages          int64          `json:"pages"`
	Requests       int            `json:"requests"`        // requests the server received
	FaultResponses int            `json:"fault_responses"` // of those, faulty
	Kinds          []Kind         `json:"kinds"`
	FailureRecords int            `json:"failure_records"`   // in the store at the end
	FailureCauses  map[string]int `json:"failure_causes"`    // of all failure records
	NoCause        int            `json:"failures_no_cause"` // failure records without a cause
	NoHost         int            `json:"no_host_failures"`  // failures of hosts outside the web
	Seconds        float64        `json:"seconds"`
	Seed           int64          `json:"seed"`
}

// OK reports whether every faulty response is explained and every
// failure record has a cause.
func (r *Result) OK() bool {
	if r.NoCause > 0 || r.FaultResponses == 0 {
		return false
	}
	for _, k := range r.Kinds {
		if k.Missing > 0 {
			return false
		}
	}
	return true
}

// reqLog collects the server's request lines: per URL, the number of
// requests.
type reqLog struct {
	mu    sync.Mutex
	buf   []byte
	order []string
	count map[string]int
}

func (l *reqLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, p...)
	for {
		i := strings.IndexByte(string(l.buf), '\n')
		if i < 0 {
			break
		}
		line := string(l.buf[:i])
		l.buf = l.buf[i+1:]
		method, u, ok := strings.Cut(line, " ")
		if !ok || method != "GET" {
			continue
		}
		if l.count[u] == 0 {
			l.order = append(l.order, u)
		}
		l.count[u]++
	}
	return len(p), nil
}

// expected lists the failure causes that explain a fault kind.
var expected = map[string][]string{
	"error":     {"http-500"},
	"not-found": {"http-404"},
	"loop":      {"redirect-loop", "redirects"},
	"flaky":     {"http-503"},
	"reset":     {"reset", "network"},
	"slow":      {"timeout"},
	"oversize":  nil,
	"malformed": {"parse"},
}

// transientOK lists the kinds a page recorded without error explains.
var transientOK = map[string]bool{"flaky": true, "reset": true, "slow": true, "oversize": true, "malformed": true}

// Run crawls the faulty web and accounts for its faults.
func Run(ctx context.Context, o Options) (*Result, error) {
	if o.Profile == nil || o.Pages <= 0 {
		return nil, fmt.Errorf("soak: want a profile and pages > 0")
	}
	cfg := simweb.DefaultConfig()
	cfg.Seed = o.Seed
	if o.Sites > 0 {
		cfg.Sites = o.Sites
	}
	cfg.Faults = Faults()
	if o.Faults != nil {
		cfg.Faults = *o.Faults
	}
	w, err := simweb.New(cfg)
	if err != nil {
		return nil, err
	}
	log := &reqLog{count: map[string]int{}}
	srv, err := w.Listen("127.0.0.1:0", simweb.ServeOptions{RequestLog: log})
	if err != nil {
		return nil, err
	}
	defer srv.Close()
	dir := o.Dir
	if dir == "" {
		if dir, err = os.MkdirTemp("", "dwcrawl-soak-"); err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
	}
	start := time.Now()
	c, err := app.NewCrawl(ctx, app.CrawlOptions{Profile: o.Profile, Dir: dir, Workers: o.Workers, Pages: o.Pages, Seed: o.Seed,
		Web: w, WebAddr: srv.Addr, NoSync: true, Progress: o.Progress, Logger: quietLogger(),
		Reverse: app.Reverse(o.Profile, true, nil, quietLogger())})
	if err != nil {
		return nil, err
	}
	sn, runErr := c.Run(ctx)
	db := c.DB
	res := &Result{Pages: sn.Pages, Seed: o.Seed, Seconds: time.Since(start).Seconds()}
	if runErr == nil {
		runErr = account(res, w, log, db)
	}
	if err := c.Close(); runErr == nil {
		runErr = err
	}
	if runErr != nil {
		return nil, runErr
	}
	return res, nil
}

// account classifies the logged requests and explains each faulty URL by
// the crawl's records.
func account(res *Result, w *simweb.Web, log *reqLog, db *store.DB) error {
	fails := map[string]store.Failure{}
	res.FailureCauses = map[string]int{}
	if err := db.ScanFailures("", func(f store.Failure) error {
		fails[f.URL] = f
		res.FailureRecords++
		res.FailureCauses[f.Cause]++
		if f.Cause == "" {
			res.NoCause++
		}
		if u, err := url.Parse(f.URL); err == nil && !w.HasHost(u.Host) {
			res.NoHost++
		}
		return nil
	}); err != nil {
		return err
	}
	// page records by URL and by the URL they ended on after redirects
	ok := map[string]bool{}
	failedAt := map[string]string{} // final URL → URL of its failure record
	if err := db.ScanJSON(store.TagPages, nil, func(_, val []byte) error {
		var rec struct {
			URL   string `json:"url"`
			Final string `json:"final"`
			Err   string `json:"err"`
		}
		if err := json.Unmarshal(val, &rec); err != nil {
			return err
		}
		for _, u := range []string{rec.URL, rec.Final} {
			if u == "" {
				continue
			}
			if rec.Err == "" {
				ok[u] = true
			} else {
				failedAt[u] = rec.URL
			}
		}
		return nil
	}); err != nil {
		return err
	}
	log.mu.Lock()
	defer log.mu.Unlock()
	kinds := map[string]*Kind{}
	for _, k := range simweb.FaultKinds {
		kinds[k] = &Kind{Kind: k, Causes: map[string]int{}}
	}
	for _, raw := range log.order {
		n := log.count[raw]
		res.Requests += n
		u, err := url.Parse(raw)
		if err != nil {
			continue
		}
		kind := w.Fault(u)
		if kind == "" {
			continue
		}
		k := kinds[kind]
		faulty := n
		if kind == "flaky" || kind == "reset" {
			faulty = 1 // only the first request of the URL faults
		}
		k.Responses += faulty
		res.FaultResponses += faulty
		k.URLs++
		f, has := fails[raw]
		if !has {
			if src, ok := failedAt[raw]; ok {
				f, has = fails[src]
			}
		}
		switch {
		case has && contains(expected[kind], f.Cause):
			k.Failures++
			k.Causes[f.Cause]++
		case transientOK[kind] && ok[raw] && (n > 1 || kind == "slow" || kind == "oversize" || kind == "malformed"):
			k.Recovered++
		default:
			k.Missing++
			if has {
				k.Causes[f.Cause]++
			}
			if len(k.Examples) < 5 {
				why := "no record"
				if has {
					why = "failure cause " + f.Cause
				} else if ok[raw] {
					why = "recorded without error after one request"
				}
				k.Examples = append(k.Examples, raw+" ("+why+")")
			}
		}
	}
	for _, k := range simweb.FaultKinds {
		res.Kinds = append(res.Kinds, *kinds[k])
	}
	return nil
}

func contains(s []string, x string) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}

// WriteText prints the result as a table.
func WriteText(out io.Writer, r *Result) {
	fmt.Fprintf(out, "soak: seed %d, %d pages in %.0f s, %d requests served, %d faulty responses\n",
		r.Seed, r.Pages, r.Seconds, r.Requests, r.FaultResponses)
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "fault\tresponses\tURLs\tfailure records\trecovered\tunexplained\tcauses\t")
	for _, k := range r.Kinds {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%s\t\n", k.Kind, k.Responses, k.URLs, k.Failures, k.Recovered, k.Missing, causeList(k.Causes))
	}
	tw.Flush()
	fmt.Fprintf(out, "failure records: %d (%s); without a cause: %d; hosts outside the web: %d\n",
		r.FailureRecords, causeList(r.FailureCauses), r.NoCause, r.NoHost)
	for _, k := range r.Kinds {
		for _, e := range k.Examples {
			fmt.Fprintf(out, "unexplained %s: %s\n", k.Kind, e)
		}
	}
	if r.OK() {
		fmt.Fprintln(out, "every faulty response is explained by the crawl's records")
	}
}

func causeList(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteString(" ")
		}
		fmt.Fprintf(&b, "%s %d", k, m[k])
	}
	return b.String()
}

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
