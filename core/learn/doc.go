// Package learn is dwcrawl's small machine-learning library: the classifiers
// and evaluation tools the crawler's critics are built from, written for this
// project with no dependencies beyond the standard library.
//
//   - [NB]: multinomial Naive Bayes with Laplace smoothing, log-space scores
//     and posterior probabilities (McCallum & Nigam 1998). ACHE (Barbosa &
//     Freire 2007, §3) and SmartCrawler's site classifier (Zhao et al. 2016,
//     §3.2) use it on bags of terms; it can be updated online.
//   - [Tree]: C4.5 (Quinlan 1993; release 8, Quinlan 1996): gain ratio among
//     tests of at least average gain, continuous attributes split by a
//     threshold with the MDL correction, missing values handled by
//     fractional cases, a minimum leaf size, and pessimistic
//     (confidence-based, CF = 0.25) subtree-replacement pruning. SmartCrawler's
//     searchable form classifier (SFC, §3.3, after HIFI, Barbosa & Freire
//     2007) is a C4.5 tree on structural form features.
//   - [SVM] and [OVR]: linear support vector machine trained by dual
//     coordinate descent (Hsieh et al. 2008) on sparse vectors, with class
//     weights, Platt-scaled probabilities (Platt 1999; Lin, Lin & Weng 2007)
//     and one-vs-rest for several classes: HIFI's domain-specific form
//     classifier (DSFC).
//   - [TFIDF] and [Sparse]: sparse term vectors.
//   - [GroupKFold]: stratified k-fold cross-validation in which every group
//     (a site's host) falls into exactly one fold, and [Confusion] with
//     accuracy and per-class precision/recall/F1.
//   - [SelectDF], [SelectSpaces] and [SplitCompound]: document-frequency
//     feature selection per feature space with URL sub-term splitting, as in
//     ACHE's adaptive feature selection and SmartCrawler §3.4.
//   - [Marshal], [Unmarshal], [Save], [Load]: versioned JSON model files,
//     also stored as blobs through a [BlobStore].
package learn
