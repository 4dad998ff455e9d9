// Package text turns strings into the terms the rankers and classifiers work
// on: tokenizing (including URLs), English stop words, Snowball stemming,
// term-frequency vectors weighted 1 + log(tf), cosine similarity and top-k
// term selection by document frequency.
//
// SmartCrawler (Zhao et al.) represents URLs, anchors and surrounding text as
// such vectors and compares them with cosine similarity; its URL feature
// drops the top-level domain, stems, keeps the top-k terms and splits URL
// tokens on frequent terms ("abebooks" → abe, book): URLTerms and
// SplitCompound. ACHE (Barbosa & Freire) selects features by document
// frequency (TopK).
package text
