package frontier

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/dwcrawl/dwcrawl/store"
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

// TestEvidenceEncodingIsJSON: the stored evidence reads back as what
// json.Marshal's bytes read back as, escapes, HTML characters, invalid
// UTF-8, U+2028 and negative counts included.
func TestEvidenceEncodingIsJSON(t *testing.T) {
	const seed = 23
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, seed))
	parts := []string{"", "a", "used cars", "\"", "\\", "<b>", "&amp;", "\n", "\t", "\x00", "\x1f", "\x7f", "é", "日本",
		"\xff", "\xe2\x80", "\u2028", "\u2029", "\U0001F600", "http://s.example/a?x=1&y=2"}
	str := func() string {
		var b strings.Builder
		for range rng.IntN(5) {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		return b.String()
	}
	for range 5000 {
		ev := Evidence{From: str(), Anchor: str(), Around: str(), SF: rng.IntN(5) - 1}
		got, err := encodeEvidence(&ev)
		if err != nil {
			t.Fatal(err)
		}
		if ev == (Evidence{}) {
			if got != nil {
				t.Fatalf("no evidence encoded as %s", got)
			}
			continue
		}
		want, err := json.Marshal(evidenceJSON{From: ev.From, Anchor: ev.Anchor, Around: ev.Around, SF: ev.SF})
		if err != nil {
			t.Fatal(err)
		}
		// the same evidence once read back (encoding/json also escapes
		// <, > and &, which need no escape)
		var g, w evidenceJSON
		if err := json.Unmarshal(got, &g); err != nil {
			t.Fatalf("%+v encoded %s: %v", ev, got, err)
		}
		if err := json.Unmarshal(want, &w); err != nil {
			t.Fatal(err)
		}
		if g != w {
			t.Fatalf("%+v encoded %s, read back %+v; json.Marshal's %s reads %+v", ev, got, g, want, w)
		}
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
