package learn

import (
	"strings"
)

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

// minPiece is the shortest vocabulary term used to split a compound, and
// the shortest remainder kept.
const minPiece = 3

// SplitCompound splits a token glued from words ("abebooks", typical of
// host names and URL paths) on the longest frequent term it contains,
// recursively on what is left before and after it: with "book" in vocab,
// "abebooks" → ["abe", "book"] (remainders shorter than two letters are
// dropped). A token that is itself in vocab, or contains no vocab term of
// at least three letters, is returned alone.
func SplitCompound(tok string, vocab map[string]bool) []string {
	if vocab[tok] || len(tok) < minPiece+2 {
		return []string{tok}
	}
	best, at := "", -1
	for t := range vocab {
		if len(t) < minPiece || len(t) >= len(tok) || len(t) < len(best) {
			continue
		}
		i := strings.Index(tok, t)
		if i < 0 {
			continue
		}
		if len(t) > len(best) || t < best {
			best, at = t, i
		}
	}
	if at < 0 {
		return []string{tok}
	}
	var out []string
	if pre := tok[:at]; len(pre) >= 2 {
		out = append(out, SplitCompound(pre, vocab)...)
	}
	out = append(out, best)
	if suf := tok[at+len(best):]; len(suf) >= 2 {
		out = append(out, SplitCompound(suf, vocab)...)
	}
	return out
}

func setOf(xs []string) map[string]bool {
	m := make(map[string]bool, len(xs))
	for _, x := range xs {
		m[x] = true
	}
	return m
}
