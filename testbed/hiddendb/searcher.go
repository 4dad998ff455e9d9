package hiddendb

import (
	"context"

	"github.com/dwcrawl/dwcrawl/core/keyword"
)

// Searcher searches a DB in process, a keyword.Searcher for tests and
// benchmarks that measure without HTTP. It answers as the database's JSON
// API would: match counts shown or hidden (-1) as the database's ShowTotal
// option says, and each record's searchable text (DB.Text) unless
// OmitText.
type Searcher struct {
	DB *DB
	// OmitText leaves Doc.Text empty, so a record's text is its fields
	// (Doc.Content), as from an interface that returns fields only.
	OmitText bool
}

// Search implements keyword.Searcher.
func (s Searcher) Search(ctx context.Context, query string, page int) (keyword.Page, error) {
	if err := ctx.Err(); err != nil {
		return keyword.Page{}, err
	}
	r := s.DB.Search(query, page)
	pg := keyword.Page{Total: -1, Next: r.Next}
	if s.DB.Options().ShowTotal {
		pg.Total = r.Total
	}
	for _, h := range r.Records {
		d := keyword.Doc{ID: h.ID, Fields: h.Fields}
		if !s.OmitText {
			d.Text = s.DB.Text(h.Index)
		}
		pg.Docs = append(pg.Docs, d)
	}
	return pg, nil
}

// TopK implements keyword.TopKer: the database's result limit.
func (s Searcher) TopK(context.Context) (int, error) { return s.DB.Options().K, nil }
