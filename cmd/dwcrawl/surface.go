package main

import (
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/dwcrawl/dwcrawl/core/profile"
	"github.com/dwcrawl/dwcrawl/core/records"
	"github.com/dwcrawl/dwcrawl/core/surface"
	"github.com/dwcrawl/dwcrawl/internal/app"
)

func init() {
	register(&cli.Command{
		Name:      "surface",
		Usage:     "download the hidden database behind a keyword interface with adaptively chosen queries (Ntoulas et al.)",
		UsageText: "dwcrawl surface --interface keyword/NAME[?var=value&…]|FILE.lua|URL | --form FORM_ID  --dir DIR [--policy adaptive] [--budget N] [--cost cq,cr,cd] [--first WORD] [--wordlist FILE] [--explain]",
		Description: "Sends one query at a time, reads its result pages (up to the interface's limit), stores the new\n" +
			"records in DIR (deduplicated by id, else URL) and picks the next query: adaptive learns from the\n" +
			"records downloaded so far (query statistics table, efficiency P_new/cost with the result-limit\n" +
			"correction), generic takes the most frequent words of a generic word list, random takes words of\n" +
			"the list at random. --interface is a Lua keyword plugin (bundled: keyword/simweb, keyword/dblp,\n" +
			"keyword/openlibrary, keyword/htmlform; variables after '?') or the http(s) URL of a hiddendb/simweb\n" +
			"JSON search API; --form drives a searchable form the crawl in DIR discovered: it fills the form's\n" +
			"query box (seeded with --profile's keywords, the form's own options and the words of its page),\n" +
			"tests which of its selects and radio buttons change the results and enumerates those, reads the\n" +
			"records of each result page from their repeated structure and follows the site's own next-page\n" +
			"link or button. Every query is journaled in DIR: run the same command again (with a larger\n" +
			"--budget, which counts all the queries of the source) to continue. `dwcrawl docs --dir DIR`\n" +
			"exports the records. The coverage estimate (records downloaded / estimated database size) comes\n" +
			"with a 90% interval and the estimator's name (stratified Schnabel capture–recapture over the\n" +
			"queries' match sets; `exact` when the interface reports its size); an interface that hides its\n" +
			"totals and cuts every answer gets a few size probes (--no-probe turns them off). --explain shows how\n" +
			"the first result page of a form was read (records region, first records, pager or why none, page size,\n" +
			"counts); a --profile's sites table gives a site's own CSS selectors for its records and next page.",
		Flags: append([]cli.Flag{
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
			&cli.IntFlag{Name: "stop-after", Usage: "stop after `N` consecutive queries that download nothing new (0 = run to the budget)"},
			&cli.IntFlag{Name: "max-requests", Usage: "most search requests the plugin may send, retries included (0 = unlimited)"},
			&cli.BoolFlag{Name: "keep-stopwords", Usage: "issue stop words too (default: as the plugin declares; hiddendb ignores them)"},
			&cli.Int64Flag{Name: "seed", Value: 1, Usage: "seed of the random policy"},
			&cli.StringSliceFlag{Name: "plugins", Usage: "user plugin `DIR` searched before the bundled plugins (repeatable)"},
			&cli.StringFlag{Name: "profile", Usage: "with --form: domain profile `FILE` whose keywords are the first queries and whose politeness the requests keep (default: the profile the crawl recorded)"},
			&cli.BoolFlag{Name: "details", Usage: "with --form: fetch each new record's own page (one request per record)"},
			&cli.BoolFlag{Name: "browse", Usage: "with --form: read every result page of the empty query when the site lists records for it"},
			&cli.BoolFlag{Name: "explain", Usage: "with --form: report how the first result page was read: the records region, the first records, the pager or why none, the page size and every count it states (field explain with --json)"},
			&cli.BoolFlag{Name: "no-probe", Usage: "no size probes (queries spent on the coverage estimate when the interface hides its totals)"},
			&cli.BoolFlag{Name: "quiet", Usage: "no progress on stderr"},
			&cli.BoolFlag{Name: "json", Usage: "print the summary as JSON"},
			&cli.StringFlag{Name: "warc", Usage: "archive every HTTP exchange of the interface (request and response records) as WARC 1.1 files in `DIR`"},
		}, append(netFlags(), clusterBudgetFlags...)...),
		Action: runSurface,
	})
}

func runSurface(c *cli.Context) error {
	if (c.String("interface") == "") == (c.String("form") == "") {
		return errExit{2, errors.New("give exactly one of --interface and --form")}
	}
	sel, words, err := surfacePolicyFlags(c)
	if err != nil {
		return err
	}
	opt := app.SurfaceOptions{
		Interface: c.String("interface"), Form: c.String("form"), Dir: c.String("dir"), Source: c.String("source"),
		Policy: c.String("policy"), Budget: c.Int("budget"), CostBudget: c.Float64("cost-budget"),
		Select: sel, Words: words, First: c.String("first"), K: c.Int("k"),
		MaxPages: c.Int("max-pages"), MaxRequests: c.Int("max-requests"), KeepStopWords: c.Bool("keep-stopwords"),
		Seed: c.Int64("seed"), PluginDirs: c.StringSlice("plugins"), Net: netOptions(c), WARC: c.String("warc"),
		NoProbe: c.Bool("no-probe"), StopAfter: c.Int("stop-after"), Details: c.Bool("details"), Browse: c.Bool("browse"),
	}
	if f := c.String("profile"); f != "" {
		p, err := profile.Load(c.Context, f)
		if err != nil {
			return errExit{2, err}
		}
		opt.Profile, opt.Seeds = p, p.Keywords
		if len(p.Sites) > 0 {
			opt.Sites = func(host string) (records.Selectors, bool) {
				s, ok := p.SiteFor(host)
				return s.Selectors("profile " + f), ok
			}
		}
	}
	if c.Bool("explain") {
		if c.String("form") == "" {
			return errExit{2, errors.New("--explain reads a form's result pages: give --form")}
		}
		opt.Explain = true
	}
	if !c.Bool("quiet") {
		opt.Progress = c.App.ErrWriter
	}
	gate, closeBudget, err := clusterBudget(c)
	if err != nil {
		return err
	}
	defer closeBudget()
	opt.Gate = gate
	sum, herr := app.Surface(c.Context, opt)
	if sum == nil {
		return herr
	}
	if c.Bool("json") {
		if err := writeJSON(c.App.Writer, sum); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(c.App.Writer, "%s: %d queries, %d records, cost %g", sum.Source, sum.Queries, sum.Docs, sum.Cost)
		if sum.Coverage != nil {
			fmt.Fprintf(c.App.Writer, ", estimated size %.0f (coverage %.1f%%, %.0f%% interval %.1f–%.1f%%, %s)",
				*sum.EstSize, 100**sum.Coverage, 100*sum.CoverageLevel, 100**sum.CoverageLow, 100**sum.CoverageHigh, sum.Estimator)
		} else {
			fmt.Fprintf(c.App.Writer, ", coverage not estimated yet (estimator %s)", sum.Estimator)
		}
		if f := sum.Form; f != nil {
			fmt.Fprintf(c.App.Writer, "\nform: query box %s", f.Box)
			if f.BoxRequired != nil {
				fmt.Fprintf(c.App.Writer, " (required: %v)", *f.BoxRequired)
			}
			for _, in := range f.Inputs {
				fmt.Fprintf(c.App.Writer, "; %s %s: %d of %d tested values distinct, informative %v", in.Kind, in.Name, in.Distinct, in.Tested, in.Informative)
			}
			fmt.Fprintf(c.App.Writer, "; %d binding queries, %d requests", f.BindingQueries, sum.Requests)
		}
		fmt.Fprintf(c.App.Writer, "\nrecords stored in %s; export with: dwcrawl docs --dir %s --source %q\n", sum.Dir, sum.Dir, sum.Source)
		if sum.WARC != nil {
			fmt.Fprintf(c.App.Writer, "warc: %s\n", sum.WARC)
		}
		if opt.Explain {
			if sum.Explain != nil {
				sum.Explain.WriteText(c.App.Writer)
			} else {
				fmt.Fprintln(c.App.Writer, "explain: no result page was read in this run")
			}
		}
	}
	return herr
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
