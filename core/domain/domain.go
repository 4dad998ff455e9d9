// Package domain names the built-in domains: the twelve topics of the
// SmartCrawler and ACHE evaluations (Zhao et al., Table 2; Barbosa & Freire)
// that the bundled profiles, the embedded form model and the simulated web
// cover. A profile may name a custom domain outside them.
package domain

import "slices"

// BuiltIn lists the built-in domains in the order of the SmartCrawler
// paper's tables.
var BuiltIn = []string{"airfare", "auto", "book", "hotel", "job", "movie", "music", "rental", "apartment", "route", "product", "people"}

// IsBuiltIn reports whether name is one of BuiltIn.
func IsBuiltIn(name string) bool { return slices.Contains(BuiltIn, name) }
