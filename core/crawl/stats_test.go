package crawl

import (
	"strings"
	"testing"
)

func TestSummaryProbingLine(t *testing.T) {
	for _, tc := range []struct {
		name string
		sn   Snapshot
		want string
	}{
		{"off", Snapshot{ProbingOff: true}, "probing              off"},
		{"on, nothing probed", Snapshot{}, "probing              0 forms, 0 probe queries"},
		{"on", Snapshot{ProbedForms: 3, ProbeQueries: 12}, "probing              3 forms, 12 probe queries"},
		// a directory probed by an earlier run keeps showing its probes
		{"off after probing", Snapshot{ProbingOff: true, ProbedForms: 1, ProbeQueries: 4}, "probing              1 forms, 4 probe queries"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if s := tc.sn.Summary(); !strings.Contains(s, tc.want+"\n") && !strings.Contains(s, tc.want+" ") {
				t.Fatalf("summary lacks %q:\n%s", tc.want, s)
			}
		})
	}
}
