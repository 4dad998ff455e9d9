package harvest

import (
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
)

// Summary is one strategy's means over the domains it ran on (failed runs
// left out).
type Summary struct {
	Strategy        string  `json:"strategy"`
	Runs            int     `json:"runs"`
	Pages           float64 `json:"pages"`
	RelevantForms   float64 `json:"relevant_forms"`
	DeepSites       float64 `json:"deep_sites"`
	SearchableForms float64 `json:"searchable_forms"`
	HarvestRate     float64 `json:"harvest_rate"`
	PagesPerSecond  float64 `json:"pages_per_second"`
}

// Summarise returns the per-strategy means, strategies in order of first
// appearance.
func Summarise(rs []Result) []Summary {
	var out []Summary
	idx := map[string]int{}
	for _, r := range rs {
		if r.Error != "" {
			continue
		}
		i, ok := idx[r.Strategy]
		if !ok {
			i = len(out)
			idx[r.Strategy] = i
			out = append(out, Summary{Strategy: r.Strategy})
		}
		s := &out[i]
		s.Runs++
		s.Pages += float64(r.Pages)
		s.RelevantForms += float64(r.RelevantForms)
		s.DeepSites += float64(r.DeepSites)
		s.SearchableForms += float64(r.SearchableForms)
		s.HarvestRate += r.HarvestRate
		s.PagesPerSecond += r.PagesPerSecond
	}
	for i := range out {
		n := float64(out[i].Runs)
		s := &out[i]
		s.Pages, s.RelevantForms, s.DeepSites, s.SearchableForms = s.Pages/n, s.RelevantForms/n, s.DeepSites/n, s.SearchableForms/n
		s.HarvestRate, s.PagesPerSecond = s.HarvestRate/n, s.PagesPerSecond/n
	}
	return out
}

// Ratio compares strategy a with strategy b on the domains where both ran:
// the ratio of their mean relevant forms (of their sums) and the mean of
// the per-domain ratios (over the domains where b found something). ok is
// false when they share no domain or b found nothing at all.
func Ratio(rs []Result, a, b string) (ofMeans, meanOf float64, ok bool) {
	return ratio(rs, a, b, func(r *Result) int { return r.RelevantForms })
}

// RatioAt is Ratio after the first pages pages of every run, read from the
// runs' harvest curves: where the strategies part ways depends on how much
// of the web a budget can cover, so one budget alone can mislead.
func RatioAt(rs []Result, a, b string, pages int64) (ofMeans, meanOf float64, ok bool) {
	return ratio(rs, a, b, func(r *Result) int { return formsAt(r.curve, pages) })
}

// formsAt is the true relevant forms of a curve's last point within pages.
func formsAt(curve []Point, pages int64) int {
	n := 0
	for _, p := range curve {
		if p.Pages > pages {
			break
		}
		n = p.RelevantForms
	}
	return n
}

func ratio(rs []Result, a, b string, forms func(*Result) int) (ofMeans, meanOf float64, ok bool) {
	found := map[string]map[string]int{a: {}, b: {}}
	for i := range rs {
		r := &rs[i]
		if m, in := found[r.Strategy]; in && r.Error == "" {
			m[r.Domain] = forms(r)
		}
	}
	sa, sb, n, sum := 0, 0, 0, 0.0
	for d, fa := range found[a] {
		fb, both := found[b][d]
		if !both {
			continue
		}
		sa += fa
		sb += fb
		if fb > 0 {
			sum += float64(fa) / float64(fb)
			n++
		}
	}
	if sb == 0 {
		return 0, 0, false
	}
	ofMeans = float64(sa) / float64(sb)
	if n > 0 {
		meanOf = sum / float64(n)
	}
	return ofMeans, meanOf, true
}

// budgetShares are the points of the budget at which WriteTable compares
// smartcrawler with ACHE.
var budgetShares = []int{10, 20, 50, 100}

// WriteTable prints the results as an aligned table, then the per-strategy
// means and the ratio of SmartCrawler to ACHE.
func WriteTable(w io.Writer, rs []Result) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "domain\tstrategy\tpages\trelevant forms\tdeep sites\tsearchable forms\tharvest rate\tclassifier relevant\tfalse pos.\tseen relevant\tseconds\tpages/s\t")
	for _, r := range rs {
		if r.Error != "" {
			fmt.Fprintf(tw, "%s\t%s\terror: %s\t\t\t\t\t\t\t\t\t\t\n", r.Domain, r.Strategy, r.Error)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%.4f\t%d\t%d\t%d\t%.1f\t%.0f\t\n", r.Domain, r.Strategy, r.Pages,
			r.RelevantForms, r.DeepSites, r.SearchableForms, r.HarvestRate, r.ClassifierRelevant, r.FalsePositives,
			r.RelevantSeen, r.Seconds, r.PagesPerSecond)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	sums := Summarise(rs)
	if len(sums) == 0 {
		return nil
	}
	fmt.Fprintln(w, "\nmeans per strategy over domains")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "strategy\truns\tpages\trelevant forms\tdeep sites\tsearchable forms\tharvest rate\tpages/s\t")
	for _, s := range sums {
		fmt.Fprintf(tw, "%s\t%d\t%.0f\t%.1f\t%.1f\t%.1f\t%.4f\t%.0f\t\n", s.Strategy, s.Runs, s.Pages, s.RelevantForms,
			s.DeepSites, s.SearchableForms, s.HarvestRate, s.PagesPerSecond)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	ofMeans, meanOf, ok := Ratio(rs, "smartcrawler", "ache")
	if !ok {
		return nil
	}
	fmt.Fprintf(w, "\nsmartcrawler/ache relevant forms: %.2f (ratio of means), %.2f (mean of per-domain ratios)\n", ofMeans, meanOf)
	budget := 0
	for _, r := range rs {
		budget = max(budget, r.Budget)
	}
	if budget == 0 {
		return nil
	}
	var parts []string
	for _, pc := range budgetShares {
		pages := int64(budget) * int64(pc) / 100
		if om, _, ok := RatioAt(rs, "smartcrawler", "ache", pages); ok {
			parts = append(parts, fmt.Sprintf("%d pages %.2f", pages, om))
		}
	}
	if len(parts) > 0 {
		_, err := fmt.Fprintf(w, "along the budget (ratio of means): %s\n", strings.Join(parts, " · "))
		return err
	}
	return nil
}

// CurveFile is the name of a run's harvest-curve CSV in the output directory.
func CurveFile(domain, strategy string) string {
	return "curve-" + domain + "-" + strategy + ".csv"
}

// WriteCSV writes the results to dir: harvest.csv (one row per run),
// CurveFile(domain, strategy) for every run (pages, relevant_forms,
// deep_sites, classifier_relevant_forms) and curves-<domain>.csv (pages and
// the true relevant forms of each strategy, side by side, for plotting).
func WriteCSV(dir string, rs []Result) error {
	rows := [][]string{{"domain", "strategy", "budget", "pages", "relevant_forms", "deep_sites", "searchable_forms", "harvest_rate",
		"classifier_relevant_forms", "classifier_searchable_forms", "false_positives", "relevant_forms_seen",
		"web_relevant_forms", "web_deep_sites", "seconds", "pages_per_second", "error"}}
	for _, r := range rs {
		rows = append(rows, []string{r.Domain, r.Strategy, itoa(r.Budget), itoa(int(r.Pages)), itoa(r.RelevantForms), itoa(r.DeepSites),
			itoa(r.SearchableForms), ftoa(r.HarvestRate), itoa(r.ClassifierRelevant), itoa(r.ClassifierSearchable),
			itoa(r.FalsePositives), itoa(r.RelevantSeen), itoa(r.WebRelevantForms), itoa(r.WebDeepSites),
			ftoa(r.Seconds), ftoa(r.PagesPerSecond), r.Error})
	}
	if err := writeRows(filepath.Join(dir, "harvest.csv"), rows); err != nil {
		return err
	}
	for i := range rs {
		if err := writeCurve(dir, &rs[i]); err != nil {
			return err
		}
	}
	var domains []string
	byDomain := map[string][]*Result{}
	for i := range rs {
		d := rs[i].Domain
		if _, ok := byDomain[d]; !ok {
			domains = append(domains, d)
		}
		byDomain[d] = append(byDomain[d], &rs[i])
	}
	for _, d := range domains {
		if err := writeWide(filepath.Join(dir, "curves-"+d+".csv"), byDomain[d]); err != nil {
			return err
		}
	}
	return nil
}

// writeCurve writes one run's harvest curve.
func writeCurve(dir string, r *Result) error {
	if r.Error != "" {
		return nil
	}
	rows := [][]string{{"pages", "relevant_forms", "deep_sites", "classifier_relevant_forms"}}
	for _, p := range r.curve {
		rows = append(rows, []string{itoa(int(p.Pages)), itoa(p.RelevantForms), itoa(p.DeepSites), itoa(p.ClassifierRelevant)})
	}
	return writeRows(filepath.Join(dir, CurveFile(r.Domain, r.Strategy)), rows)
}

// writeWide writes the relevant-forms curves of one domain's runs side by
// side; a run that stopped early has empty cells after its last page.
func writeWide(path string, rs []*Result) error {
	head := []string{"pages"}
	at := map[int64][]string{}
	var pages []int64
	for i, r := range rs {
		head = append(head, r.Strategy)
		for _, p := range r.curve {
			row, ok := at[p.Pages]
			if !ok {
				row = make([]string, len(rs))
				at[p.Pages] = row
				pages = append(pages, p.Pages)
			}
			row[i] = itoa(p.RelevantForms)
		}
	}
	slices.Sort(pages)
	rows := [][]string{head}
	for _, p := range pages {
		rows = append(rows, append([]string{itoa(int(p))}, at[p]...))
	}
	return writeRows(path, rows)
}

func writeRows(path string, rows [][]string) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("harvest: %w", err)
	}
	cw := csv.NewWriter(f)
	cw.WriteAll(rows)
	if err := cw.Error(); err != nil {
		f.Close()
		return fmt.Errorf("harvest: writing %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("harvest: writing %s: %w", path, err)
	}
	return nil
}

func itoa(n int) string     { return strconv.Itoa(n) }
func ftoa(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
