package crawl

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"github.com/dwcrawl/dwcrawl/core/canon"
	"github.com/dwcrawl/dwcrawl/store"
)

// reverseWorthwhile reports whether reverse search has something new to
// search for: a deep (or seed) site not yet reverse-searched, and progress
// since the last round that found nothing. Called with t.mu held.
func (t *twoStage) reverseWorthwhile() bool {
	if t.lastRev >= 0 && t.e.stats.get(cDeep) <= t.lastRev {
		return false
	}
	for s, k := range t.known {
		if (k.deep || k.seed) && !t.reversed[s] {
			return true
		}
	}
	return false
}

// reverseSearch is SmartCrawler's Algorithm 1: ask the search engine for
// pages linking to known deep sites (seeds first at bootstrap), fetch them,
// and keep the centre pages — those with a searchable form or linking to at
// least MinLinks known deep or seed sites — whose out-of-site links go to
// the high-priority site queue. It returns the number of sites queued.
//
// Its progress is in the store (TagCrawl): each query is recorded with its
// target as it is sent, and each round with what it queued, so a resumed
// crawl neither repeats a query nor forgets that a round found nothing.
func (t *twoStage) reverseSearch(ctx context.Context) (queued int, err error) {
	e := t.e
	rv := e.prof.Reverse
	// the round is recorded as begun with its count, so that a kill mid-round
	// leaves a counter that its records explain
	round, err := t.beginRound()
	if err != nil {
		return 0, err
	}
	defer func() {
		if ctx.Err() != nil {
			return // an interrupted round is not over: its unsent queries are sent on resume
		}
		round.Queued = queued
		round.Deep = e.stats.get(cDeep)
		err = errors.Join(err, t.recordRound(round))
	}()
	targets := t.reverseTargets(rv.MaxQueries)
	e.log.Info("reverse search", "targets", len(targets))
	round.Targets = len(targets)

	seenResult := map[string]bool{}
	for _, target := range targets {
		if ctx.Err() != nil {
			return queued, ctx.Err()
		}
		if err := t.recordQuery(target, round.Round); err != nil {
			return queued, err
		}
		results, err := e.deps.Reverse.Links(ctx, target+"/")
		if err != nil {
			e.log.Warn("reverse search query failed", "site", target, "err", err)
			continue
		}
		for _, r := range results {
			u, err := canon.Canonical(r)
			if err != nil || seenResult[u] {
				continue
			}
			seenResult[u] = true
			n, err := t.reverseResult(ctx, u, target)
			queued += n
			if err != nil {
				return queued, err
			}
		}
	}
	return queued, nil
}

// reverseTargets picks the known deep sites, then the seeds, not searched
// for yet (at most max, 0: all) and marks them searched.
func (t *twoStage) reverseTargets(max int) []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var deep, seeds []string
	for s, k := range t.known {
		switch {
		case t.reversed[s]:
		case k.deep:
			deep = append(deep, s)
		case k.seed:
			seeds = append(seeds, s)
		}
	}
	// map order is random: sort each group so rounds are reproducible
	sort.Strings(deep)
	sort.Strings(seeds)
	targets := append(deep, seeds...)
	if max > 0 && len(targets) > max {
		targets = targets[:max]
	}
	for _, s := range targets {
		t.reversed[s] = true
	}
	return targets
}

// reverseResult fetches u, a page the search engine says links to target,
// unless fetched already, and queues its out-of-site links when it is a
// centre page; it returns the number of sites queued.
func (t *twoStage) reverseResult(ctx context.Context, u, target string) (int, error) {
	e := t.e
	st, ok, err := e.db.GetURL(u)
	if err != nil {
		return 0, err
	}
	if ok && st.State != 0 {
		return 0, nil // fetched already (as a page of a site, or an earlier centre page)
	}
	if !t.reverseVisit(canon.Site(u)) {
		return 0, nil
	}
	v, err := e.visit(ctx, u, "reverse:"+target, 0, nil, nil)
	t.reverseVisited()
	if err != nil || v.Page == nil {
		return 0, err
	}
	outs := appendOutLinks(nil, v, v.Site)
	if v.searchable() == 0 && t.knownLinked(outs) < e.prof.Reverse.MinLinks {
		return 0, nil
	}
	before := e.stats.frontierSites.Load()
	if err := t.queueSites(outs, true, &tally{cCentre: 1}); err != nil {
		return 0, err
	}
	return int(e.stats.frontierSites.Load() - before), nil
}

// knownLinked counts the known deep or seed sites outs link to.
func (t *twoStage) knownLinked(outs []outLink) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	known := 0
	counted := map[string]bool{}
	for _, o := range outs {
		if k := t.known[o.site]; k != nil && (k.deep || k.seed) && !counted[o.site] {
			counted[o.site] = true
			known++
		}
	}
	return known
}

// reverseQuery records a site searched for.
type reverseQuery struct {
	Round int64 `json:"round"`
}

// reverseRound records a reverse-search round.
type reverseRound struct {
	Round   int64 `json:"round"`
	Targets int   `json:"targets"` // sites searched for
	Queued  int   `json:"queued"`  // sites added to the site frontier
	Deep    int64 `json:"deep"`    // deep sites known when it ended
	// Begun marks a round that has begun and not ended (the crawl was
	// stopped or killed during it).
	Begun bool `json:"begun,omitempty"`
}

// beginRound counts a reverse-search round and records it as begun, in
// one batch.
func (t *twoStage) beginRound() (reverseRound, error) {
	e := t.e
	b := e.db.NewBatch()
	defer b.Close()
	r := reverseRound{Round: e.stats.get(cReverse) + 1, Begun: true}
	if err := b.PutJSON(store.TagCrawl, store.AppendUint64([]byte{reverseRoundKey}, uint64(r.Round)), r); err != nil {
		return r, err
	}
	if err := e.commit(b, &tally{cReverse: 1}, e.db.SyncsWrites()); err != nil {
		return r, fmt.Errorf("crawl: recording reverse-search round %d: %w", r.Round, err)
	}
	r.Begun = false // what recordRound writes when it ends
	return r, nil
}

// recordQuery records, in one batch, that target is being searched for and
// one more engine query.
func (t *twoStage) recordQuery(target string, round int64) error {
	e := t.e
	b := e.db.NewBatch()
	defer b.Close()
	if err := b.PutJSON(store.TagCrawl, append([]byte{reverseTargetKey}, target...), reverseQuery{Round: round}); err != nil {
		return err
	}
	if err := e.commit(b, &tally{cRevQueries: 1}, e.db.SyncsWrites()); err != nil {
		return fmt.Errorf("crawl: recording reverse search for %s: %w", target, err)
	}
	return nil
}

func (t *twoStage) recordRound(r reverseRound) error {
	if err := t.e.db.PutJSON(store.TagCrawl, store.AppendUint64([]byte{reverseRoundKey}, uint64(r.Round)), r); err != nil {
		return fmt.Errorf("crawl: recording reverse-search round %d: %w", r.Round, err)
	}
	return nil
}

// restoreReverse reloads the reverse-search progress of earlier runs: the
// sites searched for, and the deep-site count of the last round that queued
// nothing (no new round until more deep sites are found).
func (t *twoStage) restoreReverse() error {
	db := t.e.db
	err := db.ScanJSON(store.TagCrawl, []byte{reverseTargetKey}, func(key, _ []byte) error {
		t.reversed[string(key[1:])] = true
		return nil
	})
	if err != nil {
		return fmt.Errorf("crawl: reverse-search progress: %w", err)
	}
	return db.ScanJSON(store.TagCrawl, []byte{reverseRoundKey}, func(key, val []byte) error {
		var r reverseRound
		if err := json.Unmarshal(val, &r); err != nil {
			return fmt.Errorf("crawl: reverse-search round %x: %w", key[1:], err)
		}
		if r.Queued == 0 && !r.Begun {
			t.lastRev = r.Deep // rounds scan in order: the last one wins
		}
		return nil
	})
}
