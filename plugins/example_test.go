package plugins_test

import (
	"context"
	"fmt"

	"github.com/dwcrawl/dwcrawl/core/script"
	"github.com/dwcrawl/dwcrawl/plugins"
)

// A reverse search through a search plugin: pages that link to a site.
func ExampleSearchEngine() {
	ctx := context.Background()
	// In a crawl, Options.HTTP is the crawler's fetcher; the example plugin
	// answers from a fixed list and needs none.
	pool := script.NewPool(plugins.PoolOptions(script.Options{}))
	defer pool.Close()
	eng, err := plugins.OpenSearchEngine(ctx, pool, "search/example", plugins.SearchOptions{Budget: 100})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer eng.Close()
	page, err := eng.Links(ctx, "https://www.example-dealer.test/", 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range page.Results {
		fmt.Println(r.URL, "-", r.Title)
	}
	fmt.Println("queries:", eng.Stats().Queries)
	// Output:
	// https://www.example-cars.test/ - Example Cars
	// queries: 1
}
