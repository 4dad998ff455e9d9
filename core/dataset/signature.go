package dataset

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strings"
	"unicode"

	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"

	"github.com/dwcrawl/dwcrawl/core/keyword"
)

// MinTitleWords is the number of words a title needs to identify a record
// on its own: a one-word title ("Home", "1776") names too many things, so
// such records are identified by their text.
const MinTitleWords = 2

// Normalize folds s for comparison: compatibility decomposition with the
// accents dropped ("Café" → "cafe"), lower case, every run of characters
// that are neither letters nor digits (spaces, punctuation, symbols) turned
// into one space, trimmed.
func Normalize(s string) string {
	if s == "" {
		return ""
	}
	t := transform.Chain(norm.NFKD, runes.Remove(runes.In(unicode.Mn)), norm.NFC)
	folded, _, err := transform.String(t, s)
	if err != nil {
		folded = s
	}
	words := strings.FieldsFunc(strings.ToLower(folded), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	return strings.Join(words, " ")
}

// Basis is what a record's signature is computed from: its normalised
// title (the field named "title", in any case) when that has at least
// MinTitleWords words, else its normalised text, else its normalised field
// values in field-name order; "" when the record has none of them.
func Basis(d keyword.Doc) string {
	keys := make([]string, 0, len(d.Fields))
	for k := range d.Fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if strings.EqualFold(k, "title") {
			if t := Normalize(d.Fields[k]); len(strings.Fields(t)) >= MinTitleWords {
				return t
			}
		}
	}
	if t := Normalize(d.Text); t != "" {
		return t
	}
	vals := make([]string, 0, len(keys))
	for _, k := range keys {
		if v := Normalize(d.Fields[k]); v != "" {
			vals = append(vals, v)
		}
	}
	return strings.Join(vals, " ")
}

// Signature identifies a record across databases: 16 hex digits of SHA-256
// over its Basis, so two records whose titles (or texts) differ only in
// case, accents, spacing or punctuation have the same signature. It is ""
// for a record with no title, text or field, which is never linked.
func Signature(d keyword.Doc) string {
	b := Basis(d)
	if b == "" {
		return ""
	}
	h := sha256.Sum256([]byte(b))
	return hex.EncodeToString(h[:8])
}
