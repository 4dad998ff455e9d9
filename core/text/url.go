package text

import (
	"net"
	"net/url"
	"strings"
	"unicode/utf8"
)

// secondLevel lists the generic second-level labels that sit under a
// country-code TLD ("co.uk", "com.au", "ac.jp"); like the TLD they say
// nothing about a site's topic.
var secondLevel = map[string]bool{
	"ac": true, "biz": true, "co": true, "com": true, "edu": true, "gen": true, "go": true,
	"gob": true, "gov": true, "info": true, "ltd": true, "mil": true, "ne": true, "net": true,
	"nic": true, "nom": true, "or": true, "org": true, "plc": true, "sch": true,
}

// URLTerms returns the terms of a URL's host and path, the "U" feature of
// SmartCrawler's site and link rankers: the scheme, a leading "www", the
// top-level domain (with a generic second level such as "co.uk"), the port,
// the query and the fragment are dropped; the rest is tokenized (splitting on
// punctuation, camelCase and letter/digit changes), stop words and
// one-character tokens are removed, and the tokens are stemmed. A raw URL
// without a scheme is read as starting with a host name.
func URLTerms(rawURL string) []string {
	s := strings.TrimSpace(rawURL)
	if !strings.Contains(s, "://") {
		s = "http://" + strings.TrimLeft(s, "/")
	}
	u, err := url.Parse(s)
	if err != nil {
		return Terms(rawURL)
	}
	host := hostWords(u.Hostname())
	if host == "" {
		return Terms(u.Path)
	}
	return Terms(host + " " + u.Path)
}

// hostWords returns the host labels that carry meaning, joined by spaces.
func hostWords(h string) string {
	h = strings.Trim(strings.ToLower(h), ".")
	if h == "" || net.ParseIP(h) != nil {
		return ""
	}
	labels := strings.Split(h, ".")
	if n := len(labels); n >= 2 {
		drop := 1
		if n >= 3 && utf8.RuneCountInString(labels[n-1]) == 2 && secondLevel[labels[n-2]] {
			drop = 2
		}
		labels = labels[:n-drop]
	}
	if len(labels) > 1 && isWWW(labels[0]) {
		labels = labels[1:]
	}
	return strings.Join(labels, " ")
}

// isWWW matches "www", "www2", "www3", …
func isWWW(l string) bool {
	if !strings.HasPrefix(l, "www") {
		return false
	}
	for i := 3; i < len(l); i++ {
		if l[i] < '0' || l[i] > '9' {
			return false
		}
	}
	return true
}

// minCompoundPart is the shortest vocabulary term SplitCompound will cut out
// of a token; shorter terms ("tv", "a") would shred ordinary words.
const minCompoundPart = 3

// SplitCompound splits a URL token such as a host label ("abebooks") into
// parts using vocab, a set of frequent terms: scanning left to right it cuts
// out the longest vocabulary term (of at least three characters) that starts
// at each position; the stretches between matches are kept when they are at
// least two characters long. With vocab {book}, "abebooks" gives
// ["abe", "book"] (the trailing "s" is dropped). A token with no vocabulary
// term inside, or that is itself a term, is returned alone.
func SplitCompound(tok string, vocab map[string]bool) []string {
	if vocab[tok] || len(tok) < minCompoundPart {
		return []string{tok}
	}
	var out []string
	rest := 0 // start of the pending leftover
	matched := false
	for i := 0; i < len(tok); {
		j := longestTerm(tok, i, vocab)
		if j < 0 {
			_, size := utf8.DecodeRuneInString(tok[i:])
			i += size
			continue
		}
		matched = true
		out = appendLeftover(out, tok[rest:i])
		out = append(out, tok[i:j])
		i, rest = j, j
	}
	if !matched {
		return []string{tok}
	}
	return appendLeftover(out, tok[rest:])
}

// longestTerm returns the end of the longest vocabulary term starting at i,
// or -1.
func longestTerm(tok string, i int, vocab map[string]bool) int {
	for j := len(tok); j > i; j-- {
		if j < len(tok) && !utf8.RuneStart(tok[j]) {
			continue
		}
		if utf8.RuneCountInString(tok[i:j]) < minCompoundPart {
			return -1
		}
		if vocab[tok[i:j]] {
			return j
		}
	}
	return -1
}

func appendLeftover(out []string, s string) []string {
	if utf8.RuneCountInString(s) >= 2 {
		out = append(out, s)
	}
	return out
}
