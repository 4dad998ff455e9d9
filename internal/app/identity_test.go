package app

import "testing"

// TestSameWeb: a simulated web is the same only with the same seed,
// configuration and data; identities recorded before the data was part of
// them match any data.
func TestSameWeb(t *testing.T) {
	for _, tc := range []struct {
		have, want string
		same, data bool
	}{
		{"simweb seed 1 config aa, built-in data", "simweb seed 1 config aa, built-in data", true, false},
		{"simweb seed 1 config aa, built-in data", "simweb seed 1 config aa, data 0123", false, true},
		{"simweb seed 1 config aa, data 0123", "simweb seed 1 config aa, data 4567", false, true},
		{"simweb seed 1 config aa", "simweb seed 1 config aa, data 0123", true, false},
		{"simweb seed 1 config aa", "simweb seed 1 config aa, built-in data", true, false},
		{"simweb seed 1 config aa", "simweb seed 1 config aab, built-in data", false, false},
		{"simweb seed 1 config aa", "simweb seed 12 config aa, built-in data", false, false},
		{"simweb seed 1 config aa, data 0123", "simweb seed 1 config aa", false, false},
		{"simweb seed 1 config aa, data 0123", "simweb seed 2 config aa, data 0123", false, false},
		{"real web", "simweb seed 1 config aa, built-in data", false, false},
		{"real web", "real web", true, false},
	} {
		if got := sameWeb(tc.have, tc.want); got != tc.same {
			t.Errorf("sameWeb(%q, %q) = %v, want %v", tc.have, tc.want, got, tc.same)
		}
		if got := dataOnly(tc.have, tc.want); got != tc.data {
			t.Errorf("dataOnly(%q, %q) = %v, want %v", tc.have, tc.want, got, tc.data)
		}
	}
}
