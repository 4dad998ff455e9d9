package records

import (
	"crypto/sha1"
	"encoding/hex"
	"sort"
)

// Signature identifies a set of records by their URLs (else their texts),
// whatever their order: two answers listing the same records have the same
// signature ("" for none).
func Signature(recs []Record) string {
	if len(recs) == 0 {
		return ""
	}
	keys := make([]string, len(recs))
	for i, r := range recs {
		keys[i] = r.URL
		if keys[i] == "" {
			keys[i] = r.Text
		}
	}
	sort.Strings(keys)
	h := sha1.New()
	for _, k := range keys {
		h.Write([]byte(k))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}
