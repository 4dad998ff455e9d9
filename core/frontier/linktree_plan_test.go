package frontier

import (
	"math"
	"slices"
	"testing"
)

// TestLinkTreeMerge checks the groups the balanced merge rule makes on small
// hand-built trees: with γ = V/N < 1 a node with M leaves gets C = M·γ
// visits, siblings with C < 1 are merged (most relevant first) until their
// C reaches 1, a remainder joins the last merged group, and each group lists
// its links most relevant first. Each case is planned from the links in the
// given order and in the reverse order: the plan depends on scores, not on
// arrival.
func TestLinkTreeMerge(t *testing.T) {
	type group struct {
		quota float64
		paths []string
	}
	tests := []struct {
		name   string
		links  []link
		budget int
		want   []group // in the order of their most relevant link
	}{
		{
			name: "γ ≥ 1: nothing merged",
			// V=5 ≥ N=2: γ = 1, each directory keeps C = 1.
			links:  []link{{"/a/1", .5}, {"/b/1", .9}},
			budget: 5,
			want:   []group{{1, []string{"/b/1"}}, {1, []string{"/a/1"}}},
		},
		{
			name: "γ = 1/2: siblings paired by relevance, not by name",
			// N=4, V=2: each C = .5; in relevance order c, a, b, d.
			links:  []link{{"/d/1", .2}, {"/c/1", .9}, {"/b/1", .5}, {"/a/1", .7}},
			budget: 2,
			want:   []group{{1, []string{"/c/1", "/a/1"}}, {1, []string{"/b/1", "/d/1"}}},
		},
		{
			name:   "γ = 1/4: four siblings make one group",
			links:  []link{{"/a/1", .1}, {"/b/1", .4}, {"/c/1", .3}, {"/d/1", .2}},
			budget: 1,
			want:   []group{{1, []string{"/b/1", "/c/1", "/d/1", "/a/1"}}},
		},
		{
			name: "a remainder below 1 joins the last merged group",
			// N=6, V=3, γ=.5: a, b, c have C=.5, big has M=3, C=1.5. {a,b}
			// reach 1; c is left over with .5 and joins them: C=1.5.
			links: []link{
				{"/a/1", .9}, {"/b/1", .8}, {"/c/1", .7},
				{"/big/1", .6}, {"/big/2", .5}, {"/big/3", .4},
			},
			budget: 3,
			want: []group{
				{1.5, []string{"/a/1", "/b/1", "/c/1"}},
				{1.5, []string{"/big/1", "/big/2", "/big/3"}},
			},
		},
		{
			name: "a lone small sibling keeps C < 1",
			// N=4, V=2, γ=.5: big has C=1.5, small C=.5 with nothing to merge with.
			links:  []link{{"/big/1", .9}, {"/big/2", .8}, {"/big/3", .7}, {"/small/1", .95}},
			budget: 2,
			want:   []group{{.5, []string{"/small/1"}}, {1.5, []string{"/big/1", "/big/2", "/big/3"}}},
		},
		{
			name: "children of a big directory merge among themselves",
			// N=6, V=3, γ=.5: x (M=4, C=2) divides its visits among a, c, d,
			// b (C=.5 each, paired in relevance order); y (M=2, C=1) is a
			// group of its own and never merges with x's children.
			links: []link{
				{"/x/a/1", .9}, {"/x/b/1", .3}, {"/x/c/1", .6}, {"/x/d/1", .5},
				{"/y/1", .8}, {"/y/2", .7},
			},
			budget: 3,
			want: []group{
				{1, []string{"/x/a/1", "/x/c/1"}},
				{1, []string{"/y/1", "/y/2"}},
				{1, []string{"/x/d/1", "/x/b/1"}},
			},
		},
		{
			name: "a directory's own links are one unit beside its subdirectories",
			// N=4, V=2, γ=.5: the root's own links "/" and "/about" (M=2,
			// C=1) form a group; /p and /q (C=.5 each) merge.
			links:  []link{{"/", .4}, {"/about", .1}, {"/p/1", .6}, {"/q/1", .3}},
			budget: 2,
			want:   []group{{1, []string{"/p/1", "/q/1"}}, {1, []string{"/", "/about"}}},
		},
		{
			name: "query-string variants are one leaf, outside the groups",
			// leaves /s, /a/1, /b/1: N=3, V=1, γ=1/3, all merged into one
			// group of C=1; /s?q=2 waits until every leaf is visited.
			links:  []link{{"/s?q=1", .9}, {"/s?q=2", .8}, {"/a/1", .5}, {"/b/1", .4}},
			budget: 1,
			want:   []group{{1, []string{"/s?q=1", "/a/1", "/b/1"}}},
		},
	}
	for _, tc := range tests {
		for _, reversed := range []bool{false, true} {
			links := slices.Clone(tc.links)
			name := tc.name
			if reversed {
				slices.Reverse(links)
				name += ", reversed"
			}
			t.Run(name, func(t *testing.T) {
				var got []group
				for _, b := range newTree(links, tc.budget).Plan() {
					got = append(got, group{b.Quota, paths(b.URLs)})
				}
				ok := len(got) == len(tc.want)
				for i := 0; ok && i < len(got); i++ {
					ok = math.Abs(got[i].quota-tc.want[i].quota) < 1e-9 && slices.Equal(got[i].paths, tc.want[i].paths)
				}
				if !ok {
					t.Errorf("groups %v\nwant   %v", got, tc.want)
				}
			})
		}
	}
}
