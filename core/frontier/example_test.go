package frontier_test

import (
	"fmt"
	"strings"

	"github.com/dwcrawl/dwcrawl/core/frontier"
)

// Ten sibling directories with one link each and a budget of five visits:
// γ = 5/10, each directory has C = 0.5 and is merged with a sibling, and the
// five visits go to the best link of each pair.
func ExampleLinkTree() {
	t := frontier.NewLinkTree()
	for i := 0; i < 10; i++ {
		t.Add(frontier.Item{URL: fmt.Sprintf("http://s.example/d%d/p", i), Score: float64(10 - i)})
	}
	t.SetBudget(5)
	for _, b := range t.Plan() {
		fmt.Printf("C=%.0f %d links\n", b.Quota, len(b.URLs))
	}
	for i := 0; i < 5; i++ {
		it, _ := t.Next()
		fmt.Print(strings.TrimPrefix(it.URL, "http://s.example"), " ")
	}
	fmt.Println()
	// Output:
	// C=1 2 links
	// C=1 2 links
	// C=1 2 links
	// C=1 2 links
	// C=1 2 links
	// /d0/p /d2/p /d4/p /d6/p /d8/p
}

// Algorithm 2: high-priority sites first; when none is left, the low queue
// becomes the high queue.
func ExampleSiteFrontier() {
	f := frontier.NewSiteFrontier(nil) // nil: memory only; pass a *store.DB to persist
	f.Push(frontier.Item{URL: "http://a.example", Score: 0.9}, false)
	f.Push(frontier.Item{URL: "http://b.example", Score: 0.2}, true) // found on a page with forms
	f.Push(frontier.Item{URL: "http://c.example", Score: 0.5}, false)
	for {
		it, ok, _ := f.Pop()
		if !ok {
			break
		}
		fmt.Println(it.URL)
	}
	// Output:
	// http://b.example
	// http://a.example
	// http://c.example
}
