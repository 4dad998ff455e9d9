package dataset

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"io"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/dwcrawl/dwcrawl/core/keyword"
	"github.com/dwcrawl/dwcrawl/core/surface"
	"github.com/dwcrawl/dwcrawl/store"
	"github.com/dwcrawl/dwcrawl/testbed/hiddendb"
)

// fixture is a crawl directory holding the harvests of two bibliographies
// that share papers (a mirror that prints titles its own way and names
// fields differently), of a keyword plugin, and of an API journaled
// without query times (data written before times were kept).
type fixture struct {
	db    *store.DB
	forms map[string]store.Form         // by source
	logs  map[string][]surface.QueryLog // by source
	paper map[string]string             // record key (any source) → the original paper's title, lower-cased
}

const (
	plugSource = "keyword/dblp"
	oldSource  = "http://127.0.0.1:9/api/search"
)

func newFixture(t *testing.T) *fixture {
	t.Helper()
	papers, err := hiddendb.LoadJSONL(filepath.Join("testdata", "papers.jsonl"), "id")
	if err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(filepath.Join(t.TempDir(), "crawl"), store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	fx := &fixture{db: db, forms: map[string]store.Form{}, logs: map[string][]surface.QueryLog{}, paper: map[string]string{}}
	// the mirror: upper-case, accented, punctuated titles; other field names
	mirror := func(r hiddendb.Record) hiddendb.Record {
		title := strings.ToUpper(strings.ReplaceAll(r.Fields["title"], "e", "é"))
		return hiddendb.Record{ID: "m-" + r.ID, Fields: map[string]string{
			"Title": "  " + strings.ReplaceAll(title, " ", " -- ") + "!", "creator": r.Fields["authors"], "year": r.Fields["year"]}}
	}
	var mirrored []hiddendb.Record
	for _, r := range papers[100:300] {
		mirrored = append(mirrored, mirror(r))
	}
	for _, p := range papers {
		fx.paper["id:"+p.ID] = strings.ToLower(p.Fields["title"])
		fx.paper["id:m-"+p.ID] = strings.ToLower(p.Fields["title"])
	}
	harvests := []struct {
		page, action string
		recs         []hiddendb.Record
		budget       int
		verdict      string
	}{
		{"http://bib.example/search", "http://Bib.Example/cgi-bin/find", papers[:200], 30, store.ProbeTopicDatabase},
		{"http://mirror.example:8080/", "", mirrored, 25, ""},
	}
	for _, h := range harvests {
		f := store.Form{Site: "http://" + hostOf(h.page), PageURL: h.page, Action: h.action, Method: "GET", Relevant: true}
		f.ID = store.FormID(f.PageURL, f.Index)
		if h.verdict != "" {
			f.Probe = &store.Probe{Decision: h.verdict}
		}
		if err := db.PutForm(f); err != nil {
			t.Fatal(err)
		}
		src := FormPrefix + f.ID
		fx.forms[src] = f
		hdb := hiddendb.New(h.recs, hiddendb.Options{K: 20, PageSize: 10, ShowTotal: true, Seed: 1})
		st, err := surface.Harvest(context.Background(), hiddendb.Searcher{DB: hdb}, &surface.Adaptive{},
			surface.Options{Source: src, Budget: h.budget, First: "web", Journal: &surface.StoreJournal{DB: db, Source: src}})
		if err != nil {
			t.Fatal(err)
		}
		fx.logs[src] = st.Log()
	}
	// a plugin's records: one-word titles, so their text identifies them
	plug := &surface.StoreJournal{DB: db, Source: plugSource}
	e := surface.Entry{Log: surface.QueryLog{N: 1, Query: "zebra", Time: time.Date(2025, 5, 1, 10, 0, 0, 0, time.UTC).UnixMilli()}}
	for i, text := range []string{"Zebra crossings, a survey", "Zebra: the finch"} {
		d := keyword.Doc{ID: "z" + strconv.Itoa(i), Text: text, Fields: map[string]string{"title": "Zebra"}}
		e.Results = append(e.Results, d.Key())
		e.Fresh = append(e.Fresh, d.Key())
		e.Docs = append(e.Docs, d)
	}
	if err := plug.Append(context.Background(), e); err != nil {
		t.Fatal(err)
	}
	fx.logs[plugSource] = []surface.QueryLog{e.Log}
	// old data: no query time; its record has the text of a plugin record
	// in other words' case and punctuation, so the two are linked
	old := &surface.StoreJournal{DB: db, Source: oldSource}
	d := keyword.Doc{URL: "http://127.0.0.1:9/r/1", Text: "ZEBRA CROSSINGS -- A SURVEY."}
	e = surface.Entry{Log: surface.QueryLog{N: 1, Query: "crossings"}, Results: []string{d.Key()}, Fresh: []string{d.Key()}, Docs: []keyword.Doc{d}}
	if err := old.Append(context.Background(), e); err != nil {
		t.Fatal(err)
	}
	fx.logs[oldSource] = []surface.QueryLog{e.Log}
	return fx
}

// all returns every exported record.
func all(t *testing.T, d *Dataset) []Record {
	t.Helper()
	var out []Record
	if err := d.Records(func(r Record) error { out = append(out, r); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestProvenance(t *testing.T) {
	fx := newFixture(t)
	d, err := Load(fx.db, "")
	if err != nil {
		t.Fatal(err)
	}
	recs := all(t, d)
	counts, _ := surface.Sources(fx.db)
	total := 0
	for _, c := range counts {
		total += c[0]
	}
	if len(recs) != total || d.Len() != total || total == 0 {
		t.Fatalf("%d records exported, Len %d, %d stored", len(recs), d.Len(), total)
	}
	seq := map[string]int{}
	for _, r := range recs {
		seq[r.Source]++
		if r.Seq != seq[r.Source] || r.Record != r.Source+"/"+strconv.Itoa(r.Seq) {
			t.Fatalf("record %s: seq %d, want %d in download order", r.Record, r.Seq, seq[r.Source])
		}
		log := fx.logs[r.Source]
		if r.QueryN < 1 || r.QueryN > len(log) || r.Query != log[r.QueryN-1].Query {
			t.Fatalf("record %s: query %d %q; the source's log has %d queries", r.Record, r.QueryN, r.Query, len(log))
		}
		switch ms := log[r.QueryN-1].Time; {
		case ms == 0 && r.Time != nil:
			t.Fatalf("record %s: time %v, the query has none", r.Record, r.Time)
		case ms != 0 && (r.Time == nil || r.Time.UnixMilli() != ms || r.Time.Location() != time.UTC):
			t.Fatalf("record %s: time %v, the query was answered at %d ms", r.Record, r.Time, ms)
		}
		wantIf, wantSite := r.Source, ""
		if f, ok := fx.forms[r.Source]; ok {
			wantIf = f.ID
			wantSite = strings.ToLower(hostOf(f.Action, f.PageURL))
		} else if r.Source == oldSource {
			wantSite = "127.0.0.1:9"
		}
		if r.Interface != wantIf || r.Site != wantSite {
			t.Fatalf("record %s: interface %q site %q, want %q %q", r.Record, r.Interface, r.Site, wantIf, wantSite)
		}
		sd, ok, err := surface.GetDoc(fx.db, r.Source, r.Key)
		if err != nil || !ok || sd.URL != r.URL || sd.ID != r.ID || sd.Text != r.Text || !maps(sd.Fields, r.Fields) {
			t.Fatalf("record %s differs from the stored %+v (%v %v)", r.Record, sd, ok, err)
		}
	}
	if len(seq) != 4 {
		t.Fatalf("sources %v, want 4", seq)
	}
	// the sites, as the checks above expect them
	for src, want := range map[string]string{FormPrefix + store.FormID("http://bib.example/search", 0): "bib.example", FormPrefix + store.FormID("http://mirror.example:8080/", 0): "mirror.example:8080"} {
		if i, ok := d.sources[src]; !ok || d.dbs[i].Site != want {
			t.Fatalf("source %s: %+v, want site %s", src, d.dbs, want)
		}
	}
}

func sameFloat(a, b *float64) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

func maps(a, b map[string]string) bool {
	return len(a) == len(b) && (len(a) == 0 || reflect.DeepEqual(a, b))
}

func TestLinking(t *testing.T) {
	fx := newFixture(t)
	d, err := Load(fx.db, "")
	if err != nil {
		t.Fatal(err)
	}
	recs := all(t, d)
	byRecord := map[string]Record{}
	for _, r := range recs {
		byRecord[r.Record] = r
	}
	// how often each original title was downloaded per source: a title
	// links only where it is its source's only record with that title
	titles := map[string]map[string]int{}
	for _, r := range recs {
		if title, ok := fx.paper[r.Key]; ok {
			if titles[r.Source] == nil {
				titles[r.Source] = map[string]int{}
			}
			titles[r.Source][title]++
		}
	}
	linked, shared := 0, 0
	for _, r := range recs {
		// the truth: the records of other sources with the same original
		// title, whatever the mirror did to it, where it is unique
		var want []string
		if title, ok := fx.paper[r.Key]; ok && titles[r.Source][title] == 1 {
			for _, o := range recs {
				if o.Source != r.Source && fx.paper[o.Key] == title && titles[o.Source][title] == 1 {
					want = append(want, o.Record)
					if strings.TrimPrefix(o.Key, "id:m-") == strings.TrimPrefix(r.Key, "id:") {
						shared++
					}
				}
			}
		}
		sort.Strings(want)
		if r.Source == plugSource && r.ID == "z0" {
			want = []string{oldSource + "/1"}
		}
		if r.Source == oldSource {
			want = []string{plugSource + "/1"}
		}
		if !slices.Equal(r.SameAs, want) && !(len(want) == 0 && len(r.SameAs) == 0) {
			t.Errorf("record %s (%q): same_as %v, want %v", r.Record, r.Fields, r.SameAs, want)
		}
		for _, o := range r.SameAs {
			if byRecord[o].Group != r.Group || !slices.Contains(byRecord[o].SameAs, r.Record) {
				t.Errorf("%s links %s, which does not link back or is of another group", r.Record, o)
			}
		}
		if len(r.SameAs) > 0 {
			linked++
		} else if r.Group != r.Record {
			t.Errorf("record %s links nothing but is of group %s", r.Record, r.Group)
		}
	}
	// the fixture must exercise links: papers downloaded from both sides
	if shared < 5 || linked < 2*5 {
		t.Fatalf("only %d papers downloaded from both bibliographies, %d records linked", shared, linked)
	}
	n := 0
	for _, db := range d.Databases() {
		n += db.Linked
	}
	if n != linked {
		t.Fatalf("databases count %d linked records, the records %d", n, linked)
	}
	t.Logf("%d records, %d linked; %d papers downloaded from both bibliographies", len(recs), linked, shared)
}

func TestSignature(t *testing.T) {
	title := func(s string) keyword.Doc { return keyword.Doc{Fields: map[string]string{"title": s}} }
	cases := []struct {
		name string
		sig  func(keyword.Doc) string
		a, b keyword.Doc
		same bool
	}{
		{"title: case, accents, punctuation", TitleSignature, title("Café  au lait: a study"),
			keyword.Doc{Text: "other text", Fields: map[string]string{"Title": "CAFE AU-LAIT — A STUDY!"}}, true},
		{"different titles", TitleSignature, title("Deep web crawling"), title("Deep web surfacing"), false},
		{"text: spacing and punctuation", TextSignature, keyword.Doc{Text: "Ford  Focus, 2011"}, keyword.Doc{Text: "ford focus 2011", URL: "http://b/"}, true},
		{"text: other words", TextSignature, keyword.Doc{Text: "Ford Focus 2011"}, keyword.Doc{Text: "Ford Focus 2012"}, false},
		{"field values when no text", TextSignature, keyword.Doc{Fields: map[string]string{"make": "Ford", "model": "Focus", "y": "2011"}},
			keyword.Doc{Fields: map[string]string{"a": "ford", "b": "FOCUS", "c": "2011"}}, true},
		{"full-width digits fold", TextSignature, keyword.Doc{Text: "Route ６６ east"}, keyword.Doc{Text: "route 66 east"}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sa, sb := c.sig(c.a), c.sig(c.b)
			if sa == "" || sb == "" || (sa == sb) != c.same {
				t.Fatalf("signatures %q %q, same = %v", sa, sb, c.same)
			}
		})
	}
	for _, d := range []keyword.Doc{title("Zebra"), {Text: "Ford Focus"}, {Text: " ,;"}} {
		if s, s2 := TitleSignature(d), TextSignature(d); s != "" || s2 != "" {
			t.Fatalf("%+v: too few words to identify it, signatures %q %q", d, s, s2)
		}
	}
}

// TestLinkRules checks the grouping rule on small databases.
func TestLinkRules(t *testing.T) {
	car := func(title, text string) keyword.Doc {
		return keyword.Doc{URL: "http://x/" + Normalize(text), Text: text, Fields: map[string]string{"title": title}}
	}
	cases := []struct {
		name string
		dbs  map[string][]keyword.Doc
		want map[string][]string // record → same_as (records absent: none)
	}{
		{"titles repeated in a database: the text decides", map[string][]keyword.Doc{
			"a": {car("Ford Focus", "Ford Focus 2011 red 42000 km"), car("Ford Focus", "Ford Focus 2015 blue 9000 km"), car("Ford Focus", "Ford Focus 2009 grey")},
			"b": {car("Ford Focus", "FORD FOCUS 2015, blue, 9000 km")},
		}, map[string][]string{"a/2": {"b/1"}, "b/1": {"a/2"}}},
		{"unique titles link, across other texts", map[string][]keyword.Doc{
			"a": {car("Deep web crawling", "Deep web crawling, Smith 2001"), car("Form surfacing", "Form surfacing, Jones 2003")},
			"b": {car("DEEP WEB CRAWLING", "deep web crawling by j smith")},
		}, map[string][]string{"a/1": {"b/1"}, "b/1": {"a/1"}}},
		{"links are transitive", map[string][]keyword.Doc{
			"a": {car("Deep web crawling", "Deep web crawling, Smith 2001")},
			"b": {car("deep web crawling", "crawling the deep web, 2001 paper")},
			"c": {{Text: "Crawling the deep web (2001 paper)"}},
		}, map[string][]string{"a/1": {"b/1", "c/1"}, "b/1": {"a/1", "c/1"}, "c/1": {"a/1", "b/1"}}},
		{"the same database twice is a group, not a link", map[string][]keyword.Doc{
			"a": {car("One", "the same text here"), {URL: "http://x/2", Text: "The same text, here"}},
		}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			db, err := store.Open(filepath.Join(t.TempDir(), "crawl"), store.Options{NoSync: true})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			for src, docs := range c.dbs {
				e := surface.Entry{Log: surface.QueryLog{N: 1, Query: "q"}}
				for _, d := range docs {
					e.Results, e.Fresh, e.Docs = append(e.Results, d.Key()), append(e.Fresh, d.Key()), append(e.Docs, d)
				}
				if err := (&surface.StoreJournal{DB: db, Source: src}).Append(context.Background(), e); err != nil {
					t.Fatal(err)
				}
			}
			d, err := Load(db, "")
			if err != nil {
				t.Fatal(err)
			}
			groups := map[string][]string{}
			for _, r := range all(t, d) {
				if !slices.Equal(r.SameAs, c.want[r.Record]) && len(r.SameAs)+len(c.want[r.Record]) > 0 {
					t.Errorf("%s (%q): same_as %v, want %v", r.Record, r.Text, r.SameAs, c.want[r.Record])
				}
				groups[r.Group] = append(groups[r.Group], r.Record)
			}
			if c.want == nil && len(groups) != 1 {
				t.Errorf("groups %v, want one", groups)
			}
		})
	}
}

// readBack reads an export back as records, per format.
var readBack = map[Format]func(t *testing.T, b []byte) []Record{
	JSONL: func(t *testing.T, b []byte) []Record {
		var out []Record
		dec := json.NewDecoder(bytes.NewReader(b))
		for dec.More() {
			var r Record
			if err := dec.Decode(&r); err != nil {
				t.Fatal(err)
			}
			out = append(out, r)
		}
		return out
	},
	CSV: func(t *testing.T, b []byte) []Record {
		rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
		if err != nil || len(rows) == 0 {
			t.Fatalf("csv: %d rows, %v", len(rows), err)
		}
		head := rows[0]
		if !slices.Equal(head[:len(Columns)], Columns) {
			t.Fatalf("csv header %v", head)
		}
		var out []Record
		for _, row := range rows[1:] {
			col := map[string]string{}
			r := Record{Fields: map[string]string{}, SameAs: []string{}}
			for i, h := range head {
				if f, ok := strings.CutPrefix(h, FieldPrefix); ok {
					if row[i] != "" {
						r.Fields[f] = row[i]
					}
					continue
				}
				col[h] = row[i]
			}
			r.Record, r.Source, r.Interface, r.Site, r.Query, r.URL = col["record"], col["source"], col["interface"], col["site"], col["query"], col["url"]
			r.ID, r.Key, r.Signature, r.Group, r.Text = col["id"], col["key"], col["signature"], col["group"], col["text"]
			r.QueryN, _ = strconv.Atoi(col["query_n"])
			r.Seq, _ = strconv.Atoi(col["seq"])
			if col["same_as"] != "" {
				r.SameAs = strings.Split(col["same_as"], " ")
			}
			if col["time"] != "" {
				tm, err := time.Parse(time.RFC3339, col["time"])
				if err != nil {
					t.Fatal(err)
				}
				r.Time = &tm
			}
			out = append(out, r)
		}
		return out
	},
	Parquet: func(t *testing.T, b []byte) []Record {
		pr := parquet.NewReader(bytes.NewReader(b))
		defer pr.Close()
		var out []Record
		for {
			m := map[string]any{}
			if err := pr.Read(&m); err == io.EOF {
				break
			} else if err != nil {
				t.Fatal(err)
			}
			s := func(k string) string { v, _ := m[k].(string); return v }
			r := Record{Record: s("record"), Source: s("source"), Interface: s("interface"), Site: s("site"), Query: s("query"), URL: s("url"),
				ID: s("id"), Key: s("key"), Signature: s("signature"), Group: s("group"), Text: s("text"), Fields: map[string]string{}, SameAs: []string{}}
			r.QueryN, r.Seq = int(m["query_n"].(int64)), int(m["seq"].(int64))
			if ms, ok := m["time"].(int64); ok {
				tm := time.UnixMilli(ms).UTC()
				r.Time = &tm
			}
			for _, v := range m["same_as"].([]any) {
				r.SameAs = append(r.SameAs, v.(string))
			}
			fields, _ := m["fields"].(map[string]any)
			for k, v := range fields {
				if v != nil {
					r.Fields[k] = v.(string)
				}
			}
			out = append(out, r)
		}
		return out
	},
}

func TestFormatsRoundTrip(t *testing.T) {
	fx := newFixture(t)
	for _, source := range []string{"", plugSource} {
		d, err := Load(fx.db, source)
		if err != nil {
			t.Fatal(err)
		}
		want := all(t, d)
		for _, f := range Formats {
			t.Run(string(f)+"/"+source, func(t *testing.T) {
				var buf bytes.Buffer
				n, err := d.Write(&buf, f)
				if err != nil || n != len(want) {
					t.Fatalf("wrote %d records, %v; want %d", n, err, len(want))
				}
				got := readBack[f](t, buf.Bytes())
				if len(got) != len(want) {
					t.Fatalf("read back %d records, want %d", len(got), len(want))
				}
				for i := range want {
					if !reflect.DeepEqual(got[i], want[i]) {
						t.Fatalf("record %d read back:\n%+v\nwritten:\n%+v", i, got[i], want[i])
					}
				}
			})
		}
	}
	d, _ := Load(fx.db, "")
	if _, err := d.Write(io.Discard, "xml"); err == nil || !strings.Contains(err.Error(), "jsonl, csv or parquet") {
		t.Fatalf("unknown format: %v", err)
	}
}

func TestParquetSchema(t *testing.T) {
	fx := newFixture(t)
	d, err := Load(fx.db, "")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := d.Write(&buf, Parquet); err != nil {
		t.Fatal(err)
	}
	f, err := parquet.OpenFile(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	var cols []string
	for _, p := range f.Schema().Columns() {
		cols = append(cols, strings.Join(p, "."))
	}
	// a column per field of every source: the union of their names
	for _, want := range []string{"fields.title", "fields.Title", "fields.authors", "fields.creator", "fields.year", "same_as.list.element", "time", "query"} {
		if !slices.Contains(cols, want) {
			t.Fatalf("no column %s in %v", want, cols)
		}
	}
	if f.NumRows() != int64(d.Len()) {
		t.Fatalf("%d rows, %d records", f.NumRows(), d.Len())
	}
}

func TestDatabases(t *testing.T) {
	fx := newFixture(t)
	d, err := Load(fx.db, "")
	if err != nil {
		t.Fatal(err)
	}
	counts, _ := surface.Sources(fx.db)
	ests, _ := surface.Estimates(fx.db)
	dbs := d.Databases()
	if len(dbs) != len(counts) {
		t.Fatalf("%d databases, %d sources", len(dbs), len(counts))
	}
	for _, db := range dbs {
		if c := counts[db.Source]; db.Records != c[0] || db.Queries != c[1] || db.Queries != len(fx.logs[db.Source]) {
			t.Fatalf("%s: %d records %d queries; stored %v, logged %d", db.Source, db.Records, db.Queries, c, len(fx.logs[db.Source]))
		}
		if l, ok := ests[db.Source]; ok != (db.Estimator != "") || (ok && (db.EstimateQuery != l.N || !sameFloat(db.CoverageEstimate, l.CoverageEstimate) || !sameFloat(db.CoverageLow, l.CoverageLow))) {
			t.Fatalf("%s: estimate %+v, journal %+v", db.Source, db, l)
		}
		if f, ok := fx.forms[db.Source]; ok && (f.Probe == nil) != (db.Verdict == "") {
			t.Fatalf("%s: verdict %q, form probe %+v", db.Source, db.Verdict, f.Probe)
		}
	}
	// a harvest of 30 queries journals an estimate
	if n := len(ests); n == 0 {
		t.Fatal("no source has a coverage estimate: the estimate columns are not exercised")
	}
	empty, err := store.Open(filepath.Join(t.TempDir(), "empty"), store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer empty.Close()
	if d, err := Load(empty, ""); err != nil || d.Len() != 0 || len(d.Databases()) != 0 {
		t.Fatalf("empty directory: %v", err)
	}
	if d, err := Load(fx.db, "form:none"); err != nil || d.Len() != 0 || len(d.Databases()) != len(dbs) {
		t.Fatalf("unknown source: %v", err)
	}
}
