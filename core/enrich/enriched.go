package enrich

import (
	"encoding/csv"
	"io"
	"sort"
	"strconv"
)

// WriteEnriched writes the local table plus, for each covered record, the
// matched hidden record's id and fields (prefixed h_), the match score and
// the query that covered it.
func WriteEnriched(w io.Writer, t *Table, e *Engine) error {
	var fields []string
	seen := map[string]bool{}
	for r := range t.Rows {
		c, ok := e.Cover(r)
		if !ok {
			continue
		}
		for _, f := range fieldOrder(c.Doc) {
			if !seen[f] {
				seen[f] = true
				fields = append(fields, f)
			}
		}
	}
	cw := csv.NewWriter(w)
	header := append([]string(nil), t.Header...)
	header = append(header, "h_id")
	for _, f := range fields {
		header = append(header, "h_"+f)
	}
	header = append(header, "match_score", "covered_by")
	if err := cw.Write(header); err != nil {
		return err
	}
	for r, row := range t.Rows {
		out := append([]string(nil), row...)
		c, ok := e.Cover(r)
		if ok {
			out = append(out, c.Doc.ID)
			for _, f := range fields {
				out = append(out, c.Doc.Fields[f])
			}
			out = append(out, strconv.FormatFloat(c.Score, 'f', 3, 64), c.Query)
		} else {
			for i := 0; i < len(fields)+3; i++ {
				out = append(out, "")
			}
		}
		if err := cw.Write(out); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

func fieldOrder(d Doc) []string {
	keys := make([]string, 0, len(d.Fields))
	for k := range d.Fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
