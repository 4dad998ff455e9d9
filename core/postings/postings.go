// Package postings operates on posting lists: ascending, duplicate-free
// slices of int32 document ids, as the simulated search engine and the
// enrichment index keep them.
package postings

// Intersect appends to dst[:0] the ids of a that are also in b (both
// ascending) and returns it; dst may be nil, and may alias a but not b.
func Intersect(dst, a, b []int32) []int32 {
	dst = dst[:0]
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			dst = append(dst, a[i])
			i++
			j++
		}
	}
	return dst
}
