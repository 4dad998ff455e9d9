package hiddendb

import (
	"fmt"
	"math/rand"
	"strconv"
	"strings"
)

// Synthetic builds n bibliographic records for tests and benchmarks of
// enrichment: a title of 3–6 distinct words from a Zipf-distributed
// vocabulary of 400 (so some keyword sets are frequent) and one or two of
// 120 author names; ids are "1".."n" and the records are a function of seed.
func Synthetic(seed int64, n int) []Record {
	rng := rand.New(rand.NewSource(seed))
	words := make([]string, 400)
	for i := range words {
		words[i] = SyntheticWord(i)
	}
	zipf := rand.NewZipf(rng, 1.1, 3, uint64(len(words)-1))
	var out []Record
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
		author := "Author" + SyntheticWord(1000+rng.Intn(120))
		if rng.Intn(2) == 0 {
			author += " and Author" + SyntheticWord(1000+rng.Intn(120))
		}
		id := strconv.Itoa(i + 1)
		out = append(out, Record{ID: id, Fields: map[string]string{"title": strings.Join(title, " "), "author": author},
			Order: []string{"title", "author"}})
	}
	return out
}

// SyntheticWord spells i with letters only (digits would split tokens): the
// i-th word of Synthetic's vocabulary.
func SyntheticWord(i int) string {
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

// LocalCSV renders the first n of Synthetic's records as a local table
// (CSV with the columns id, title, author).
func LocalCSV(recs []Record, n int) string {
	var b strings.Builder
	b.WriteString("id,title,author\n")
	for _, r := range recs[:n] {
		fmt.Fprintf(&b, "%s,%q,%q\n", r.ID, r.Fields["title"], r.Fields["author"])
	}
	return b.String()
}
