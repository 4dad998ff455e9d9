package enrich

import (
	"math"
	"strconv"
	"strings"

	"github.com/dwcrawl/dwcrawl/testbed/hiddendb"
)

// synthetic, wordName and localCSV are the testbed's synthetic records
// (hiddendb.Synthetic).
func synthetic(seed int64, n int) []hiddendb.Record { return hiddendb.Synthetic(seed, n) }

func wordName(i int) string { return hiddendb.SyntheticWord(i) }

func localCSV(recs []hiddendb.Record, n int) string { return hiddendb.LocalCSV(recs, n) }

func approx(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func stringsReader(s string) *strings.Reader { return strings.NewReader(s) }

func atoi(s string) (int, error) { return strconv.Atoi(s) }
