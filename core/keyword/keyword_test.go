package keyword

import (
	"context"
	"strings"
	"testing"
)

// answering is a Searcher that answers every query with one record.
type answering struct{}

func (answering) Search(_ context.Context, q string, _ int) (Page, error) {
	return Page{Docs: []Doc{{ID: q, Text: q}}, Total: 1}, nil
}

func TestDocKeyContent(t *testing.T) {
	fields := map[string]string{"title": "deep web", "id": "7", "url": "http://h/7", "author": "Ann"}
	cases := []struct {
		name        string
		doc         Doc
		key         string // "" only checks the digest form
		content     string
		sameKeyWith *Doc
	}{
		{"id first", Doc{ID: "7", URL: "http://h/7", Text: "x"}, "id:7", "x", nil},
		{"url next", Doc{URL: "http://h/7", Fields: fields}, "url:http://h/7", "Ann deep web", nil},
		{"digest of text and fields", Doc{Fields: map[string]string{"a": "1", "b": "2"}}, "", "1 2", &Doc{Fields: map[string]string{"b": "2", "a": "1"}}},
		{"text wins over fields", Doc{Text: "indexed text", Fields: fields}, "", "indexed text", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			k := c.doc.Key()
			if (c.key != "" && k != c.key) || (c.key == "" && !strings.HasPrefix(k, "sha1:")) {
				t.Fatalf("Key() = %q, want %q", k, c.key)
			}
			if got := c.doc.Content(); got != c.content {
				t.Fatalf("Content() = %q, want %q", got, c.content)
			}
			if c.sameKeyWith != nil && c.sameKeyWith.Key() != k {
				t.Fatalf("equal documents have keys %q and %q", k, c.sameKeyWith.Key())
			}
		})
	}
	if (Doc{Text: "a"}).Key() == (Doc{Text: "b"}).Key() {
		t.Fatal("different texts share a key")
	}
}
