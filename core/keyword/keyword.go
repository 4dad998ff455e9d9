package keyword

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
	// Next reports whether a further result page exists (within the top k).
	Next bool
}

// Searcher is a keyword interface: conjunctive keyword search answering
// page (1-based) of a query's top-k results.
type Searcher interface {
	Search(ctx context.Context, query string, page int) (Page, error)
}

// TopKer is implemented by searchers that know their result limit k.
type TopKer interface {
	TopK(ctx context.Context) (int, error)
}

// ErrBudget is the error of a spent request budget (Limited, or a plugin
// adapter's budget); callers end their run normally on it.
var ErrBudget = errors.New("keyword interface: request budget exhausted")

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
	for _, k := range sortedKeys(d.Fields, false) {
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
	var b strings.Builder
	for _, k := range sortedKeys(d.Fields, true) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(d.Fields[k])
	}
	return b.String()
}

// sortedKeys lists the field names in order, without id and url when
// content is set (they identify a record, they are not its text).
func sortedKeys(fields map[string]string, content bool) []string {
	keys := make([]string, 0, len(fields))
	for k := range fields {
		if !content || (k != "id" && k != "url") {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}
