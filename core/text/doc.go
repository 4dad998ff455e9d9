// Package text turns strings into the terms the rankers and classifiers work
// on: tokenizing (including URLs), English stop words, Snowball stemming,
// term-frequency vectors weighted 1 + log(tf), cosine similarity and top-k
// term selection by document frequency.
//
// SmartCrawler (Zhao et al.) represents URLs, anchors and surrounding text as
// such vectors; ACHE (Barbosa & Freire) selects features by document frequency.
package text
