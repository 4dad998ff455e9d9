package enrich

import (
	"fmt"
	"math"
	"math/rand"
	"strconv"
	"strings"

	"github.com/dwcrawl/dwcrawl/testbed/hiddendb"
)

// synthetic builds a hidden database of n records (title: 3–6 words from a
// Zipf-distributed vocabulary; author: one or two of 120 names) and returns
// the records; ids are "1".."n".
func synthetic(seed int64, n int) []hiddendb.Record {
	rng := rand.New(rand.NewSource(seed))
	words := make([]string, 400)
	for i := range words {
		words[i] = wordName(i)
	}
	zipf := rand.NewZipf(rng, 1.1, 3, uint64(len(words)-1))
	var out []hiddendb.Record
	for i := 0; i < n; i++ {
		nw := 3 + rng.Intn(4)
		var title []string
		seen := map[string]bool{}
		for len(title) < nw {
			w := words[zipf.Uint64()]
			if !seen[w] {
				seen[w] = true
				title = append(title, w)
			}
		}
		author := "Author" + wordName(1000+rng.Intn(120))
		if rng.Intn(2) == 0 {
			author += " and Author" + wordName(1000+rng.Intn(120))
		}
		id := strconv.Itoa(i + 1)
		out = append(out, hiddendb.Record{ID: id, Fields: map[string]string{"title": strings.Join(title, " "), "author": author},
			Order: []string{"title", "author"}})
	}
	return out
}

// wordName spells i with letters only (digits would split tokens).
func wordName(i int) string {
	const letters = "bcdfghjklmnpqrstvwxz"
	s := ""
	for {
		s += string(letters[i%len(letters)]) + string("aeiou"[i%5])
		i /= len(letters)
		if i == 0 {
			return s + "x"
		}
	}
}

// localCSV renders the first n records as a local table with an id column.
func localCSV(recs []hiddendb.Record, n int) string {
	var b strings.Builder
	b.WriteString("id,title,author\n")
	for _, r := range recs[:n] {
		fmt.Fprintf(&b, "%s,%q,%q\n", r.ID, r.Fields["title"], r.Fields["author"])
	}
	return b.String()
}

func approx(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func stringsReader(s string) *strings.Reader { return strings.NewReader(s) }

func atoi(s string) (int, error) { return strconv.Atoi(s) }
