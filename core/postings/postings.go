// Package postings operates on posting lists: ascending, duplicate-free
// slices of int32 document ids, as the simulated search engine and the
// enrichment index keep them.
package postings

// Count returns how many ids a and b (both ascending) share, without
// building the intersection.
func Count(a, b []int32) int {
	n := 0
	walk(a, b, func(int32) { n++ })
	return n
}

// Intersect appends to dst[:0] the ids of a that are also in b (both
// ascending) and returns it; dst may be nil, and may alias a but not b.
func Intersect(dst, a, b []int32) []int32 {
	dst = dst[:0]
	walk(a, b, func(id int32) { dst = append(dst, id) })
	return dst
}

// walk calls fn with each id of a that is also in b (both ascending), in
// order. Appending to a slice aliasing a is safe: the write never passes
// the read.
func walk(a, b []int32, fn func(int32)) {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			fn(a[i])
			i++
			j++
		}
	}
}
