package app

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/dwcrawl/dwcrawl/store"
)

// HarvestDatabases reads the databases of a harvest directory from its
// store, as Harvest lists them: the relevant or probed searchable forms in
// the order found, each with its probe's verdict, its recorded harvest
// state, and the queries, records and last coverage estimate of its
// journal. It reads what a running harvest has recorded, so a reader
// beside it (the server's status) sees the journal's counts; State is
// "surfacing" for a database whose surfacing was recorded as begun and
// has not ended (a stopped harvest resumes it), "queued" for a database
// of the topic not yet begun.
func HarvestDatabases(db *store.DB) ([]HarvestDatabase, error) {
	states := map[string]harvestState{}
	err := db.ScanJSON(store.TagHarvest, nil, func(_, v []byte) error {
		var st harvestState
		if err := json.Unmarshal(v, &st); err != nil {
			return fmt.Errorf("harvest: %s: a stored harvest state: %w", db.Dir(), err)
		}
		states[st.Form] = st
		return nil
	})
	if err != nil {
		return nil, err
	}
	var forms []store.Form
	err = db.ScanForms(func(f store.Form) error {
		if f.Probe != nil || f.Relevant && f.Searchable > 0 {
			forms = append(forms, f)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.SliceStable(forms, func(a, b int) bool { return forms[a].PagesFetched < forms[b].PagesFetched })
	out := make([]HarvestDatabase, 0, len(forms))
	var counts journalCounts
	for _, f := range forms {
		d := HarvestDatabase{ID: f.ID, Site: f.Site, PageURL: f.PageURL, Verdict: "unprobed", State: "skipped"}
		if f.Probe != nil {
			d.Verdict = f.Probe.Decision
		}
		if err := counts.restore(db, &d); err != nil {
			return nil, err
		}
		if d.Verdict == store.ProbeTopicDatabase {
			switch st, ok := states[f.ID]; {
			case !ok || st.State == "reprobed":
				d.State = "queued"
			default:
				d.State, d.Stopped, d.Error = st.State, st.Stopped, st.Error
			}
		}
		out = append(out, d)
	}
	return out, nil
}
