package rank

import (
	"strings"

	"github.com/dwcrawl/dwcrawl/core/text"
)

// Features are the terms (text.Terms form: stemmed, stop words removed) of
// one site or link in the three contexts the rankers compare.
type Features struct {
	// URL holds the URL terms: host and path for a site (U), the path for
	// an in-site link (P), the whole URL for ACHE's link classifier.
	URL []string
	// Anchor holds the anchor text terms of the link (A).
	Anchor []string
	// Text holds the terms of the text around the link (T).
	Text []string
}

// SiteFeatures returns the FSS features of a link to a site: the terms of
// the link's URL (host and path, without scheme, www and top-level domain),
// its anchor and its surrounding text.
func SiteFeatures(linkURL, anchor, around string) Features {
	return Features{URL: text.URLTerms(linkURL), Anchor: text.Terms(anchor), Text: text.Terms(around)}
}

// LinkFeatures returns the FSL features of an in-site link: the terms of the
// URL's path, its anchor and its surrounding text.
func LinkFeatures(linkURL, anchor, around string) Features {
	return Features{URL: PathTerms(linkURL), Anchor: text.Terms(anchor), Text: text.Terms(around)}
}

// ClassifierFeatures returns the features ACHE's link classifier uses: the
// terms of the whole URL (host and path), the anchor and the around text.
func ClassifierFeatures(linkURL, anchor, around string) Features {
	return SiteFeatures(linkURL, anchor, around)
}

// PathTerms returns the terms of a URL's path (no host, query or fragment).
func PathTerms(rawURL string) []string {
	p := rawURL
	if i := strings.Index(p, "://"); i >= 0 {
		p = p[i+3:]
		j := strings.IndexByte(p, '/')
		if j < 0 {
			return nil
		}
		p = p[j:]
	}
	if i := strings.IndexAny(p, "?#"); i >= 0 {
		p = p[:i]
	}
	return text.Terms(p)
}

// Encode packs f into a compact string (terms separated by spaces, contexts
// by '|'), for a frontier item's Data, so that queued links can be
// re-scored after learning without refetching anything.
func (f Features) Encode() string {
	n := 2
	for _, part := range [3][]string{f.URL, f.Anchor, f.Text} {
		for _, t := range part {
			n += len(t) + 1
		}
	}
	var b strings.Builder
	b.Grow(n)
	for i, part := range [3][]string{f.URL, f.Anchor, f.Text} {
		if i > 0 {
			b.WriteByte('|')
		}
		for j, t := range part {
			if j > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(t)
		}
	}
	return b.String()
}

// DecodeFeatures unpacks a string written by Features.Encode. Malformed
// input gives whatever contexts it holds.
func DecodeFeatures(s string) Features {
	var parts [3][]string
	for i := range parts {
		var cur string
		cur, s, _ = strings.Cut(s, "|")
		parts[i] = strings.Fields(cur)
	}
	return Features{URL: parts[0], Anchor: parts[1], Text: parts[2]}
}
