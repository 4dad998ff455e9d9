package domain

import (
	"regexp"
	"testing"
)

func TestBuiltIn(t *testing.T) {
	name := regexp.MustCompile(`^[a-z]+$`)
	seen := map[string]bool{}
	for _, d := range BuiltIn {
		if !name.MatchString(d) || seen[d] {
			t.Errorf("domain %q: want distinct lower-case names", d)
		}
		seen[d] = true
		if !IsBuiltIn(d) {
			t.Errorf("IsBuiltIn(%q) = false", d)
		}
	}
	if len(BuiltIn) != 12 {
		t.Errorf("%d built-in domains, want the twelve of the evaluations", len(BuiltIn))
	}
	for _, d := range []string{"", "other", "Auto", "boats"} {
		if IsBuiltIn(d) {
			t.Errorf("IsBuiltIn(%q) = true", d)
		}
	}
}
