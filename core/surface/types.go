package surface

import (
	"errors"

	"github.com/dwcrawl/dwcrawl/core/keyword"
)

// Doc is one record returned by a keyword interface.
type Doc = keyword.Doc

// Page is one result page of a keyword query.
type Page = keyword.Page

// Searcher is a keyword interface: it answers page (1-based) of a query.
// Implementations are keyword.APISearcher (wrapped with keyword.Retrying),
// the Lua keyword-plugin adapter and, in tests and benchmarks, the testbed's
// in-process hiddendb.Searcher.
type Searcher = keyword.Searcher

// ErrExhausted is returned by a Policy that has no query left to propose.
var ErrExhausted = errors.New("surface: no more queries")

// ErrBudget is the error of a spent request budget (keyword.Limited, a
// plugin's budget); Harvest ends normally (nil error) on it.
var ErrBudget = keyword.ErrBudget
