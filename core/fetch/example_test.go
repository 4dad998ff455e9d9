package fetch_test

import (
	"fmt"

	"github.com/dwcrawl/dwcrawl/core/fetch"
)

func ExampleParseRobots() {
	r := fetch.ParseRobots([]byte(`
User-agent: *
Disallow: /

User-agent: dwcrawl
Disallow: /search
Allow: /search/help$
Crawl-delay: 2
`))
	rules := r.For("dwcrawl")
	for _, p := range []string{"/cars", "/search?q=ford", "/search/help", "/search/help/more"} {
		fmt.Println(p, rules.Allowed(p))
	}
	fmt.Println("delay", rules.CrawlDelay)
	// Output:
	// /cars true
	// /search?q=ford false
	// /search/help true
	// /search/help/more false
	// delay 2s
}
