// Package form classifies HTML forms for the deep-web crawler: is a form a
// searchable entry point to a hidden database, what kind of form is it,
// and is it in the crawl's domain?
//
// It implements HIFI, the hierarchical form identification of Barbosa &
// Freire ("Combining classifiers to identify online databases", WWW 2007),
// as SmartCrawler (Zhao et al., 2016, §3.3) uses it:
//
//   - [SFC], the searchable form classifier: a C4.5 decision tree
//     ([learn.Tree]) on structural features of the form ([Structural]:
//     control counts by type, GET/POST, a single main text box, and
//     search/login/registration/… words in the action, field names, hidden
//     fields, form id/class, captions, placeholders and text). The tree may
//     also read one stacked attribute, the out-of-fold probability of a
//     Naive Bayes model over the form's tokens ([Tokens]); the tree stays
//     the decision maker (see [StackedTree]).
//   - [KindClassifier]: the same construction over eight kinds (search,
//     login, registration, password recovery, contact/comment, newsletter,
//     order, other), with the Formasaurus labels.
//   - [External]: search boxes that submit to a general web search engine
//     (or carry its site-restriction fields) are their own kind, never a
//     site's hidden database.
//   - [DSFC], the domain-specific form classifier: linear SVMs (one per
//     domain, one-vs-rest over the twelve domains and "other") on the tf-idf
//     vector of the form's text, trained from bundled domain forms
//     generated from real domain data ([BundledDomainExamples],
//     [Vocabulary]) plus any forms a profile or a crawl adds.
//   - [HIFI] chains them and returns a [Decision] with probabilities and the
//     reasons (tree tests and rules) behind it.
//
// Training data: the Formasaurus corpus (TeamHG-Memex, MIT licence) in the
// shared data folder, read by [LoadFormasaurus]. The embedded default
// model (model/default.json) is regenerated from the repository root with
//
//	go run ./cmd/dwcrawl train forms --data ../shared/data/formasaurus --out core/form/model/default.json
//
// and the domain vocabulary (model/domains.json) with
//
//	go run ./core/form/internal/genvocab -out core/form/model/domains.json
package form
