package store

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

// stdJSON is v as encoding/json writes it without HTML escaping: what the
// hand-written encoders must write.
func stdJSON(t testing.TB, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

func TestSiteJSON(t *testing.T) {
	at := time.Date(2026, 11, 25, 1, 2, 3, 456789000, time.UTC)
	tests := []struct {
		name string
		s    Site
	}{
		{"minimal", Site{URL: "https://a.example", Host: "a.example", Status: SiteNew}},
		{"full", Site{URL: "https://a.example:8080", Host: "a.example", Domain: "auto", Status: SiteRelevant, Score: 0.8125,
			Queue: QueueHigh, Deep: true, Forms: 3, Pages: 120, FirstSeen: at, VisitedAt: at.Add(time.Minute).In(time.FixedZone("x", 3600)), From: "https://b.example/list?a=1&b=<2>",
			Entries: []string{"https://a.example:8080/players/", "https://a.example:8080/q?x=\"1\""}}},
		{"negative counts", Site{URL: "u", Host: "h", Status: SiteCut, Forms: -1, Pages: -7, Score: -3}},
		{"tiny score", Site{URL: "u", Host: "h", Score: 1.5e-9}},
		{"huge score", Site{URL: "u", Host: "h", Score: -2.5e23}},
		{"exponent two digits", Site{URL: "u", Host: "h", Score: 1e-10}},
		{"escapes", Site{URL: "https://x.example/\"q\"\\", Host: "x\ty\nz\r\x01\x7f", From: "caf\xe9 \u2028\u2029 ü 日本"}},
		{"empty", Site{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := appendSiteJSON([]byte("prefix"), &tc.s)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(got, []byte("prefix")) {
				t.Fatalf("did not append: %s", got)
			}
			got = got[len("prefix"):]
			if want := stdJSON(t, &tc.s); !bytes.Equal(got, want) {
				t.Errorf("site JSON\n got %s\nwant %s", got, want)
			}
			var back Site
			if err := json.Unmarshal(got, &back); err != nil {
				t.Fatalf("%s: %v", got, err)
			}
			want := tc.s
			want.From = strings.ToValidUTF8(want.From, "\ufffd")
			if !back.FirstSeen.Equal(want.FirstSeen) || !back.VisitedAt.Equal(want.VisitedAt) {
				t.Errorf("times read back %v %v, want %v %v", back.FirstSeen, back.VisitedAt, want.FirstSeen, want.VisitedAt)
			}
			back.FirstSeen, back.VisitedAt, want.FirstSeen, want.VisitedAt = time.Time{}, time.Time{}, time.Time{}, time.Time{}
			if !reflect.DeepEqual(back, want) {
				t.Errorf("read back %+v, want %+v", back, want)
			}
		})
	}
}

func TestSiteJSONErrors(t *testing.T) {
	for _, s := range []Site{
		{URL: "u", Score: math.NaN()},
		{URL: "u", Score: math.Inf(1)},
		{URL: "u", FirstSeen: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)},
		{URL: "u", VisitedAt: time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC)},
	} {
		if _, err := appendSiteJSON(nil, &s); err == nil {
			t.Errorf("site %+v encoded without an error", s)
		}
	}
}

// TestSiteJSONRandom compares the encoder with encoding/json on random
// sites (seeded; the seed is in the test's name).
func TestSiteJSONRandom(t *testing.T) {
	const seed = 19
	r := newRand(seed)
	runes := []rune("aZ09 -_/?&=<>\"\\\t\n\x00\x1f\x7fé日\u2028\U0001F600")
	str := func() string {
		var sb strings.Builder
		for n := r.Intn(12); n > 0; n-- {
			sb.WriteRune(runes[r.Intn(len(runes))])
		}
		if r.Intn(10) == 0 {
			sb.WriteByte(0xff) // invalid UTF-8
		}
		return sb.String()
	}
	for i := 0; i < 2000; i++ {
		s := Site{URL: str(), Host: str(), Domain: str(), Status: SiteStatus(str()),
			Score: math.Float64frombits(r.Uint64()), Queue: str(), Deep: r.Intn(2) == 0,
			Forms: r.Intn(100) - 10, Pages: r.Intn(1 << 20), From: str()}
		for n := r.Intn(3); n > 0; n-- {
			s.Entries = append(s.Entries, str())
		}
		if math.IsNaN(s.Score) || math.IsInf(s.Score, 0) || r.Intn(3) == 0 {
			s.Score = r.Float64() * math.Pow(10, float64(r.Intn(60)-30))
		}
		if r.Intn(2) == 0 {
			s.FirstSeen = time.Unix(r.Int63n(1<<33), r.Int63n(1e9))
		}
		if r.Intn(2) == 0 {
			s.VisitedAt = time.Unix(r.Int63n(1<<33), 0).UTC()
		}
		got, err := appendSiteJSON(nil, &s)
		if err != nil {
			t.Fatalf("seed %d, site %d: %v", seed, i, err)
		}
		if want := stdJSON(t, &s); !bytes.Equal(got, want) {
			t.Fatalf("seed %d, site %d:\n got %s\nwant %s", seed, i, got, want)
		}
	}
}

func BenchmarkSiteJSON(b *testing.B) {
	at := time.Date(2026, 11, 25, 1, 2, 3, 456789000, time.UTC)
	s := Site{URL: "https://www.autotrader-example.com", Host: "www.autotrader-example.com", Domain: "auto", Status: SiteRelevant,
		Score: 0.734127, Queue: QueueHigh, Forms: 2, Pages: 37, FirstSeen: at, VisitedAt: at, From: "https://www.cars-directory.example/list/dealers?page=3"}
	b.Run("append", func(b *testing.B) {
		var buf []byte
		for i := 0; i < b.N; i++ {
			buf, _ = appendSiteJSON(buf[:0], &s)
		}
		b.ReportMetric(float64(len(buf)), "bytes/rec")
	})
	b.Run("json.Marshal", func(b *testing.B) {
		var buf []byte
		for i := 0; i < b.N; i++ {
			buf, _ = json.Marshal(&s)
		}
		b.ReportMetric(float64(len(buf)), "bytes/rec")
	})
}
