package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/dwcrawl/dwcrawl/core/crawl"
	"github.com/dwcrawl/dwcrawl/core/fetch"
	"github.com/dwcrawl/dwcrawl/core/form"
	"github.com/dwcrawl/dwcrawl/core/page"
	"github.com/dwcrawl/dwcrawl/core/probe"
	"github.com/dwcrawl/dwcrawl/core/records"
	"github.com/dwcrawl/dwcrawl/store"
)

// ProbedForm is one form of a page classified and, when searchable,
// probed (classify --probe --json).
type ProbedForm struct {
	Index  int    `json:"index"`
	Action string `json:"action"`
	Method string `json:"method"`
	form.Decision
	Probe *store.Probe `json:"probe,omitempty"`
	// NotProbed says why a form was not submitted.
	NotProbed string `json:"not_probed,omitempty"`
}

// classifyProbe fetches the page opt.Target with a crawler's fetcher
// (robots.txt, politeness, the address policy), classifies its forms with
// the profile's classifiers and probes every searchable one.
func classifyProbe(ctx context.Context, opt ClassifyOptions, w io.Writer) error {
	p := opt.Profile
	if p == nil {
		return &OptionError{Option: "profile", Err: errors.New("--probe needs a profile: its keywords are the probe's topic terms")}
	}
	if !strings.HasPrefix(opt.Target, "http://") && !strings.HasPrefix(opt.Target, "https://") {
		return &OptionError{Err: fmt.Errorf("--probe submits the forms of a page on the web: give its http(s) URL, not %q", opt.Target)}
	}
	queries := opt.ProbeQueries
	if queries == 0 {
		queries = p.Probe.Queries
	}
	if queries == 0 {
		queries = 4
	}
	fo := crawl.FetchOptions(p)
	if err := opt.Net.apply(&fo); err != nil {
		return err
	}
	fo.Jar = fetch.NewJar(nil, nil)
	if opt.Fetch != nil {
		fo = *opt.Fetch
	}
	f, err := fetch.New(fo)
	if err != nil {
		return err
	}
	defer f.Close()
	resp, err := f.Fetch(ctx, opt.Target)
	if err != nil {
		return fmt.Errorf("classify: %w", err)
	}
	base, err := url.Parse(resp.URL)
	if err != nil {
		return fmt.Errorf("classify: %w", err)
	}
	pg, err := page.Parse(resp.Body, "text/html; charset=utf-8", base)
	if err != nil {
		return fmt.Errorf("classify: %w", err)
	}
	cls, err := crawl.NewClassifiers(ctx, p, f, crawl.TopicURLs(p, p.Seeds), nil, DefaultFormSeed)
	if err != nil {
		return fmt.Errorf("classify: %w", err)
	}
	pr, err := probe.New(f, probe.Options{Queries: queries, Terms: p.Keywords})
	if err != nil {
		return &OptionError{Err: err}
	}
	tmpl, _ := records.TemplateOf(resp.Body, base)
	ds := cls.Forms.ClassifyPage(pg)
	out := make([]ProbedForm, len(ds))
	for i, d := range ds {
		pf := &pg.Forms[i]
		out[i] = ProbedForm{Index: i, Action: pf.Action, Method: pf.Method, Decision: d}
		if err := probe.Submittable(pf, d); err != nil {
			out[i].NotProbed = err.Error()
			continue
		}
		res, err := pr.Probe(ctx, pf, d, pg.Text, tmpl, cls.Sites)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			out[i].NotProbed = err.Error()
			continue
		}
		out[i].Probe = res
	}
	if opt.JSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{"url": pg.URL, "profile": p.Name, "forms": out})
	}
	fmt.Fprintf(w, "%s: %d form(s), probed with %d queries each (profile %s)\n", pg.URL, len(out), queries, p.Name)
	for _, o := range out {
		fmt.Fprintf(w, "\n#%d %s %s\n   kind %-12s p(searchable)=%.3f", o.Index, o.Method, o.Action, o.Kind, o.PSearchable)
		if o.Domain != "" {
			fmt.Fprintf(w, "  domain %s p=%.3f relevant=%v", o.Domain, o.PDomain, o.Relevant)
		}
		fmt.Fprintln(w)
		if o.Probe == nil {
			fmt.Fprintf(w, "   not probed: %s\n", o.NotProbed)
			continue
		}
		fmt.Fprintf(w, "   probe: %s\n", o.Probe.Decision)
		for _, e := range o.Probe.Evidence {
			fmt.Fprintf(w, "   - %s\n", e)
		}
	}
	return nil
}
