package form

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/dwcrawl/dwcrawl/core/page"
	"github.com/dwcrawl/dwcrawl/core/shareddata"
)

// DefaultSeed is the seed of training and cross-validation unless one is
// given.
const DefaultSeed = 1

// dataDir returns dir, or the shared Formasaurus folder when dir is empty.
func dataDir(dir string) (string, error) {
	if dir != "" {
		return dir, nil
	}
	d, err := shareddata.Dir()
	if err != nil {
		return "", fmt.Errorf("no --data given and %w", err)
	}
	return filepath.Join(d, "formasaurus"), nil
}

// TrainRunOptions are the options of `dwcrawl train forms`.
type TrainRunOptions struct {
	Data string // Formasaurus-layout folder ("" = shared data)
	Out  string // model file to write
	Seed uint64
	// DomainLabels is a file of hand-labelled domains of the data's search
	// forms ([LoadDomainLabels]); when set, the domain classifier's level
	// thresholds are calibrated on them ([DSFC.CalibrateLevels]).
	DomainLabels string
}

// RunTrain trains a model on every labelled form of the data folder and
// writes it (`dwcrawl train forms`). Progress goes to w.
func RunTrain(ctx context.Context, opt TrainRunOptions, w io.Writer) error {
	if opt.Out == "" {
		return errors.New("train forms: --out is required")
	}
	dir, err := dataDir(opt.Data)
	if err != nil {
		return fmt.Errorf("train forms: %w", err)
	}
	ex, st, err := LoadFormasaurus(ctx, dir)
	if err != nil {
		return fmt.Errorf("train forms: %w", err)
	}
	fmt.Fprintf(w, "loaded %d labelled forms from %d pages of %s (%d unlabelled skipped, %d pages with a form-count mismatch skipped)\n",
		st.Forms, st.Pages, dir, st.Skipped, len(st.Mismatched))
	fmt.Fprintf(w, "kinds: %s\n", kindCounts(ex))
	start := time.Now()
	m, err := Train(ctx, ex, DefaultTrainOptions(opt.Seed))
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

// EvalRunOptions are the options of `dwcrawl eval forms`.
type EvalRunOptions struct {
	Data  string // Formasaurus-layout folder ("" = shared data)
	Model string // model file ("" = embedded default); ignored with CV
	CV    int    // > 1: cross-validate by training on Data itself
	JSON  bool
	Seed  uint64
}

// RunEval scores a model on a labelled folder, or cross-validates
// (`dwcrawl eval forms`), and prints the report (text or JSON) to w.
func RunEval(ctx context.Context, opt EvalRunOptions, w io.Writer) error {
	dir, err := dataDir(opt.Data)
	if err != nil {
		return fmt.Errorf("eval forms: %w", err)
	}
	ex, _, err := LoadFormasaurus(ctx, dir)
	if err != nil {
		return fmt.Errorf("eval forms: %w", err)
	}
	if len(ex) == 0 {
		return fmt.Errorf("eval forms: no labelled forms in %s", dir)
	}
	var r *Report
	if opt.CV > 1 {
		if r, err = CrossValidate(ctx, ex, opt.CV, DefaultTrainOptions(opt.Seed)); err != nil {
			return fmt.Errorf("eval forms: %w", err)
		}
	} else {
		m, name, err := loadOrDefault(opt.Model)
		if err != nil {
			return fmt.Errorf("eval forms: %w", err)
		}
		r = Evaluate(m, ex)
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

func loadOrDefault(path string) (*Model, string, error) {
	if path == "" {
		m, err := Default()
		return m, "embedded default", err
	}
	m, err := LoadModel(path)
	return m, path, err
}

// ClassifyRunOptions are the options of `dwcrawl classify`.
type ClassifyRunOptions struct {
	Target string // an HTML file or an http(s) URL on a loopback address
	Model  string // model file ("" = embedded default)
	Domain string // target domain for the DSFC ("" = best domain)
	JSON   bool
}

// RunClassify lists every form of a page with its kind, searchable
// probability, domain and reasons (`dwcrawl classify`).
func RunClassify(ctx context.Context, opt ClassifyRunOptions, w io.Writer) error {
	m, _, err := loadOrDefault(opt.Model)
	if err != nil {
		return fmt.Errorf("classify: %w", err)
	}
	h, err := NewHIFI(m, opt.Domain)
	if err != nil {
		return fmt.Errorf("classify: %w", err)
	}
	p, err := loadTarget(ctx, opt.Target)
	if err != nil {
		return fmt.Errorf("classify: %w", err)
	}
	ds := h.ClassifyPage(p)
	if opt.JSON {
		type out struct {
			Index  int    `json:"index"`
			Action string `json:"action"`
			Method string `json:"method"`
			Decision
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

// loadTarget parses a local HTML file or fetches a loopback URL.
func loadTarget(ctx context.Context, target string) (*page.Page, error) {
	if target == "" {
		return nil, errors.New("give an HTML file or a URL")
	}
	if strings.HasPrefix(target, "http://") || strings.HasPrefix(target, "https://") {
		return fetchLoopback(ctx, target)
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

// ErrNotLoopback is returned when classify is asked to fetch a URL whose
// host is not a loopback address.
var ErrNotLoopback = errors.New("only loopback addresses may be fetched (use a saved HTML file, or serve it on 127.0.0.1)")

// maxBody bounds a fetched page.
const maxBody = 8 << 20

// fetchLoopback fetches u, refusing any address that is not loopback both
// before resolving and at dial time (so redirects and DNS cannot escape).
func fetchLoopback(ctx context.Context, raw string) (*page.Page, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, err
	}
	host := u.Hostname()
	if ip := net.ParseIP(host); (ip == nil && host != "localhost") || (ip != nil && !ip.IsLoopback()) {
		return nil, fmt.Errorf("fetch %s: %w", raw, ErrNotLoopback)
	}
	dialer := &net.Dialer{
		Timeout: 10 * time.Second,
		Control: func(network, address string, _ syscall.RawConn) error {
			h, _, err := net.SplitHostPort(address)
			if err != nil {
				return err
			}
			if ip := net.ParseIP(h); ip == nil || !ip.IsLoopback() {
				return fmt.Errorf("dial %s: %w", address, ErrNotLoopback)
			}
			return nil
		},
	}
	client := &http.Client{
		Timeout:   30 * time.Second,
		Transport: &http.Transport{DialContext: dialer.DialContext, Proxy: nil},
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, raw, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", "dwcrawl-classify")
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("fetch %s: %w", raw, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("fetch %s: %s", raw, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return nil, fmt.Errorf("fetch %s: %w", raw, err)
	}
	return page.Parse(body, resp.Header.Get("Content-Type"), resp.Request.URL)
}
