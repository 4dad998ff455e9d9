package cluster

import (
	"encoding/json"
	"fmt"

	"github.com/dwcrawl/dwcrawl/core/crawl"
)

// encodePage encodes a page for the results stream within limit bytes: a
// page whose record is too large loses links from the end of its record
// (each halving is logged by the caller through the returned count).
func encodePage(p crawl.PageResult, limit int) (data []byte, dropped int, err error) {
	data, err = json.Marshal(p)
	if err != nil || len(data) <= limit {
		return data, 0, err
	}
	var rec map[string]json.RawMessage
	if err := json.Unmarshal(p.Record, &rec); err != nil {
		return nil, 0, fmt.Errorf("cluster: page record of %s: %w", p.URL, err)
	}
	var links []json.RawMessage
	if raw, ok := rec["links"]; ok {
		if err := json.Unmarshal(raw, &links); err != nil {
			return nil, 0, fmt.Errorf("cluster: links of %s: %w", p.URL, err)
		}
	}
	total := len(links)
	for len(data) > limit && len(links) > 0 {
		links = links[:len(links)/2]
		if rec["links"], err = json.Marshal(links); err != nil {
			return nil, 0, err
		}
		if p.Record, err = json.Marshal(rec); err != nil {
			return nil, 0, err
		}
		if data, err = json.Marshal(p); err != nil {
			return nil, 0, err
		}
	}
	if len(data) > limit {
		return nil, 0, fmt.Errorf("cluster: the record of %s takes %d bytes, more than the server's %d", p.URL, len(data), limit)
	}
	return data, total - len(links), nil
}

// encodeOutcome encodes a site outcome within limit bytes: a site with too
// many out-of-site links loses the texts of its last ones first (their
// count stays), then the homepage text.
func encodeOutcome(o crawl.SiteOutcome, limit int) ([]byte, error) {
	data, err := json.Marshal(o)
	for err == nil && len(data) > limit {
		cut := false
		for i := len(o.Out) - 1; i >= 0 && !cut; i-- {
			if n := len(o.Out[i].Links); n > 0 {
				o.Out[i].More += n
				o.Out[i].Links = nil
				cut = true
			}
		}
		if !cut {
			if o.HomeText == "" {
				return nil, fmt.Errorf("cluster: the outcome of %s takes %d bytes, more than the server's %d", o.Site, len(data), limit)
			}
			o.HomeText = ""
		}
		data, err = json.Marshal(o)
	}
	return data, err
}
