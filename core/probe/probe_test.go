package probe

import (
	"context"
	"errors"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/dwcrawl/dwcrawl/core/fetch"
	"github.com/dwcrawl/dwcrawl/core/form"
	"github.com/dwcrawl/dwcrawl/core/page"
	"github.com/dwcrawl/dwcrawl/store"
)

// movies and recipes are the records of two small databases: a database of
// the topic (movies) and a site search of another topic (a cooking site).
var movies = []string{
	"Alien: a science fiction horror film by Ridley Scott, starring Sigourney Weaver",
	"Blade Runner: a science fiction film, director Ridley Scott, with Harrison Ford",
	"Casablanca: a romantic drama film starring Humphrey Bogart and Ingrid Bergman",
	"The Godfather: a crime film directed by Francis Ford Coppola, actor Marlon Brando",
	"Jaws: a thriller film by Steven Spielberg about a shark, cast Roy Scheider",
	"Star Wars: a space opera film by George Lucas, actor Harrison Ford",
	"Psycho: a horror film by Alfred Hitchcock, starring Anthony Perkins",
	"Vertigo: a thriller film by Alfred Hitchcock with James Stewart",
	"Metropolis: a silent science fiction film by Fritz Lang",
	"Chinatown: a neo-noir crime film starring Jack Nicholson",
}

// papers is a database of another topic (research papers) a few of whose
// records use the movie terms and read as movies.
var papers = []string{
	"Horror film audiences: a study of thriller and horror film viewers, director and actor effects",
	"Film cast networks: actor and director collaboration in drama film casts",
	"Sparse matrix algorithms for graph partitioning on parallel machines",
	"A survey of query optimization in relational database systems",
	"Learning to rank with gradient boosted trees for web search",
	"Type inference for dynamically typed languages with gradual typing",
	"Consensus protocols for replicated state machines under partitions",
	"Energy efficient scheduling of tasks on multicore processors",
	"Compressed indexes for full-text search over large collections",
	"Differential privacy for counting queries over streams",
}

// glossary is a database of the topic whose records are too short for the
// topic judge to read (it stands for a model trained on home pages) but
// use the topic's other words.
var glossary = []string{
	"jump scare: a sudden shock in a horror or thriller scene",
	"cameo: a brief appearance of a star in a film, often a thriller",
	"final girl: the last survivor of a horror slasher film",
	"red herring: a false clue in a thriller plot",
	"MacGuffin: an object that drives the plot of a thriller film",
	"Fordian shot: a horror-free wide shot of a western landscape (after John Ford)",
	"creature feature: a horror film about a monster",
}

var recipes = []string{
	"Lemon tart: pastry, lemons, sugar and eggs baked until set",
	"Pea soup: split peas simmered with ham hock and onion",
	"Apple pie: apples, cinnamon and butter in a double crust",
	"Tomato salad: tomatoes, basil, olive oil and sea salt",
	"Bread: flour, water, yeast and salt, kneaded and baked",
	"Film of caramel: sugar cooked to a thin amber film on a tray",
}

// site serves a search form over db at /, its answers at /search, a
// login page, a form that ignores its query and a form that sends every
// query to the login page.
type site struct {
	*httptest.Server
	mu       sync.Mutex
	requests []string
}

func newSite(t *testing.T, db []string) *site {
	s := &site{}
	mux := http.NewServeMux()
	page := func(w http.ResponseWriter, title, body string) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!DOCTYPE html><html><head><title>%s</title></head><body>
<nav><ul><li><a href="/">Home</a></li><li><a href="/about">About</a></li><li><a href="/contact">Contact</a></li></ul></nav>
<form action="/search" method="get"><input type="search" name="q"><input type="submit" value="Search"></form>
<main>%s</main><footer><a href="/privacy">Privacy</a> <a href="/terms">Terms</a></footer></body></html>`, title, body)
	}
	mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "User-agent: *\nDisallow: /private\n") })
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { page(w, "Home", "<p>Welcome.</p>") })
	search := func(w http.ResponseWriter, r *http.Request, furniture string) {
		s.log(r)
		q := strings.ToLower(r.FormValue("q"))
		var b strings.Builder
		n := 0
		for i, rec := range db {
			// the empty query lists everything (the site's listing)
			if strings.Contains(strings.ToLower(rec), q) {
				title, desc, _ := strings.Cut(rec, ": ")
				fmt.Fprintf(&b, `<li class="hit"><h3><a href="/item/%d">%s</a></h3><p class="snippet">%s</p>%s</li>`, i, html.EscapeString(title), html.EscapeString(desc), furniture)
				n++
			}
		}
		if n == 0 {
			page(w, "Search", fmt.Sprintf("<h1>Search</h1><p>Sorry, no results were found for %s.</p>", html.EscapeString(q)))
			return
		}
		page(w, "Search", fmt.Sprintf(`<h1>Search</h1><p>%d results</p><ol class="hits">%s</ol>`, n, b.String()))
	}
	mux.HandleFunc("/search", func(w http.ResponseWriter, r *http.Request) { search(w, r, "") })
	// every hit with the listing's furniture, which happens to hold a
	// word of the topic
	mux.HandleFunc("/scored", func(w http.ResponseWriter, r *http.Request) {
		search(w, r, `<p class="meta">Thriller score: 12</p>`)
	})
	mux.HandleFunc("/static", func(w http.ResponseWriter, r *http.Request) {
		s.log(r)
		page(w, "Thanks", "<p>Thank you for your message. We will answer soon.</p>")
	})
	mux.HandleFunc("/offers", func(w http.ResponseWriter, r *http.Request) {
		// the same list whatever the query: none of its records echoes a
		// nonsense term, all of them a topic term
		s.log(r)
		var b strings.Builder
		for i, m := range movies[:5] {
			fmt.Fprintf(&b, `<li><a href="/offer/%d">%s</a> <p>film of the week, horror and thriller classics</p></li>`, i, m)
		}
		page(w, "Offers", fmt.Sprintf(`<h1>This week's film offers</h1><ol class="offers">%s</ol>`, b.String()))
	})
	mux.HandleFunc("/members", func(w http.ResponseWriter, r *http.Request) {
		s.log(r)
		http.Redirect(w, r, "/login?next=/members", http.StatusFound)
	})
	mux.HandleFunc("/login", func(w http.ResponseWriter, r *http.Request) {
		s.log(r)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<html><body><form action="/login" method="post"><input name="user"><input type="password" name="pw"><input type="submit" value="Log in"></form></body></html>`)
	})
	mux.HandleFunc("/private/search", func(w http.ResponseWriter, r *http.Request) { s.log(r); page(w, "x", "") })
	s.Server = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

func (s *site) log(r *http.Request) {
	s.mu.Lock()
	s.requests = append(s.requests, r.Method+" "+r.URL.Path)
	s.mu.Unlock()
}

func (s *site) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.requests)
}

func fetcher(t *testing.T) *fetch.Fetcher {
	t.Helper()
	f, err := fetch.New(fetch.Options{AllowPrivate: true, AllowHost: func(h string) bool { return h == "127.0.0.1" }, Retries: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	return f
}

// words is a topic judge that counts the movie words of a text: the
// crawl's site classifier stands here (the consumer's interface).
type words []string

func (ws words) Relevant(text string) (bool, float64) {
	text = strings.ToLower(text)
	n := 0
	for _, w := range ws {
		n += strings.Count(text, w)
	}
	p := min(1, float64(n)/float64(len(strings.Fields(text))+1)*4)
	return p >= 0.5, p
}

var movieWords = words{"film", "director", "actor", "starring", "cast", "thriller", "horror", "drama"}

func searchForm(action string) *page.Form {
	return &page.Form{Index: 0, Action: action, Method: "GET", Fields: []page.Field{
		{Tag: "input", Type: "search", Name: "q"}, {Tag: "input", Type: "submit", Value: "Search"}}}
}

var searchable = form.Decision{Searchable: true, Kind: form.KindSearch, PSearchable: 0.9}

func TestProbe(t *testing.T) {
	ctx := context.Background()
	terms := []string{"film", "horror", "Ford", "thriller"}
	tests := []struct {
		name   string
		db     []string
		path   string
		topic  Topic
		want   string
		reason string // in the evidence
	}{
		{"movie database", movies, "/search", movieWords, store.ProbeTopicDatabase, "about the topic"},
		{"movie database, no topic judge", movies, "/search", nil, store.ProbeTopicDatabase, "topic's terms find records"},
		{"cooking site search", recipes, "/search", movieWords, store.ProbeSiteSearch, "not about the topic"},
		{"glossary the judge cannot read, using the topic's other words", glossary, "/search", words{}, store.ProbeTopicDatabase, "about the topic"},
		{"cooking site search the judge cannot read", recipes, "/search", words{}, store.ProbeSiteSearch, "not about the topic"},
		{"papers database whose hits all show a topic word", papers, "/scored", words{}, store.ProbeSiteSearch, "not about the topic"},
		{"papers database, a few records on the topic", papers, "/search", movieWords, store.ProbeSiteSearch, "general sample of the database"},
		{"answer ignores the query", movies, "/static", movieWords, store.ProbeNotDatabase, "does not change"},
		{"login wall", movies, "/members", movieWords, store.ProbeNotDatabase, "login page"},
		{"the same offers whatever the query", movies, "/offers", movieWords, store.ProbeNotDatabase, "same records"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSite(t, tt.db)
			p, err := New(fetcher(t), Options{Queries: 4, Terms: terms})
			if err != nil {
				t.Fatal(err)
			}
			res, err := p.Probe(ctx, searchForm(s.URL+tt.path), searchable, "", nil, tt.topic)
			if err != nil {
				t.Fatal(err)
			}
			ev := strings.Join(res.Evidence, "\n")
			if res.Decision != tt.want || !strings.Contains(ev, tt.reason) {
				t.Errorf("decision %s, want %s (evidence should say %q):\n%s", res.Decision, tt.want, tt.reason, ev)
			}
			if len(res.Queries) < 4 || res.Queries[0].Kind != "nonsense" || res.Queries[1].Query != "film" || res.Queries[3].Query != "Ford" {
				t.Errorf("queries %+v: want the nonsense term and the first 3 terms", res.Queries)
			}
			// a general sample is asked only to check a topic-database
			// decision with a topic judge, and it is recorded
			general := 0
			for _, q := range res.Queries[4:] {
				if q.Kind == "general" {
					general++
				}
			}
			if checked := tt.topic != nil && (res.Decision == store.ProbeTopicDatabase || strings.Contains(ev, "general sample")); checked != (general > 0) || len(res.Queries) != 4+general {
				t.Errorf("%d general queries of %d, decision %s", general, len(res.Queries), res.Decision)
			}
			if got := s.count(); got < 4 {
				t.Errorf("%d requests reached the site for 4 probe queries", got)
			}
		})
	}
}

// TestProbeRefuses checks that forms not classified searchable, or that
// ask for a password, are never submitted.
func TestProbeRefuses(t *testing.T) {
	s := newSite(t, movies)
	p, err := New(fetcher(t), Options{Queries: 3, Terms: []string{"film"}})
	if err != nil {
		t.Fatal(err)
	}
	login := &page.Form{Action: s.URL + "/login", Method: "POST", Fields: []page.Field{
		{Tag: "input", Type: "text", Name: "user"}, {Tag: "input", Type: "password", Name: "pw"}}}
	tests := []struct {
		name string
		f    *page.Form
		d    form.Decision
	}{
		{"login kind", login, form.Decision{Kind: "login", PSearchable: 0.1}},
		{"password field though searchable", login, searchable},
		{"search kind below the threshold", searchForm(s.URL + "/search"), form.Decision{Kind: form.KindSearch, Searchable: false}},
		{"contact form", searchForm(s.URL + "/static"), form.Decision{Kind: "contact"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := s.count()
			_, err := p.Probe(context.Background(), tt.f, tt.d, s.URL+"/", nil, nil)
			if !errors.Is(err, ErrNotSearchable) {
				t.Errorf("err %v, want ErrNotSearchable", err)
			}
			if s.count() != before {
				t.Errorf("a refused form was submitted: %v", s.requests[before:])
			}
		})
	}
}

// TestProbeRobots checks that a form whose action robots.txt disallows
// gets no request: every probe query fails with the robots cause.
func TestProbeRobots(t *testing.T) {
	s := newSite(t, movies)
	p, err := New(fetcher(t), Options{Queries: 2, Terms: []string{"film"}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Probe(context.Background(), searchForm(s.URL+"/private/search"), searchable, s.URL+"/", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.count() != 0 {
		t.Errorf("robots.txt disallows /private, yet %v", s.requests)
	}
	if res.Decision != store.ProbeNotDatabase || res.Queries[0].Error == "" {
		t.Errorf("decision %s, queries %+v", res.Decision, res.Queries)
	}
}

func TestNew(t *testing.T) {
	f := fetcher(t)
	for _, o := range []Options{{Queries: 1, Terms: []string{"a"}}, {Queries: 3}, {Queries: 3, Terms: []string{" "}}} {
		if _, err := New(f, o); err == nil {
			t.Errorf("New(%+v) accepted", o)
		}
	}
	if _, err := New(nil, Options{Queries: 3, Terms: []string{"a"}}); err == nil {
		t.Error("New without a fetcher accepted")
	}
	a, b := Nonsense("http://a.example/search"), Nonsense("http://b.example/search")
	if a == b || a != Nonsense("http://a.example/search") || len(a) != 9 {
		t.Errorf("Nonsense: %q %q", a, b)
	}
}

func TestWithoutQuery(t *testing.T) {
	tests := []struct{ text, query, want string }{
		{"Musical film: a music drama", "music", " film: a  drama"},
		{"Used cars for sale", "car", "Used  for sale"},
		{"Law of the sea", "of", "Law of the sea"}, // words shorter than 3 letters stay
		{"Box office hit", "box office", "  hit"},
	}
	for _, tt := range tests {
		if got := withoutQuery(tt.text, tt.query); got != tt.want {
			t.Errorf("withoutQuery(%q, %q) = %q, want %q", tt.text, tt.query, got, tt.want)
		}
	}
}

func TestGeneralVerdict(t *testing.T) {
	tests := []struct {
		name         string
		share, topic float64
		want         bool
	}{
		{"on topic like the topic answers", 0.95, 0.67, true},
		{"all on topic", 1, 1, true},
		{"mostly off topic", 0.2, 1, false},
		{"a majority, far below the topic answers", 0.56, 1, false},
		{"a majority, near the topic answers", 0.75, 0.9, true},
	}
	for _, tt := range tests {
		if got, why := generalVerdict(tt.share, tt.topic, 0.5); got != tt.want || (!got && why == "") {
			t.Errorf("%s: generalVerdict(%.2f, %.2f) = %v %q, want %v", tt.name, tt.share, tt.topic, got, why, tt.want)
		}
	}
}

// TestProbeFallbackTerms probes a movie database with profile words its
// records do not hold: the probe then asks words of the form's page the
// topic judge rates on the topic (or, first, the learned words of the
// topic's records), and decides from their answers.
func TestProbeFallbackTerms(t *testing.T) {
	ctx := context.Background()
	pageText := "Find a title in our catalogue of recipes and thriller classics, horror too. Opening hours 2024."
	tests := []struct {
		name    string
		learned []string
		want    []string // the fallback queries, in order
	}{
		{"page words", nil, []string{"thriller", "horror"}},
		{"learned words first", []string{"Hitchcock", "the"}, []string{"hitchcock", "thriller"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSite(t, movies)
			opt := Options{Queries: 3, Terms: []string{"cinema", "motion picture"}}
			if tt.learned != nil {
				opt.Learned = func() []string { return tt.learned }
			}
			p, err := New(fetcher(t), opt)
			if err != nil {
				t.Fatal(err)
			}
			res, err := p.Probe(ctx, searchForm(s.URL+"/search"), searchable, pageText, nil, movieWords)
			if err != nil {
				t.Fatal(err)
			}
			var asked []string
			for _, q := range res.Queries {
				if q.Kind == "page" {
					asked = append(asked, q.Query)
				}
			}
			ev := strings.Join(res.Evidence, "\n")
			if strings.Join(asked, ",") != strings.Join(tt.want, ",") {
				t.Errorf("fallback queries %v, want %v\n%s", asked, tt.want, ev)
			}
			if res.Decision != store.ProbeTopicDatabase || !strings.Contains(ev, "none of the profile's terms found records") {
				t.Errorf("decision %s, want %s from the fallback words:\n%s", res.Decision, store.ProbeTopicDatabase, ev)
			}
		})
	}
}

func TestFallbackTerms(t *testing.T) {
	f := &page.Form{Fields: []page.Field{
		{Tag: "input", Type: "text", Name: "q"},
		{Tag: "select", Name: "genre", Options: []page.Option{{Value: "", Text: "Any genre"}, {Value: "w", Text: "Western"}, {Value: "n", Text: "Noir 1940s"}}},
	}}
	asked := []store.ProbeQuery{{Query: "drama", Kind: "topic"}}
	tests := []struct {
		name     string
		learned  []string
		pageText string
		n        int
		want     []string
	}{
		{"options before page words, ties in the order seen", nil, "a film director", 3, []string{"western", "noir", "film"}},
		{"learned first, no duplicates", []string{"noir", "Noir", "an", "1999"}, "", 3, []string{"noir", "western"}},
		{"page words the judge rates, best first; not asked, stop or numbers", nil, "the drama of 2024 with actor, film and pasta", 4, []string{"western", "noir", "actor", "film"}},
		{"none", nil, "", 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := fallbackTerms(tt.learned, tt.pageText, f, 0, asked, movieWords, tt.n)
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestDecideSameRecords(t *testing.T) {
	qs := []store.ProbeQuery{
		{Query: "qxzv", Kind: "nonsense"},
		{Query: "a", Kind: "topic", Records: 3, Signature: "s1", OnTopic: 0.9},
		{Query: "b", Kind: "page", Records: 3, Signature: "s1", OnTopic: 0.9},
	}
	if d, ev := decide(qs, true, 0.5); d != store.ProbeNotDatabase {
		t.Errorf("two queries listing the very same records: %s, want %s\n%s", d, store.ProbeNotDatabase, strings.Join(ev, "\n"))
	}
	qs[2].Signature = "s2"
	if d, ev := decide(qs, true, 0.5); d != store.ProbeTopicDatabase {
		t.Errorf("two queries listing different records: %s, want %s\n%s", d, store.ProbeTopicDatabase, strings.Join(ev, "\n"))
	}
}

func TestSampleWord(t *testing.T) {
	asked := []store.ProbeQuery{{Query: "law", Kind: "topic"}}
	tests := []struct {
		name  string
		texts []string
		want  string
	}{
		{"the word most records hold", []string{"Boyle's law: gas pressure and volume", "Charles's law: gas volume and heat", "law of motion: force and mass"}, "volume"},
		{"not a term, asked word, stop word or number", []string{"court of law 1999 the", "legal court 1999 the"}, ""},
		{"in two texts at least", []string{"alpha beta", "gamma delta"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := sampleWord(tt.texts, asked, []string{"court", "legal"}); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
