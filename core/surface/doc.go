// Package surface harvests a text hidden database through its keyword
// interface: it chooses queries one at a time so that few queries (or little
// cost) download as much of the database as possible. It implements
// Ntoulas, Zerfos and Cho, "Downloading Textual Hidden Web Content Through
// Keyword Queries" (JCDL 2005):
//
//   - the query loop of Algorithm 2.1 (Harvest): issue a query, read its
//     result pages up to the interface's limit, download the new documents
//     (deduplicated by id, URL or content), journal everything for resume;
//   - the policies of section 3: random and generic-frequency (from a word
//     list, GenericWords is the bundled SUBTLEX-US list) and adaptive, the
//     greedy Algorithm 3.1 over the query statistics table of Figure 8
//     (Stats, Stats.Select), with the independence and Zipf estimators of
//     P(q), P_new(q) and Efficiency = P_new/Cost with Cost = cq + cr·P(q) +
//     cd·P_new(q) (section 3.2–3.3);
//   - the correction for result-limited queries (equations 6–7): the k
//     documents a limited query returns stand for all its matches; Stats
//     applies it per document as an inverse inclusion rate, and Select only
//     counts new documents within a query's top k;
//   - stop words handled as the interface does (TermOptions).
//
// Beyond the paper, the adaptive policy shrinks each estimate by the
// uncertainty of its sample (Tweedie's correction for selection bias),
// calibrates its estimates against the true counts of the queries it issued
// (those the result limit hides count as censored) and maximises the
// expected gain under the measured uncertainty; it detects whether the interface ranks by a
// query-independent order and then uses the documents' rank positions to
// estimate which of a query's top k are already downloaded.
//
// The coverage a harvest reports (State.Coverage, coverage.go) is an
// estimate with an interval and the estimator's name: stratified Schnabel
// capture–recapture over the issued queries' full match sets (reported
// totals, complete answers, or totals estimated from rank positions), with
// size probes (probe.go) when the interface hides its totals; exact when
// the interface reports the database size (DatabaseSizer).
//
// The oracle policy (greedy set cover with full knowledge of every term's
// top-k result set, GroundTruth) is the reference the benchmark
// (experiment/surfacebench, `dwcrawl bench surface`) measures the policies
// against. Searcher and its clients (the JSON search API, retries, request
// budgets) come from package keyword; keyword plugins
// (plugins/keyword/*.lua) are adapted to it in internal/app.
//
// FormSearcher reads a form's result pages with package records, with the
// site's own selectors when a person gave them (FormOptions.Selectors);
// its Explain reports how the first result page was read, so a person sees
// why a harvest stalls.
//
// The generic word list is generated from the shared SUBTLEX-US counts:
//
//go:generate go run ../../tools/genwords -in ../../../shared/data/wordfreq/subtlex-us.json -out wordlist/generic.txt
package surface
