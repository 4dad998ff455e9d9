package surface

import (
	"bufio"
	"context"
	_ "embed"
	"fmt"
	"io"
	"math/rand"
	"os"
	"strings"
)

//go:embed wordlist/generic.txt
var genericList string

// GenericWords returns the bundled generic word list (SUBTLEX-US, most
// frequent first).
func GenericWords() []string {
	w, _ := ReadWordList(strings.NewReader(genericList))
	return w
}

// ReadWordList reads one word per line (the first whitespace-separated
// field; a second field such as a count is ignored); blank lines and lines
// starting with '#' are skipped.
func ReadWordList(r io.Reader) ([]string, error) {
	var out []string
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		out = append(out, strings.Fields(line)[0])
	}
	return out, sc.Err()
}

// LoadWordList reads a word-list file (see ReadWordList).
func LoadWordList(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("surface: word list: %w", err)
	}
	defer f.Close()
	w, err := ReadWordList(f)
	if err != nil {
		return nil, fmt.Errorf("surface: word list %s: %w", path, err)
	}
	return w, nil
}

// listPolicy proposes words of a list in order, skipping the issued ones and
// those the interface cannot use.
type listPolicy struct {
	name  string
	words []string
	pos   int
}

func (p *listPolicy) Name() string { return p.name }

func (p *listPolicy) Next(_ context.Context, st *State) (Proposal, error) {
	for p.pos < len(p.words) {
		w := p.words[p.pos]
		p.pos++
		if usable(st, w) {
			return Proposal{Query: w}, nil
		}
	}
	return Proposal{}, ErrExhausted
}

func usable(st *State, w string) bool {
	qt := st.Stats.opt.QueryTerms(w)
	return len(qt) > 0 && (len(qt) > 1 || st.Stats.opt.candidate(qt[0])) && !st.Issued(w)
}

// NewGeneric is the generic-frequency policy: the words of a generic corpus,
// most frequent first (nil: the bundled list).
func NewGeneric(words []string) Policy {
	if words == nil {
		words = GenericWords()
	}
	return &listPolicy{name: "generic", words: words}
}

// NewRandom is the random policy: the words of a list in a random order
// fixed by seed (nil list: the bundled generic list).
func NewRandom(words []string, seed int64) Policy {
	if words == nil {
		words = GenericWords()
	}
	w := append([]string(nil), words...)
	rand.New(rand.NewSource(seed)).Shuffle(len(w), func(i, j int) { w[i], w[j] = w[j], w[i] })
	return &listPolicy{name: "random", words: w}
}

// Adaptive is the adaptive policy: it learns from the downloaded documents
// which term to issue next (Algorithm 3.1 over the statistics table). Until
// a document is downloaded, and whenever the table has no candidate left, it
// falls back to the generic list.
type Adaptive struct {
	Options SelectOptions
	// Fallback is the generic list used for the first query (nil: bundled).
	Fallback []string
	fb       *listPolicy
	// LastChoice is the estimate behind the last proposal.
	LastChoice Choice
}

// Name is "adaptive".
func (a *Adaptive) Name() string { return "adaptive" }

// Next proposes the most efficient term of the statistics table.
func (a *Adaptive) Next(ctx context.Context, st *State) (Proposal, error) {
	if st.Stats.Docs() > 0 {
		opt := a.Options
		if opt.K == 0 {
			opt.K = st.K()
		}
		if c, ok := st.Stats.Select(opt); ok {
			a.LastChoice = c
			return Proposal{Query: c.Term, Est: c.Matches, Gain: c.Gain, FromDocs: true}, nil
		}
	}
	if a.fb == nil {
		a.fb = &listPolicy{name: "adaptive", words: bootstrapWords(orGeneric(a.Fallback))}
	}
	return a.fb.Next(ctx, st)
}

// PolicyOptions configures NewPolicy.
type PolicyOptions struct {
	Words  []string // word list of random and generic (nil: bundled)
	Seed   int64
	Select SelectOptions
}

// NewPolicy returns the named policy: adaptive, generic or random.
func NewPolicy(name string, o PolicyOptions) (Policy, error) {
	switch name {
	case "adaptive":
		return &Adaptive{Options: o.Select, Fallback: o.Words}, nil
	case "generic":
		return NewGeneric(o.Words), nil
	case "random":
		return NewRandom(o.Words, o.Seed), nil
	}
	return nil, fmt.Errorf("surface: unknown policy %q (want adaptive, generic or random)", name)
}

func orGeneric(w []string) []string {
	if w == nil {
		return GenericWords()
	}
	return w
}

// numberProbes are tokens common in structured records (counts, years).
var numberProbes = []string{"1", "2", "2010", "0", "3", "2000", "10", "2005", "4", "2015", "5", "1999", "100", "2020", "6"}

// bootstrapWords is the order of the first queries, before any document is
// downloaded: the generic words of three letters or more, most frequent
// first, interleaved with numbers (structured records — catalogues,
// bibliographies, listings — rarely contain spoken-language words but
// nearly always years and counts).
func bootstrapWords(generic []string) []string {
	out := make([]string, 0, len(generic)+len(numberProbes))
	p := 0
	for _, w := range generic {
		if len([]rune(w)) < 3 {
			continue
		}
		out = append(out, w)
		if p < len(numberProbes) {
			out = append(out, numberProbes[p])
			p++
		}
	}
	return out
}
