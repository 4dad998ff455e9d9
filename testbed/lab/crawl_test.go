package lab

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/dwcrawl/dwcrawl/core/canon"
	"github.com/dwcrawl/dwcrawl/core/page"
	"github.com/dwcrawl/dwcrawl/core/profile"
	dwcrawl "github.com/dwcrawl/dwcrawl/internal/app"
	"github.com/dwcrawl/dwcrawl/store"
)

// labTopics maps each lab profile (testbed/lab/profiles/NAME.lua) to the
// application host whose searchable forms are its topic.
var labTopics = map[string]string{
	"movies":   "wiki." + Domain,
	"papers":   "blog." + Domain,
	"music":    "music." + Domain,
	"code":     "git." + Domain,
	"law":      "law." + Domain,
	"science":  "science." + Domain,
	"archive":  "archive." + Domain,
	"sports":   "sports." + Domain,
	"medicine": "clinic." + Domain, // Redmine
	"myth":     "myth." + Domain,
}

// formKey is a truth form's interface: its host, action without the
// query string, and method.
type formKey struct{ host, action, method string }

func keyOf(host, action, method string) formKey {
	if u, err := url.Parse(action); err == nil {
		u.RawQuery, u.Fragment = "", ""
		action = u.String()
	}
	return formKey{host, action, strings.ToUpper(method)}
}

// distinctForm is a distinct searchable form of the truth: an interface,
// the field its query goes in and its hidden fields (name=value). Two
// forms of one action and query field are one form unless a hidden field
// of both names a different value (a=search and a=project_list: a commit
// search and a project search); an extra hidden field or visible control
// is a variant of the same form (the search box on every page and the
// result page's own form with more options).
type distinctForm struct {
	formKey
	app, queryField, fields string
}

// sameForm reports whether a form of interface k, query field q and field
// names set (nameSet) is the distinct form d.
func (d distinctForm) sameForm(k formKey, q, set string) bool {
	return k == d.formKey && (d.queryField == "" || q == "" || q == d.queryField) && agree(strings.Fields(set), strings.Fields(d.fields))
}

// agree reports whether two hidden-field sets (name=value words) give no
// field two values.
func agree(a, b []string) bool {
	for _, x := range a {
		n, v, _ := strings.Cut(x, "=")
		for _, y := range b {
			if m, w, _ := strings.Cut(y, "="); m == n && w != v {
				return false
			}
		}
	}
	return true
}

// nameSet is the sorted set of a form's field names.
func nameSet(names []string) string {
	var out []string
	for _, n := range names {
		if n != "" && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

// crawlVerdict is what a crawl decided about one form of a page it fetched
// (the page record's form list).
type crawlVerdict struct {
	searchable, dup bool
	p               float64
}

// crawlResult is what one topic crawl recorded.
type crawlResult struct {
	topic string
	forms []store.Form
	// verdicts are the crawl's decisions on the forms of the pages it
	// fetched, by canonical page URL (requested and final) and form index.
	verdicts map[string]map[int]crawlVerdict
	// judged are the pages with forms the crawl fetched: URL (final) and
	// the verdicts by form index
	judged []judgedPage
	pages  int64
	fails  map[string]int64
}

// judgedPage is a page the crawl fetched and its verdicts on the page's forms.
type judgedPage struct {
	url      string
	verdicts map[int]crawlVerdict
}

// TestLabCrawls is issue 17's target: a crawl of each lab topic, through
// the real-web path (the real fetcher, robots.txt, politeness, the address
// policy with --allow-private, --resolve dialing; no testbed transport),
// records every searchable form of its topic's application, the crawls
// together record every searchable form of the applications, and no
// login, registration, comment, edit, navigation or options form of an
// application is ever judged searchable.
func TestLabCrawls(t *testing.T) {
	l := startLab(t)
	truth := l.Truth
	hostApp := map[string]string{}
	for _, s := range truth.Sites {
		hostApp[s.Host] = s.App
	}
	isApp := func(host string) bool { a := hostApp[host]; return a != "" && a != "static" }

	// the truth: distinct searchable forms and every non-searchable form
	// of the applications
	var distinct []distinctForm
	nonSearch := map[formKey]map[string]Form{} // field-name set -> form
	// hidden fields whose value follows the page (the page's id, the
	// commit shown: a value its page's URL holds, or one of more than two
	// across the pages that hold one interface) do not tell forms apart
	hiddenValues := map[formKey]map[string]map[string]bool{}
	for _, pg := range truth.Pages {
		for _, f := range pg.Forms {
			k := keyOf(pg.Host, f.Action, f.Method)
			for _, fl := range f.Fields {
				if fl.Type != "hidden" {
					continue
				}
				if hiddenValues[k] == nil {
					hiddenValues[k] = map[string]map[string]bool{}
				}
				if hiddenValues[k][fl.Name] == nil {
					hiddenValues[k][fl.Name] = map[string]bool{}
				}
				hiddenValues[k][fl.Name][fl.Value] = true
			}
		}
	}
	hiddenSet := func(k formKey, page string, names, types, vals []string) string {
		page, _ = url.QueryUnescape(page)
		var out []string
		for i, n := range names {
			if n == "" || types[i] != "hidden" || len(hiddenValues[k][n]) > 2 || vals[i] != "" && strings.Contains(page, vals[i]) {
				continue
			}
			if !slices.Contains(out, n+"="+vals[i]) {
				out = append(out, n+"="+vals[i])
			}
		}
		sort.Strings(out)
		return strings.Join(out, " ")
	}
	for _, pg := range truth.Pages {
		if !isApp(pg.Host) {
			continue
		}
		for _, f := range pg.Forms {
			k := keyOf(pg.Host, f.Action, f.Method)
			if f.Searchable {
				var names, types, values []string
				for _, fl := range f.Fields {
					names, types, values = append(names, fl.Name), append(types, fl.Type), append(values, fl.Value)
				}
				set := hiddenSet(k, pg.URL, names, types, values)
				if !slices.ContainsFunc(distinct, func(d distinctForm) bool { return d.sameForm(k, f.QueryField, set) }) {
					distinct = append(distinct, distinctForm{k, pg.App, f.QueryField, set})
				}
				continue
			}
			if nonSearch[k] == nil {
				nonSearch[k] = map[string]Form{}
			}
			nonSearch[k][nameSet(truthFieldNames(f))] = f
		}
	}
	if len(distinct) == 0 {
		t.Fatal("the lab truth lists no searchable form of an application")
	}

	results := make([]*crawlResult, 0, len(labTopics))
	var mu sync.Mutex
	t.Run("crawl", func(t *testing.T) {
		for topic, host := range labTopics {
			if _, up := l.Hosts[host]; !up {
				t.Logf("%s: %s is not running (%v)", topic, host, l.Missing)
				continue
			}
			t.Run(topic, func(t *testing.T) {
				t.Parallel()
				r := labCrawl(t, l, topic)
				mu.Lock()
				results = append(results, r)
				mu.Unlock()
			})
		}
	})
	if t.Failed() {
		return
	}
	sort.Slice(results, func(i, j int) bool { return results[i].topic < results[j].topic })

	covers := func(r *crawlResult, d distinctForm) bool {
		for _, f := range r.forms {
			var names, types, values []string
			var fields []struct {
				Name  string `json:"name"`
				Type  string `json:"type"`
				Value string `json:"value"`
			}
			json.Unmarshal(f.Fields, &fields)
			for _, fl := range fields {
				names, types, values = append(names, fl.Name), append(types, fl.Type), append(values, fl.Value)
			}
			if keyOf(canon.Host(f.PageURL), f.Action, f.Method) == d.formKey && (d.queryField == "" || slices.Contains(names, d.queryField)) &&
				agree(strings.Fields(hiddenSet(d.formKey, f.PageURL, names, types, values)), strings.Fields(d.fields)) {
				return true
			}
		}
		return false
	}
	union := map[distinctForm]bool{}
	if len(results) == 0 {
		t.Skip("no lab application runs")
	}
	for _, r := range results {
		host := labTopics[r.topic]
		var own, ownFound, all, allFound int
		for _, d := range distinct {
			ok := covers(r, d)
			if ok {
				union[d] = true
			}
			all++
			if ok {
				allFound++
			}
			if d.host == host {
				own++
				if ok {
					ownFound++
				} else {
					t.Errorf("%s: the crawl did not record %s's search form %s %s (query field %q, fields %s)", r.topic, d.app, d.method, d.action, d.queryField, d.fields)
				}
			}
		}
		if own == 0 {
			t.Errorf("%s: the truth has no searchable form on %s", r.topic, host)
		}
		t.Logf("%-6s %4d pages, %3d forms recorded; its application's search forms %d/%d; all applications' %d/%d; failures %v",
			r.topic, r.pages, len(r.forms), ownFound, own, allFound, all, r.fails)
	}
	for _, d := range distinct {
		if !union[d] {
			t.Errorf("no crawl recorded %s's search form %s %s (fields %s)", d.app, d.method, d.action, d.fields)
		}
	}
	t.Logf("recall over the crawls: %d/%d distinct searchable forms of the applications", len(union), len(distinct))

	// no non-searchable form of an application recorded as searchable
	judged := 0
	for _, r := range results {
		for _, f := range r.forms {
			host := canon.Host(f.PageURL)
			if !isApp(host) {
				continue
			}
			var fields []struct {
				Name string `json:"name"`
			}
			json.Unmarshal(f.Fields, &fields)
			var names []string
			for _, fl := range fields {
				names = append(names, fl.Name)
			}
			if tf, bad := nonSearch[keyOf(host, f.Action, f.Method)][nameSet(names)]; bad {
				t.Errorf("%s: recorded %s's %s form %s %s (on %s) as searchable (p=%.3f)", r.topic, hostApp[host], tf.Kind, f.Method, f.Action, f.PageURL, f.Searchable)
			}
		}
		// and on every truth page the crawl fetched, its verdict on each
		// non-searchable form is "not searchable"
		for _, pg := range truth.Pages {
			if !isApp(pg.Host) {
				continue
			}
			v := r.verdicts[canonical(pg.URL)]
			if v == nil {
				continue
			}
			for _, f := range pg.Forms {
				cv, ok := v[f.Index]
				if !ok || f.Searchable {
					continue
				}
				judged++
				if cv.searchable || cv.dup {
					t.Errorf("%s: judged %s's %s form #%d of %s searchable (p=%.3f)", r.topic, pg.App, f.Kind, f.Index, pg.URL, cv.p)
				}
			}
		}
	}
	if judged == 0 {
		t.Error("no crawl fetched a truth page with a non-searchable form: the check above judged nothing")
	}
	t.Logf("%d crawl verdicts on non-searchable forms of truth pages, none searchable", judged)
	t.Log(crawlTable(t, l, results, isApp, hostApp, nonSearch, distinct))
}

// crawlTable checks and tabulates the crawls' verdicts on every form of
// every application page they fetched (not only the truth's pages): the
// test fetches each such page again, finds its forms as the crawler does
// (core/page) and knows each form's kind from the truth by its interface
// (host, action, method and field names). A non-searchable form judged
// searchable fails the test. The table: per application, kind and form
// (method, action, field names), the decision, the crawls' least sure
// p(searchable) and the pages judged.
func crawlTable(t *testing.T, l *Lab, results []*crawlResult, isApp func(string) bool, hostApp map[string]string,
	nonSearch map[formKey]map[string]Form, distinct []distinctForm) string {
	type row struct {
		app, kind, form string
		searchable      bool
		mixed           bool
		p               float64
		n               int
		topics          map[string]bool
	}
	// a searchable form of the truth: its interface and query field
	queryFields := map[formKey][]string{}
	for _, d := range distinct {
		queryFields[d.formKey] = append(queryFields[d.formKey], d.queryField)
	}
	rows := map[string]*row{}
	var order []string
	client := l.Client()
	ctx := context.Background()
	parsed := map[string]*page.Page{}
	for _, r := range results {
		for _, jp := range r.judged {
			host := canon.Host(jp.url)
			if !isApp(host) {
				continue
			}
			pg, ok := parsed[jp.url]
			if !ok {
				pg = parsePage(ctx, client, jp.url)
				parsed[jp.url] = pg
			}
			if pg == nil {
				continue
			}
			for i, cv := range jp.verdicts {
				if i >= len(pg.Forms) {
					continue
				}
				f := pg.Forms[i]
				var names []string
				for _, fl := range f.Fields {
					names = append(names, fl.Name)
				}
				k := keyOf(host, f.Action, f.Method)
				kind, truthSearchable := "not in truth", false
				if tf, ok := nonSearch[k][nameSet(names)]; ok {
					kind = tf.Kind
				} else {
					for _, q := range queryFields[k] {
						if q == "" || slices.Contains(names, q) {
							kind, truthSearchable = "search", true
						}
					}
				}
				dec := cv.searchable || cv.dup
				if dec && !truthSearchable && kind != "not in truth" {
					t.Errorf("%s: judged %s's %s form #%d of %s searchable (p=%.3f)", r.topic, hostApp[host], kind, i, jp.url, cv.p)
				}
				label := fmt.Sprintf("%s %s (%s)", f.Method, shortPath(strings.TrimPrefix(k.action, fmt.Sprintf("http://%s:%d", host, l.Port))), nameSet(names))
				id := hostApp[host] + "|" + kind + "|" + label
				w := rows[id]
				if w == nil {
					w = &row{app: hostApp[host], kind: kind, form: label, searchable: dec, p: cv.p, topics: map[string]bool{}}
					rows[id] = w
					order = append(order, id)
				}
				w.n++
				w.topics[r.topic] = true
				w.mixed = w.mixed || dec != w.searchable
				if truthSearchable {
					w.p = min(w.p, cv.p)
				} else {
					w.p = max(w.p, cv.p)
				}
			}
		}
	}
	sort.SliceStable(order, func(i, j int) bool { return rows[order[i]].app < rows[order[j]].app })
	var b strings.Builder
	fmt.Fprintf(&b, "\nthe crawls' verdicts on the forms of every application page they fetched (a searchable form is\n"+
		"searchable on the first page the crawl judged it and a duplicate after; p: the least sure verdict)\n"+
		"%-9s | %-12s | %-62s | %-14s | %-13s | %s\n", "app", "kind", "form (method action (fields))", "decision", "p(searchable)", "pages (crawls)")
	for _, id := range order {
		w := rows[id]
		dec := "not searchable"
		switch {
		case w.mixed:
			dec = "mixed"
		case w.searchable:
			dec = "searchable"
		}
		form := w.form
		if len(form) > 62 {
			form = form[:59] + "..."
		}
		fmt.Fprintf(&b, "%-9s | %-12s | %-62s | %-14s | %-13.3f | %d (%d)\n", w.app, w.kind, form, dec, w.p, w.n, len(w.topics))
	}
	return b.String()
}

// shortPath keeps the first two segments of a path (cgit's repository
// and view), so that the table has a row per kind of form, not per file.
func shortPath(p string) string {
	segs := strings.SplitN(p, "/", 4)
	if len(segs) == 4 && segs[3] != "" {
		return strings.Join(segs[:3], "/") + "/…"
	}
	return p
}

// parsePage gets a lab page and parses it as the crawler does; nil when it
// cannot.
func parsePage(ctx context.Context, c *http.Client, u string) *page.Page {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil || resp.StatusCode != http.StatusOK {
		return nil
	}
	base, _ := url.Parse(u)
	pg, err := page.Parse(body, resp.Header.Get("Content-Type"), base)
	if err != nil {
		return nil
	}
	return pg
}

// labCrawl runs the topic's profile against the lab through the real-web
// path and returns what it recorded.
func labCrawl(t *testing.T, l *Lab, topic string) *crawlResult {
	ctx := context.Background()
	p, err := profile.Load(ctx, filepath.Join("profiles", topic+".lua"))
	if err != nil {
		t.Fatal(err)
	}
	p.Seeds = []string{l.URL(Hub, "/")} // the lab's port, not the profile's
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&lockedWriter{w: &logs}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	cr, err := dwcrawl.NewCrawl(ctx, dwcrawl.CrawlOptions{
		Profile: p, Dir: t.TempDir(), Workers: 2, Logger: log, Seed: 1,
		Net: dwcrawl.NetOptions{AllowPrivate: true, Resolve: l.Resolve(), Proxy: dwcrawl.ProxyDirect},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer cr.Close()
	sn, err := cr.Run(ctx)
	if err != nil {
		t.Fatalf("%v\n%s", err, logs.String())
	}
	if _, err := cr.SeedFailures(); err != nil {
		t.Fatalf("%v\n%s", err, logs.String())
	}
	r := &crawlResult{topic: topic, verdicts: map[string]map[int]crawlVerdict{}, pages: sn.Pages, fails: sn.Failures}
	if err := cr.DB.ScanForms(func(f store.Form) error { r.forms = append(r.forms, f); return nil }); err != nil {
		t.Fatal(err)
	}
	err = cr.DB.ScanJSON(store.TagPages, nil, func(_, val []byte) error {
		var rec struct {
			URL   string `json:"url"`
			Final string `json:"final"`
			Forms []struct {
				I int     `json:"i"`
				S bool    `json:"s"`
				D bool    `json:"d"`
				P float64 `json:"p"`
			} `json:"forms"`
		}
		if err := json.Unmarshal(val, &rec); err != nil {
			return err
		}
		m := map[int]crawlVerdict{}
		for _, f := range rec.Forms {
			m[f.I] = crawlVerdict{searchable: f.S, dup: f.D, p: f.P}
		}
		for _, u := range []string{rec.URL, rec.Final} {
			if u != "" {
				r.verdicts[canonical(u)] = m
			}
		}
		if len(m) > 0 {
			u := rec.Final
			if u == "" {
				u = rec.URL
			}
			r.judged = append(r.judged, judgedPage{url: u, verdicts: m})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if sn.Pages == 0 || len(r.forms) == 0 {
		t.Fatalf("%s: %d pages, %d forms\n%s", topic, sn.Pages, len(r.forms), logs.String())
	}
	return r
}

func canonical(u string) string {
	if c, err := canon.Canonical(u); err == nil {
		return c
	}
	return u
}

func truthFieldNames(f Form) []string {
	out := make([]string, len(f.Fields))
	for i, fl := range f.Fields {
		out[i] = fl.Name
	}
	return out
}

// TestLabClassifyTruthPages runs the classifier, through `dwcrawl
// classify`'s path (the real fetcher, --resolve, the address policy with
// --allow-private), on every page of the applications the lab's truth
// lists, also those a polite crawl never reaches (behind nofollow links):
// every searchable form is judged searchable and no other form is. It
// logs the table of decisions.
func TestLabClassifyTruthPages(t *testing.T) {
	l := startLab(t)
	ctx := context.Background()
	net := dwcrawl.NetOptions{AllowPrivate: true, Resolve: l.Resolve(), Proxy: dwcrawl.ProxyDirect}
	type row struct {
		app, kind, form string
		searchable      bool
		p               float64
		n               int
	}
	rows := map[string]*row{}
	var order []string
	for _, pg := range l.Truth.Pages {
		if pg.App == "static" || pg.Status != 200 {
			continue
		}
		var buf bytes.Buffer
		err := dwcrawl.Classify(ctx, dwcrawl.ClassifyOptions{Target: pg.URL, JSON: true, Net: net}, &buf)
		if err != nil {
			t.Errorf("classify %s: %v", pg.URL, err)
			continue
		}
		var out struct {
			Forms []struct {
				Index      int     `json:"index"`
				Action     string  `json:"action"`
				Searchable bool    `json:"searchable"`
				P          float64 `json:"p_searchable"`
			} `json:"forms"`
		}
		if err := json.Unmarshal(buf.Bytes(), &out); err != nil {
			t.Fatal(err)
		}
		for _, f := range pg.Forms {
			if f.Index >= len(out.Forms) || keyOf("", out.Forms[f.Index].Action, "").action != keyOf("", f.Action, "").action {
				t.Errorf("%s form #%d: the page as fetched does not hold it where the truth says", pg.URL, f.Index)
				continue
			}
			d := out.Forms[f.Index]
			if d.Searchable != f.Searchable {
				t.Errorf("%s: %s form #%d %s %s: judged searchable=%v (p=%.3f), truth %v", pg.App, f.Kind, f.Index, f.Method, f.Action, d.Searchable, d.P, f.Searchable)
			}
			label := fmt.Sprintf("%s %s (%s)", f.Method, strings.TrimPrefix(keyOf("", f.Action, "").action, fmt.Sprintf("http://%s:%d", pg.Host, l.Port)), nameSet(truthFieldNames(f)))
			id := pg.App + "|" + f.Kind + "|" + label
			r := rows[id]
			if r == nil {
				r = &row{app: pg.App, kind: f.Kind, form: label, searchable: d.Searchable, p: d.P}
				rows[id] = r
				order = append(order, id)
			}
			r.n++
			if d.Searchable != r.searchable {
				r.searchable = false // mixed verdicts: shown as not searchable (and reported above)
			}
			if f.Searchable {
				r.p = min(r.p, d.P) // the least sure verdict
			} else {
				r.p = max(r.p, d.P)
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n%-9s | %-12s | %-70s | %-14s | %s\n", "app", "kind", "form (method action (fields))", "decision", "p(searchable)")
	for _, id := range order {
		r := rows[id]
		dec := "not searchable"
		if r.searchable {
			dec = "searchable"
		}
		form := r.form
		if len(form) > 70 {
			form = form[:67] + "..."
		}
		fmt.Fprintf(&b, "%-9s | %-12s | %-70s | %-14s | %.3f (%d pages)\n", r.app, r.kind, form, dec, r.p, r.n)
	}
	t.Log(b.String())
}
