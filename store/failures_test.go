package store

import (
	"encoding/json"
	"testing"
	"time"
)

func TestFailures(t *testing.T) {
	db, dir := openTemp(t)
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	fs := []Failure{
		{URL: "https://a.example/", Site: "https://a.example", Cause: "dns", Error: "no such host", Runs: 1, Seed: true, Time: now},
		{URL: "https://a.example/x", Site: "https://a.example", Cause: "http-404", Status: 404, Attempts: 1, Runs: 1, Time: now},
		{URL: "https://b.example/", Site: "https://b.example", Cause: "dns", Runs: 2, Attempts: 0, Time: now},
	}
	b := db.NewBatch()
	for _, f := range fs {
		if err := b.SetFailure(f); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Commit(true); err != nil {
		t.Fatal(err)
	}
	b.Close()
	got, ok, err := db.GetFailure("https://a.example/x")
	if err != nil || !ok || got.Cause != "http-404" || got.Status != 404 || !got.Time.Equal(now) {
		t.Fatalf("GetFailure = %+v %v %v", got, ok, err)
	}
	var site []string
	if err := db.ScanFailures("https://a.example/", func(f Failure) error { site = append(site, f.URL); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(site) != 2 {
		t.Errorf("failures of a.example: %v", site)
	}
	causes, err := db.FailureCauses()
	if err != nil || causes["dns"] != 2 || causes["http-404"] != 1 || len(causes) != 2 {
		t.Errorf("FailureCauses = %v, %v", causes, err)
	}

	// a later success removes the record, in the batch that records it
	b = db.NewBatch()
	if err := b.DeleteFailure("https://b.example/"); err != nil {
		t.Fatal(err)
	}
	if err := b.DeleteFailure("https://never.example/"); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(true); err != nil {
		t.Fatal(err)
	}
	b.Close()
	if _, ok, _ := db.GetFailure("https://b.example/"); ok {
		t.Error("deleted failure still there")
	}

	// cookies survive a reopen
	type cookie struct{ Name, Value string }
	if err := db.PutCookies("a.example", []cookie{{"sid", "1"}}); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db2, err := Open(dir, Options{Logger: quietLog})
	if err != nil {
		t.Fatal(err)
	}
	defer db2.Close()
	n := 0
	err = db2.ScanCookies(func(host string, raw []byte) error {
		var cs []cookie
		if err := json.Unmarshal(raw, &cs); err != nil {
			return err
		}
		if host != "a.example" || len(cs) != 1 || cs[0].Value != "1" {
			t.Errorf("cookies of %s: %+v", host, cs)
		}
		n++
		return nil
	})
	if err != nil || n != 1 {
		t.Errorf("ScanCookies: %d hosts, %v", n, err)
	}
	if causes, _ := db2.FailureCauses(); causes["dns"] != 1 || causes["http-404"] != 1 {
		t.Errorf("after reopen: %v", causes)
	}
}
