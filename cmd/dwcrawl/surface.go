package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/dwcrawl/dwcrawl/core/crawl"
	"github.com/dwcrawl/dwcrawl/core/fetch"
	"github.com/dwcrawl/dwcrawl/core/keyword"
	"github.com/dwcrawl/dwcrawl/core/surface"
	"github.com/dwcrawl/dwcrawl/plugins"
	"github.com/dwcrawl/dwcrawl/store"
	"github.com/dwcrawl/dwcrawl/testbed/simweb"
)

func init() {
	register(&cli.Command{
		Name:      "surface",
		Usage:     "download the hidden database behind a keyword interface with adaptively chosen queries (Ntoulas et al.)",
		UsageText: "dwcrawl surface --interface keyword/NAME[?var=value&…]|FILE.lua|URL | --form FORM_ID  --dir DIR [--policy adaptive] [--budget N] [--cost cq,cr,cd] [--first WORD] [--wordlist FILE]",
		Description: "Sends one query at a time, reads its result pages (up to the interface's limit), stores the new\n" +
			"records in DIR (deduplicated by id, else URL) and picks the next query: adaptive learns from the\n" +
			"records downloaded so far (query statistics table, efficiency P_new/cost with the result-limit\n" +
			"correction), generic takes the most frequent words of a generic word list, random takes words of\n" +
			"the list at random. --interface is a Lua keyword plugin (bundled: keyword/simweb, keyword/dblp,\n" +
			"keyword/openlibrary, keyword/htmlform; variables after '?') or the http(s) URL of a hiddendb/simweb\n" +
			"JSON search API; --form drives a searchable form the crawl in DIR discovered, through\n" +
			"keyword/htmlform. Every query is journaled in DIR: run the same command again (with a larger\n" +
			"--budget, which counts all the queries of the source) to continue. `dwcrawl docs --dir DIR`\n" +
			"exports the records.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "interface", Usage: "keyword interface: a Lua keyword plugin (`SPEC` keyword/NAME?var=value) or the http(s) URL of a JSON search API"},
			&cli.StringFlag{Name: "form", Usage: "`FORM_ID` of a searchable form discovered by the crawl in --dir"},
			&cli.StringFlag{Name: "dir", Usage: "crawl `DIR`: where the harvest is stored and resumed (and --form is looked up)", Required: true},
			&cli.StringFlag{Name: "source", Usage: "name of the harvest in DIR (default: the plugin, URL or form:ID)"},
			&cli.StringFlag{Name: "policy", Value: "adaptive", Usage: "adaptive, generic or random"},
			&cli.IntFlag{Name: "budget", Value: 100, Usage: "total queries for this source (resumed ones included); 0 = until the policy runs out"},
			&cli.Float64Flag{Name: "cost-budget", Usage: "stop once the spent cost reaches this (0 = no limit)"},
			&cli.StringFlag{Name: "cost", Value: "1,0,0", Usage: "cost model `cq,cr,cd`: per query, per result, per new record"},
			&cli.StringFlag{Name: "estimator", Value: "independence", Usage: "adaptive's estimator of P(q): independence or zipf"},
			&cli.StringFlag{Name: "first", Usage: "first query (default: a frequent generic word)"},
			&cli.StringFlag{Name: "wordlist", Usage: "word list `FILE` of generic/random and of the first queries (default: bundled SUBTLEX-US list)"},
			&cli.IntFlag{Name: "k", Usage: "result limit of the interface (default: declared by the plugin or inferred)"},
			&cli.IntFlag{Name: "max-pages", Usage: "result pages read per query (0 = all)"},
			&cli.IntFlag{Name: "max-requests", Usage: "most search requests the plugin may send, retries included (0 = unlimited)"},
			&cli.BoolFlag{Name: "keep-stopwords", Usage: "issue stop words too (default: as the plugin declares; hiddendb ignores them)"},
			&cli.Int64Flag{Name: "seed", Value: 1, Usage: "seed of the random policy"},
			&cli.StringSliceFlag{Name: "plugins", Usage: "user plugin `DIR` searched before the bundled plugins (repeatable)"},
			&cli.BoolFlag{Name: "quiet", Usage: "no progress on stderr"},
			&cli.BoolFlag{Name: "json", Usage: "print the summary as JSON"},
		},
		Action: runSurface,
	})
}

// surfaceSummary is what `dwcrawl surface` reports.
type surfaceSummary struct {
	Source   string   `json:"source"`
	Policy   string   `json:"policy"`
	Queries  int      `json:"queries"`
	Docs     int      `json:"docs"`
	Cost     float64  `json:"cost"`
	EstSize  *float64 `json:"est_size"`
	Coverage *float64 `json:"est_coverage"`
	K        int      `json:"k,omitempty"`
	Dir      string   `json:"dir"`
}

func runSurface(c *cli.Context) error {
	ctx := c.Context
	iface, formID := c.String("interface"), c.String("form")
	if (iface == "") == (formID == "") {
		return errExit{2, errors.New("give exactly one of --interface and --form")}
	}
	sel, words, err := surfacePolicyFlags(c)
	if err != nil {
		return err
	}
	cost := sel.Cost
	db, err := store.Open(c.String("dir"), store.Options{})
	if err != nil {
		return err
	}
	defer db.Close()

	src, err := openSurfaceInterface(ctx, c, db)
	if err != nil {
		return err
	}
	defer src.close()
	k := c.Int("k")
	if k == 0 {
		k = src.k
	}
	terms := surface.TermOptions{KeepStopWords: c.Bool("keep-stopwords") || src.keepStops}
	policy, err := surface.NewPolicy(c.String("policy"), surface.PolicyOptions{
		Words: words, Seed: c.Int64("seed"),
		Select: surface.SelectOptions{Estimator: sel.Estimator, Cost: cost, K: k},
	})
	if err != nil {
		return errExit{2, err}
	}
	source := c.String("source")
	if source == "" {
		source = src.name
	}
	prog := newSurfaceProgress(c.App.ErrWriter, c.Bool("quiet"))
	st, herr := surface.Harvest(ctx, src.searcher, policy, surface.Options{
		Source: source, Budget: c.Int("budget"), CostBudget: c.Float64("cost-budget"), Cost: cost,
		K: k, MaxPages: c.Int("max-pages"), First: c.String("first"), Terms: terms,
		Journal:  &surface.StoreJournal{DB: db, Source: source},
		Progress: prog.report,
	})
	prog.done()
	sum := surfaceSummary{Source: source, Policy: policy.Name(), Dir: db.Dir()}
	if st != nil {
		sum.Queries, sum.Docs, sum.Cost, sum.K = len(st.Log()), st.Docs(), st.Cost(), st.K()
		if size, ok := st.Stats.Size(); ok {
			cov := float64(st.Docs()) / size
			sum.EstSize, sum.Coverage = &size, &cov
		}
	}
	if c.Bool("json") {
		if err := writeJSON(c.App.Writer, sum); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(c.App.Writer, "%s: %d queries, %d records, cost %g", sum.Source, sum.Queries, sum.Docs, sum.Cost)
		if sum.Coverage != nil {
			fmt.Fprintf(c.App.Writer, ", estimated size %.0f (coverage %.1f%%)", *sum.EstSize, 100**sum.Coverage)
		}
		fmt.Fprintf(c.App.Writer, "\nrecords stored in %s; export with: dwcrawl docs --dir %s --source %q\n", sum.Dir, sum.Dir, sum.Source)
	}
	return herr
}

// surfaceInterface is the opened keyword interface of a surface run.
type surfaceInterface struct {
	searcher  surface.Searcher
	name      string
	k         int
	keepStops bool
	close     func()
}

func openSurfaceInterface(ctx context.Context, c *cli.Context, db *store.DB) (*surfaceInterface, error) {
	spec := c.String("interface")
	name := spec
	var fetchOpt *fetch.Options
	closeWeb := func() {}
	if id := c.String("form"); id != "" {
		f, ok, err := db.GetForm(id)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, errExit{2, fmt.Errorf("--form %s: no such form in %s (see `dwcrawl forms --dir %s`)", id, db.Dir(), db.Dir())}
		}
		vars, err := surface.FormVars(f)
		if err != nil {
			return nil, errExit{2, err}
		}
		vals := url.Values{}
		for k, v := range vars {
			vals.Set(k, v)
		}
		spec, name = "keyword/htmlform?"+vals.Encode(), "form:"+id
		if fo, stop, ok, err := testbedFetch(db); err != nil {
			return nil, err
		} else if ok {
			fetchOpt, closeWeb = &fo, stop
		}
	}
	if strings.HasPrefix(spec, "http://") || strings.HasPrefix(spec, "https://") {
		base := strings.TrimSuffix(strings.TrimRight(spec, "/"), "/api/search")
		s, err := keyword.NewAPISearcher(base)
		if err != nil {
			return nil, errExit{2, err}
		}
		s.Client = &http.Client{Timeout: time.Minute}
		return &surfaceInterface{searcher: keyword.Limited(keyword.Retrying(s, keyword.RetryOptions{}), c.Int("max-requests")), name: base, close: func() {}}, nil
	}
	kp, err := openKeywordPluginFetch(ctx, spec, plugins.KeywordOptions{Budget: c.Int("max-requests")}, fetchOpt, c.StringSlice("plugins")...)
	if err != nil {
		closeWeb()
		return nil, err
	}
	info := kp.Info()
	if c.String("form") == "" {
		name, _, _ = strings.Cut(spec, "?")
	}
	return &surfaceInterface{searcher: pluginSearcher{kp}, name: name, k: info.K, keepStops: !info.StopWords, close: func() { kp.Close(); closeWeb() }}, nil
}

// surfaceProgress prints a progress line on stderr at most once a second.
type surfaceProgress struct {
	w     io.Writer
	quiet bool
	last  time.Time
	pend  *surface.Progress
}

func newSurfaceProgress(w io.Writer, quiet bool) *surfaceProgress {
	return &surfaceProgress{w: w, quiet: quiet}
}

func (p *surfaceProgress) report(pr surface.Progress) {
	if p.quiet {
		return
	}
	if time.Since(p.last) < time.Second {
		p.pend = &pr
		return
	}
	p.print(pr)
}

func (p *surfaceProgress) print(pr surface.Progress) {
	p.last, p.pend = time.Now(), nil
	cov := "?"
	if !math.IsNaN(pr.Coverage) {
		cov = fmt.Sprintf("%.1f%% of ~%.0f", 100*pr.Coverage, pr.EstSize)
	}
	total := "?"
	if pr.Last.Total >= 0 {
		total = fmt.Sprint(pr.Last.Total)
	}
	line := fmt.Sprintf("surface: %d queries, %d records (est. coverage %s); last %q: %d of %s results, %d new",
		pr.Queries, pr.Docs, cov, pr.Last.Query, pr.Last.Returned, total, pr.Last.New)
	if pr.Last.Error != "" {
		line += " (error: " + pr.Last.Error + ")"
	}
	fmt.Fprintln(p.w, line)
}

func (p *surfaceProgress) done() {
	if p.pend != nil && !p.quiet {
		p.print(*p.pend)
	}
}

// surfacePolicyFlags reads the flags surface and bench surface share: the
// adaptive policy's estimator and cost model, and the word list.
func surfacePolicyFlags(c *cli.Context) (surface.SelectOptions, []string, error) {
	est, err := surface.ParseEstimator(c.String("estimator"))
	if err != nil {
		return surface.SelectOptions{}, nil, errExit{2, err}
	}
	cost, err := surface.ParseCost(c.String("cost"))
	if err != nil {
		return surface.SelectOptions{}, nil, errExit{2, err}
	}
	var words []string
	if f := c.String("wordlist"); f != "" {
		if words, err = surface.LoadWordList(f); err != nil {
			return surface.SelectOptions{}, nil, errExit{2, err}
		}
	}
	return surface.SelectOptions{Estimator: est, Cost: cost}, words, nil
}

// testbedFetch serves again the simulated web a testbed crawl of db ran on
// (recorded by the crawl) and returns fetcher options that reach it; ok is
// false for a crawl of the real web.
func testbedFetch(db *store.DB) (fo fetch.Options, stop func(), ok bool, err error) {
	raw, ok, err := db.Testbed()
	if err != nil || !ok {
		return fo, nil, false, err
	}
	cfg, err := simweb.ParseConfig(raw)
	if err != nil {
		return fo, nil, false, fmt.Errorf("%s: the recorded simulated web config: %w", db.Dir(), err)
	}
	w, err := simweb.New(cfg)
	if err != nil {
		return fo, nil, false, fmt.Errorf("simulated web: %w", err)
	}
	srv, err := w.Listen("127.0.0.1:0", simweb.ServeOptions{})
	if err != nil {
		return fo, nil, false, fmt.Errorf("serving the simulated web: %w", err)
	}
	fo = crawl.TestbedFetch(fetch.DefaultOptions(), w, srv.Addr)
	fo.Retries = 0 // the plugin adapter retries
	return fo, func() { srv.Close() }, true, nil
}
