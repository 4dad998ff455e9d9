package probe

import (
	"fmt"
	"math"
	"strings"

	"github.com/dwcrawl/dwcrawl/store"
)

// decide reads the answers: the nonsense term is the baseline (what the
// form shows for a query that matches nothing); a topic term "responds"
// when its answer lists records the baseline does not. A form none of whose
// answers depends on the query is not a database; one that responds to
// most topic terms with records about the topic is a database of the
// topic; any other search is a generic site search.
func decide(qs []store.ProbeQuery, judged bool, minOnTopic float64) (string, []string) {
	var nonsense *store.ProbeQuery
	var topics []*store.ProbeQuery
	for i := range qs {
		if qs[i].Kind == "nonsense" {
			nonsense = &qs[i]
		} else {
			topics = append(topics, &qs[i])
		}
	}
	var ev []string
	for _, q := range qs {
		ev = append(ev, describe(q))
	}
	answered, logins := 0, 0
	for _, q := range qs {
		if q.Error == "" {
			answered++
			if q.Login {
				logins++
			}
		}
	}
	if answered == 0 {
		return store.ProbeNotDatabase, append(ev, "no probe query was answered")
	}
	if logins == answered {
		return store.ProbeNotDatabase, append(ev, "every answer is a login page")
	}
	var responding []*store.ProbeQuery
	for _, q := range topics {
		if responds(q, nonsense) {
			responding = append(responding, q)
		}
	}
	if len(responding) == 0 {
		sameRecords := nonsense != nil && nonsense.Records > 0
		said := ""
		for _, q := range qs {
			if q.Error == "" && q.NoResults != "" && said == "" {
				said = q.NoResults
			}
		}
		for _, q := range topics {
			if !sameRecords || q.Error != "" || q.Signature != nonsense.Signature {
				sameRecords = false
			}
		}
		switch {
		case sameRecords:
			return store.ProbeNotDatabase, append(ev, "every query lists the same records: the answer ignores the query")
		case said != "":
			return store.ProbeSiteSearch, append(ev, fmt.Sprintf("a search that finds none of the topic's terms (it says %q)", said))
		case alike(qs):
			return store.ProbeNotDatabase, append(ev, "the answer does not change with the query and lists no records")
		default:
			return store.ProbeNotDatabase, append(ev, "no query lists records")
		}
	}
	if len(responding) >= 2 && sameSignature(responding) {
		// different words, the very same records: the page lists them
		// whatever is asked (its template was not recognised without the
		// query's words on it)
		return store.ProbeNotDatabase, append(ev, fmt.Sprintf("%d different queries list the very same records: the answer ignores the query", len(responding)))
	}
	frac := float64(len(responding)) / float64(len(topics))
	ev = append(ev, fmt.Sprintf("%d of %d topic terms list records the nonsense term does not", len(responding), len(topics)))
	if !judged {
		if frac >= 0.5 {
			return store.ProbeTopicDatabase, append(ev, "no topic classifier: the topic's terms find records")
		}
		return store.ProbeSiteSearch, ev
	}
	on := 0.0
	for _, q := range responding {
		on += q.OnTopic
	}
	on /= float64(len(responding))
	// The records are judged without the words of the query that listed
	// them, so what decides is the rest of what they say; then one term of
	// a narrow database (a repository of cars asked for airports) is
	// enough.
	switch {
	case on >= minOnTopic:
		return store.ProbeTopicDatabase, append(ev, fmt.Sprintf("the records they list are about the topic beyond the words asked (p=%.2f ≥ %.2f)", on, minOnTopic))
	default:
		return store.ProbeSiteSearch, append(ev, fmt.Sprintf("but the records they list are not about the topic beyond the words asked (p=%.2f < %.2f)", on, minOnTopic))
	}
}

// sameSignature reports whether the queries list the same records.
func sameSignature(qs []*store.ProbeQuery) bool {
	for _, q := range qs[1:] {
		if q.Signature != qs[0].Signature {
			return false
		}
	}
	return true
}

// responds reports whether a topic query's answer lists records the
// nonsense query's does not (or states a count where that states none).
func responds(q, nonsense *store.ProbeQuery) bool {
	if q.Error != "" || q.Login {
		return false
	}
	if nonsense == nil || nonsense.Error != "" {
		return q.Records > 0
	}
	if q.Records > 0 && q.Signature != nonsense.Signature {
		return true
	}
	return q.Total > 0 && nonsense.Total <= 0 && nonsense.Records == 0
}

// alike reports whether the answered queries returned pages of about the
// same size (within 2 % and 200 bytes): a page that ignores its query.
func alike(qs []store.ProbeQuery) bool {
	lo, hi := math.MaxInt, 0
	for _, q := range qs {
		if q.Error != "" {
			continue
		}
		lo, hi = min(lo, q.Size), max(hi, q.Size)
	}
	return hi-lo <= max(200, hi/50)
}

func describe(q store.ProbeQuery) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %q: ", q.Kind, q.Query)
	if q.Error != "" {
		fmt.Fprintf(&b, "no answer (%s)", q.Error)
		return b.String()
	}
	if q.Status >= 400 {
		fmt.Fprintf(&b, "HTTP %d, ", q.Status)
	}
	if q.Login {
		b.WriteString("a login page, ")
	}
	fmt.Fprintf(&b, "%d records", q.Records)
	if q.Total >= 0 {
		fmt.Fprintf(&b, ", total %d", q.Total)
	}
	if q.NoResults != "" {
		fmt.Fprintf(&b, ", says %q", q.NoResults)
	}
	if q.Records > 0 && q.OnTopic > 0 {
		fmt.Fprintf(&b, ", on topic p=%.2f", q.OnTopic)
	}
	return b.String()
}
