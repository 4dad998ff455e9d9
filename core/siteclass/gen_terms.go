//go:build ignore

// gen_terms writes background.terms: the siteclass.Terms of every bundled
// background document, so that training a site classifier does not stem
// them at every start-up. Run by `go generate ./core/siteclass/`.
package main

import (
	"crypto/sha256"
	"fmt"
	"log"
	"os"
	"strings"

	"github.com/dwcrawl/dwcrawl/core/siteclass"
)

func main() {
	txt, err := os.ReadFile("background.txt")
	if err != nil {
		log.Fatal(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# siteclass.Terms of background.txt sha256 %x\n", sha256.Sum256(txt))
	for _, d := range siteclass.BundledBackground() {
		b.WriteString(strings.Join(siteclass.Terms(d.Text), " ") + "\n")
	}
	if err := os.WriteFile("background.terms", []byte(b.String()), 0o644); err != nil {
		log.Fatal(err)
	}
}
