package form

import (
	"context"
	"fmt"

	"github.com/dwcrawl/dwcrawl/core/learn"
)

// TrainOptions tune [Train].
type TrainOptions struct {
	SFC            TreeOptions // the searchable form classifier's tree
	Kinds          TreeOptions // the kind classifier's tree
	DSFC           DSFCOptions
	DomainExamples int    // bundled training forms per domain for the DSFC (default 300)
	Seed           uint64 // inner folds and generated domain forms
	NoKinds        bool   // skip the kind classifier
	NoDSFC         bool   // skip the domain classifier
	// ExtraDomain are further labelled forms for the DSFC (a profile's
	// example forms, forms accepted during a crawl).
	ExtraDomain []DomainExample
}

// DefaultTrainOptions are the options the default model is trained with:
// both trees also read the stacked token-model probabilities. For the kind
// classifier they help the rarer kinds; for the SFC they add up evidence
// the tree alone splits apart: on a form whose box has an opaque name
// ("P", "words") the tree, having tested the name first, is left with too
// few training forms to trust a "Search" caption or label, while the token
// model weighs that caption with all the forms that carry it.
func DefaultTrainOptions(seed uint64) TrainOptions {
	return TrainOptions{Seed: seed, SFC: TreeOptions{Tokens: true}, Kinds: TreeOptions{Tokens: true}}
}

// Train builds a complete model: the SFC and kind classifier on the
// labelled examples, and the DSFC on the bundled domain forms plus
// opt.ExtraDomain.
func Train(ctx context.Context, ex []Example, opt TrainOptions) (*Model, error) {
	opt.SFC.Seed, opt.Kinds.Seed = opt.Seed, opt.Seed
	sfc, err := TrainSFC(ex, opt.SFC)
	if err != nil {
		return nil, err
	}
	m := &Model{SFC: sfc, Meta: map[string]string{}}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !opt.NoKinds {
		if m.Kinds, err = TrainKinds(ex, opt.Kinds); err != nil {
			return nil, err
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !opt.NoDSFC {
		opt.DSFC.SVM.Seed = opt.Seed
		if m.DSFC, err = TrainBundledDSFC(opt.Seed, opt.DomainExamples, opt.ExtraDomain, opt.DSFC); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// TrainBundledDSFC trains the domain classifier on perDomain bundled
// training forms of each class (default 300, drawn with seed) plus extra,
// then calibrates its thresholds ([DSFC.Calibrate]) on other bundled forms
// (drawn with seed+1) and on off-topic texts: the site classifier's
// background documents that mention no domain's words.
func TrainBundledDSFC(seed uint64, perDomain int, extra []DomainExample, opt DSFCOptions) (*DSFC, error) {
	if perDomain <= 0 {
		perDomain = 300
	}
	dex, err := BundledDomainExamples(seed, perDomain)
	if err != nil {
		return nil, err
	}
	d, err := TrainDSFC(append(dex, extra...), opt)
	if err != nil {
		return nil, err
	}
	held, err := BundledDomainExamples(seed+1, max(perDomain/3, 50))
	if err != nil {
		return nil, err
	}
	d.Calibrate(held, OffTopicTexts(), CalibrationOptions{})
	d.Levels = DefaultLevels
	return d, nil
}

// Report holds evaluation figures. Accuracy, Searchable and Confusion are
// for searchable vs not (external engine boxes count as search forms,
// as Formasaurus labels them); the Kind figures are for the form kind
// HIFI reports (search for searchable forms, else the kind classifier's
// best other kind).
type Report struct {
	N             int                  `json:"n"`
	Accuracy      float64              `json:"accuracy"`
	Searchable    learn.PRF            `json:"searchable"`
	NotSearchable learn.PRF            `json:"not_searchable"`
	Confusion     *learn.Confusion     `json:"confusion"`
	KindAccuracy  float64              `json:"kind_accuracy"`
	KindMacroF1   float64              `json:"kind_macro_f1"`
	Kinds         map[string]learn.PRF `json:"kinds"`
	KindConfusion *learn.Confusion     `json:"kind_confusion"`
	External      int                  `json:"external_boxes"` // forms recognised as external engine boxes
	Folds         int                  `json:"folds,omitempty"`
	FoldAccuracy  []float64            `json:"fold_accuracy,omitempty"`
	Seed          uint64               `json:"seed,omitempty"`
	Model         string               `json:"model,omitempty"`
}

type tally struct {
	bin, kind *learn.Confusion
	external  int
}

func newTally() *tally {
	return &tally{bin: learn.NewConfusion(Searchable, NotSearchable), kind: learn.NewConfusion(Kinds...)}
}

func (t *tally) add(m *Model, ex []Example) {
	h := &HIFI{Model: m, NoDomainStep: true}
	for i := range ex {
		e := &ex[i]
		d := h.Classify(&e.Form, e.Host)
		pred := NotSearchable
		kind := d.Kind
		if d.Kind == KindSearch || d.Kind == KindExternal {
			pred, kind = Searchable, KindSearch
		}
		if d.Kind == KindExternal {
			t.external++
		}
		t.bin.Add(binaryLabel(e), pred)
		t.kind.Add(e.Kind, kind)
	}
}

func (t *tally) report() *Report {
	r := &Report{
		N:             t.bin.N(),
		Accuracy:      t.bin.Accuracy(),
		Searchable:    t.bin.Class(Searchable),
		NotSearchable: t.bin.Class(NotSearchable),
		Confusion:     t.bin,
		KindAccuracy:  t.kind.Accuracy(),
		KindMacroF1:   t.kind.MacroF1(),
		Kinds:         t.kind.PerClass(),
		KindConfusion: t.kind,
		External:      t.external,
	}
	return r
}

// Evaluate scores m on labelled examples.
func Evaluate(m *Model, ex []Example) *Report {
	t := newTally()
	t.add(m, ex)
	return t.report()
}

// CrossValidate runs k-fold cross-validation grouped by host: each fold's
// model (SFC and kind classifier) is trained on the other folds only.
func CrossValidate(ctx context.Context, ex []Example, k int, opt TrainOptions) (*Report, error) {
	labels := make([]string, len(ex))
	groups := make([]string, len(ex))
	for i := range ex {
		labels[i] = ex[i].Kind
		groups[i] = ex[i].Host
	}
	folds, err := learn.GroupKFold(labels, groups, k, opt.Seed)
	if err != nil {
		return nil, fmt.Errorf("cross-validate: %w", err)
	}
	opt.NoDSFC = true
	t := newTally()
	var foldAcc []float64
	for _, test := range folds {
		if len(test) == 0 {
			continue
		}
		var train, held []Example
		for _, i := range learn.TrainIndices(len(ex), test) {
			train = append(train, ex[i])
		}
		for _, i := range test {
			held = append(held, ex[i])
		}
		m, err := Train(ctx, train, opt)
		if err != nil {
			return nil, fmt.Errorf("cross-validate: %w", err)
		}
		ft := newTally()
		ft.add(m, held)
		foldAcc = append(foldAcc, ft.bin.Accuracy())
		t.add(m, held)
	}
	r := t.report()
	r.Folds, r.FoldAccuracy, r.Seed = k, foldAcc, opt.Seed
	return r, nil
}

// Text renders the report for people.
func (r *Report) Text() string {
	s := ""
	if r.Folds > 0 {
		s += fmt.Sprintf("%d-fold cross-validation grouped by host (seed %d)\n", r.Folds, r.Seed)
	}
	if r.Model != "" {
		s += "model: " + r.Model + "\n"
	}
	s += fmt.Sprintf("forms: %d   external engine boxes recognised: %d\n\n", r.N, r.External)
	s += "searchable vs not-searchable\n" + r.Confusion.String()
	if len(r.FoldAccuracy) > 0 {
		s += "fold accuracy:"
		for _, a := range r.FoldAccuracy {
			s += fmt.Sprintf(" %.3f", a)
		}
		s += "\n"
	}
	s += "\nform kind\n" + r.KindConfusion.String()
	s += fmt.Sprintf("macro F1 %.4f\n", r.KindMacroF1)
	return s
}

// WithDomainExamples returns a copy of m whose domain classifier is
// retrained on the bundled domain forms plus extra (a profile's example
// forms, forms accepted during a crawl); the SFC and kind classifier are
// shared with m.
func (m *Model) WithDomainExamples(extra []DomainExample, seed uint64) (*Model, error) {
	d, err := TrainBundledDSFC(seed, 0, extra, DSFCOptions{SVM: learn.SVMOptions{Seed: seed}})
	if err != nil {
		return nil, err
	}
	c := *m
	c.DSFC = d
	return &c, nil
}
