package crawl

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/dwcrawl/dwcrawl/core/rank"
	"github.com/dwcrawl/dwcrawl/store"
)

// learner is SmartCrawler's adaptive learning (§3.4) as the engine uses it:
// every N new deep sites FSS is rebuilt and the site ranker switched to it,
// every M new form pages FSL is rebuilt; the engine records each round in
// the store (saveRound; dwcrawl features prints them). Each example is
// stored with the record it comes from (the deep site's, the form page's),
// so a resumed crawl learns on from the same examples and numbers its
// rounds on.
type learner struct {
	e   *Engine
	r   *rankers
	l   *rank.Learner
	seq atomic.Int64 // orders the stored examples
}

func newLearner(e *Engine, r *rankers) (*learner, error) {
	p := e.prof
	l := &learner{e: e, r: r, l: rank.NewLearner(rank.LearnerOptions{K: p.Rank.TopK, SiteEvery: p.Learn.SitesEvery, FormEvery: p.Learn.FormsEvery})}
	if err := l.restoreExamples(); err != nil {
		return nil, err
	}
	// the rankers start from the latest rounds of this crawl, else those
	// of a prior crawl
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

// learningRounds returns the FSS and FSL rounds recorded in db, in order.
func learningRounds(db *store.DB) ([]rank.Iteration, error) {
	var out []rank.Iteration
	err := db.ScanJSON(store.TagFeatures, nil, func(key, val []byte) error {
		var it rank.Iteration
		if err := json.Unmarshal(val, &it); err != nil {
			return fmt.Errorf("learning round %x: %w", key, err)
		}
		if it.Space == rank.SpaceFSS || it.Space == rank.SpaceFSL {
			out = append(out, it)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("crawl: reading learning rounds: %w", err)
	}
	return out, nil
}

// restoreFrom installs the latest FSS and FSL rounds found in db in the
// rankers.
func (l *learner) restoreFrom(db *store.DB) (int, error) {
	its, err := learningRounds(db)
	if err != nil {
		return 0, err
	}
	latest := map[string]rank.Iteration{}
	for _, it := range its {
		if cur, ok := latest[it.Space]; !ok || it.Round > cur.Round {
			latest[it.Space] = it
		}
	}
	for space, it := range latest {
		s := rank.SpaceFromIteration(it)
		switch space {
		case rank.SpaceFSS:
			l.r.siteR.SetSpace(s)
		case rank.SpaceFSL:
			l.r.linkR.SetSpace(s)
		}
	}
	return len(latest), nil
}

// learnExample is an example of the adaptive learner as the store keeps it:
// its features and its place in the order the examples were learnt.
type learnExample struct {
	Seq      int64         `json:"seq"`
	Features rank.Features `json:"features"`
}

// exampleKey is the TagCrawl key of the example id (a deep site, a form
// page's URL) of space.
func exampleKey(space, id string) []byte {
	return append(store.AppendString([]byte{learnExampleKey}, space), id...)
}

// restoreExamples gives the learner the examples and rounds of the crawl
// so far (a resumed crawl).
func (l *learner) restoreExamples() error {
	db := l.e.db
	examples := map[string][]learnExample{}
	err := db.ScanJSON(store.TagCrawl, []byte{learnExampleKey}, func(key, val []byte) error {
		space, _, err := store.DecodeString(key[1:])
		if err != nil {
			return fmt.Errorf("crawl: learning example %q: %w", key, err)
		}
		var ex learnExample
		if err := json.Unmarshal(val, &ex); err != nil {
			return fmt.Errorf("crawl: learning example %q: %w", key, err)
		}
		examples[space] = append(examples[space], ex)
		if ex.Seq > l.seq.Load() {
			l.seq.Store(ex.Seq)
		}
		return nil
	})
	if err != nil {
		return err
	}
	rounds, err := learningRounds(db)
	if err != nil {
		return err
	}
	if len(examples) == 0 && len(rounds) == 0 {
		return nil
	}
	st := rank.LearnerState{Iterations: rounds}
	st.Sites, st.NewSites = sinceLastRound(examples[rank.SpaceFSS], rounds, rank.SpaceFSS)
	st.Forms, st.NewForms = sinceLastRound(examples[rank.SpaceFSL], rounds, rank.SpaceFSL)
	l.l.Restore(st)
	return nil
}

// sinceLastRound orders the examples of space and counts those added after
// its last round.
func sinceLastRound(exs []learnExample, rounds []rank.Iteration, space string) ([]rank.Features, int) {
	slices.SortFunc(exs, func(a, b learnExample) int { return cmp.Compare(a.Seq, b.Seq) })
	fs := make([]rank.Features, len(exs))
	for i, ex := range exs {
		fs[i] = ex.Features
	}
	learnt := 0
	for _, it := range rounds {
		if it.Space == space {
			learnt = it.Examples
		}
	}
	return fs, max(len(fs)-learnt, 0)
}

// stage stages in b the example id of space, with features f.
func (l *learner) stage(b *store.Batch, space, id string, f rank.Features) error {
	return b.PutJSON(store.TagCrawl, exampleKey(space, id), learnExample{Seq: l.seq.Add(1), Features: f})
}

// known reports whether the example id of space is stored (learnt by this
// crawl, maybe in an earlier run).
func (l *learner) known(space, id string) (bool, error) {
	var ex learnExample
	return l.e.db.GetJSON(store.TagCrawl, exampleKey(space, id), &ex)
}

// add feeds a stored example to the learner; when it completes a round, the
// ranker switches to the new space and the round is returned.
func (l *learner) add(space string, f rank.Features) *rank.Iteration {
	if space == rank.SpaceFSS {
		it := l.l.AddSite(f)
		if it != nil {
			l.r.siteR.SetSpace(rank.SpaceFromIteration(*it))
		}
		return it
	}
	it := l.l.AddForm(f)
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
	var n tally
	if err := stageRound(b, it, &n, c); err != nil {
		return err
	}
	if err := e.commit(b, &n, e.db.SyncsWrites()); err != nil {
		return fmt.Errorf("crawl: recording %s round %d: %w", it.Space, it.Round, err)
	}
	return nil
}

// stageRound stages a learning round in b and counts it in n under c.
func stageRound(b *store.Batch, it rank.Iteration, n *tally, c counter) error {
	if err := b.PutJSON(store.TagFeatures, FeatureKey(it.Space, it.Round), it); err != nil {
		return fmt.Errorf("crawl: recording %s round %d: %w", it.Space, it.Round, err)
	}
	n.add(c, 1)
	return nil
}
