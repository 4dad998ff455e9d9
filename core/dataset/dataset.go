package dataset

import (
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/dwcrawl/dwcrawl/core/surface"
	"github.com/dwcrawl/dwcrawl/store"
)

// FormPrefix starts the source name of a database surfaced through a
// recorded form: "form:" followed by the form's ID.
const FormPrefix = "form:"

// Record is one exported record: its provenance, its signature and links,
// and its content.
type Record struct {
	// Record identifies the record in the crawl directory: its source and
	// its download number there, "SOURCE/SEQ".
	Record string `json:"record"`
	// Source is the journal's source name: "form:ID" for a recorded form,
	// else the keyword plugin or API URL it was surfaced through.
	Source string `json:"source"`
	// Interface is the interface's ID: the form ID of a form source, else
	// the source name.
	Interface string `json:"interface"`
	// Site is the host[:port] the interface answers from ("" unknown).
	Site string `json:"site"`
	// Query is the text of the query that downloaded the record first,
	// QueryN its number among the source's queries (from 1).
	Query  string `json:"query"`
	QueryN int    `json:"query_n"`
	URL    string `json:"url"`
	// Time is when that query was answered; nil for data journaled
	// without times.
	Time *time.Time `json:"time"`
	// ID is the record's own ID at its interface ("" none); Key the key it
	// is stored under; Seq its download order within the source, from 1.
	ID  string `json:"id"`
	Key string `json:"key"`
	Seq int    `json:"seq"`
	// Signature identifies the record's content: its title's signature
	// where titles identify the records of its database, else its text's
	// ("" for a record of too few words, never linked). Group is the
	// Record ID of the first record of the records that are the same as it
	// (its own when none is); SameAs lists those of other sources, sorted.
	// docs/dataset.md gives the rule.
	Signature string            `json:"signature"`
	Group     string            `json:"group"`
	SameAs    []string          `json:"same_as"`
	Text      string            `json:"text"`
	Fields    map[string]string `json:"fields"`
}

// Database is one source of a crawl directory: what `docs --list` shows.
type Database struct {
	Source    string `json:"source"`
	Interface string `json:"interface"`
	Site      string `json:"site"`
	// Verdict is the probe decision on the form ("" when not probed or
	// not a form).
	Verdict string `json:"verdict,omitempty"`
	Records int    `json:"records"`
	Queries int    `json:"queries"`
	// Linked is the number of its records that have a same-signature
	// record in another source.
	Linked int `json:"linked"`
	// The last journaled coverage estimate: the fraction of the database
	// downloaded, its interval, the estimator and the query it was made
	// after (absent when none was made).
	CoverageEstimate *float64 `json:"coverage_estimate"`
	CoverageLow      *float64 `json:"coverage_low,omitempty"`
	CoverageHigh     *float64 `json:"coverage_high,omitempty"`
	Estimator        string   `json:"estimator,omitempty"`
	EstimateQuery    int      `json:"estimate_query,omitempty"`
}

// ref is what Load keeps of a record: enough to find it again and link it.
type ref struct {
	source string
	key    string
	seq    int
	title  string // TitleSignature, kept only where titles identify records
	text   string // TextSignature
	group  int    // index in refs of the first record of its group
}

// sig is the signature a record is known by: its title's where titles
// identify the records of its database, else its text's.
func (r ref) sig() string {
	if r.title != "" {
		return r.title
	}
	return r.text
}

func (r ref) id() string { return r.source + "/" + strconv.Itoa(r.seq) }

// query is what a record's provenance takes from the query log.
type query struct {
	text string
	time int64 // unix ms, 0 unknown
}

// Dataset is the index of the records of a crawl directory built by Load:
// their order, signatures and field names. Records reads each record again
// from the store, so memory holds keys and signatures, not texts.
type Dataset struct {
	db      *store.DB
	refs    []ref         // every record of every source, by source then Seq
	sel     []int         // indexes of the exported records in refs
	groups  map[int][]int // group → its records (indexes in refs), of groups of several records
	fields  []string
	queries map[string]map[int]query
	dbs     []Database
	sources map[string]int // index in dbs
}

// Load indexes the records of db; source "" selects every source, else
// only that one is exported (links still span every source). A directory
// without records gives a Dataset of Len 0.
func Load(db *store.DB, source string) (*Dataset, error) {
	d := &Dataset{db: db, queries: map[string]map[int]query{}, sources: map[string]int{}}
	fieldSet := map[string]bool{}
	err := surface.ScanDocs(db, "", func(sd surface.StoredDoc) error {
		r := ref{source: sd.Source, key: sd.Key, seq: sd.Seq, title: TitleSignature(sd.Doc), text: TextSignature(sd.Doc)}
		d.refs = append(d.refs, r)
		if source == "" || sd.Source == source {
			for k := range sd.Fields {
				fieldSet[k] = true
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("dataset: %s: %w", db.Dir(), err)
	}
	sort.SliceStable(d.refs, func(a, b int) bool {
		if d.refs[a].source != d.refs[b].source {
			return d.refs[a].source < d.refs[b].source
		}
		return d.refs[a].seq < d.refs[b].seq
	})
	d.link()
	for i, r := range d.refs {
		if source == "" || r.source == source {
			d.sel = append(d.sel, i)
		}
	}
	for k := range fieldSet {
		d.fields = append(d.fields, k)
	}
	sort.Strings(d.fields)
	ests := map[string]surface.QueryLog{} // the last log line of each source with an estimate
	err = surface.ScanQueries(db, "", func(src string, l surface.QueryLog) error {
		qs := d.queries[src]
		if qs == nil {
			qs = map[int]query{}
			d.queries[src] = qs
		}
		qs[l.N] = query{text: l.Query, time: l.Time}
		if l.Estimator != "" && l.N >= ests[src].N {
			ests[src] = l
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("dataset: %s: %w", db.Dir(), err)
	}
	if err := d.listDatabases(ests); err != nil {
		return nil, err
	}
	return d, nil
}

// Len is the number of records selected for export.
func (d *Dataset) Len() int { return len(d.sel) }

// Fields is the union of the field names of the selected records, sorted.
func (d *Dataset) Fields() []string { return d.fields }

// Databases lists every source of the crawl directory (also those with
// queries but no record), by source name.
func (d *Dataset) Databases() []Database { return d.dbs }

// listDatabases describes every source that has records or queries.
func (d *Dataset) listDatabases(ests map[string]surface.QueryLog) error {
	records := map[string]int{}
	for _, r := range d.refs {
		records[r.source]++
	}
	names := make([]string, 0, len(records))
	for s := range records {
		names = append(names, s)
	}
	for s := range d.queries {
		if records[s] == 0 {
			names = append(names, s)
		}
	}
	sort.Strings(names)
	for _, s := range names {
		db := Database{Source: s, Records: records[s], Queries: len(d.queries[s])}
		if err := d.describe(&db); err != nil {
			return err
		}
		if l, ok := ests[s]; ok {
			db.CoverageEstimate, db.CoverageLow, db.CoverageHigh = l.CoverageEstimate, l.CoverageLow, l.CoverageHigh
			db.Estimator, db.EstimateQuery = l.Estimator, l.N
		}
		d.sources[s] = len(d.dbs)
		d.dbs = append(d.dbs, db)
	}
	// a group of records of several sources links each of its records
	for _, members := range d.groups {
		src := d.refs[members[0]].source
		if !slices.ContainsFunc(members, func(i int) bool { return d.refs[i].source != src }) {
			continue
		}
		for _, i := range members {
			d.dbs[d.sources[d.refs[i].source]].Linked++
		}
	}
	return nil
}

// describe fills the interface, site and verdict of a source: a form
// source's from its recorded form, an API source's from its URL.
func (d *Dataset) describe(db *Database) error {
	db.Interface = db.Source
	if id, ok := strings.CutPrefix(db.Source, FormPrefix); ok {
		db.Interface = id
		f, found, err := d.db.GetForm(id)
		if err != nil {
			return fmt.Errorf("dataset: source %s: %w", db.Source, err)
		}
		if found {
			db.Site = hostOf(f.Action, f.PageURL, f.Site)
			if f.Probe != nil {
				db.Verdict = f.Probe.Decision
			}
		}
		return nil
	}
	if strings.HasPrefix(db.Source, "http://") || strings.HasPrefix(db.Source, "https://") {
		db.Site = hostOf(db.Source)
	}
	return nil
}

// hostOf is the lower-case host[:port] of the first of urls that has one.
func hostOf(urls ...string) string {
	for _, s := range urls {
		if u, err := url.Parse(s); err == nil && u.Host != "" {
			return strings.ToLower(u.Host)
		}
	}
	return ""
}

// link groups the records that are the same: two records are the same
// when their texts have the same signature, or their titles do where each
// title identifies its record in its own database (no other record of the
// database has it, and at most MaxRepeatedTitles of the database's titled
// records share their title). Groups are closed under both links.
func (d *Dataset) link() {
	type titleKey struct{ source, sig string }
	count := map[titleKey]int{}
	titled := map[string]int{}
	for _, r := range d.refs {
		if r.title != "" {
			count[titleKey{r.source, r.title}]++
			titled[r.source]++
		}
	}
	repeated := map[string]int{}
	for k, n := range count {
		if n > 1 {
			repeated[k.source] += n
		}
	}
	for i := range d.refs {
		r := &d.refs[i]
		if r.title != "" && (count[titleKey{r.source, r.title}] > 1 || float64(repeated[r.source]) > MaxRepeatedTitles*float64(titled[r.source])) {
			r.title = ""
		}
	}
	// union-find over the records, the root of a group its first record
	parent := make([]int, len(d.refs))
	for i := range parent {
		parent[i] = i
	}
	find := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	union := func(a, b int) {
		if ra, rb := find(a), find(b); ra != rb {
			parent[max(ra, rb)] = min(ra, rb)
		}
	}
	first := map[string]int{} // signature → first record with it; titles and texts apart
	for i, r := range d.refs {
		for _, s := range []string{"title:" + r.title, "text:" + r.text} {
			if strings.HasSuffix(s, ":") {
				continue
			}
			if j, ok := first[s]; ok {
				union(i, j)
			} else {
				first[s] = i
			}
		}
	}
	d.groups = map[int][]int{}
	for i := range d.refs {
		g := find(i)
		d.refs[i].group = g
		d.groups[g] = append(d.groups[g], i)
	}
	for g, members := range d.groups {
		if len(members) == 1 {
			delete(d.groups, g)
		}
	}
}

// sameAs lists the record IDs of the other sources' records of r's group,
// sorted.
func (d *Dataset) sameAs(r ref) []string {
	var out []string
	for _, i := range d.groups[r.group] {
		if o := d.refs[i]; o.source != r.source {
			out = append(out, o.id())
		}
	}
	sort.Strings(out)
	return out
}

// Records calls fn with each selected record, by source then download
// order, read again from the store.
func (d *Dataset) Records(fn func(Record) error) error {
	for _, i := range d.sel {
		r := d.refs[i]
		sd, ok, err := surface.GetDoc(d.db, r.source, r.key)
		if err != nil {
			return fmt.Errorf("dataset: record %s: %w", r.id(), err)
		}
		if !ok {
			return fmt.Errorf("dataset: record %s (key %q) vanished from %s", r.id(), r.key, d.db.Dir())
		}
		db := d.dbs[d.sources[r.source]]
		q := d.queries[r.source][sd.Query]
		rec := Record{
			Record: r.id(), Source: r.source, Interface: db.Interface, Site: db.Site,
			Query: q.text, QueryN: sd.Query, URL: sd.URL, ID: sd.ID, Key: sd.Key, Seq: sd.Seq,
			Signature: r.sig(), Group: d.refs[r.group].id(), SameAs: d.sameAs(r), Text: sd.Text, Fields: sd.Fields,
		}
		if q.time > 0 {
			t := time.UnixMilli(q.time).UTC()
			rec.Time = &t
		}
		if rec.SameAs == nil {
			rec.SameAs = []string{}
		}
		if rec.Fields == nil {
			rec.Fields = map[string]string{}
		}
		if err := fn(rec); err != nil {
			return err
		}
	}
	return nil
}
