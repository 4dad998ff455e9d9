package frontier

import (
	"encoding/json"
	"fmt"

	"github.com/dwcrawl/dwcrawl/store"
)

// Evidence is what a frontier keeps with a URL besides its score: what the
// links that point at it say, so that a ranker or classifier that has
// learnt can score it again (SmartCrawler's site and link rankers, ACHE's
// link classifier), and where it was found, for ACHE's backward paths.
//
// A link frontier keeps the evidence of the one link that was queued; the
// site frontier keeps, for a site, the evidence of the links to it seen so
// far. Frontiers persist it with the item and never modify it: a caller
// that pushes an item must not change its Evidence afterwards.
type Evidence struct {
	// From is the page the link was found on; for a site, the first page
	// found linking to it.
	From string
	// Anchor is the anchor text of the link (for a site, of the links to it).
	Anchor string
	// Around is the text around the link (for a site, around the links).
	Around string
	// SF is a site's site frequency: the links to it seen so far (0 for a
	// link).
	SF int
}

// evidenceJSON is the stored form of Evidence, the payload of a
// store.FrontierEntry. The keys are those of the untyped payloads written
// before Evidence existed: links kept their page in "p", sites in "f", so a
// crawl directory of either age resumes.
type evidenceJSON struct {
	From   string `json:"p,omitempty"`
	Anchor string `json:"a,omitempty"`
	Around string `json:"t,omitempty"`
	SF     int    `json:"sf,omitempty"`
	// SiteFrom is where earlier versions kept a site's From; read only.
	SiteFrom string `json:"f,omitempty"`
}

// encodeEvidence returns the stored form of ev (nil for none): the JSON of
// its evidenceJSON.
func encodeEvidence(ev *Evidence) ([]byte, error) {
	if ev == nil || *ev == (Evidence{}) {
		return nil, nil
	}
	return json.Marshal(evidenceJSON{From: ev.From, Anchor: ev.Anchor, Around: ev.Around, SF: ev.SF})
}

// decodeEvidence reads a stored payload (nil for an empty one).
func decodeEvidence(b []byte) (*Evidence, error) {
	if len(b) == 0 {
		return nil, nil
	}
	var w evidenceJSON
	if err := json.Unmarshal(b, &w); err != nil {
		return nil, err
	}
	ev := &Evidence{From: w.From, Anchor: w.Anchor, Around: w.Around, SF: w.SF}
	if ev.From == "" {
		ev.From = w.SiteFrom
	}
	return ev, nil
}

// entry is it as a store entry of queue.
func (it *Item) entry(queue string) (store.FrontierEntry, error) {
	e := store.FrontierEntry{Queue: queue, Score: it.Score, URL: it.URL, Site: it.Site, Depth: it.Depth}
	p, err := encodeEvidence(it.Evidence)
	if err != nil {
		return e, fmt.Errorf("frontier %s: %s: encoding its evidence: %w", queue, it.URL, err)
	}
	e.Payload = p
	return e, nil
}

// itemFromEntry rebuilds a persisted item; a payload that does not decode is
// an error naming the URL (callers add the queue).
func itemFromEntry(e store.FrontierEntry) (*Item, error) {
	ev, err := decodeEvidence(e.Payload)
	if err != nil {
		return nil, fmt.Errorf("entry %s: stored evidence %.60q: %w", e.URL, e.Payload, err)
	}
	return &Item{URL: e.URL, Site: e.Site, Score: e.Score, Depth: e.Depth, Evidence: ev, pos: -1}, nil
}
