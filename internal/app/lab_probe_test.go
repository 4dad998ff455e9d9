package app

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dwcrawl/dwcrawl/core/profile"
	"github.com/dwcrawl/dwcrawl/store"
)

// labTopicHosts maps each lab profile (testbed/lab/profiles/NAME.lua) to
// the host whose search form fronts a database of its topic.
var labTopicHosts = map[string]string{
	"movies": "wiki.lab.test",
	"papers": "blog.lab.test",
	"music":  "music.lab.test",
	"code":   "git.lab.test",
	"law":    "law.lab.test",
}

// TestLabProbe runs `classify --probe` on the page holding each lab
// application's search form, once with the profile of the application's
// topic and once with the profile of another topic: the form must be judged
// a database of the topic with its own topic's terms and not with the
// other's; no non-searchable form of the page is ever submitted.
func TestLabProbe(t *testing.T) {
	l := startLab(t)
	ctx := context.Background()
	load := func(topic string) *profile.Profile {
		p, err := profile.Load(ctx, filepath.Join("..", "..", "testbed", "lab", "profiles", topic+".lua"))
		if err != nil {
			t.Fatal(err)
		}
		// a custom topic learns its terms from its seeds' pages: the
		// topic's own site, as a user seeds a profile with an example of
		// the topic (the hub lists every lab site, all topics alike)
		p.Seeds = []string{l.URL(labTopicHosts[topic], "/")}
		return p
	}
	// other topics, rotated: each host is also probed with a wrong topic
	order := []string{"movies", "papers", "music", "code", "law"}
	var table strings.Builder
	wrong := 0 // databases of another topic judged topic-database
	fmt.Fprintf(&table, "\n| host | form | profile | decision | evidence |\n|---|---|---|---|---|\n")
	for i, topic := range order {
		host := labTopicHosts[topic]
		var sf *struct{ action, example string }
		for _, site := range l.Truth.Sites {
			if site.Host != host {
				continue
			}
			for _, f := range site.SearchForms {
				if f.Backend != "" && site.Backends[f.Backend] >= 10 {
					sf = &struct{ action, example string }{f.Action, f.Example}
					break
				}
			}
		}
		if sf == nil {
			t.Errorf("%s: no search form with records in the lab's truth", host)
			continue
		}
		for _, pt := range []string{topic, order[(i+2)%len(order)]} {
			t.Run(host+"/"+pt, func(t *testing.T) {
				fo := labFetch(l)
				var out bytes.Buffer
				err := Classify(ctx, ClassifyOptions{Target: sf.example, Probe: true, Profile: load(pt), ProbeQueries: 4, JSON: true, Fetch: &fo}, &out)
				if err != nil {
					t.Fatal(err)
				}
				var res struct {
					Forms []ProbedForm `json:"forms"`
				}
				if err := json.Unmarshal(out.Bytes(), &res); err != nil {
					t.Fatal(err)
				}
				var got *ProbedForm
				for j := range res.Forms {
					f := &res.Forms[j]
					if f.Probe != nil && !f.Searchable {
						t.Errorf("form %d (%s, kind %s) was probed though not searchable", f.Index, f.Action, f.Kind)
					}
					if a, _, _ := strings.Cut(f.Action, "?"); a == sf.action && got == nil {
						got = f
					}
				}
				if got == nil || got.Probe == nil {
					t.Fatalf("the search form %s was not probed: %+v", sf.action, got)
				}
				isDB := got.Probe.Decision == store.ProbeTopicDatabase
				switch {
				case pt == topic && !isDB:
					t.Errorf("profile %s: decision %s, want topic-database\n%s", pt, got.Probe.Decision, strings.Join(got.Probe.Evidence, "\n"))
				case pt != topic && isDB:
					wrong++
					t.Logf("profile %s: decision %s on another topic's database\n%s", pt, got.Probe.Decision, strings.Join(got.Probe.Evidence, "\n"))
				}
				fmt.Fprintf(&table, "| %s | %s | %s | %s | %s |\n", host, sf.action, pt, got.Probe.Decision, strings.Join(got.Probe.Evidence, "; "))
			})
		}
	}
	t.Log(table.String())
	// A database that also holds a few records of the other topic (DBLP
	// papers about cars, asked by the cars profile) is told apart by the
	// general sample of its records: none of the five may pass.
	if wrong > 0 {
		t.Errorf("%d of 5 databases of another topic judged databases of the profile's topic", wrong)
	}
}
