// Package report turns what dwcrawl stored or measured into plots and
// summary tables: a self-contained HTML page (inline SVG), or one SVG or
// PNG image of every plot.
//
// Inputs are crawl directories and bench outputs, any number of each; the
// curves of several runs share a plot so they can be compared:
//   - a crawl directory (dwcrawl run): the harvest curve, relevant forms and
//     deep sites against pages fetched (the SmartCrawler paper's figures),
//     rebuilt from the forms table, where each form records the pages
//     fetched when it was found; a deep site counts from its first
//     relevant form. These are the crawler's own verdicts; the benches
//     score against the simulated web's ground truth instead;
//   - the same directory after dwcrawl surface: documents downloaded
//     against queries, per source, from the surfacing journal, and the
//     coverage estimate of its checkpoints with the 90 % interval drawn as
//     a shaded band under the estimate line; the table gives each source's
//     last estimate, interval, estimated size and estimator (the estimator
//     alone when it is "none": too little data yet);
//   - a harvest's directory (dwcrawl harvest), or a crawl directory after
//     surface --form: every form of the crawl that was surfaced (journal
//     source "form:ID") is a database, drawn as records downloaded against
//     queries, one line per database from (0, 0), in a plot of its own
//     (surface-databases), and listed with its site, its probe's verdict,
//     queries, records and last coverage estimate; the other sources keep
//     the surfacing plot;
//   - an enrichment state directory (dwcrawl enrich --dir): local records
//     covered against queries, from the enrichment journal;
//   - dwcrawl bench harvest --out DIR: the true relevant forms and deep
//     sites against pages of every domain × strategy (curve-*.csv), and
//     harvest.csv for the table;
//   - dwcrawl bench surface --out DIR: coverage against queries per policy
//     (<policy>.csv), or its --json output (coverage at the checkpoints);
//     where they hold the harvest's coverage estimates, one plot per policy
//     draws the true coverage over the estimate's band, so the reader sees
//     whether the truth is inside the interval, and the tables give the
//     estimate, its interval, its estimator and whether it holds the truth
//     (the CSV table: at the last checkpoint, and at how many of them);
//     files written before the estimate columns report as before;
//   - dwcrawl bench enrich --json: records covered against the query
//     budget per method; the points of one method in several files (runs
//     at several budgets) join into one curve.
//
// Everything is read through the store's public API and the files the
// benches write; nothing is written to the inputs.
//
// # Library
//
// The plots are drawn with gonum.org/v1/plot: pure Go, it renders SVG and
// PNG itself, so the HTML report embeds its SVG and needs no script, no
// network and no browser to be produced or read, and --format png works on
// a machine without one. go-echarts, the alternative, emits JavaScript
// charts that load the ECharts library from a CDN by default and cannot
// produce an SVG or PNG file without a browser to run them.
package report
