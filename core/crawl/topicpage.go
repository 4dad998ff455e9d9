package crawl

import (
	"bytes"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/dwcrawl/dwcrawl/core/canon"
	"github.com/dwcrawl/dwcrawl/core/page"
	"github.com/dwcrawl/dwcrawl/core/text"
)

// directoryHosts is the number of other hosts a page links to from which
// it is a directory of sites rather than a site of the topic.
const directoryHosts = 5

// topicText is what a page fetched to train a custom topic teaches of it.
// A site's own page teaches its title and text. A directory — a page that
// links to many other sites, a seed users often give ("sites about …",
// a portal) — describes every topic its entries are about: it teaches only
// the entries that speak most of this one, those whose text holds at least
// half as many of the topic's words as the entry that holds most (and
// none when no entry holds one), without the words a quarter of the
// entries share (the directory's own phrasing). It returns terms
// (text.Terms), which is what training reads.
func topicText(body []byte, p *page.Page, keywords []string) string {
	if !isDirectory(p) {
		return p.Title + " " + p.Text
	}
	words := map[string]bool{}
	for _, k := range keywords {
		for _, t := range text.Terms(k) {
			words[t] = true
		}
	}
	blocks := textBlocks(body)
	counts := make([]int, len(blocks))
	best := 0
	for i, b := range blocks {
		seen := map[string]bool{}
		for _, t := range text.Terms(b) {
			if words[t] && !seen[t] {
				seen[t] = true
				counts[i]++
			}
		}
		best = max(best, counts[i])
	}
	if best == 0 {
		return ""
	}
	// the words many entries share say how the directory describes a
	// site ("a static page per record", "indexed by"), not its topic
	df := map[string]int{}
	for _, b := range blocks {
		seen := map[string]bool{}
		for _, t := range text.Terms(b) {
			if !seen[t] {
				seen[t] = true
				df[t]++
			}
		}
	}
	common := max(2, len(blocks)/4)
	var kept []string
	for i, b := range blocks {
		if 2*counts[i] < best {
			continue
		}
		for _, t := range text.Terms(b) {
			if df[t] <= common || words[t] {
				kept = append(kept, t)
			}
		}
	}
	return strings.Join(kept, " ")
}

// isDirectory reports whether p links to at least directoryHosts hosts
// other than its own.
func isDirectory(p *page.Page) bool {
	own := canon.Host(p.URL)
	hosts := map[string]bool{}
	for _, l := range p.Links {
		if h := canon.Host(l.URL); h != "" && h != own {
			hosts[h] = true
		}
	}
	return len(hosts) >= directoryHosts
}

// blockTags are the elements whose text is one entry of a page.
var blockTags = map[atom.Atom]bool{
	atom.Li: true, atom.P: true, atom.Dt: true, atom.Dd: true, atom.Tr: true, atom.Td: true,
	atom.H1: true, atom.H2: true, atom.H3: true, atom.H4: true, atom.H5: true, atom.H6: true,
	atom.Blockquote: true, atom.Article: true, atom.Section: true, atom.Div: true,
}

// textBlocks returns the visible text of the innermost blocks of an HTML
// document: the entries of its lists, tables and paragraphs.
func textBlocks(body []byte) []string {
	doc, err := html.Parse(bytes.NewReader(body))
	if err != nil {
		return nil
	}
	var out []string
	var walk func(n *html.Node) bool // reports whether n holds a block
	walk = func(n *html.Node) bool {
		if n.Type == html.ElementNode && (n.DataAtom == atom.Script || n.DataAtom == atom.Style || n.DataAtom == atom.Noscript) {
			return false
		}
		inner := false
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			inner = walk(c) || inner
		}
		if n.Type != html.ElementNode || !blockTags[n.DataAtom] {
			return inner
		}
		if !inner {
			if t := strings.Join(strings.Fields(nodeText(n)), " "); t != "" {
				out = append(out, t)
			}
		}
		return true
	}
	walk(doc)
	return out
}

func nodeText(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		switch {
		case n.Type == html.TextNode:
			b.WriteString(n.Data)
			b.WriteByte(' ')
		case n.Type == html.ElementNode && (n.DataAtom == atom.Script || n.DataAtom == atom.Style):
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}
