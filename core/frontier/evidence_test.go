package frontier

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dwcrawl/dwcrawl/store"
	"github.com/dwcrawl/dwcrawl/store/storetest"
)

// TestEvidenceCodec: the stored form round-trips, and the untyped payloads of
// crawl directories written before Evidence existed still decode.
func TestEvidenceCodec(t *testing.T) {
	tests := []struct {
		name    string
		payload string
		want    *Evidence
	}{
		{"none", "", nil},
		{"old link payload", `{"p":"http://s.example/a","a":"used cars","t":"browse our used cars"}`,
			&Evidence{From: "http://s.example/a", Anchor: "used cars", Around: "browse our used cars"}},
		{"old site payload", `{"a":"cars","t":"dealers near you","sf":3,"f":"http://hub.example/"}`,
			&Evidence{From: "http://hub.example/", Anchor: "cars", Around: "dealers near you", SF: 3}},
		{"old site payload, SF only", `{"sf":0}`, &Evidence{}},
		{"hand-encoded payload (no HTML escapes)", `{"p":"http://s.example/a?x=1&y=<2>","a":"a \"b\"\\","t":"\u2028 é\n","sf":-1}`,
			&Evidence{From: "http://s.example/a?x=1&y=<2>", Anchor: `a "b"\`, Around: "\u2028 é\n", SF: -1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := decodeEvidence([]byte(tc.payload))
			if err != nil {
				t.Fatal(err)
			}
			if (got == nil) != (tc.want == nil) || (got != nil && *got != *tc.want) {
				t.Fatalf("decoded %+v, want %+v", got, tc.want)
			}
			if got == nil {
				return
			}
			b, err := encodeEvidence(got)
			if err != nil {
				t.Fatal(err)
			}
			again, err := decodeEvidence(b)
			if err != nil {
				t.Fatal(err)
			}
			if *got != (Evidence{}) && (again == nil || *again != *got) {
				t.Errorf("round trip %s: %+v, want %+v", b, again, got)
			}
		})
	}
}

// TestCorruptEvidence: a stored payload that does not decode makes every
// frontier's Load fail with an error naming the queue and the URL, instead of
// queueing the URL without its evidence.
func TestCorruptEvidence(t *testing.T) {
	const u = "http://s.example/broken"
	loaders := []struct {
		queue string
		load  func(st Store) error
	}{
		{"best", func(st Store) error { _, err := NewQueue("best", st).Load(); return err }},
		{store.QueueLow, func(st Store) error { _, err := NewSiteFrontier(st).Load(); return err }},
		{"ache:1", func(st Store) error { _, err := NewLevelFrontier(st, LevelOptions{}).Load(); return err }},
		{LinkQueue("http://s.example"), func(st Store) error {
			_, err := NewLinkFrontier("http://s.example", st, LinkOptions{}).Load()
			return err
		}},
	}
	for _, l := range loaders {
		t.Run(l.queue, func(t *testing.T) {
			st := NewMemStore()
			if err := st.PushFrontier(store.FrontierEntry{Queue: l.queue, URL: u, Score: 1, Payload: []byte(`{"a":"cut sh`)}); err != nil {
				t.Fatal(err)
			}
			err := l.load(st)
			if err == nil {
				t.Fatal("corrupt evidence loaded without an error")
			}
			for _, want := range []string{l.queue, u, "evidence"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not name %q", err, want)
				}
			}
		})
	}
}

// TestEvidenceFields stores evidence with every field filled by
// reflection: a field added to Evidence and not stored fails here.
func TestEvidenceFields(t *testing.T) {
	err := storetest.RoundTrip(23, 500, func(ev Evidence) (Evidence, error) {
		b, err := encodeEvidence(&ev)
		if err != nil {
			return Evidence{}, err
		}
		back, err := decodeEvidence(b)
		if err != nil || back == nil {
			return Evidence{}, fmt.Errorf("%+v stored as %s: read back %v, %v", ev, b, back, err)
		}
		return *back, nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// BenchmarkEncodeEvidence measures encoding a link's evidence.
func BenchmarkEncodeEvidence(b *testing.B) {
	ev := &Evidence{From: "http://best-autos.com/inventory/", Anchor: "Used Cars", Around: "Browse our inventory of certified pre-owned sedans, coupes and trucks near you"}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := encodeEvidence(ev); err != nil {
			b.Fatal(err)
		}
	}
}
