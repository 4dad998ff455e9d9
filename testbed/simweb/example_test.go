package simweb_test

import (
	"fmt"
	"io"

	"github.com/dwcrawl/dwcrawl/testbed/simweb"
)

// A small web, fetched in-process with a plain http.Client, and checked
// against the ground truth.
func Example() {
	w := simweb.MustNew(simweb.SmallConfig())
	c := w.Client()
	home := w.Seeds("auto", 1)[0]
	resp, err := c.Get(home)
	if err != nil {
		panic(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	fmt.Println(resp.StatusCode)
	for _, db := range w.Databases() {
		if db.Domain == "auto" {
			for _, f := range w.FormsAt(db.EntryPage) {
				if f.Searchable {
					fmt.Println(f.Kind, f.Domain, w.IsRelevantForm(f.Page, f.Index, "auto"))
				}
			}
			break
		}
	}
}
