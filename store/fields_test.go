package store

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/dwcrawl/dwcrawl/store/storetest"
)

// TestSiteFields fills every field of Site by reflection, so a field
// added to Site and not stored fails here.
func TestSiteFields(t *testing.T) {
	db, _ := openTemp(t)
	err := storetest.RoundTrip(19, 200, func(s Site) (Site, error) {
		if err := db.PutSite(s); err != nil {
			return Site{}, err
		}
		got, ok, err := db.GetSite(s.URL)
		if err == nil && !ok {
			err = fmt.Errorf("site %q not found", s.URL)
		}
		return got, err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestURLStateFields and TestFrontierEntryFields do the same for the
// records of the binary codec.
func TestURLStateFields(t *testing.T) {
	err := storetest.RoundTrip(20, 200, func(st URLState) (URLState, error) {
		got, err := decodeURLState(st.URL, encodeURLState(nil, &st))
		got.Fetched = got.Fetched.UTC()
		return got, err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestFrontierEntryFields(t *testing.T) {
	err := storetest.RoundTrip(21, 200, func(e FrontierEntry) (FrontierEntry, error) {
		return decodeFrontier(frontierKey(nil, e.Queue, e.Score, e.Seq), encodeFrontierValue(nil, &e))
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestSiteErrors: a site JSON cannot hold is an error naming the site.
func TestSiteErrors(t *testing.T) {
	db, _ := openTemp(t)
	const u = "https://bad.example"
	for _, s := range []Site{
		{URL: u, Score: math.NaN()},
		{URL: u, Score: math.Inf(1)},
		{URL: u, FirstSeen: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)},
		{URL: u, VisitedAt: time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC)},
	} {
		if err := db.PutSite(s); err == nil || !strings.Contains(err.Error(), u) {
			t.Errorf("site %+v stored, error %v", s, err)
		}
	}
	if _, ok, err := db.GetSite(u); ok || err != nil {
		t.Errorf("a rejected site was stored: %v %v", ok, err)
	}
}

// siteFixtures are the sites of testdata/sites-v1.jsonl, one a line, as the
// hand-written encoder of earlier versions stored them (no HTML escaping,
// floats in encoding/json's forms).
var siteFixtures = func() []Site {
	at := time.Date(2026, 11, 25, 1, 2, 3, 456789000, time.UTC)
	return []Site{
		{URL: "https://a.example", Host: "a.example", Status: SiteNew},
		{URL: "https://a.example:8080", Host: "a.example", Domain: "auto", Status: SiteRelevant, Score: 0.8125,
			Queue: QueueHigh, Deep: true, Forms: 3, Pages: 120, FirstSeen: at, VisitedAt: at.Add(time.Minute), From: "https://b.example/list?a=1&b=<2>",
			Entries: []string{"https://a.example:8080/players/", "https://a.example:8080/q?x=\"1\""}},
		{URL: "u", Host: "h", Status: SiteCut, Forms: -1, Pages: -7, Score: -3},
		{URL: "u", Host: "h", Score: 1.5e-9},
		{URL: "u", Host: "h", Score: -2.5e23},
		{URL: "https://x.example/\"q\"\\", Host: "x\ty\nz\r\x01\x7f", From: "café \u2028\u2029 ü 日本"},
	}
}()

// TestSiteFixtureV1: sites stored by earlier versions read back as they were
// written, from a store (old stores keep working).
func TestSiteFixtureV1(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "sites-v1.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	db, _ := openTemp(t)
	sc := bufio.NewScanner(f)
	for i := 0; sc.Scan(); i++ {
		if i >= len(siteFixtures) {
			t.Fatalf("testdata/sites-v1.jsonl has more than %d lines", len(siteFixtures))
		}
		key := []byte{TagSites, byte('0' + i)}
		if err := db.pdb.Set(key, sc.Bytes(), nil); err != nil {
			t.Fatal(err)
		}
		got, ok, err := db.GetSite(string(key[1:]))
		if err != nil || !ok {
			t.Fatalf("line %d: %v %v", i+1, ok, err)
		}
		if want := siteFixtures[i]; !reflect.DeepEqual(got, want) {
			t.Errorf("line %d reads\n%+v\nwant\n%+v", i+1, got, want)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}
