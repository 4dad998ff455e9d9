package crawl

import (
	"fmt"
	"sync"

	"github.com/dwcrawl/dwcrawl/core/rank"
	"github.com/dwcrawl/dwcrawl/store"
)

// learner is SmartCrawler's adaptive learning (§3.4) as the engine uses it:
// every N new deep sites FSS is rebuilt and the site ranker switched to it,
// every M new form pages FSL is rebuilt; each round is recorded in the store
// (dwcrawl features prints them).
type learner struct {
	e  *Engine
	r  *rankers
	mu sync.Mutex
	l  *rank.Learner
}

func newLearner(e *Engine, r *rankers) (*learner, error) {
	p := e.prof
	l := &learner{e: e, r: r, l: rank.NewLearner(rank.LearnerOptions{K: p.Rank.TopK, SiteEvery: p.Learn.SitesEvery, FormEvery: p.Learn.FormsEvery})}
	// resume: the latest rounds of this crawl, else those of a prior crawl
	for _, db := range []*store.DB{e.db, e.deps.Prior} {
		if db == nil {
			continue
		}
		n, err := l.restoreFrom(db)
		if err != nil {
			return nil, err
		}
		if n > 0 {
			break
		}
	}
	return l, nil
}

// restoreFrom installs the latest FSS and FSL rounds found in db.
func (l *learner) restoreFrom(db *store.DB) (int, error) {
	latest := map[string]rank.Iteration{}
	err := db.ScanJSON(store.TagFeatures, nil, func(_, val []byte) error {
		var it rank.Iteration
		if err := jsonUnmarshal(val, &it); err != nil {
			return nil
		}
		if cur, ok := latest[it.Space]; !ok || it.Round > cur.Round {
			latest[it.Space] = it
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("crawl: reading learning rounds: %w", err)
	}
	for space, it := range latest {
		s := rank.SpaceFromIteration(it)
		switch space {
		case "FSS":
			l.r.siteR.SetSpace(s)
		case "FSL":
			l.r.linkR.SetSpace(s)
		}
	}
	return len(latest), nil
}

// deepSite records a new deep site; true when FSS was rebuilt.
func (l *learner) deepSite(site, anchors, around, _ string) bool {
	l.mu.Lock()
	it := l.l.AddSite(rank.SiteFeatures(site, anchors, around))
	l.mu.Unlock()
	if it == nil {
		return false
	}
	l.r.siteR.SetSpace(rank.SpaceFromIteration(*it))
	l.save(*it)
	return true
}

// formPage records a new page with relevant forms; true when FSL was rebuilt.
func (l *learner) formPage(u, anchor, around string) bool {
	l.mu.Lock()
	it := l.l.AddForm(rank.LinkFeatures(u, anchor, around))
	l.mu.Unlock()
	if it == nil {
		return false
	}
	l.r.linkR.SetSpace(rank.SpaceFromIteration(*it))
	l.save(*it)
	return true
}

// save records a learning round under its space and round number.
func (l *learner) save(it rank.Iteration) {
	if err := saveIteration(l.e.db, it); err != nil {
		l.e.log.Warn("recording learning round", "space", it.Space, "err", err)
	}
}

// FeatureKey is the TagFeatures key of a learning round.
func FeatureKey(space string, round int) []byte {
	return store.AppendUint64(store.AppendString(nil, space), uint64(round))
}

func saveIteration(db *store.DB, it rank.Iteration) error {
	return db.PutJSON(store.TagFeatures, FeatureKey(it.Space, it.Round), it)
}
