// Package fpgrowth mines frequent itemsets with FP-growth (Han, Pei & Yin,
// "Mining Frequent Patterns without Candidate Generation", SIGMOD 2000).
//
// Transactions are sets of non-negative int32 item ids. Mine builds an
// FP-tree (items of each transaction inserted in decreasing global
// frequency, shared prefixes merged, a node-link list per item) and grows
// patterns from the conditional pattern base of each item, least frequent
// first, building a conditional FP-tree per suffix.
//
// Options.Closed switches on the closed-itemset variant used by the
// enrichment query pool: items that occur in every transaction of a
// conditional pattern base ("perfect extensions") are merged into the suffix
// instead of being enumerated, which keeps two near-identical transactions
// from producing 2^n itemsets, and the output is then filtered to the closed
// itemsets (no proper superset with the same support).
package fpgrowth
