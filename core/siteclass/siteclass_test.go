package siteclass

import (
	"bufio"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/dwcrawl/dwcrawl/internal/shareddata/sharedtest"
)

func fixtures(t *testing.T) map[string][]string {
	t.Helper()
	f, err := os.Open("testdata/homepages.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := make(map[string][]string)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || line == "" {
			continue
		}
		l, txt, _ := strings.Cut(line, "\t")
		out[l] = append(out[l], txt)
	}
	return out
}

var autoKeywords = []string{"used cars", "car dealer", "new cars for sale", "vehicle", "auto", "truck", "suv", "sedan", "make", "model", "mileage", "dealership"}

func TestKeywordsOnly(t *testing.T) {
	fx := fixtures(t)
	c, err := Train("auto", nil, autoKeywords, Options{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		label string
		want  bool
	}{
		{"auto", true}, {"cooking", false}, {"law", false}, {"music", false}, {"astronomy", false},
	}
	for _, tt := range tests {
		for i, h := range fx[tt.label] {
			got, p := c.Relevant(h)
			if got != tt.want {
				t.Errorf("%s #%d: relevant=%v (p=%.3f), want %v", tt.label, i, got, p, tt.want)
			}
		}
	}
}

func TestHomepagesAndRoundTrip(t *testing.T) {
	fx := fixtures(t)
	// Train on two auto homepages, test on the third.
	c, err := Train("auto", fx["auto"][:2], []string{"cars"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if ok, p := c.Relevant(fx["auto"][2]); !ok {
		t.Errorf("held-out auto homepage p=%.3f", p)
	}
	if s := c.Sources; s.Homepages != 2 || s.Keywords != 1 || s.Background == 0 || s.Learned != 0 {
		t.Errorf("sources %+v", s)
	}
	for _, l := range []string{"cooking", "law", "music"} {
		if ok, p := c.Relevant(fx[l][0]); ok {
			t.Errorf("%s homepage relevant p=%.3f", l, p)
		}
	}
	if p := c.Prob("welcome home login contact us"); p != 0.5 {
		t.Errorf("boilerplate-only page p=%v, want 0.5", p)
	}
	c2 := roundTrip(t, c)
	for _, h := range fx["auto"] {
		if c.Prob(h) != c2.Prob(h) {
			t.Fatal("probability changed after reload")
		}
	}
	// Online learning moves a page's probability toward its label.
	before := c2.Prob(fx["music"][0])
	c2.Learn(fx["music"][0], true)
	if after := c2.Prob(fx["music"][0]); after <= before {
		t.Errorf("learn relevant: %.3f -> %.3f", before, after)
	}
	if c2.Sources.Learned != 1 || c2.Sources.Homepages != 2 || !strings.Contains(c2.Sources.String(), "1 homepages learned") {
		t.Errorf("sources after reload and learning: %s", c2.Sources)
	}
}

func TestTrainErrors(t *testing.T) {
	if _, err := Train("x", nil, nil, Options{}); err == nil {
		t.Error("no positives accepted")
	}
	if _, err := Train("x", nil, []string{"cars"}, Options{Background: []Doc{{Topic: "t", Text: "cars cars"}}}); err == nil {
		t.Error("background emptied by the keyword filter accepted")
	}
	if len(BundledBackground()) < 100 {
		t.Errorf("bundled background has %d docs", len(BundledBackground()))
	}
}

// TestSharedMovies trains a movie classifier from real film records (vega
// movies.json, one pseudo-homepage per 20 films) and checks held-out movie
// pages against held-out background topics.
func TestSharedMovies(t *testing.T) {
	path := sharedtest.Path(t, "corpora", "vega", "movies.json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var films []map[string]any
	if err := json.Unmarshal(b, &films); err != nil {
		t.Fatal(err)
	}
	var pages []string
	var sb strings.Builder
	for i, f := range films {
		for _, k := range []string{"Title", "Major Genre", "Director", "Distributor", "MPAA Rating", "Creative Type"} {
			if s, ok := f[k].(string); ok {
				sb.WriteString(s + ". ")
			}
		}
		sb.WriteString("movie film cinema showtimes trailer. ")
		if i%20 == 19 {
			pages = append(pages, sb.String())
			sb.Reset()
		}
	}
	bg := BundledBackground()
	var train, test []Doc
	for i, d := range bg {
		if i%5 == 0 {
			test = append(test, d)
		} else {
			train = append(train, d)
		}
	}
	half := len(pages) / 2
	c, err := Train("movie", pages[:half], []string{"movie", "film", "cinema"}, Options{Background: train})
	if err != nil {
		t.Fatal(err)
	}
	tp := 0
	for _, p := range pages[half:] {
		if ok, _ := c.Relevant(p); ok {
			tp++
		}
	}
	fp := 0
	for _, d := range test {
		if ok, _ := c.Relevant(d.Text); ok {
			fp++
		}
	}
	recall := float64(tp) / float64(len(pages)-half)
	fpr := float64(fp) / float64(len(test))
	t.Logf("movie pages recall %.3f (%d), background false positives %.3f (%d)", recall, len(pages)-half, fpr, len(test))
	if recall < 0.95 || fpr > 0.05 {
		t.Errorf("recall %.3f, false-positive rate %.3f", recall, fpr)
	}
}

// TestLearnPortal: a travel portal's homepage splits its words between
// flights, cars and hotels, so a hotel classifier trained on keywords alone
// rejects it; after learning one portal homepage it accepts another, while
// off-topic homepages stay rejected.
func TestLearnPortal(t *testing.T) {
	hotelKeywords := []string{"hotel", "hotels", "room", "rooms", "resort", "motel", "inn", "lodging",
		"accommodation", "guests", "nights", "reservation", "booking", "hotel deals", "suites"}
	c, err := Train("hotel", nil, hotelKeywords, Options{})
	if err != nil {
		t.Fatal(err)
	}
	learned := "Sunward Trips - travel deals. Cheap flights and airline tickets to every airport, " +
		"car rental with unlimited mileage at the terminal, and hotel rooms near the beach. " +
		"Compare airfares, pick up a compact car, book a resort. Passengers, drivers and guests " +
		"save on vacations, cruises, departures and returns with our travel agents."
	unseen := "Blue Compass Travel. Search flights from any airport, rent a car or SUV for your " +
		"trip, and find a hotel for the nights of your vacation. Airline fares, rental cars, " +
		"travel packages and departures every day; passengers and travellers welcome."
	fx := fixtures(t)
	offTopic := []string{"cooking", "law", "music", "astronomy"}
	before := map[string]bool{}
	for _, label := range offTopic {
		for _, h := range fx[label] {
			before[h], _ = c.Relevant(h)
		}
	}
	if ok, p := c.Relevant(unseen); ok {
		t.Fatalf("portal accepted before learning (p=%.3f): the test no longer exercises learning", p)
	}
	c.Learn(learned, true)
	if ok, p := c.Relevant(unseen); !ok {
		t.Errorf("portal rejected after learning a similar homepage (p=%.3f)", p)
	}
	// learning a portal must not open the door to other topics
	for _, label := range offTopic {
		for i, h := range fx[label] {
			if ok, p := c.Relevant(h); ok && !before[h] {
				t.Errorf("%s #%d accepted after learning (p=%.3f), rejected before", label, i, p)
			}
		}
	}
}

// TestBundledBackgroundTerms checks that the precomputed terms of the
// bundled background are those Terms gives today (else run
// `go generate ./core/siteclass/`).
func TestBundledBackgroundTerms(t *testing.T) {
	docs := BundledBackground()
	if len(docs) == 0 {
		t.Fatal("no bundled background")
	}
	for i, d := range docs {
		if d.terms == nil {
			t.Fatalf("document %d has no precomputed terms: background.terms is stale; run go generate ./core/siteclass/", i)
		}
		if want := Terms(d.Text); !slices.Equal(d.terms, want) {
			t.Fatalf("document %d: precomputed terms %v, Terms gives %v; run go generate ./core/siteclass/", i, d.terms, want)
		}
	}
}

// Prob reads a homepage's features as it tokenizes it; it must give, bit
// for bit, the probability of the Naive Bayes model over the filtered terms
// (a --seed-run crawl depends on it), trained, reloaded and after learning.
func TestProbIsNBOfFilteredTerms(t *testing.T) {
	fx := fixtures(t)
	c, err := Train("auto", fx["auto"][:2], autoKeywords, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c2 := roundTrip(t, c)
	var pages []string
	for _, hs := range fx {
		pages = append(pages, hs...)
	}
	pages = append(pages, "", "welcome home login contact us", "cars 4x4 trucks 2025 suv")
	check := func(name string, c *Classifier) {
		t.Helper()
		for _, h := range pages {
			if got, want := c.Prob(h), c.NB.Prob(c.keep(Terms(h)), Relevant); got != want {
				t.Fatalf("%s: Prob(%.40q) = %v, Naive Bayes of the filtered terms %v", name, h, got, want)
			}
		}
	}
	check("trained", c)
	check("reloaded", c2)
	c2.Learn(fx["music"][0], true)
	check("after learning", c2)
}

// roundTrip returns c as it reads back from its stored form.
func roundTrip(t *testing.T, c *Classifier) *Classifier {
	t.Helper()
	b, err := c.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	c2, err := Unmarshal(b)
	if err != nil {
		t.Fatal(err)
	}
	return c2
}
