package surface

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"sort"
	"strings"
)

// Doc is one record returned by a keyword interface.
type Doc struct {
	ID     string            `json:"id,omitempty"`
	URL    string            `json:"url,omitempty"`
	Text   string            `json:"text,omitempty"`
	Fields map[string]string `json:"fields,omitempty"`
}

// Page is one result page of a keyword query.
type Page struct {
	Docs []Doc
	// Total is the number of matches the interface reports, -1 when hidden.
	Total int
	// Next reports whether a further result page exists.
	Next bool
}

// Searcher is a keyword interface: it answers page (1-based) of a query.
// Implementations are the HTTP client of a hidden database's JSON API and the
// Lua keyword-plugin adapter.
type Searcher interface {
	Search(ctx context.Context, query string, page int) (Page, error)
}

// ErrExhausted is returned by a Policy that has no query left to propose.
var ErrExhausted = errors.New("surface: no more queries")

// ErrBudget is returned by Harvest when the query or cost budget is spent;
// Harvest itself reports it as a normal end (nil error).
var ErrBudget = errors.New("surface: budget exhausted")

// Key is the deduplication key of a document: its ID, else its URL, else a
// digest of its text and fields.
func (d Doc) Key() string {
	switch {
	case d.ID != "":
		return "id:" + d.ID
	case d.URL != "":
		return "url:" + d.URL
	}
	h := sha1.New()
	h.Write([]byte(d.Text))
	keys := make([]string, 0, len(d.Fields))
	for k := range d.Fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		h.Write([]byte{0})
		h.Write([]byte(k))
		h.Write([]byte{0})
		h.Write([]byte(d.Fields[k]))
	}
	return "sha1:" + hex.EncodeToString(h.Sum(nil))
}

// Content is the searchable text of a document: Text when present, else its
// field values (except id and url) in field-name order.
func (d Doc) Content() string {
	if d.Text != "" {
		return d.Text
	}
	keys := make([]string, 0, len(d.Fields))
	for k := range d.Fields {
		if k != "id" && k != "url" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(d.Fields[k])
	}
	return b.String()
}
