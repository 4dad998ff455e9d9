package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/dwcrawl/dwcrawl/core/fetch"
	"github.com/dwcrawl/dwcrawl/core/form"
	"github.com/dwcrawl/dwcrawl/core/page"
	"github.com/dwcrawl/dwcrawl/core/profile"
	"github.com/dwcrawl/dwcrawl/internal/shareddata"
)

// DefaultFormSeed is the seed of training and cross-validation unless one
// is given.
const DefaultFormSeed = 1

// dataDir returns dir, or the shared Formasaurus folder when dir is empty.
func dataDir(dir string) (string, error) {
	if dir != "" {
		return dir, nil
	}
	d, err := shareddata.Dir()
	if err != nil {
		return "", fmt.Errorf("%w and %w", ErrNoData, err)
	}
	return filepath.Join(d, "formasaurus"), nil
}

// TrainFormsOptions configure the training of the form classifiers.
type TrainFormsOptions struct {
	Data string // Formasaurus-layout folder ("" = shared data)
	Out  string // model file to write
	Seed uint64
	// DomainLabels is a file of hand-labelled domains of the data's search
	// forms ([LoadDomainLabels]); when set, the domain classifier's level
	// thresholds are calibrated on them ([DSFC.CalibrateLevels]).
	DomainLabels string
}

// TrainForms trains a model (HIFI: searchable, kind, domain) on every
// labelled form of the data folder and writes it. Progress goes to w.
func TrainForms(ctx context.Context, opt TrainFormsOptions, w io.Writer) error {
	if opt.Out == "" {
		return fmt.Errorf("train forms: %w", ErrNoOut)
	}
	dir, err := dataDir(opt.Data)
	if err != nil {
		return fmt.Errorf("train forms: %w", err)
	}
	ex, st, err := form.LoadFormasaurus(ctx, dir)
	if err != nil {
		return fmt.Errorf("train forms: %w", err)
	}
	fmt.Fprintf(w, "loaded %d labelled forms from %d pages of %s (%d unlabelled skipped, %d pages with a form-count mismatch skipped)\n",
		st.Forms, st.Pages, dir, st.Skipped, len(st.Mismatched))
	fmt.Fprintf(w, "kinds: %s\n", kindCounts(ex))
	start := time.Now()
	m, err := form.Train(ctx, ex, form.DefaultTrainOptions(opt.Seed))
	if err != nil {
		return fmt.Errorf("train forms: %w", err)
	}
	if err := calibrateLevels(m, ex, opt.DomainLabels, w); err != nil {
		return fmt.Errorf("train forms: %w", err)
	}
	m.Meta = map[string]string{
		"trained_on": filepath.Base(filepath.Clean(dir)),
		"forms":      fmt.Sprint(st.Forms),
		"pages":      fmt.Sprint(st.Pages - len(st.Mismatched)),
		"seed":       fmt.Sprint(opt.Seed),
		"command":    "dwcrawl train forms --data DIR --out FILE",
	}
	if err := m.Save(opt.Out); err != nil {
		return fmt.Errorf("train forms: %w", err)
	}
	n, l := m.SFC.Tree.Size()
	fmt.Fprintf(w, "trained in %s: SFC tree %d nodes / %d leaves; wrote %s\n", time.Since(start).Round(time.Millisecond), n, l, opt.Out)
	return nil
}

// EvalFormsOptions configure the scoring of a form model.
type EvalFormsOptions struct {
	Data  string // Formasaurus-layout folder ("" = shared data)
	Model string // model file ("" = embedded default); ignored with CV
	CV    int    // > 1: cross-validate by training on Data itself
	JSON  bool
	Seed  uint64
}

// EvalForms scores a model on a labelled folder, or cross-validates, and
// prints the report (text or JSON) to w.
func EvalForms(ctx context.Context, opt EvalFormsOptions, w io.Writer) error {
	dir, err := dataDir(opt.Data)
	if err != nil {
		return fmt.Errorf("eval forms: %w", err)
	}
	ex, _, err := form.LoadFormasaurus(ctx, dir)
	if err != nil {
		return fmt.Errorf("eval forms: %w", err)
	}
	if len(ex) == 0 {
		return fmt.Errorf("eval forms: no labelled forms in %s", dir)
	}
	var r *form.Report
	if opt.CV > 1 {
		if r, err = form.CrossValidate(ctx, ex, opt.CV, form.DefaultTrainOptions(opt.Seed)); err != nil {
			return fmt.Errorf("eval forms: %w", err)
		}
	} else {
		m, name, err := loadOrDefault(opt.Model)
		if err != nil {
			return fmt.Errorf("eval forms: %w", err)
		}
		r = form.Evaluate(m, ex)
		r.Model = name
	}
	if opt.JSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	_, err = io.WriteString(w, r.Text())
	return err
}

func loadOrDefault(path string) (*form.Model, string, error) {
	if path == "" {
		m, err := form.Default()
		return m, "embedded default", err
	}
	m, err := form.LoadModel(path)
	return m, path, err
}

// ClassifyOptions configure the classification of a page's forms.
type ClassifyOptions struct {
	Target string // an HTML file or an http(s) URL
	// Net are the fetcher's network settings for a URL target.
	Net    NetOptions
	Model  string // model file ("" = embedded default)
	Domain string // target domain for the DSFC ("" = best domain)
	JSON   bool
	// Probe submits probe queries to every searchable form of the page
	// Target (a URL, fetched like a crawl does) and reports what each
	// fronts; Profile is then required (its keywords are the topic terms,
	// its domain the target domain).
	Probe   bool
	Profile *profile.Profile
	// ProbeQueries is the number of probe queries per form (0: the
	// profile's probe.queries, else 4).
	ProbeQueries int
	// Fetch replaces the probe's fetcher settings (tests).
	Fetch *fetch.Options
}

// Classify lists every form of a page with its kind, searchable
// probability, domain and reasons.
func Classify(ctx context.Context, opt ClassifyOptions, w io.Writer) error {
	if opt.Probe {
		return classifyProbe(ctx, opt, w)
	}
	m, _, err := loadOrDefault(opt.Model)
	if err != nil {
		return fmt.Errorf("classify: %w", err)
	}
	h, err := form.NewHIFI(m, opt.Domain)
	if err != nil {
		return fmt.Errorf("classify: %w", err)
	}
	p, err := loadTarget(ctx, opt.Target, opt.Net)
	if err != nil {
		return fmt.Errorf("classify: %w", err)
	}
	ds := h.ClassifyPage(p)
	if opt.JSON {
		type out struct {
			Index  int    `json:"index"`
			Action string `json:"action"`
			Method string `json:"method"`
			form.Decision
		}
		res := make([]out, len(ds))
		for i, d := range ds {
			res[i] = out{Index: i, Action: p.Forms[i].Action, Method: p.Forms[i].Method, Decision: d}
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{"url": p.URL, "forms": res})
	}
	fmt.Fprintf(w, "%s: %d form(s)\n", p.URL, len(ds))
	for i, d := range ds {
		f := &p.Forms[i]
		fmt.Fprintf(w, "\n#%d %s %s\n", i, f.Method, f.Action)
		fmt.Fprintf(w, "   kind %-12s p(searchable)=%.3f", d.Kind, d.PSearchable)
		if d.Domain != "" {
			fmt.Fprintf(w, "  domain %s p=%.3f relevant=%v", d.Domain, d.PDomain, d.Relevant)
		}
		fmt.Fprintln(w)
		for _, r := range d.Reasons {
			fmt.Fprintf(w, "   - %s\n", r)
		}
	}
	return nil
}

// loadTarget parses a local HTML file or fetches a URL through the
// crawler's fetcher.
func loadTarget(ctx context.Context, target string, net NetOptions) (*page.Page, error) {
	if target == "" {
		return nil, errors.New("give an HTML file or a URL")
	}
	if strings.HasPrefix(target, "http://") || strings.HasPrefix(target, "https://") {
		return fetchPage(ctx, target, net)
	}
	body, err := os.ReadFile(target)
	if err != nil {
		return nil, err
	}
	// A saved page is read as if served from http://localhost/FILE, so that
	// its relative actions resolve to http URLs like the crawler sees them.
	base := &url.URL{Scheme: "http", Host: "localhost", Path: "/" + filepath.Base(target)}
	return page.Parse(body, "", base)
}

// fetchPage fetches raw as a crawl would: robots.txt, the address policy
// (every address but the public ones needs AllowPrivate), --resolve, the
// proxy, retries, the body limit; it parses the page at its final URL.
func fetchPage(ctx context.Context, raw string, net NetOptions) (*page.Page, error) {
	fo, err := net.FetchOptions()
	if err != nil {
		return nil, err
	}
	fo.Delay = 0 // one page
	fo.Jar = fetch.NewJar(nil, nil)
	f, err := fetch.New(fo)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	resp, err := f.Fetch(ctx, raw)
	if err != nil {
		return nil, err
	}
	u, err := url.Parse(resp.URL)
	if err != nil {
		return nil, fmt.Errorf("fetch %s: final URL %q: %w", raw, resp.URL, err)
	}
	return page.Parse(resp.Body, "text/html; charset=utf-8", u)
}

// kindCounts returns "kind:n" counts of examples, for logs.
func kindCounts(ex []form.Example) string {
	c := make(map[string]int)
	for i := range ex {
		c[ex[i].Kind]++
	}
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	s := ""
	for _, k := range keys {
		s += fmt.Sprintf("%s:%d ", k, c[k])
	}
	return s
}
