package dataset

import (
	"context"
	"io"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/dwcrawl/dwcrawl/core/keyword"
	"github.com/dwcrawl/dwcrawl/core/surface"
	"github.com/dwcrawl/dwcrawl/store"
	"github.com/dwcrawl/dwcrawl/testbed/hiddendb"
)

// BenchmarkExport measures Load and Write of a crawl directory of 4
// databases of 25,000 synthetic records each, every other record shared
// with the next database (go test -run X -bench Export -benchtime 3x
// ./core/dataset/).
func BenchmarkExport(b *testing.B) {
	const perSource, sources = 25_000, 4
	recs := hiddendb.Synthetic(1, perSource*sources)
	db, err := store.Open(filepath.Join(b.TempDir(), "crawl"), store.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	for s := range sources {
		j := &surface.StoreJournal{DB: db, Source: "form:" + strconv.Itoa(s)}
		var e surface.Entry
		for i := range perSource {
			r := recs[s*perSource+i]
			if i%2 == 1 && s > 0 {
				r = recs[(s-1)*perSource+i] // a record of the previous database
			}
			d := keyword.Doc{URL: "http://db" + strconv.Itoa(s) + ".example/r/" + r.ID, Text: r.Fields["title"] + " " + r.Fields["author"], Fields: r.Fields}
			e.Results, e.Fresh, e.Docs = append(e.Results, d.Key()), append(e.Fresh, d.Key()), append(e.Docs, d)
			if len(e.Docs) == 100 || i == perSource-1 {
				e.Log = surface.QueryLog{N: i/100 + 1, Query: "q" + strconv.Itoa(i/100), Time: 1_700_000_000_000 + int64(i)}
				if err := j.Append(context.Background(), e); err != nil {
					b.Fatal(err)
				}
				e = surface.Entry{}
			}
		}
	}
	for _, f := range Formats {
		b.Run(string(f), func(b *testing.B) {
			for b.Loop() {
				d, err := Load(db, "")
				if err != nil {
					b.Fatal(err)
				}
				n, err := d.Write(io.Discard, f)
				if err != nil || n != perSource*sources {
					b.Fatalf("%d records, %v", n, err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(perSource*sources)/1e3, "µs/record")
		})
	}
}
