package warc_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"time"

	"github.com/dwcrawl/dwcrawl/warc"
)

// A fetcher archives each exchange; a reader lists what was archived.
func Example() {
	dir, err := os.MkdirTemp("", "warc-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	w, err := warc.NewWriter(warc.Options{Dir: dir, Info: warc.Info{Software: "dwcrawl/1.0", Profile: "domains/auto.lua", Strategy: "smartcrawler"}})
	if err != nil {
		log.Fatal(err)
	}
	err = w.Record(context.Background(), warc.Exchange{
		URL:            "http://cars.example/search?make=ford",
		RequestHeader:  http.Header{"User-Agent": {"dwcrawl/1.0"}},
		Status:         200,
		ResponseHeader: http.Header{"Content-Type": {"text/html"}},
		ResponseBody:   []byte("<html><form action=/results></form></html>"),
		RemoteIP:       "127.0.0.1",
		Time:           time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC),
	})
	if err != nil {
		log.Fatal(err)
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}

	r, err := warc.Open(w.Files()[0], warc.ReaderOptions{})
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(rec.Type(), rec.TargetURI(), rec.Header.Get("WARC-IP-Address"), rec.Problems)
	}
	// Output:
	// warcinfo   []
	// request http://cars.example/search?make=ford 127.0.0.1 []
	// response http://cars.example/search?make=ford 127.0.0.1 []
}
