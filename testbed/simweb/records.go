package simweb

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/dwcrawl/dwcrawl/core/text"
	"github.com/dwcrawl/dwcrawl/testbed/hiddendb"
)

// dataSeed fixes the synthesized parts of records (prices, mileages, …) so
// that record pools depend only on the data directory, not on the web seed.
const dataSeed = 20240601

// maxCategoryPool caps the WordNet glossary pool of an off-topic category.
const maxCategoryPool = 2500

type wnSynset struct {
	ID           string   `json:"id"`
	POS          string   `json:"pos"`
	Lexfile      string   `json:"lexfile"`
	Lemmas       []string `json:"lemmas"`
	TopicDomains []string `json:"topic_domains"`
	Gloss        string   `json:"gloss"`
}

// wordnetStats is what the WordNet glosses contribute: term counts per topic
// and record pools for the builders that draw on WordNet.
type wordnetStats struct {
	terms  map[string]map[string]int
	pools  map[string][]hiddendb.Record
	lemmas map[string]bool // lower-case one-word lemmas: the dictionary
}

type topicSel struct {
	name     string
	target   bool
	topics   map[string]bool
	lexfiles map[string]bool
	gloss    []string // phrases, matched in the gloss text
	words    []string // single words, matched against the gloss tokens
}

func (d *Data) loadWordNet(files map[string][]string) *wordnetStats {
	paths := filesMatching(files, "*glosses*.jsonl")
	if len(paths) == 0 {
		return nil
	}
	var sels []topicSel
	for _, n := range d.TopicNames {
		t := d.Topics[n]
		s := topicSel{name: n, target: t.Target, topics: map[string]bool{}, lexfiles: map[string]bool{}}
		for _, x := range t.WordNet.Topics {
			s.topics[strings.ToLower(x)] = true
		}
		for _, x := range t.WordNet.Lexfiles {
			s.lexfiles[x] = true
		}
		for _, g := range t.WordNet.Gloss {
			g = strings.ToLower(g)
			if strings.Contains(g, " ") {
				s.gloss = append(s.gloss, " "+g)
			} else {
				s.words = append(s.words, g)
			}
		}
		sels = append(sels, s)
	}
	wn := &wordnetStats{terms: map[string]map[string]int{}, pools: map[string][]hiddendb.Record{}, lemmas: map[string]bool{}}
	cats := map[string][]wnSynset{}
	for _, p := range paths {
		err := readLines(p, func(line []byte) error {
			var s wnSynset
			if err := json.Unmarshal(line, &s); err != nil {
				return err
			}
			if len(s.Lemmas) == 0 {
				return nil
			}
			for _, l := range s.Lemmas {
				if isAlpha(l) && strings.ToLower(l) == l {
					wn.lemmas[l] = true
				}
			}
			gl := " " + strings.ToLower(s.Gloss) + " "
			toks := map[string]bool{}
			for _, x := range append(text.Tokenize(s.Gloss), text.Tokenize(strings.Join(s.Lemmas, " "))...) {
				toks[x] = true
			}
			for _, sel := range sels {
				hit := sel.lexfiles[s.Lexfile]
				for _, td := range s.TopicDomains {
					if sel.topics[strings.ToLower(td)] {
						hit = true
					}
				}
				if !hit && sel.target {
					for _, g := range sel.words {
						if toks[g] {
							hit = true
							break
						}
					}
				}
				if !hit && sel.target {
					for _, g := range sel.gloss {
						if strings.Contains(gl, g) {
							hit = true
							break
						}
					}
				}
				if !hit {
					continue
				}
				m := wn.terms[sel.name]
				if m == nil {
					m = map[string]int{}
					wn.terms[sel.name] = m
				}
				for t := range toks {
					m[t]++
				}
				if t := d.Topics[sel.name]; !t.Target && !t.Directory {
					cats[sel.name] = append(cats[sel.name], s)
				}
			}
			wn.addBuilders(s, gl)
			return nil
		})
		if err != nil {
			d.Warnings = append(d.Warnings, fmt.Sprintf("%s: %v", p, err))
		}
	}
	for name, ss := range cats {
		step := 1
		if len(ss) > maxCategoryPool {
			step = (len(ss) + maxCategoryPool - 1) / maxCategoryPool
		}
		for i := 0; i < len(ss); i += step {
			s := ss[i]
			wn.pools[name] = append(wn.pools[name], rec(name, len(wn.pools[name]),
				"term", lemma(s.Lemmas[0]), "definition", s.Gloss, "also", lemmaList(s.Lemmas[1:]), "pos", s.POS))
		}
	}
	return wn
}

func lemma(s string) string { return strings.ReplaceAll(s, "_", " ") }

func lemmaList(xs []string) string {
	var out []string
	for _, x := range xs {
		out = append(out, lemma(x))
	}
	return strings.Join(out, ", ")
}

var (
	jobCues     = []string{" works ", " worker", " employee", " occupation", " profession", " specialist", " skilled ", " trained ", " technician", " operator", " craftsman", " engineer", " employed "}
	musicCues   = []string{"composer", "singer", "musician", "pianist", "violinist", "guitarist", "songwriter", "conductor", "jazz", "rock star", "organist", "cellist", "drummer", "saxophonist", "trumpeter", "band"}
	productCues = []string{"device", "appliance", "tool", "instrument", "machine", "equipment", "implement", "utensil", "apparatus", "container", "furniture", "garment", "gadget"}
	jobCats     = [][2]string{{"health", "medic nurse patient health doctor physician dental surg therap pharm"}, {"technology", "computer engineer software technical electronic program"},
		{"education", "teach school student educat lectur tutor"}, {"finance", "account bank financ money tax audit"}, {"construction", "build construct wood carpent mason plumb electric weld"},
		{"sales", "sell sales trade merchant shop store market"}, {"transport", "drive vehicle ship pilot truck rail transport"}}
	brands = []string{"Acme", "Zenith", "Apex", "Nova", "Orion", "Vertex", "Summit", "Pioneer", "Atlas", "Kestrel", "Lumen", "Ridge", "Harbor", "Crest", "Vista", "Beacon"}
)

// addBuilders routes one synset into the WordNet-based record builders.
func (wn *wordnetStats) addBuilders(s wnSynset, gl string) {
	name := lemma(s.Lemmas[0])
	first := []rune(name)[0]
	music := contains(s.TopicDomains, "music")
	switch {
	case s.Lexfile == "noun.person" && unicode.IsUpper(first):
		wn.pools["people"] = append(wn.pools["people"], rec("people", len(wn.pools["people"]),
			"name", name, "nationality", nationality(s.Gloss), "description", s.Gloss, "also", lemmaList(s.Lemmas[1:])))
		for _, c := range musicCues {
			if strings.Contains(gl, c) {
				music = true
			}
		}
	case s.Lexfile == "noun.person":
		for _, c := range jobCues {
			if strings.Contains(gl, c) {
				wn.pools["_occupations"] = append(wn.pools["_occupations"], rec("occ", len(wn.pools["_occupations"]),
					"title", name, "description", s.Gloss, "category", jobCategory(gl)))
				break
			}
		}
		for _, c := range musicCues {
			if strings.Contains(gl, c) {
				music = true
			}
		}
	case s.Lexfile == "noun.artifact" && unicode.IsLower(first):
		for _, c := range productCues {
			if strings.Contains(gl, " "+c) {
				i := len(wn.pools["product"])
				r := rngFor(dataSeed, "product", uint64(i))
				wn.pools["product"] = append(wn.pools["product"], rec("product", i, "name", name, "category", c,
					"brand", pickStr(r, brands), "price", strconv.Itoa(5+r.IntN(60)*5+r.IntN(5)*100), "description", s.Gloss))
				break
			}
		}
		if strings.Contains(gl, "musical instrument") {
			music = true
		}
	case s.Lexfile == "noun.communication" && (strings.Contains(gl, "musical") || strings.Contains(gl, " song")):
		music = true
	}
	if music {
		kind := "term"
		switch s.Lexfile {
		case "noun.person":
			kind = "artist"
		case "noun.artifact":
			kind = "instrument"
		case "noun.communication":
			kind = "composition"
		case "noun.act":
			kind = "performance"
		}
		wn.pools["music"] = append(wn.pools["music"], rec("music", len(wn.pools["music"]), "name", name, "kind", kind, "description", s.Gloss))
	}
}

func jobCategory(gl string) string {
	for _, c := range jobCats {
		for _, cue := range strings.Fields(c[1]) {
			if strings.Contains(gl, cue) {
				return c[0]
			}
		}
	}
	return "general"
}

// nationality reads "United States writer…" or "French painter…" glosses.
func nationality(gloss string) string {
	f := strings.Fields(gloss)
	if len(f) == 0 {
		return ""
	}
	if strings.HasPrefix(gloss, "United States") {
		return "American"
	}
	w := strings.Trim(f[0], ",;()")
	if w == "" || !unicode.IsUpper([]rune(w)[0]) {
		return ""
	}
	for _, suf := range []string{"an", "ish", "ese", "ch", "ic", "i"} {
		if strings.HasSuffix(w, suf) {
			return w
		}
	}
	return ""
}

// rec builds a record from alternating field names and values, skipping
// empty values; the id is "<prefix>-<n>".
func rec(prefix string, n int, kv ...string) hiddendb.Record {
	r := hiddendb.Record{ID: prefix + "-" + strconv.Itoa(n), Fields: make(map[string]string, len(kv)/2)}
	for i := 0; i+1 < len(kv); i += 2 {
		v := strings.TrimSpace(kv[i+1])
		if v == "" {
			continue
		}
		r.Fields[kv[i]] = v
		r.Order = append(r.Order, kv[i])
	}
	return r
}

// buildRecords fills every topic's record pool: the file-based builders
// (vega, DBLP), the WordNet-based ones, synthesized listings over real
// cities and cars, any JSONL file with a "domain" field, then the built-in
// records for pools that are still empty.
func (d *Data) buildRecords(files map[string][]string, wn *wordnetStats) {
	pools := map[string][]hiddendb.Record{}
	if wn != nil {
		for k, v := range wn.pools {
			pools[k] = v
		}
	}
	cars := d.carModels(files)
	pools["movie"] = append(pools["movie"], d.movieRecords(files)...)
	pools["auto"] = append(pools["auto"], d.autoRecords(cars)...)
	fl := d.flightRecords(files)
	pools["airfare"] = append(pools["airfare"], fl.fares...)
	pools["route"] = append(pools["route"], fl.routes...)
	pools["book"] = append(pools["book"], d.bookRecords(files)...)
	if len(d.Cities) > 0 {
		pools["hotel"] = append(pools["hotel"], d.hotelRecords()...)
		pools["apartment"] = append(pools["apartment"], d.apartmentRecords()...)
		pools["rental"] = append(pools["rental"], d.rentalRecords(cars)...)
		pools["job"] = append(pools["job"], d.jobRecords(pools["_occupations"])...)
	}
	for dom, rs := range d.domainJSONL(files) {
		pools[dom] = append(pools[dom], rs...)
	}
	bi := builtinRecords()
	for _, name := range d.TopicNames {
		t := d.Topics[name]
		t.pool = pools[t.Records]
		if len(t.pool) == 0 {
			t.pool = bi[t.Records]
		}
		if len(t.pool) == 0 {
			t.pool = wordRecords(t)
		}
	}
}

// wordRecords is the last resort for a topic without any records: a
// glossary of its core words.
func wordRecords(t *Topic) []hiddendb.Record {
	var out []hiddendb.Record
	for i, w := range t.Words {
		r := rngFor(dataSeed, "words-"+t.Name, uint64(i))
		def := []string{}
		for j := 0; j < 6; j++ {
			def = append(def, pickStr(r, t.Words))
		}
		out = append(out, rec(t.Name, i, "term", w, "definition", strings.Join(def, " ")))
	}
	return out
}

func builtinRecords() map[string][]hiddendb.Record {
	b, _ := builtinFS.ReadFile("builtin/records.jsonl")
	out := map[string][]hiddendb.Record{}
	rs, err := hiddendb.ReadJSONL(bytes.NewReader(b), "builtin/records.jsonl", "")
	if err != nil {
		return out
	}
	for _, r := range rs {
		dom := r.Fields["domain"]
		dropField(&r, "domain")
		r.ID = dom + "-b" + strconv.Itoa(len(out[dom]))
		out[dom] = append(out[dom], r)
	}
	return out
}

func dropField(r *hiddendb.Record, k string) {
	delete(r.Fields, k)
	kept := r.Order[:0]
	for _, o := range r.Order {
		if o != k {
			kept = append(kept, o)
		}
	}
	r.Order = kept
}

// domainJSONL reads every *.jsonl file whose first record has a "domain"
// field: each line adds a record to that domain's pool.
func (d *Data) domainJSONL(files map[string][]string) map[string][]hiddendb.Record {
	out := map[string][]hiddendb.Record{}
	for _, p := range filesMatching(files, "*.jsonl") {
		f, err := os.Open(p)
		if err != nil {
			continue
		}
		head := make([]byte, 4096)
		n, _ := io.ReadFull(f, head)
		f.Close()
		line := head[:n]
		if i := bytes.IndexByte(line, '\n'); i >= 0 {
			line = line[:i]
		}
		var probe map[string]any
		if json.Unmarshal(line, &probe) != nil || probe["domain"] == nil {
			continue
		}
		rs, err := hiddendb.LoadJSONL(p, "id")
		if err != nil {
			d.Warnings = append(d.Warnings, err.Error())
			continue
		}
		base := strings.TrimSuffix(filepath.Base(p), ".jsonl")
		for i, r := range rs {
			dom := strings.ToLower(strings.TrimSpace(r.Fields["domain"]))
			if dom == "" {
				continue
			}
			dropField(&r, "domain")
			if _, ok := r.Fields["id"]; ok {
				dropField(&r, "id")
			}
			r.ID = base + "-" + strconv.Itoa(i)
			out[dom] = append(out[dom], r)
		}
	}
	return out
}

// readJSONArray decodes a file holding a JSON array of flat objects.
func readJSONArray(p string) ([]map[string]any, error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	var rows []map[string]any
	if err := json.Unmarshal(b, &rows); err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return rows, nil
}

func str(v any) string {
	switch x := v.(type) {
	case string:
		return strings.TrimSpace(x)
	case float64:
		if x == math.Trunc(x) {
			return strconv.FormatInt(int64(x), 10)
		}
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	}
	return ""
}

func (d *Data) movieRecords(files map[string][]string) []hiddendb.Record {
	var out []hiddendb.Record
	for _, p := range filesMatching(files, "movies*.json") {
		rows, err := readJSONArray(p)
		if err != nil {
			d.Warnings = append(d.Warnings, err.Error())
			continue
		}
		for _, m := range rows {
			t := str(m["Title"])
			if t == "" {
				continue
			}
			out = append(out, rec("movie", len(out), "title", t, "director", str(m["Director"]), "genre", str(m["Major Genre"]),
				"rating", str(m["MPAA Rating"]), "released", str(m["Release Date"]), "distributor", str(m["Distributor"]),
				"source", str(m["Source"]), "type", str(m["Creative Type"]), "imdb", str(m["IMDB Rating"]), "runtime", str(m["Running Time min"])))
		}
	}
	return out
}

type carModel struct{ name, make, model, year, origin, cyl, hp, mpg string }

var makeFix = map[string]string{"chevy": "chevrolet", "vw": "volkswagen", "vokswagen": "volkswagen", "toyouta": "toyota", "maxda": "mazda", "mercedes-benz": "mercedes", "chevroelt": "chevrolet", "capri": "mercury"}

func (d *Data) carModels(files map[string][]string) []carModel {
	var out []carModel
	for _, p := range filesMatching(files, "cars*.json") {
		rows, err := readJSONArray(p)
		if err != nil {
			d.Warnings = append(d.Warnings, err.Error())
			continue
		}
		for _, m := range rows {
			n := strings.ToLower(str(m["Name"]))
			f := strings.Fields(n)
			if len(f) < 2 {
				continue
			}
			mk := f[0]
			if x, ok := makeFix[mk]; ok {
				mk = x
			}
			y := str(m["Year"])
			if len(y) >= 4 {
				y = y[:4]
			}
			out = append(out, carModel{name: mk + " " + strings.Join(f[1:], " "), make: mk, model: strings.Join(f[1:], " "), year: y,
				origin: str(m["Origin"]), cyl: str(m["Cylinders"]), hp: str(m["Horsepower"]), mpg: str(m["Miles_per_Gallon"])})
		}
	}
	return out
}

var colors = []string{"black", "white", "silver", "gray", "red", "blue", "green", "beige", "brown", "gold", "maroon", "yellow"}

// autoRecords are used-car listings: each real car model offered several
// times with a price, mileage, colour and a real city.
func (d *Data) autoRecords(cars []carModel) []hiddendb.Record {
	var out []hiddendb.Record
	for i, c := range cars {
		r := rngFor(dataSeed, "auto", uint64(i))
		for k := 0; k < 5; k++ {
			city := d.Cities[r.IntN(len(d.Cities))]
			y, _ := strconv.Atoi(c.year)
			out = append(out, rec("auto", len(out), "name", c.name, "make", c.make, "model", c.model, "year", c.year,
				"origin", c.origin, "price", strconv.Itoa(1500+r.IntN(40)*250+(y-1970)*120), "mileage", strconv.Itoa(20000+r.IntN(180)*1000),
				"color", pickStr(r, colors), "cylinders", c.cyl, "horsepower", c.hp, "mpg", c.mpg, "city", city.Name, "state", city.State))
		}
	}
	return out
}

type flightPools struct{ fares, routes []hiddendb.Record }

var airlines = []string{"Delta", "United", "American", "Southwest", "JetBlue", "Alaska", "Frontier", "Spirit", "Hawaiian", "Allegiant"}
var months = []string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}

func (d *Data) flightRecords(files map[string][]string) flightPools {
	var fp flightPools
	byCode := map[string]City{}
	for _, c := range d.Cities {
		byCode[c.Code] = c
	}
	for _, p := range filesMatching(files, "airports*.csv") {
		rows, _ := readCSVMaps(p)
		for _, r := range rows {
			byCode[r["iata"]] = City{Name: r["city"], State: r["state"], Code: r["iata"], Airport: r["name"]}
		}
	}
	type routeKey struct{ o, d string }
	routes := map[routeKey]string{}
	var order []routeKey
	for _, p := range filesMatching(files, "flights*.json") {
		rows, err := readJSONArray(p)
		if err != nil {
			d.Warnings = append(d.Warnings, err.Error())
			continue
		}
		for i, m := range rows {
			o, de := str(m["origin"]), str(m["destination"])
			if o == "" || de == "" {
				continue
			}
			oc, dc := byCode[o], byCode[de]
			dist, _ := strconv.Atoi(str(m["distance"]))
			date := str(m["date"])
			month := ""
			if len(date) >= 7 {
				if mm, err := strconv.Atoi(date[5:7]); err == nil && mm >= 1 && mm <= 12 {
					month = months[mm-1]
				}
				date = date[:10]
			}
			r := rngFor(dataSeed, "fare", uint64(i))
			fp.fares = append(fp.fares, rec("fare", len(fp.fares), "origin", o, "origin_city", oc.Name, "destination", de,
				"destination_city", dc.Name, "date", date, "month", month, "airline", pickStr(r, airlines),
				"price", strconv.Itoa(49+dist/8+r.IntN(120)), "stops", strconv.Itoa(r.IntN(3)/2), "distance", strconv.Itoa(dist)))
			k := routeKey{o, de}
			if _, ok := routes[k]; !ok {
				routes[k] = strconv.Itoa(dist)
				order = append(order, k)
			}
		}
	}
	for _, k := range order {
		oc, dc := byCode[k.o], byCode[k.d]
		fp.routes = append(fp.routes, rec("route", len(fp.routes), "origin", k.o, "origin_city", oc.Name, "origin_airport", oc.Airport,
			"destination", k.d, "destination_city", dc.Name, "destination_airport", dc.Airport, "state", oc.State, "miles", routes[k]))
	}
	return fp
}

func (d *Data) bookRecords(files map[string][]string) []hiddendb.Record {
	var out []hiddendb.Record
	seen := map[string]bool{}
	for _, p := range filesMatching(files, "dblp*.csv") {
		rows, err := readCSVMaps(p)
		if err != nil {
			d.Warnings = append(d.Warnings, err.Error())
			continue
		}
		for _, m := range rows {
			t := strings.TrimSuffix(cleanDBLP(m["title"]), ".")
			if t == "" || seen[strings.ToLower(t)] {
				continue
			}
			seen[strings.ToLower(t)] = true
			typ := m["ENTRYTYPE"]
			k := m["key"]
			if typ == "" {
				switch {
				case strings.HasPrefix(k, "journals/"):
					typ = "article"
				case strings.HasPrefix(k, "conf/"):
					typ = "inproceedings"
				case strings.HasPrefix(k, "books/"):
					typ = "book"
				}
			}
			venue := firstNonEmpty(m["journal"], m["booktitle"], m["series"])
			if venue == "" && strings.Count(k, "/") >= 2 {
				venue = strings.ToUpper(strings.Split(k, "/")[1])
			}
			out = append(out, rec("book", len(out), "title", t, "author", cleanDBLP(m["author"]), "year", m["year"], "type", typ,
				"venue", cleanDBLP(venue), "publisher", cleanDBLP(m["publisher"]), "isbn", m["isbn"], "pages", m["pages"]))
		}
	}
	return out
}

func cleanDBLP(s string) string {
	s = strings.ReplaceAll(s, "{-}", "-")
	s = strings.ReplaceAll(s, "{", "")
	s = strings.ReplaceAll(s, "}", "")
	return strings.TrimSpace(s)
}

func firstNonEmpty(xs ...string) string {
	for _, x := range xs {
		if strings.TrimSpace(x) != "" {
			return strings.TrimSpace(x)
		}
	}
	return ""
}

var (
	hotelBrands = []string{"Grand", "Plaza", "Harbor", "Riverside", "Parkview", "Summit", "Garden", "Lakeside", "Regency", "Heritage", "Royal", "Central", "Pacific", "Colonial", "Sunset", "Pinecrest"}
	hotelTypes  = []string{"Hotel", "Inn", "Suites", "Resort", "Lodge", "Motel", "Hotel & Spa"}
	amenities   = []string{"pool", "free breakfast", "free wifi", "fitness center", "spa", "airport shuttle", "parking", "restaurant", "bar", "pet friendly", "beach access", "business center"}
	aptWords    = []string{"Oak", "Maple", "Cedar", "Willow", "Park", "River", "Hill", "Lake", "Meadow", "Brook", "Stone", "Elm", "Pine", "Bay"}
	aptSuffix   = []string{"Apartments", "Commons", "Place", "Terrace", "Village", "Towers", "Court", "Gardens", "Lofts", "Residences"}
	carClasses  = []string{"economy", "compact", "midsize", "fullsize", "premium", "luxury", "suv", "minivan", "convertible", "pickup"}
	agencies    = []string{"Hertz", "Avis", "Budget", "Enterprise", "National", "Alamo", "Thrifty", "Dollar", "Sixt", "Payless"}
)

func (d *Data) hotelRecords() []hiddendb.Record {
	var out []hiddendb.Record
	for i, c := range d.Cities {
		r := rngFor(dataSeed, "hotel", uint64(i))
		for k := 0; k <= r.IntN(2); k++ {
			stars := 1 + r.IntN(5)
			out = append(out, rec("hotel", len(out), "name", c.Name+" "+pickStr(r, hotelBrands)+" "+pickStr(r, hotelTypes), "city", c.Name,
				"state", c.State, "stars", strconv.Itoa(stars), "price", strconv.Itoa(45+stars*30+r.IntN(80)),
				"amenities", pickStr(r, amenities)+", "+pickStr(r, amenities), "near", c.Airport))
		}
	}
	return out
}

func (d *Data) apartmentRecords() []hiddendb.Record {
	var out []hiddendb.Record
	for i, c := range d.Cities {
		r := rngFor(dataSeed, "apartment", uint64(i))
		for k := 0; k <= r.IntN(2); k++ {
			beds := r.IntN(4)
			out = append(out, rec("apartment", len(out), "name", pickStr(r, aptWords)+" "+pickStr(r, aptSuffix), "city", c.Name, "state", c.State,
				"bedrooms", strconv.Itoa(beds), "baths", strconv.Itoa(1+beds/2), "rent", strconv.Itoa(550+beds*350+r.IntN(60)*10),
				"sqft", strconv.Itoa(400+beds*300+r.IntN(30)*10), "pets", pickStr(r, []string{"cats allowed", "dogs allowed", "no pets", "pets allowed"})))
		}
	}
	return out
}

func (d *Data) rentalRecords(cars []carModel) []hiddendb.Record {
	var out []hiddendb.Record
	for i, c := range d.Cities {
		r := rngFor(dataSeed, "rental", uint64(i))
		for k := 0; k <= r.IntN(2); k++ {
			car := ""
			if len(cars) > 0 {
				car = cars[r.IntN(len(cars))].name
			}
			cls := pickStr(r, carClasses)
			out = append(out, rec("rental", len(out), "car", car, "class", cls, "agency", pickStr(r, agencies), "city", c.Name, "state", c.State,
				"location", c.Airport, "daily", strconv.Itoa(19+r.IntN(70))))
		}
	}
	return out
}

func (d *Data) jobRecords(occ []hiddendb.Record) []hiddendb.Record {
	var out []hiddendb.Record
	for i, o := range occ {
		r := rngFor(dataSeed, "job", uint64(i))
		for k := 0; k <= r.IntN(2); k++ {
			c := d.Cities[r.IntN(len(d.Cities))]
			out = append(out, rec("job", len(out), "title", o.Fields["title"], "description", o.Fields["description"],
				"category", o.Fields["category"], "city", c.Name, "state", c.State, "salary", strconv.Itoa(22000+r.IntN(90)*1000),
				"type", pickStr(r, []string{"full time", "part time", "contract", "temporary"})))
		}
	}
	return out
}

// readCSVMaps reads a CSV with a header row into maps (BOM ignored).
func readCSVMaps(p string) ([]map[string]string, error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	b = bytes.TrimPrefix(b, []byte{0xEF, 0xBB, 0xBF})
	cr := csv.NewReader(bytes.NewReader(b))
	cr.FieldsPerRecord = -1
	cr.LazyQuotes = true
	rows, err := cr.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	if len(rows) == 0 {
		return nil, nil
	}
	h := rows[0]
	out := make([]map[string]string, 0, len(rows)-1)
	for _, row := range rows[1:] {
		m := make(map[string]string, len(h))
		for i, k := range h {
			if i < len(row) {
				m[strings.TrimSpace(k)] = row[i]
			}
		}
		out = append(out, m)
	}
	return out, nil
}

// sortedKeys returns a map's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
