package crawl

import (
	"encoding/json"
	"math"
	"strconv"
	"time"

	"github.com/dwcrawl/dwcrawl/store"
)

// encode returns the page record's JSON, as encoding/json writes it less
// its HTML escaping (any JSON decoder reads the same record). A page is
// recorded per fetch and json.Marshal's reflection cost 32 µs of the
// client's ~1 ms per page; appending costs a few (BenchmarkPageRecordEncode).
func (r *pageRecord) encode(b []byte) ([]byte, error) {
	for _, f := range r.Forms {
		if math.IsNaN(f.P) || math.IsInf(f.P, 0) {
			return json.Marshal(r) // its error names the value
		}
	}
	b = append(b, `{"url":`...)
	b = store.AppendJSONString(b, r.URL)
	if r.Final != "" {
		b = store.AppendJSONString(append(b, `,"final":`...), r.Final)
	}
	b = store.AppendJSONString(append(b, `,"site":`...), r.Site)
	if r.Parent != "" {
		b = store.AppendJSONString(append(b, `,"parent":`...), r.Parent)
	}
	b = strconv.AppendInt(append(b, `,"depth":`...), int64(r.Depth), 10)
	b = strconv.AppendInt(append(b, `,"status":`...), int64(r.Status), 10)
	if r.Err != "" {
		b = store.AppendJSONString(append(b, `,"err":`...), r.Err)
	}
	if r.Title != "" {
		b = store.AppendJSONString(append(b, `,"title":`...), r.Title)
	}
	if r.Text != "" {
		b = store.AppendJSONString(append(b, `,"text":`...), r.Text)
	}
	if len(r.Links) > 0 {
		b = append(b, `,"links":[`...)
		for i, l := range r.Links {
			if i > 0 {
				b = append(b, ',')
			}
			b = store.AppendJSONString(append(b, `{"u":`...), l.U)
			if l.A != "" {
				b = store.AppendJSONString(append(b, `,"a":`...), l.A)
			}
			if l.B != "" {
				b = store.AppendJSONString(append(b, `,"b":`...), l.B)
			}
			if l.F != "" {
				b = store.AppendJSONString(append(b, `,"f":`...), l.F)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if len(r.Forms) > 0 {
		b = append(b, `,"forms":[`...)
		for i, f := range r.Forms {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(append(b, `{"i":`...), int64(f.Index), 10)
			b = store.AppendJSONString(append(b, `,"k":`...), f.Kind)
			if f.Searchable {
				b = append(b, `,"s":true`...)
			}
			if f.Relevant {
				b = append(b, `,"r":true`...)
			}
			if f.Dup {
				b = append(b, `,"d":true`...)
			}
			b = strconv.AppendFloat(append(b, `,"p":`...), f.P, 'g', -1, 64)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	b = strconv.AppendInt(append(b, `,"seq":`...), r.Seq, 10)
	b = append(b, `,"fetched":"`...)
	b = r.Fetched.AppendFormat(b, time.RFC3339Nano)
	b = append(b, '"')
	if r.Refetches != 0 {
		b = strconv.AppendInt(append(b, `,"refetches":`...), int64(r.Refetches), 10)
	}
	return append(b, '}'), nil
}
