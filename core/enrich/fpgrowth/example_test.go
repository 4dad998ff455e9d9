package fpgrowth_test

import (
	"fmt"

	"github.com/dwcrawl/dwcrawl/core/enrich/fpgrowth"
)

// The closed frequent itemsets of the FP-growth paper's example (items a..p
// as 0..15, minimum support 3).
func ExampleMine() {
	var tx [][]int32
	for _, s := range []string{"facdgimp", "abcflmo", "bfhjo", "bcksp", "afcelpmn"} {
		var t []int32
		for _, r := range s {
			t = append(t, int32(r-'a'))
		}
		tx = append(tx, t)
	}
	sets, _ := fpgrowth.Mine(tx, fpgrowth.Options{MinSupport: 3, Closed: true})
	for _, s := range sets {
		name := ""
		for _, it := range s.Items {
			name += string(rune('a' + it))
		}
		fmt.Println(name, s.Support)
	}
	// Output:
	// c 4
	// f 4
	// acfm 3
	// b 3
	// cp 3
}
