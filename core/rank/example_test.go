package rank_test

import (
	"fmt"
	"os"
	"time"

	"github.com/dwcrawl/dwcrawl/core/rank"
)

// The learner rebuilds FSS from deep sites; the site ranker scores a
// candidate site found through a link, with its site frequency.
func Example() {
	noTime := func() time.Time { return time.Time{} }
	l := rank.NewLearner(rank.LearnerOptions{K: 5, SiteEvery: 2, Now: noTime})
	l.AddSite(rank.SiteFeatures("http://www.autotrader.example/", "used cars", "search used cars for sale"))
	it := l.AddSite(rank.SiteFeatures("http://cars.example/used", "used car search", "find cars near you"))
	rank.WriteTable(os.Stdout, *it)

	r := rank.NewSiteRanker(0.5, l.FSS())
	f := rank.SiteFeatures("http://www.carfinder.example/", "Cheap used cars", "compare used cars")
	fmt.Printf("rank %.3f\n", r.Score(f, 2))
	// Output:
	// FSS round 1: 2 deep sites
	//    #  URL           Anchor      Text
	//    1  autotrad (1)  car (2)     car (2)
	//    2  car (1)       use (2)     find (1)
	//    3  use (1)       search (1)  near (1)
	//    4                            sale (1)
	//    5                            search (1)
	// rank 1.317
}
