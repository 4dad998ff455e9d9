package lab

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/dwcrawl/dwcrawl/core/canon"
	"github.com/dwcrawl/dwcrawl/core/profile"
	"github.com/dwcrawl/dwcrawl/core/surface"
	dwcrawl "github.com/dwcrawl/dwcrawl/internal/app"
	"github.com/dwcrawl/dwcrawl/store"
)

// harvestKey identifies a record page across spellings of its URL.
func harvestKey(raw string) string {
	c := canonical(raw)
	if d, err := url.QueryUnescape(c); err == nil {
		c = d
	}
	return c
}

// TestLabHarvest is issue 30's target on the lab: one `harvest` per topic,
// from the hub that links every lab site, downloads at least 80 % of the
// records of its topic's databases, and sends no query to a database of
// another topic beyond its probe.
//
// It runs on request (DWCRAWL_LAB_HARVEST=1). Two topics whose profiles
// give the same keywords are one topic to the user (the blog and the
// archive both hold DBLP papers): a harvest of either may query both.
func TestLabHarvest(t *testing.T) {
	if os.Getenv("DWCRAWL_LAB_HARVEST") == "" {
		t.Skip("the lab harvests take minutes per topic; DWCRAWL_LAB_HARVEST=1 runs them")
	}
	l := startLab(t)
	type result struct {
		topic, host string
		sum         *dwcrawl.HarvestSummary
		got         map[string]bool // record keys stored
	}
	var results []result
	var mu sync.Mutex
	// A harvest takes minutes per topic: by default four topics of four
	// kinds of application (a POST CGI search, an omindex search, a Rails
	// application, a PHP blog) are harvested; DWCRAWL_LAB_TOPICS=all
	// harvests every topic, DWCRAWL_LAB_TOPICS=a,b those.
	only := map[string]bool{"science": true, "law": true, "medicine": true, "papers": true}
	switch v := os.Getenv("DWCRAWL_LAB_TOPICS"); v {
	case "":
	case "all":
		only = nil
	default:
		only = map[string]bool{}
		for _, s := range strings.Split(v, ",") {
			only[s] = true
		}
	}
	t.Run("harvest", func(t *testing.T) {
		for topic, host := range labTopics {
			if len(only) > 0 && !only[topic] {
				continue
			}
			if _, up := l.Hosts[host]; !up {
				t.Logf("%s: %s is not running (%v)", topic, host, l.Missing)
				continue
			}
			t.Run(topic, func(t *testing.T) {
				t.Parallel()
				ctx := context.Background()
				p, err := profile.Load(ctx, filepath.Join("profiles", topic+".lua"))
				if err != nil {
					t.Fatal(err)
				}
				p.Seeds = []string{l.URL(Hub, "/")}
				var logs bytes.Buffer
				log := slog.New(slog.NewTextHandler(&lockedWriter{w: &logs}, &slog.HandlerOptions{Level: slog.LevelWarn}))
				dir := filepath.Join(t.TempDir(), "harvest")
				var events []string
				sum, err := dwcrawl.Harvest(ctx, dwcrawl.HarvestOptions{
					CrawlOptions: dwcrawl.CrawlOptions{Profile: p, Dir: dir, Workers: 2, Logger: log, Seed: 1,
						Net: dwcrawl.NetOptions{AllowPrivate: true, Resolve: l.Resolve(), Proxy: dwcrawl.ProxyDirect}},
					OnEvent: func(e string) { events = append(events, e) },
				})
				if err != nil {
					t.Fatalf("%v\n%s", err, logs.String())
				}
				t.Logf("%s: %s", topic, strings.Join(events, "\n"))
				db, err := store.Open(dir, store.Options{})
				if err != nil {
					t.Fatal(err)
				}
				defer db.Close()
				var buf bytes.Buffer
				if _, err := surface.ExportDocs(db, "", &buf); err != nil {
					t.Fatal(err)
				}
				got := map[string]bool{}
				for dec := json.NewDecoder(&buf); dec.More(); {
					var d surface.StoredDoc
					if err := dec.Decode(&d); err != nil {
						t.Fatal(err)
					}
					got[harvestKey(d.URL)] = true
				}
				mu.Lock()
				results = append(results, result{topic: topic, host: host, sum: sum, got: got})
				mu.Unlock()
			})
		}
	})
	if len(results) == 0 {
		t.Skip("no lab application runs")
	}
	sort.Slice(results, func(i, j int) bool { return results[i].topic < results[j].topic })
	hostTopic := map[string]string{}
	for topic, host := range labTopics {
		hostTopic[host] = topic
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n| topic | pages | databases found | of the topic | database | records | harvested | coverage | queries |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range results {
		topicDBs := 0
		for _, d := range r.sum.Databases {
			host := canon.Host(d.PageURL)
			if d.Verdict == store.ProbeTopicDatabase {
				topicDBs++
			}
			if d.Queries > 0 && !sameTopic(t, r.topic, hostTopic[host]) {
				t.Errorf("%s: database %s on %s (verdict %s) got %d queries: it is not of the topic (%s)", r.topic, d.ID, host, d.Verdict, d.Queries, r.host)
			}
		}
		for _, site := range l.Truth.Sites {
			if site.Host != r.host {
				continue
			}
			seen := map[string]bool{}
			for _, sf := range site.SearchForms {
				if sf.Backend == "" || site.Backends[sf.Backend] < 10 || seen[sf.Backend] {
					continue
				}
				seen[sf.Backend] = true
				truth := l.Truth.Records[sf.Backend]
				n := 0
				for _, rec := range truth {
					if r.got[harvestKey(l.URL(site.Host, rec.Path))] {
						n++
					}
				}
				queries := 0
				for _, d := range r.sum.Databases {
					if canon.Host(d.PageURL) == r.host {
						queries += d.Queries
					}
				}
				cov := float64(n) / float64(len(truth))
				fmt.Fprintf(&b, "| %s | %d | %d | %d | %s %s | %d | %d | %.1f %% | %d |\n", r.topic, r.sum.Pages, len(r.sum.Databases), topicDBs, site.App, sf.Backend, len(truth), n, 100*cov, queries)
				if cov < 0.8 {
					t.Errorf("%s: %s's database %s: %d of %d records (%.1f %%) < 80 %%", r.topic, site.App, sf.Backend, n, len(truth), 100*cov)
				}
			}
		}
	}
	t.Log(b.String())
}

// sameTopic reports whether lab topics a and b are one topic to the user:
// the same, or profiles with the same keywords.
func sameTopic(t *testing.T, a, b string) bool {
	t.Helper()
	if a == b {
		return true
	}
	if b == "" {
		return false
	}
	var kw [2][]string
	for i, topic := range []string{a, b} {
		p, err := profile.Load(context.Background(), filepath.Join("profiles", topic+".lua"))
		if err != nil {
			t.Fatal(err)
		}
		kw[i] = append([]string(nil), p.Keywords...)
		sort.Strings(kw[i])
	}
	return slices.Equal(kw[0], kw[1])
}
