package surface

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dwcrawl/dwcrawl/store"
	"github.com/dwcrawl/dwcrawl/testbed/hiddendb"
)

func TestStoreJournalResume(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "crawl")
	db := papersDB(t, 20, true)
	ctx := context.Background()
	run := func(budget int) *State {
		sdb, err := store.Open(dir, store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer sdb.Close()
		st, err := Harvest(ctx, hiddendb.Searcher{DB: db}, &Adaptive{}, Options{Budget: budget, First: "web", Journal: &StoreJournal{DB: sdb, Source: "papers"}})
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	run(5)
	resumed := run(12)
	full, err := Harvest(ctx, hiddendb.Searcher{DB: db}, &Adaptive{}, Options{Budget: 12, First: "web"})
	if err != nil {
		t.Fatal(err)
	}
	if len(resumed.Log()) != 12 || resumed.Docs() != full.Docs() {
		t.Fatalf("resumed: %d queries, %d docs; uninterrupted: %d docs", len(resumed.Log()), resumed.Docs(), full.Docs())
	}
	for i, l := range full.Log() {
		if resumed.Log()[i].Query != l.Query {
			t.Fatalf("query %d: %q resumed, %q uninterrupted", i+1, resumed.Log()[i].Query, l.Query)
		}
	}
	sdb, err := store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer sdb.Close()
	var buf bytes.Buffer
	n, err := ExportDocs(sdb, "papers", &buf)
	if err != nil || n != full.Docs() {
		t.Fatalf("ExportDocs: %d, %v; want %d", n, err, full.Docs())
	}
	sc := bufio.NewScanner(&buf)
	for i := 1; sc.Scan(); i++ {
		var d StoredDoc
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			t.Fatal(err)
		}
		if d.Seq != i || d.Source != "papers" || d.ID != full.Doc(i-1).ID {
			t.Fatalf("record %d: %+v, want %s", i, d, full.Doc(i-1).ID)
		}
	}
	srcs, err := Sources(sdb)
	if err != nil || srcs["papers"] != [2]int{full.Docs(), 12} {
		t.Fatalf("Sources = %v, %v", srcs, err)
	}
}

func TestFormVars(t *testing.T) {
	cases := []struct {
		name   string
		fields string
		want   map[string]string
		err    bool
	}{
		{"query box by name", `[{"Tag":"input","Type":"text","Name":"email"},{"Tag":"input","Type":"text","Name":"q"},{"Tag":"input","Type":"hidden","Name":"lang","Value":"en"},
			{"Tag":"select","Type":"select-one","Name":"cat","Options":[{"Value":"all","Text":"All"},{"Value":"b","Text":"Books","Selected":true}]},
			{"Tag":"input","Type":"checkbox","Name":"f","Value":"x","Checked":true},{"Tag":"input","Type":"checkbox","Name":"f","Value":"y","Checked":true},
			{"Tag":"input","Type":"submit","Name":"go","Value":"Go"}]`,
			map[string]string{"field": "q", "method": "GET", "defaults": `{"cat":"b","f":["x","y"],"lang":"en"}`}, false},
		{"search type wins", `[{"Tag":"input","Type":"text","Name":"name"},{"Tag":"input","Type":"search","Name":"term"}]`,
			map[string]string{"field": "term"}, false},
		{"textarea", `[{"Tag":"textarea","Type":"textarea","Name":"words"}]`, map[string]string{"field": "words"}, false},
		{"no text box", `[{"Tag":"select","Type":"select-one","Name":"cat"}]`, nil, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := store.Form{ID: "f1", PageURL: "http://example.com/", Action: "http://example.com/s", Method: "get", Fields: json.RawMessage(c.fields)}
			got, err := FormVars(f)
			if (err != nil) != c.err {
				t.Fatalf("err = %v", err)
			}
			for k, v := range c.want {
				if got[k] != v {
					t.Fatalf("%s = %q, want %q (all: %v)", k, got[k], v, got)
				}
			}
			if err == nil && (got["action"] != f.Action || !strings.HasPrefix(got["form_page"], "http")) {
				t.Fatalf("vars %v", got)
			}
		})
	}
}
