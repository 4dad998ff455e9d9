package lab

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode"
)

// The shared data the lab reads (never copies into the repository).
const (
	moviesFile  = "corpora/vega/movies.json"
	carsFile    = "corpora/vega/cars.json"
	glossesFile = "corpora/wordnet-glosses.jsonl"
	dblpFile    = "dblp/dblp_3881.csv"
	dblpSample  = "dblp/dblp_sample.csv"
	formsDir    = "formasaurus"
)

type movie struct {
	Title       any      `json:"Title"` // a few titles are numbers (1776)
	Release     string   `json:"Release Date"`
	Rating      *string  `json:"MPAA Rating"`
	Distributor *string  `json:"Distributor"`
	Genre       *string  `json:"Major Genre"`
	Director    *string  `json:"Director"`
	Source      *string  `json:"Source"`
	Runtime     *float64 `json:"Running Time min"`
	IMDB        *float64 `json:"IMDB Rating"`
	USGross     *float64 `json:"US Gross"`
}

func readMovies(data string) ([]movie, error) {
	var ms []movie
	if err := readJSON(filepath.Join(data, moviesFile), &ms); err != nil {
		return nil, err
	}
	for i := range ms {
		ms[i].Title = fmt.Sprint(ms[i].Title)
	}
	return ms, nil
}

func (m movie) title() string { return fmt.Sprint(m.Title) }

// year is the four-digit year of the release date ("Jun 12 1998").
func (m movie) year() string {
	f := strings.Fields(m.Release)
	if len(f) == 0 {
		return ""
	}
	y := f[len(f)-1]
	if len(y) != 4 || strings.Trim(y, "0123456789") != "" {
		return ""
	}
	return y
}

func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// summary is the searchable text of a film: its title and facts.
func (m movie) summary() string {
	parts := []string{m.title()}
	for _, s := range []string{str(m.Director), str(m.Genre), str(m.Distributor), m.year()} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, " ")
}

// wikitext is a film's MediaWiki article.
func (m movie) wikitext(title string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "'''<nowiki>%s</nowiki>''' is a", title)
	if g := str(m.Genre); g != "" {
		fmt.Fprintf(&b, " %s", strings.ToLower(g))
	}
	b.WriteString(" film")
	if d := str(m.Director); d != "" {
		fmt.Fprintf(&b, " directed by <nowiki>%s</nowiki>", d)
	}
	if m.Release != "" {
		fmt.Fprintf(&b, ", released on %s", m.Release)
	}
	if d := str(m.Distributor); d != "" {
		fmt.Fprintf(&b, " by <nowiki>%s</nowiki>", d)
	}
	b.WriteString(".\n\n== Facts ==\n{| class=\"wikitable\"\n")
	row := func(k, v string) {
		if v != "" {
			fmt.Fprintf(&b, "|-\n! %s\n| <nowiki>%s</nowiki>\n", k, v)
		}
	}
	row("Release date", m.Release)
	row("Director", str(m.Director))
	row("Genre", str(m.Genre))
	row("Source", str(m.Source))
	row("Distributor", str(m.Distributor))
	row("MPAA rating", str(m.Rating))
	if m.Runtime != nil {
		row("Running time", fmt.Sprintf("%.0f minutes", *m.Runtime))
	}
	if m.IMDB != nil {
		row("IMDB rating", fmt.Sprintf("%.1f", *m.IMDB))
	}
	if m.USGross != nil {
		row("US gross", fmt.Sprintf("$%.0f", *m.USGross))
	}
	b.WriteString("|}\n")
	if y := m.year(); y != "" {
		fmt.Fprintf(&b, "\nSee also the [[Films of %s]].\n", y)
	}
	return b.String()
}

type car struct {
	Name         string   `json:"Name"`
	MPG          *float64 `json:"Miles_per_Gallon"`
	Cylinders    *float64 `json:"Cylinders"`
	Displacement *float64 `json:"Displacement"`
	Horsepower   *float64 `json:"Horsepower"`
	Weight       *float64 `json:"Weight_in_lbs"`
	Acceleration *float64 `json:"Acceleration"`
	Year         string   `json:"Year"`
	Origin       string   `json:"Origin"`
}

func readCars(data string) ([]car, error) {
	var cs []car
	return cs, readJSON(filepath.Join(data, carsFile), &cs)
}

type gloss struct {
	ID     string   `json:"id"`
	POS    string   `json:"pos"`
	Lemmas []string `json:"lemmas"`
	Topics []string `json:"topic_domains"`
	Gloss  string   `json:"gloss"`
}

// readGlosses returns the WordNet synsets whose topic domains include topic.
func readGlosses(data, topic string) ([]gloss, error) {
	path := filepath.Join(data, glossesFile)
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []gloss
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		if !strings.Contains(sc.Text(), topic) {
			continue
		}
		var g gloss
		if err := json.Unmarshal(sc.Bytes(), &g); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		for _, t := range g.Topics {
			if t == topic && len(g.Lemmas) > 0 {
				out = append(out, g)
				break
			}
		}
	}
	return out, sc.Err()
}

// paper is a DBLP record of dblp_3881.csv.
type paper struct {
	ID, Title, Author, Year, Type, Venue, Publisher, Link, Pages string
}

func readPapers(data string) ([]paper, error) {
	path := filepath.Join(data, dblpFile)
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = -1
	head, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	col := map[string]int{}
	for i, h := range head {
		col[strings.TrimPrefix(h, "\ufeff")] = i
	}
	for _, c := range []string{"ID", "title", "author", "year"} {
		if _, ok := col[c]; !ok {
			return nil, fmt.Errorf("%s: no column %q", path, c)
		}
	}
	var out []paper
	for line := 2; ; line++ {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		get := func(c string) string {
			i, ok := col[c]
			if !ok || i >= len(rec) {
				return ""
			}
			return strings.TrimSpace(rec[i])
		}
		p := paper{ID: get("ID"), Title: strings.TrimSuffix(get("title"), "."), Author: get("author"), Year: get("year"),
			Type: get("ENTRYTYPE"), Publisher: get("publisher"), Link: get("link"), Pages: get("pages")}
		p.Venue = get("journal")
		if p.Venue == "" {
			p.Venue = get("booktitle")
		}
		if p.Venue == "" {
			p.Venue = get("series")
		}
		if p.ID == "" || p.Title == "" {
			continue
		}
		out = append(out, p)
	}
	return out, nil
}

// dblpEntry is a record of dblp_sample.csv: one DBLP publication with one of
// its authors.
type dblpEntry struct {
	Booktitle, Author, Key, Title string
}

// readDBLPSample returns the first n records of dblp_sample.csv (all when n
// is 0) that have a key and a title, titles without DBLP's closing period.
func readDBLPSample(data string, n int) ([]dblpEntry, error) {
	path := filepath.Join(data, dblpSample)
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	head, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	col := map[string]int{}
	for i, h := range head {
		col[strings.TrimPrefix(h, "\ufeff")] = i
	}
	for _, c := range []string{"booktitle", "author", "key", "title"} {
		if _, ok := col[c]; !ok {
			return nil, fmt.Errorf("%s: no column %q", path, c)
		}
	}
	var out []dblpEntry
	for n == 0 || len(out) < n {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		get := func(c string) string { return strings.TrimSpace(rec[col[c]]) }
		e := dblpEntry{Booktitle: get("booktitle"), Author: get("author"), Key: get("key"),
			Title: strings.TrimSuffix(get("title"), ".")}
		if e.Key == "" || e.Title == "" {
			continue
		}
		out = append(out, e)
	}
	return out, nil
}

// authors splits DBLP's "A and B and C".
func (p paper) authors() []string {
	var out []string
	for _, a := range strings.Split(p.Author, " and ") {
		a = strings.ReplaceAll(strings.TrimSpace(a), "{-}", "-")
		if a != "" {
			out = append(out, a)
		}
	}
	return out
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// pick returns n records spread evenly over recs (deterministic: the truth
// and the tests visit the same ones on every run).
func pick(recs []Record, n int) []Record {
	if len(recs) == 0 {
		return nil
	}
	var out []Record
	for i := 0; i < n; i++ {
		out = append(out, recs[(2*i+1)*len(recs)/(2*n)])
	}
	return out
}

// queryWord is the longest alphabetic word of a record's title, a query that
// finds it with few others.
func queryWord(r Record) string {
	best := ""
	for _, w := range Words(r.Title) {
		if len(w) > len(best) {
			best = w
		}
	}
	return best
}

// Words are the lower-cased words of s made of letters only, of 3 letters or
// more.
func Words(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' }) {
		w = strings.Trim(w, "'")
		if len(w) >= 3 && strings.IndexFunc(w, func(r rune) bool { return r > unicode.MaxASCII }) < 0 {
			out = append(out, w)
		}
	}
	return out
}
