package surface

import (
	"fmt"
	"os"
	"testing"

	"github.com/dwcrawl/dwcrawl/core/hiddendb"
)

func TestDevRank(t *testing.T) {
	if os.Getenv("DEVRANKT") == "" {
		t.Skip()
	}
	recs, idf, _ := LoadCorpus("/work/shared/data/dblp/dblp_3881.csv", "")
	var fl []string
	for k := range recs[0].Fields {
		if k != idf {
			fl = append(fl, k)
		}
	}
	db := hiddendb.New(recs, hiddendb.Options{IndexFields: fl})
	a, b := db.Match("dx"), db.Match("doi")
	pa := map[int]float64{}
	for i, x := range a {
		pa[x] = (float64(i) + 0.5) / float64(len(a))
	}
	n := 0
	for i, x := range b {
		if u, ok := pa[x]; ok && n < 20 {
			fmt.Printf("%d: dx %.3f doi %.3f\n", x, u, (float64(i)+0.5)/float64(len(b)))
			n++
		}
	}
	fmt.Println(len(a), len(b))
}
