package enrich

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand"
	"os"
	"sort"
	"strings"
)

// Sample is a sample Hs of the hidden database with its sampling ratio θ
// (|Hs| / |H|).
type Sample struct {
	Docs  []Doc
	Theta float64
}

// SampleMeta is written beside a sample file (<file>.meta.json).
type SampleMeta struct {
	Theta float64 `json:"theta"`
	// Method names the sampling method.
	Method  string `json:"method"`
	Queries int    `json:"queries"`
	// Chains is the number of drill-down chains (random first keywords).
	Chains  int `json:"chains"`
	Solid   int `json:"solid"`
	Records int `json:"records"`
	// HiddenSize is the estimate |Hs| / θ.
	HiddenSize float64 `json:"hidden_size"`
	Vocabulary int     `json:"vocabulary"`
	Seed       int64   `json:"seed"`
}

// MetaPath is the sidecar file of a sample file.
func MetaPath(samplePath string) string { return samplePath + ".meta.json" }

// LoadSample reads a sample: one JSON object per line, either a Doc
// ({"id","url","text","fields":{…}}) or a flat record whose scalar values are
// its fields ("id" becomes the ID). θ comes from the sidecar meta file when
// present (0 otherwise; the caller must then supply it).
func LoadSample(path string) (*Sample, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("enrich: load sample: %w", err)
	}
	defer f.Close()
	s, err := ReadSample(f, path)
	if err != nil {
		return nil, err
	}
	if b, err := os.ReadFile(MetaPath(path)); err == nil {
		var m SampleMeta
		if err := json.Unmarshal(b, &m); err != nil {
			return nil, fmt.Errorf("%s: %w", MetaPath(path), err)
		}
		s.Theta = m.Theta
	}
	return s, nil
}

// ReadSample reads sample records (see LoadSample) from r.
func ReadSample(r io.Reader, name string) (*Sample, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	s := &Sample{}
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var raw map[string]json.RawMessage
		if err := json.Unmarshal(b, &raw); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		var d Doc
		if _, nested := raw["fields"]; nested {
			if err := json.Unmarshal(b, &d); err != nil {
				return nil, fmt.Errorf("%s:%d: %w", name, line, err)
			}
		} else {
			d.Fields = map[string]string{}
			for k, v := range raw {
				var x any
				if json.Unmarshal(v, &x) != nil {
					continue
				}
				switch y := x.(type) {
				case string:
					d.Fields[k] = y
				case float64, bool:
					d.Fields[k] = strings.TrimSpace(string(v))
				}
			}
			d.ID = d.Fields["id"]
		}
		s.Docs = append(s.Docs, d)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", name, line+1, err)
	}
	return s, nil
}

// WriteSample writes the sample records as JSON lines (Doc objects, always
// with a "fields" object so that ReadSample recognises them).
func WriteSample(w io.Writer, s *Sample) error {
	type line struct {
		ID     string            `json:"id,omitempty"`
		URL    string            `json:"url,omitempty"`
		Text   string            `json:"text,omitempty"`
		Fields map[string]string `json:"fields"`
	}
	enc := json.NewEncoder(w)
	for _, d := range s.Docs {
		l := line{ID: d.ID, URL: d.URL, Text: d.Text, Fields: d.Fields}
		if l.Fields == nil {
			l.Fields = map[string]string{}
		}
		if err := enc.Encode(l); err != nil {
			return err
		}
	}
	return nil
}

// SaveSample writes the sample to path and its meta to MetaPath(path).
func SaveSample(path string, s *Sample, meta SampleMeta) error {
	var buf bytes.Buffer
	if err := WriteSample(&buf, s); err != nil {
		return err
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("enrich: save sample: %w", err)
	}
	mb, _ := json.MarshalIndent(meta, "", "  ")
	if err := os.WriteFile(MetaPath(path), append(mb, '\n'), 0o644); err != nil {
		return fmt.Errorf("enrich: save sample: %w", err)
	}
	return nil
}

// UniformSample draws round(θ·n) records uniformly without replacement from
// docs: the sample a benchmark with access to H uses (as the paper's
// simulations do).
func UniformSample(docs []Doc, theta float64, rng *rand.Rand) *Sample {
	n := int(theta*float64(len(docs)) + 0.5)
	if n > len(docs) {
		n = len(docs)
	}
	perm := rng.Perm(len(docs))[:n]
	sort.Ints(perm)
	s := &Sample{Theta: theta}
	for _, i := range perm {
		s.Docs = append(s.Docs, docs[i])
	}
	return s
}

// SampleOptions configures BuildSample.
type SampleOptions struct {
	// Queries is the number of sampling queries N to send.
	Queries int
	// K is the interface's result limit.
	K int
	// Vocabulary is the keyword set V the queries are drawn from (the local
	// table's keywords or a word list).
	Vocabulary []string
	// Columns name the hidden fields of a record's document (DocText).
	Columns []string
	Seed    int64
	// Progress, when set, is called after each query.
	Progress func(done, records int)
}

// BuildSample draws a sample of the hidden database through its keyword
// interface by query-based sampling with drill-down and rejection:
//
//  1. draw a keyword w uniformly (with replacement) from the vocabulary V
//     and send it;
//  2. if the query overflows (k records returned and no total ≤ k
//     reported), its records are the interface's top-ranked ones, a biased
//     set: none is kept, and the query is refined with another random
//     keyword of V (conjunctive), up to 3 keywords;
//  3. when a query with l keywords is solid, every matching record h came
//     back; keep h with probability 1/C(deg(h), l), deg(h) = the number of
//     V's keywords in h's document. For single keywords this makes the
//     chance that one chain keeps h Σ_{w∈h} 1/|V| · 1/deg(h) = 1/|V|, the
//     same for every record whose keywords give solid queries: the sample
//     is uniform over them. Records reached only through refined queries
//     are kept with a smaller, depth-dependent chance (the method's known
//     bias; it matters only when most keywords overflow).
//
// Every query sent counts against opt.Queries.
//
// θ is estimated by a ratio estimator over the queries whose full match
// count |q(H)| is known (solid queries: the records returned; overflowing
// ones when the interface reports a total): Σ|q(Hs)| / Σ|q(H)|, where
// q(Hs) leaves out the records the query itself contributed (see
// estimateTheta). Records without any vocabulary keyword cannot be drawn,
// so θ and |H| ≈ |Hs| / θ refer to the records the vocabulary reaches;
// with the local table's vocabulary these are exactly the records a pool
// query can match, which is the population SmartCrawl's estimators need.
func BuildSample(ctx context.Context, s Searcher, opt SampleOptions) (*Sample, SampleMeta, error) {
	meta := SampleMeta{Method: "random keyword queries with drill-down and rejection; leave-one-out ratio estimator of θ", Queries: opt.Queries, Seed: opt.Seed}
	vocab := dedupe(opt.Vocabulary)
	meta.Vocabulary = len(vocab)
	if len(vocab) == 0 {
		return nil, meta, errors.New("enrich: sample: empty vocabulary")
	}
	if opt.K <= 0 {
		return nil, meta, errors.New("enrich: sample: k unknown")
	}
	inV := make(map[string]bool, len(vocab))
	for _, w := range vocab {
		inV[w] = true
	}
	rng := rand.New(rand.NewSource(opt.Seed))
	var counted []known
	index := map[string]int{} // record key -> sample index
	var acceptedBy [][]int    // sample index -> draws that accepted it
	sample := &Sample{}
	chains := 0
	for sent := 0; sent < opt.Queries; {
		// a drill-down chain: one random keyword, refined while overflowing
		chains++
		draw := chains - 1
		var q []string
		for depth := 0; depth < maxDrillDown && sent < opt.Queries; depth++ {
			w := vocab[rng.Intn(len(vocab))]
			if contains(q, w) {
				continue
			}
			q = append(q, w)
			res, err := FetchAll(ctx, s, QueryText(q), opt.K)
			if err != nil {
				return nil, meta, fmt.Errorf("enrich: sample: %w", err)
			}
			sent++
			if opt.Progress != nil {
				opt.Progress(sent, len(sample.Docs))
			}
			solid := res.Solid(opt.K)
			switch {
			case solid:
				meta.Solid++
				counted = append(counted, known{draw, append([]string(nil), q...), len(res.Docs)})
			case res.Total >= 0:
				counted = append(counted, known{draw, append([]string(nil), q...), res.Total})
			}
			if !solid {
				continue // overflowing: refine
			}
			for _, d := range res.Docs {
				deg := 0
				for _, t := range Terms(DocText(d, opt.Columns)) {
					if inV[t] {
						deg++
					}
				}
				if deg < len(q) {
					deg = len(q) // the interface matched fields outside the document
				}
				if rng.Float64() >= 1/binomial(deg, len(q)) {
					continue
				}
				key := docKey(d)
				si, ok := index[key]
				if !ok {
					si = len(sample.Docs)
					index[key] = si
					sample.Docs = append(sample.Docs, d)
					acceptedBy = append(acceptedBy, nil)
				}
				acceptedBy[si] = append(acceptedBy[si], draw)
			}
			break
		}
	}
	meta.Chains = chains
	meta.Records = len(sample.Docs)
	sample.Theta = estimateTheta(sample, acceptedBy, counted, opt.Columns, chains)
	meta.Theta = sample.Theta
	if sample.Theta > 0 {
		meta.HiddenSize = float64(len(sample.Docs)) / sample.Theta
	}
	return sample, meta, nil
}

// known is a sampling query whose |q(H)| is known.
type known struct {
	draw  int
	terms []string
	count int // |q(H)|
}

// maxDrillDown bounds the keywords of a sampling query.
const maxDrillDown = 3

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// binomial is C(n, r) as a float.
func binomial(n, r int) float64 {
	c := 1.0
	for i := 0; i < r; i++ {
		c = c * float64(n-i) / float64(i+1)
	}
	return c
}

// estimateTheta is the leave-one-out ratio estimator. For each query q_i
// with known |q_i(H)| it counts the sample records matching q_i that some
// other draw accepted (a record accepted by q_i itself would bias the count
// upwards); x = Σ count / Σ|q_i(H)| estimates the inclusion probability of
// N−1 draws, 1 − (1−p)^(N−1), from which θ = 1 − (1−p)^N.
func estimateTheta(s *Sample, acceptedBy [][]int, counted []known, columns []string, n int) float64 {
	terms := make([]map[string]bool, len(s.Docs))
	for i, d := range s.Docs {
		terms[i] = map[string]bool{}
		for _, t := range Terms(DocText(d, columns)) {
			terms[i][t] = true
		}
	}
	var num, den float64
	for _, c := range counted {
		den += float64(c.count)
		for si := range s.Docs {
			all := true
			for _, t := range c.terms {
				all = all && terms[si][t]
			}
			if !all {
				continue
			}
			for _, d := range acceptedBy[si] {
				if d != c.draw {
					num++
					break
				}
			}
		}
	}
	if den == 0 || num == 0 || n < 2 {
		return 0
	}
	x := num / den
	if x >= 1 {
		return 1
	}
	p := 1 - math.Pow(1-x, 1/float64(n-1))
	return 1 - math.Pow(1-p, float64(n))
}

func docKey(d Doc) string {
	switch {
	case d.ID != "":
		return "id:" + d.ID
	case d.URL != "":
		return "url:" + d.URL
	}
	keys := make([]string, 0, len(d.Fields))
	for k := range d.Fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString("doc:")
	b.WriteString(d.Text)
	for _, k := range keys {
		b.WriteString("\x00" + k + "\x00" + d.Fields[k])
	}
	return b.String()
}

func dedupe(words []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, w := range words {
		for _, t := range Terms(w) {
			if !seen[t] {
				seen[t] = true
				out = append(out, t)
			}
		}
	}
	sort.Strings(out)
	return out
}

// Vocabulary returns the distinct keywords of the local documents.
func (l *Local) Vocabulary() []string { return append([]string(nil), l.dict.term...) }

// LoadWords reads a word list: a JSON array of strings or of objects with a
// "word" field (the shared SUBTLEX list), a JSON object (its keys), or plain
// text with one word per line (the first field of each line; # comments).
func LoadWords(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("enrich: word list: %w", err)
	}
	t := bytes.TrimSpace(b)
	if len(t) > 0 && (t[0] == '[' || t[0] == '{') {
		var arr []json.RawMessage
		if json.Unmarshal(t, &arr) == nil {
			var out []string
			for _, e := range arr {
				var s string
				var o struct {
					Word string `json:"word"`
				}
				if json.Unmarshal(e, &s) == nil {
					out = append(out, s)
				} else if json.Unmarshal(e, &o) == nil && o.Word != "" {
					out = append(out, o.Word)
				}
			}
			return out, nil
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(t, &obj); err != nil {
			return nil, fmt.Errorf("enrich: word list %s: %w", path, err)
		}
		out := make([]string, 0, len(obj))
		for k := range obj {
			out = append(out, k)
		}
		sort.Strings(out)
		return out, nil
	}
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		out = append(out, f[0])
	}
	return out, nil
}
