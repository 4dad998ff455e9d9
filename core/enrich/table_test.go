package enrich

import (
	"strings"
	"testing"
)

func TestReadTable(t *testing.T) {
	cases := []struct {
		name, path string
		wantErr    string
		rows       int
	}{
		{"bom and quotes", "testdata/bom.csv", "", 2},
		{"short row", "testdata/short_row.csv", "testdata/short_row.csv:3: row has 2 fields, header has 3", 0},
		{"bad quote", "testdata/bad_quote.csv", "testdata/bad_quote.csv: line 3", 0},
		{"missing file", "testdata/nope.csv", "no such file", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tab, err := LoadTable(c.path)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("err = %v, want %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(tab.Rows) != c.rows {
				t.Fatalf("rows = %d, want %d", len(tab.Rows), c.rows)
			}
		})
	}
}

func TestTableDocs(t *testing.T) {
	tab, err := LoadTable("testdata/bom.csv")
	if err != nil {
		t.Fatal(err)
	}
	if tab.Header[0] != "id" {
		t.Fatalf("BOM not stripped: header %q", tab.Header)
	}
	docs, err := tab.Docs([]string{"title", "author"})
	if err != nil {
		t.Fatal(err)
	}
	if docs[0] != "Deep web crawling, revisited Ann Lee" || docs[1] != `Quoted "title" Bob` {
		t.Fatalf("docs = %q", docs)
	}
	if tab.Lines[1] != 3 {
		t.Fatalf("line of row 2 = %d", tab.Lines[1])
	}
	if _, err := tab.Docs([]string{"venue"}); err == nil || !strings.Contains(err.Error(), `no column "venue"`) {
		t.Fatalf("unknown column: err = %v", err)
	}
	for _, bad := range []string{"a,a\n1,2\n", "a,\n1,2\n", ""} {
		if _, err := ReadTable(strings.NewReader(bad), "x.csv"); err == nil || !strings.Contains(err.Error(), "x.csv:1") {
			t.Errorf("header %q: err = %v", bad, err)
		}
	}
}

func TestTerms(t *testing.T) {
	cases := []struct{ in, want string }{
		{"The Deep Web", "deep web"},
		{"web WEB and crawling", "web crawling"},
		{"VisBench: {A} Framework", "vis bench framework"},
		{"", ""},
	}
	for _, c := range cases {
		if got := strings.Join(Terms(c.in), " "); got != c.want {
			t.Errorf("Terms(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
