// Package app assembles dwcrawl's jobs from option structs: a crawl
// (NewCrawl: store, fetcher for the real or the simulated web, the
// profile's classifiers, reverse search through a search plugin), a
// surfacing run (Surface), a hidden-database sample (Sample), an
// enrichment run (Enrich), the form classifiers' training, scoring and use
// (TrainForms, EvalForms, Classify), keyword interfaces (OpenInterface) and
// the simulated web (LoadWeb, ServeWeb).
//
// It is the one place where the algorithms of core/, the store, the
// bundled plugins and the testbed meet. The command line (cmd/dwcrawl)
// only turns flags into these options and prints the results; the
// benchmarks (experiment/) run their crawls through NewCrawl, so that they
// measure what `dwcrawl run` runs. Errors name no flags: an *OptionError
// names the option by its flag's spelling, and the sentinel errors (ErrNoK,
// ErrNoTheta, …) tell the caller which option would fix the run.
package app
