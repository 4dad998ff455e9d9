package rank

import (
	"fmt"
	"testing"
)

func benchLearner() *Learner {
	l := NewLearner(LearnerOptions{K: 20, SiteEvery: 1 << 30, FormEvery: 1 << 30})
	for i := 0; i < 200; i++ {
		l.AddSite(SiteFeatures(fmt.Sprintf("http://www.usedcars%d.example.com/", i%37), "used cars for sale", "find used cars and trucks near you"))
		l.AddForm(LinkFeatures(fmt.Sprintf("http://x.com/inventory/search%d.html", i%11), "search inventory", "advanced vehicle search by make and model"))
	}
	l.Rebuild(SpaceFSS)
	l.Rebuild(SpaceFSL)
	return l
}

var sink float64

// BenchmarkLinkScore is the link ranker on features extracted beforehand
// (the re-ranking path).
func BenchmarkLinkScore(b *testing.B) {
	r := NewLinkRanker(benchLearner().FSL())
	f := LinkFeatures("http://dealer.example.com/used-cars/search/advanced.aspx?make=ford", "Advanced used car search", "Looking for a used Ford? Try our advanced search by make, model and price")
	b.ReportAllocs()
	for b.Loop() {
		sink += r.Score(f)
	}
}

// BenchmarkLinkFeaturesScore is feature extraction (tokenize, stem) plus
// scoring: the cost per link found on a fetched page.
func BenchmarkLinkFeaturesScore(b *testing.B) {
	r := NewLinkRanker(benchLearner().FSL())
	b.ReportAllocs()
	for b.Loop() {
		f := LinkFeatures("http://dealer.example.com/used-cars/search/advanced.aspx?make=ford", "Advanced used car search", "Looking for a used Ford? Try our advanced search by make, model and price")
		sink += r.Score(f)
	}
}

// BenchmarkSiteScore is the site ranker (with URL sub-term splitting of a
// compound host) on extracted features.
func BenchmarkSiteScore(b *testing.B) {
	r := NewSiteRanker(0.5, benchLearner().FSS())
	f := SiteFeatures("http://www.carmaxusedcars.example.com/", "CarMax used cars", "the largest used car retailer")
	b.ReportAllocs()
	for b.Loop() {
		sink += r.Score(f, 3)
	}
}

// BenchmarkClassify is ACHE's link classifier on extracted features.
func BenchmarkClassify(b *testing.B) {
	c := NewLinkClassifier(ClassifierOptions{Every: 1 << 30})
	for i := 0; i < 100; i++ {
		c.AddPath([]Features{
			ClassifierFeatures(fmt.Sprintf("http://s%d.example.com/dealers", i), "our dealers", "dealers near you"),
			ClassifierFeatures(fmt.Sprintf("http://s%d.example.com/inventory", i), "browse inventory", "all our cars"),
			ClassifierFeatures(fmt.Sprintf("http://s%d.example.com/inventory/search", i), "advanced search", "search by make"),
		})
		c.AddOther(ClassifierFeatures(fmt.Sprintf("http://s%d.example.com/privacy", i), "privacy policy", "legal"))
	}
	if _, err := c.Train(); err != nil {
		b.Fatal(err)
	}
	f := ClassifierFeatures("http://dealer.example.com/used-cars/search", "Advanced used car search", "search by make and model")
	b.ReportAllocs()
	for b.Loop() {
		_, p := c.Classify(f)
		sink += p
	}
}
