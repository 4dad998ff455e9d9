// Package rank scores sites and links for the discovery crawl and learns
// what to score them on.
//
// It implements SmartCrawler's rankers and adaptive learning (Zhao et al.,
// "SmartCrawler: A Two-stage Crawler for Efficiently Harvesting Deep-Web
// Interfaces", IEEE TSC 2016):
//
//   - the feature spaces FSS = {U, A, T} (the URLs of deep websites, the
//     anchors and the text around the links pointing to them) and FSL = {P,
//     A, T} (the paths of pages with searchable forms, the anchors and the
//     text around the links pointing to them), each a text.Vector of its
//     top-k terms (§3.2.2, §3.3.2);
//   - the site ranker Rank(s) = α·ST(s) + (1−α)·log(1+SF(s)) with
//     ST(s) = cos(U,Us)+cos(A,As)+cos(T,Ts) and SF(s) the number of known
//     deep sites (and relevant pages) linking to s (§3.2.2);
//   - the link ranker LT(l) = cos(P,Pl)+cos(A,Al)+cos(T,Tl) (§3.3.2);
//   - the adaptive learner, which rebuilds FSS after every N new deep sites
//     and FSL after every M new searchable forms from the top-k terms by
//     document frequency, splitting URL tokens on frequent terms
//     ("abebooks" → "abe", "book"), and records each round's top features
//     (Tables 5–6 of the paper) (§3.4).
//
// It also implements ACHE's link classifier (Barbosa & Freire, "An Adaptive
// Crawler for Locating Hidden-Web Entry Points", WWW 2007, §3–4): a
// multi-level Naive Bayes classifier over the URL, anchor and around-text
// terms of a link that estimates its distance to a form page (levels 1..3,
// or "other"), trained from the backward paths of the form pages found,
// with adaptive feature selection (AFS: top-k terms per context by document
// frequency) and online relearning after every M new forms.
//
// The naive Bayes model is core/learn's NB. Rankers read their feature
// space through an atomic pointer, so scoring never blocks on learning.
package rank
