package crawl

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/dwcrawl/dwcrawl/core/frontier"
	"github.com/dwcrawl/dwcrawl/core/page"
	"github.com/dwcrawl/dwcrawl/core/rank"
	"github.com/dwcrawl/dwcrawl/store"
)

// acheLevels is the number of distances ACHE's link classifier predicts.
const acheLevels = 3

// achePolicy is ACHE's adaptive link learner: links are queued by the level
// the multi-level Naive Bayes classifier predicts (1 = one step from a form
// page), and the classifier relearns from the backward paths of the form
// pages found, every M forms.
type achePolicy struct {
	e   *Engine
	cls *rank.LinkClassifier
	mu  sync.Mutex
	// in maps a fetched page to the evidence of the link that led to it,
	// for backward paths.
	in map[string]*frontier.Evidence
	// rounds is the number of the last learning round an earlier run of the
	// crawl recorded: this run's rounds are numbered after it.
	rounds int
}

func newACHEPolicy(e *Engine) (linkPolicy, error) {
	p := &achePolicy{e: e, in: map[string]*frontier.Evidence{},
		cls: rank.NewLinkClassifier(rank.ClassifierOptions{Levels: acheLevels, Every: e.prof.Learn.FormsEvery})}
	err := e.db.ScanJSON(store.TagFeatures, store.AppendString(nil, rank.SpaceACHE), func(key, val []byte) error {
		var it rank.Iteration
		if err := json.Unmarshal(val, &it); err != nil {
			return fmt.Errorf("crawl: learning round %x: %w", key, err)
		}
		p.rounds = max(p.rounds, it.Round)
		return nil
	})
	if err != nil {
		return nil, err
	}
	p.bootstrap()
	return p, nil
}

// bootstrap trains the first classifier from the profile, standing in for
// the sample form pages ACHE starts from: links named like the profile's
// link hints lead to a form in one step, links with its topic words in two,
// and links named like its negative hints lead nowhere.
func (p *achePolicy) bootstrap() {
	pr := p.e.prof
	near := append(append([]string{}, pr.Link.Keywords...), pr.Forms.Keywords...)
	for _, kw := range near {
		for _, topic := range pr.Keywords {
			p.cls.AddPath([]rank.Features{
				rank.ClassifierFeatures("/"+topic, topic, topic),
				rank.ClassifierFeatures("/"+kw, kw, kw+" "+topic),
			})
		}
	}
	for _, neg := range append(append([]string{}, pr.Link.Negative...), pr.Site.Negative...) {
		p.cls.AddOther(rank.ClassifierFeatures("/"+neg, neg, neg))
	}
	if _, err := p.cls.Train(); err != nil {
		p.e.log.Debug("ache bootstrap: untrained link classifier", "err", err)
	}
}

func (p *achePolicy) name() string { return "ache" }
func (p *achePolicy) levels() int  { return acheLevels }

// follow keeps ACHE on topic: links of pages the page classifier accepts,
// and of pages that hold searchable forms.
func (p *achePolicy) follow(v *visited, relevant bool, _ float64) bool {
	return relevant || v.searchable() > 0
}

func (p *achePolicy) classify(u string, ev *frontier.Evidence) (int, float64) {
	var anchor, around string
	if ev != nil {
		anchor, around = ev.Anchor, ev.Around
	}
	return p.cls.Classify(rank.ClassifierFeatures(u, anchor, around))
}

func (p *achePolicy) score(_ *visited, _ float64, l page.Link, ev *frontier.Evidence) (int, float64) {
	return p.classify(l.URL, ev)
}

func (p *achePolicy) rescore() frontier.Classifier {
	return func(it *frontier.Item) (int, float64) { return p.classify(it.URL, it.Evidence) }
}

// fetched remembers the link that led to a page.
func (p *achePolicy) fetched(u string, ev *frontier.Evidence) {
	p.mu.Lock()
	p.in[u] = ev
	p.mu.Unlock()
}

// formPage adds the backward path of a form page; after every M paths the
// classifier relearns, the round is recorded and the persistent frontier is
// re-classified.
func (p *achePolicy) formPage(_ context.Context, r *linkRunner, v *visited) error {
	p.mu.Lock()
	var rev []rank.Features
	u := v.URL
	for i := 0; i < acheLevels; i++ {
		ev := p.in[u]
		if ev == nil || ev.From == "" {
			break
		}
		rev = append(rev, rank.ClassifierFeatures(u, ev.Anchor, ev.Around))
		u = ev.From
	}
	p.mu.Unlock()
	if len(rev) == 0 {
		return nil
	}
	path := make([]rank.Features, len(rev))
	for i, f := range rev {
		path[len(rev)-1-i] = f
	}
	it, err := p.cls.AddPath(path)
	if err != nil {
		p.e.log.Warn("ache: relearning the link classifier", "err", err)
		return nil
	}
	if it == nil {
		return nil
	}
	// the classifier starts from the profile again when a crawl resumes;
	// its rounds are numbered on, not over the recorded ones
	it.Round += p.rounds
	if err := p.e.saveRound(*it, cFSL); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, err := r.lf.Reload(); err != nil {
		return fmt.Errorf("ache: reloading the frontier: %w", err)
	}
	return nil
}
