package crawl

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/dwcrawl/dwcrawl/core/rank"
	"github.com/dwcrawl/dwcrawl/store"
)

// learner is SmartCrawler's adaptive learning (§3.4) as the engine uses it:
// every N new deep sites FSS is rebuilt and the site ranker switched to it,
// every M new form pages FSL is rebuilt; the engine records each round in
// the store (saveRound; dwcrawl features prints them).
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
	err := db.ScanJSON(store.TagFeatures, nil, func(key, val []byte) error {
		var it rank.Iteration
		if err := json.Unmarshal(val, &it); err != nil {
			return fmt.Errorf("learning round %q: %w", key, err)
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

// deepSite records a new deep site; when this completes a round, the site
// ranker switches to the new FSS and the round is returned.
func (l *learner) deepSite(site, anchors, around string) *rank.Iteration {
	l.mu.Lock()
	it := l.l.AddSite(rank.SiteFeatures(site, anchors, around))
	l.mu.Unlock()
	if it != nil {
		l.r.siteR.SetSpace(rank.SpaceFromIteration(*it))
	}
	return it
}

// formPage records a new page with relevant forms; when this completes a
// round, the link ranker switches to the new FSL and the round is returned.
func (l *learner) formPage(u, anchor, around string) *rank.Iteration {
	l.mu.Lock()
	it := l.l.AddForm(rank.LinkFeatures(u, anchor, around))
	l.mu.Unlock()
	if it != nil {
		l.r.linkR.SetSpace(rank.SpaceFromIteration(*it))
	}
	return it
}

// FeatureKey is the TagFeatures key of a learning round.
func FeatureKey(space string, round int) []byte {
	return store.AppendUint64(store.AppendString(nil, space), uint64(round))
}

// saveRound records a learning round under its space and round number, and
// counts it in c, in one batch.
func (e *Engine) saveRound(it rank.Iteration, c counter) error {
	b := e.db.NewBatch()
	defer b.Close()
	if err := b.PutJSON(store.TagFeatures, FeatureKey(it.Space, it.Round), it); err != nil {
		return fmt.Errorf("crawl: recording %s round %d: %w", it.Space, it.Round, err)
	}
	var n tally
	n.add(c, 1)
	if err := e.commit(b, &n, e.db.SyncsWrites()); err != nil {
		return fmt.Errorf("crawl: recording %s round %d: %w", it.Space, it.Round, err)
	}
	return nil
}
