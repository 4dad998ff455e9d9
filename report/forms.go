package report

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/dwcrawl/dwcrawl/core/page"
	"github.com/dwcrawl/dwcrawl/store"
)

// FormField is one field of an exported form.
type FormField struct {
	Tag     string   `json:"tag"`
	Type    string   `json:"type"`
	Name    string   `json:"name,omitempty"`
	Label   string   `json:"label,omitempty"`
	Options []string `json:"options,omitempty"`
}

// FormRow is one searchable form as dwcrawl exports it (a line of
// `dwcrawl forms --format jsonl`, an element of the service's forms list).
type FormRow struct {
	ID           string      `json:"id"`
	Site         string      `json:"site"`
	PageURL      string      `json:"page_url"`
	Depth        int         `json:"depth"`
	Index        int         `json:"index"`
	Kind         string      `json:"kind"`
	Relevant     bool        `json:"relevant"`
	Searchable   float64     `json:"searchable"`
	DomainScore  float64     `json:"domain_score"`
	Method       string      `json:"method,omitempty"`
	Action       string      `json:"action,omitempty"`
	Fields       []FormField `json:"fields"`
	Reasons      []string    `json:"reasons,omitempty"`
	FoundAt      time.Time   `json:"found_at"`
	PagesFetched int         `json:"pages_fetched"`
	// ProbeDecision is what post-query probing decided the form fronts
	// (store.ProbeTopicDatabase, ProbeSiteSearch, ProbeNotDatabase), ""
	// when it was not probed; Probe has the queries and the evidence.
	ProbeDecision string       `json:"probe_decision,omitempty"`
	Probe         *store.Probe `json:"probe,omitempty"`
}

// ExportForm turns a stored form into its exported row.
func ExportForm(f store.Form) FormRow {
	o := FormRow{ID: f.ID, Site: f.Site, PageURL: f.PageURL, Depth: f.Depth, Index: f.Index, Kind: f.Kind, Relevant: f.Relevant,
		Searchable: f.Searchable, DomainScore: f.DomainScore, Method: f.Method, Action: f.Action, FoundAt: f.FoundAt,
		PagesFetched: f.PagesFetched, Fields: []FormField{}, Reasons: f.Reasons, Probe: f.Probe}
	if f.Probe != nil {
		o.ProbeDecision = f.Probe.Decision
	}
	var fields []page.Field
	if len(f.Fields) > 0 && json.Unmarshal(f.Fields, &fields) == nil {
		for _, pf := range fields {
			ff := FormField{Tag: pf.Tag, Type: pf.Type, Name: pf.Name, Label: pf.Label}
			for _, op := range pf.Options {
				ff.Options = append(ff.Options, cmpOr(op.Text, op.Value))
			}
			o.Fields = append(o.Fields, ff)
		}
	}
	return o
}

// Forms returns the searchable forms recorded in db (only the relevant
// ones with relevantOnly) in the order the crawl found them.
func Forms(db *store.DB, relevantOnly bool) ([]FormRow, error) {
	forms := []FormRow{}
	err := db.ScanForms(func(f store.Form) error {
		if !relevantOnly || f.Relevant {
			forms = append(forms, ExportForm(f))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	SortForms(forms)
	return forms, nil
}

// SortForms puts forms in the order a crawl found them: by pages fetched,
// then page URL, then position in the page.
func SortForms(forms []FormRow) {
	sort.Slice(forms, func(i, j int) bool {
		a, b := forms[i], forms[j]
		if a.PagesFetched != b.PagesFetched {
			return a.PagesFetched < b.PagesFetched
		}
		if a.PageURL != b.PageURL {
			return a.PageURL < b.PageURL
		}
		return a.Index < b.Index
	})
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// FieldSummary renders the fields a user fills in, "name:type" separated
// by spaces (hidden inputs and buttons left out).
func FieldSummary(fs []FormField) string {
	var parts []string
	for _, f := range fs {
		switch f.Type {
		case "hidden", "submit", "button", "reset", "image":
			continue
		}
		name := cmpOr(f.Name, cmpOr(f.Label, "?"))
		parts = append(parts, name+":"+f.Type)
	}
	return strings.Join(parts, " ")
}

// WriteFormsJSONL writes one JSON object per form and line.
func WriteFormsJSONL(w io.Writer, forms []FormRow) error {
	enc := json.NewEncoder(w)
	for _, f := range forms {
		if err := enc.Encode(f); err != nil {
			return err
		}
	}
	return nil
}

// FormsCSVHeader is the header row of WriteFormsCSV.
var FormsCSVHeader = []string{"id", "site", "page_url", "depth", "index", "kind", "relevant", "searchable", "domain_score",
	"method", "action", "fields", "found_at", "pages_fetched", "probe"}

// WriteFormsCSV writes the forms as CSV with FormsCSVHeader, the fields
// summarised by FieldSummary.
func WriteFormsCSV(w io.Writer, forms []FormRow) error {
	cw := csv.NewWriter(w)
	cw.Write(FormsCSVHeader)
	for _, f := range forms {
		cw.Write([]string{f.ID, f.Site, f.PageURL, strconv.Itoa(f.Depth), strconv.Itoa(f.Index), f.Kind, strconv.FormatBool(f.Relevant),
			fmt.Sprintf("%.3f", f.Searchable), fmt.Sprintf("%.3f", f.DomainScore), f.Method, f.Action, FieldSummary(f.Fields),
			f.FoundAt.UTC().Format(time.RFC3339), strconv.Itoa(f.PagesFetched), f.ProbeDecision})
	}
	cw.Flush()
	return cw.Error()
}
