package dataset

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"

	"github.com/dwcrawl/dwcrawl/core/keyword"
)

// MinTitleWords is the number of words a title needs to identify a record:
// a one-word title ("Home", "1776") names too many things.
const MinTitleWords = 2

// MinTextWords is the number of words a text needs to identify a record.
const MinTextWords = 3

// MaxRepeatedTitles is the share of a database's titled records whose title
// another of its records also has, above which titles are not a key of that
// database (car listings titled by make and model) and its records are
// linked by their texts only.
const MaxRepeatedTitles = 0.1

// Normalize folds s for comparison: compatibility decomposition with the
// accents dropped ("Café" → "cafe"), lower case, every run of characters
// that are neither letters nor digits (spaces, punctuation, symbols) turned
// into one space, trimmed.
func Normalize(s string) string {
	if s == "" {
		return ""
	}
	folded := s
	if !isASCII(s) {
		t := transform.Chain(norm.NFKD, runes.Remove(runes.In(unicode.Mn)), norm.NFC)
		if f, _, err := transform.String(t, s); err == nil {
			folded = f
		}
	}
	words := strings.FieldsFunc(strings.ToLower(folded), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	return strings.Join(words, " ")
}

// TitleSignature is the signature of d's title (its field named "title",
// in any case), "" when it has fewer than MinTitleWords words.
func TitleSignature(d keyword.Doc) string {
	keys := sortedKeys(d.Fields)
	for _, k := range keys {
		if strings.EqualFold(k, "title") {
			if t := Normalize(d.Fields[k]); len(strings.Fields(t)) >= MinTitleWords {
				return hash(t)
			}
		}
	}
	return ""
}

// TextSignature is the signature of d's text (else of its field values in
// field-name order), "" when that has fewer than MinTextWords words.
func TextSignature(d keyword.Doc) string {
	t := Normalize(d.Text)
	if t == "" {
		var vals []string
		for _, k := range sortedKeys(d.Fields) {
			if v := Normalize(d.Fields[k]); v != "" {
				vals = append(vals, v)
			}
		}
		t = strings.Join(vals, " ")
	}
	if len(strings.Fields(t)) < MinTextWords {
		return ""
	}
	return hash(t)
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// hash is 16 hex digits of SHA-256 over a normalised basis.
func hash(basis string) string {
	h := sha256.Sum256([]byte(basis))
	return hex.EncodeToString(h[:8])
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
