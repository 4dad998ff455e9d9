package learn

import "github.com/dwcrawl/dwcrawl/core/text"

// SelectDF returns the k terms that occur in the most docs, highest
// document frequency first, ties broken by term (ACHE's adaptive feature
// selection keeps the most frequent terms of each feature space). k <= 0
// returns every term.
func SelectDF(docs [][]string, k int) []string {
	df := docFreq(docs)
	terms := make([]string, 0, len(df))
	for t := range df {
		terms = append(terms, t)
	}
	sortByDF(terms, df)
	if k > 0 && len(terms) > k {
		terms = terms[:k]
	}
	return terms
}

// SelectSpaces runs [SelectDF] on each feature space (e.g. "url",
// "anchor", "around") independently. Spaces whose name is in urlSpaces
// get the URL sub-term rule first: a first top-k pass finds the frequent
// terms, every token of the space is split on them with [SplitCompound]
// ("abebooks" → "abe", "book"), and the top-k is taken again over the split
// tokens.
func SelectSpaces(spaces map[string][][]string, k int, urlSpaces ...string) map[string][]string {
	isURL := make(map[string]bool)
	for _, s := range urlSpaces {
		isURL[s] = true
	}
	out := make(map[string][]string, len(spaces))
	for name, docs := range spaces {
		top := SelectDF(docs, k)
		if isURL[name] {
			top = SelectDF(SplitDocs(docs, setOf(top)), k)
		}
		out[name] = top
	}
	return out
}

// SplitDocs applies [SplitCompound] to every token of every doc.
func SplitDocs(docs [][]string, vocab map[string]bool) [][]string {
	out := make([][]string, len(docs))
	for i, d := range docs {
		var nd []string
		for _, t := range d {
			nd = append(nd, SplitCompound(t, vocab)...)
		}
		out[i] = nd
	}
	return out
}

// SplitCompound splits a token glued from words ("abebooks", typical of
// host names and URL paths) on the frequent terms in vocab: it is
// [text.SplitCompound] (longest vocabulary term of three or more letters
// at each position, left to right; leftovers of two or more letters kept),
// so "abebooks" with "book" in vocab gives ["abe", "book"].
func SplitCompound(tok string, vocab map[string]bool) []string {
	return text.SplitCompound(tok, vocab)
}

func setOf(xs []string) map[string]bool {
	m := make(map[string]bool, len(xs))
	for _, x := range xs {
		m[x] = true
	}
	return m
}
