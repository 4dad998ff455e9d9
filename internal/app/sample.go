package app

import (
	"context"
	"fmt"
	"io"

	"github.com/dwcrawl/dwcrawl/core/enrich"
	"github.com/dwcrawl/dwcrawl/core/keyword"
)

// SampleOptions configure the sampling of a hidden database through its
// keyword interface.
type SampleOptions struct {
	Interface keyword.Searcher
	// Queries is the number of sampling queries N.
	Queries int
	// Out is the sample file (JSON lines; the meta data goes beside it).
	Out string
	// Vocabulary is what the sampling queries are drawn from (see
	// SampleVocabulary).
	Vocabulary []string
	// HiddenColumns are the fields of a returned record forming its
	// document.
	HiddenColumns []string
	// K is the interface's result limit (0: asked from the interface).
	K    int
	Seed int64
	// Progress receives a line every tenth of the queries (nil: none).
	Progress io.Writer
}

// SampleVocabulary gathers the sampling vocabulary: the keywords of the
// local table's columns (when local is set) and the words of a word-list
// file (when words is set).
func SampleVocabulary(local string, columns []string, words string) ([]string, error) {
	var vocab []string
	if local != "" {
		t, err := enrich.LoadTable(local)
		if err != nil {
			return nil, err
		}
		docs, err := t.Docs(columns)
		if err != nil {
			return nil, err
		}
		vocab = enrich.NewLocal(docs).Vocabulary()
	}
	if words != "" {
		w, err := enrich.LoadWords(words)
		if err != nil {
			return nil, err
		}
		vocab = append(vocab, w...)
	}
	if len(vocab) == 0 {
		return nil, &OptionError{Err: ErrNoVocabulary}
	}
	return vocab, nil
}

// Sample draws a sample of the hidden database by query-based sampling with
// rejection, estimates its sampling ratio θ and writes it to opt.Out.
func Sample(ctx context.Context, opt SampleOptions) (enrich.SampleMeta, error) {
	k, err := resultLimit(ctx, opt.Interface, opt.K)
	if err != nil {
		return enrich.SampleMeta{}, err
	}
	sample, meta, err := enrich.BuildSample(ctx, opt.Interface, enrich.SampleOptions{
		Queries: opt.Queries, K: k, Vocabulary: opt.Vocabulary, Columns: opt.HiddenColumns, Seed: opt.Seed,
		Progress: func(done, n int) {
			if opt.Progress != nil && (done%max(1, opt.Queries/10) == 0 || done == opt.Queries) {
				fmt.Fprintf(opt.Progress, "sample: %d/%d queries, %d records\n", done, opt.Queries, n)
			}
		},
	})
	if err != nil {
		return meta, err
	}
	return meta, enrich.SaveSample(opt.Out, sample, meta)
}

// resultLimit returns k, or when k ≤ 0 the limit the interface declares.
func resultLimit(ctx context.Context, s keyword.Searcher, k int) (int, error) {
	if k > 0 {
		return k, nil
	}
	tk, ok := s.(keyword.TopKer)
	if !ok {
		return 0, &OptionError{Err: ErrNoK}
	}
	k, err := tk.TopK(ctx)
	if err != nil {
		return 0, fmt.Errorf("%w: asking the interface: %w", ErrNoK, err)
	}
	return k, nil
}
