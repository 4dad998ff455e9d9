package store

import (
	"reflect"
	"testing"
	"time"
)

func TestCrawlProfile(t *testing.T) {
	db, _ := openTemp(t)
	if _, ok, err := db.CrawlProfile(); ok || err != nil {
		t.Fatalf("fresh directory: profile recorded %v, %v", ok, err)
	}
	want := CrawlProfile{Name: "nba", Domain: "sports", Keywords: []string{"players", "teams"},
		Politeness: Politeness{Delay: 20 * time.Millisecond, Timeout: time.Second, UserAgent: "ua/1", MaxBodyBytes: 1 << 20, Headers: map[string]string{"Accept-Language": "de"}}}
	must(t, db.SetCrawlProfile(want))
	got, ok, err := db.CrawlProfile()
	if err != nil || !ok || !reflect.DeepEqual(got, want) {
		t.Fatalf("profile read back %+v %v %v, want %+v", got, ok, err, want)
	}
}
