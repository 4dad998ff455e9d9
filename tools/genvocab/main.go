// Command genvocab writes the per-domain vocabulary from which the domain
// form classifier's (DSFC) training examples are generated: real values
// (car makes and models, film titles and genres, airport cities, book
// titles and publishers, author names, …) and real domain sentences
// (WordNet glosses), for the twelve domains of dwcrawl. Run from the
// repository root:
//
//	go run ./tools/genvocab -out core/form/model/domains.json
//
// It reads the shared data folder (../shared/data beside the repository, or
// $DWCRAWL_SHARED_DATA): corpora/vega/{cars,movies}.json,
// corpora/vega/airports.csv, dblp/dblp_3881.csv and
// corpora/wordnet-glosses.jsonl. Output is deterministic.
package main

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/dwcrawl/dwcrawl/internal/shareddata"
)

// vocab is one domain's data.
type vocab struct {
	Values  []string `json:"values"`
	Context []string `json:"context"`
}

// collector gathers distinct strings in insertion order, capped.
type collector struct {
	seen map[string]bool
	out  []string
}

func (c *collector) add(s string) {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 80 {
		return
	}
	k := strings.ToLower(s)
	if c.seen == nil {
		c.seen = make(map[string]bool)
	}
	if c.seen[k] {
		return
	}
	c.seen[k] = true
	c.out = append(c.out, s)
}

// sample keeps at most n items spread evenly over the list.
func sample(xs []string, n int) []string {
	if len(xs) <= n {
		return xs
	}
	out := make([]string, 0, n)
	for i := range n {
		out = append(out, xs[i*len(xs)/n])
	}
	return out
}

type synset struct {
	Lexfile string   `json:"lexfile"`
	Lemmas  []string `json:"lemmas"`
	Topics  []string `json:"topic_domains"`
	Gloss   string   `json:"gloss"`
}

// wordnetRule selects synsets for a domain: by topic domain, or by
// lexicographer file and a gloss pattern.
type wordnetRule struct {
	topics  []string
	lexfile string
	gloss   *regexp.Regexp
}

func (r wordnetRule) match(s synset) bool {
	for _, t := range r.topics {
		for _, st := range s.Topics {
			if st == t {
				return true
			}
		}
	}
	return r.gloss != nil && (r.lexfile == "" || r.lexfile == s.Lexfile) && r.gloss.MatchString(s.Gloss)
}

var rules = map[string][]wordnetRule{
	"airfare":   {{topics: []string{"air travel", "aviation"}}, {lexfile: "noun.artifact", gloss: regexp.MustCompile(`\b(airplane|aircraft|airport|airline|airliner)\b`)}},
	"auto":      {{topics: []string{"driving"}}, {lexfile: "noun.artifact", gloss: regexp.MustCompile(`\b(car|automobile|motor vehicle|truck)\b`)}},
	"book":      {{topics: []string{"literature", "printing", "publishing"}}, {lexfile: "noun.communication", gloss: regexp.MustCompile(`\b(book|novel|literary|published)\b`)}},
	"hotel":     {{lexfile: "noun.artifact", gloss: regexp.MustCompile(`\b(hotel|inn|lodging|resort|guest)\b`)}},
	"job":       {{lexfile: "noun.person", gloss: regexp.MustCompile(`\b(employed|employee|works (at|in|for|as)|worker|occupation|profession)\b`)}},
	"movie":     {{topics: []string{"film", "cinema", "movie"}}, {gloss: regexp.MustCompile(`\b(film|movie|motion picture|cinema)\b`)}},
	"music":     {{topics: []string{"music"}}, {gloss: regexp.MustCompile(`\b(musical|music|song|singer)\b`)}},
	"rental":    {{gloss: regexp.MustCompile(`\b(rent|rental|rented|lease|hire)\b`)}},
	"apartment": {{lexfile: "noun.artifact", gloss: regexp.MustCompile(`\b(apartment|dwelling|housing|house|residence|tenant)\b`)}},
	"route":     {{lexfile: "noun.artifact", gloss: regexp.MustCompile(`\b(road|highway|route|expressway|freeway|motorway|intersection)\b`)}, {topics: []string{"navigation"}}},
	"product":   {{lexfile: "noun.artifact", gloss: regexp.MustCompile(`\b(device|appliance|tool|furniture|garment|clothing|utensil)\b`)}},
	"people":    {{lexfile: "noun.person", gloss: regexp.MustCompile(`\b(relative|parent|spouse|friend|neighbor|resident|citizen)\b`)}},
	// "other": topics no domain covers, the out-of-domain class.
	"other": {{topics: []string{"law", "chemistry", "medicine", "mathematics", "religion", "biology", "physics",
		"sport", "cooking", "botany", "military", "psychology", "geology", "astronomy", "anatomy", "philosophy",
		"linguistics", "statistics", "golf", "baseball", "genetics", "architecture", "art", "economics"}}},
}

func main() {
	data := flag.String("data", "", "shared data folder (default: found by walking up)")
	out := flag.String("out", "core/form/model/domains.json", "output file")
	nValues := flag.Int("values", 300, "values per domain at most")
	nContext := flag.Int("context", 120, "context sentences per domain at most")
	flag.Parse()
	if err := run(*data, *out, *nValues, *nContext); err != nil {
		fmt.Fprintln(os.Stderr, "genvocab:", err)
		os.Exit(1)
	}
}

func run(data, out string, nValues, nContext int) error {
	if data == "" {
		d, err := shareddata.Dir()
		if err != nil {
			return err
		}
		data = d
	}
	values := make(map[string]*collector)
	context := make(map[string]*collector)
	for d := range rules {
		values[d] = &collector{}
		context[d] = &collector{}
	}
	if err := readCars(filepath.Join(data, "corpora", "vega", "cars.json"), values); err != nil {
		return err
	}
	if err := readMovies(filepath.Join(data, "corpora", "vega", "movies.json"), values); err != nil {
		return err
	}
	if err := readAirports(filepath.Join(data, "corpora", "vega", "airports.csv"), values); err != nil {
		return err
	}
	if err := readDBLP(filepath.Join(data, "dblp", "dblp_3881.csv"), values); err != nil {
		return err
	}
	if err := readWordNet(filepath.Join(data, "corpora", "wordnet-glosses.jsonl"), values, context); err != nil {
		return err
	}
	res := make(map[string]vocab)
	domains := make([]string, 0, len(rules))
	for d := range rules {
		domains = append(domains, d)
	}
	sort.Strings(domains)
	for _, d := range domains {
		res[d] = vocab{Values: sample(values[d].out, nValues), Context: sample(context[d].out, nContext)}
		fmt.Fprintf(os.Stderr, "genvocab: %-10s %4d values %4d sentences\n", d, len(res[d].Values), len(res[d].Context))
	}
	b, err := json.MarshalIndent(map[string]any{
		"source":  "generated by tools/genvocab from shared data: vega cars/movies/airports, DBLP, WordNet 3.0 glosses",
		"domains": res,
	}, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(out, append(b, '\n'), 0o644)
}

func readCars(path string, values map[string]*collector) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var cars []struct {
		Name   string
		Origin string
	}
	if err := json.Unmarshal(b, &cars); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	for _, c := range cars {
		make_, model, _ := strings.Cut(c.Name, " ")
		values["auto"].add(make_)
		values["auto"].add(c.Name)
		values["rental"].add(make_ + " " + model)
	}
	return nil
}

func readMovies(path string, values map[string]*collector) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var ms []map[string]any
	if err := json.Unmarshal(b, &ms); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	for _, m := range ms {
		for _, k := range []string{"Major Genre", "MPAA Rating", "Creative Type", "Distributor", "Director", "Title"} {
			if s, ok := m[k].(string); ok {
				values["movie"].add(s)
			}
		}
	}
	return nil
}

func readAirports(path string, values map[string]*collector) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	for i, r := range rows {
		if i == 0 || len(r) < 4 {
			continue
		}
		iata, name, city, state := r[0], r[1], r[2], r[3]
		// Airports with a three-letter code and "International"/"Regional"
		// in the name are the ones fares are sold for.
		if isUpperCode(iata) && (strings.Contains(name, "International") || strings.Contains(name, "Regional")) {
			values["airfare"].add(city + " (" + iata + ")")
			values["airfare"].add(name)
		}
		values["route"].add(city + ", " + state)
		values["hotel"].add(city + ", " + state)
		values["apartment"].add(city)
		values["rental"].add(city + " airport")
		values["job"].add(city + ", " + state)
	}
	return nil
}

func isUpperCode(s string) bool {
	if len(s) != 3 {
		return false
	}
	for _, r := range s {
		if r < 'A' || r > 'Z' {
			return false
		}
	}
	return true
}

func readDBLP(path string, values map[string]*collector) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r := csv.NewReader(bufio.NewReader(f))
	r.FieldsPerRecord = -1
	rows, err := r.ReadAll()
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	for i, row := range rows {
		if i == 0 || len(row) < 6 {
			continue
		}
		publisher, title, series, authors := row[1], row[3], row[4], row[5]
		if row[7] == "book" || publisher != "" {
			values["book"].add(title)
			values["book"].add(publisher)
			values["book"].add(series)
		}
		for _, a := range strings.Split(authors, " and ") {
			a = strings.ReplaceAll(a, "{-}", "-")
			if row[7] == "book" {
				values["book"].add(a)
			}
			values["people"].add(a)
		}
	}
	return nil
}

func readWordNet(path string, values, context map[string]*collector) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var s synset
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if !strings.HasPrefix(s.Lexfile, "noun.") {
			continue
		}
		for d, rs := range rules {
			for _, r := range rs {
				if r.match(s) {
					lemma := strings.ReplaceAll(s.Lemmas[0], "_", " ")
					values[d].add(lemma)
					context[d].add(lemma + ": " + s.Gloss)
					break
				}
			}
		}
	}
	return sc.Err()
}
