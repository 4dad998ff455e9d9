package crawl

import (
	"encoding/json"
	"math/rand"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/dwcrawl/dwcrawl/core/testseed"
)

// randText returns text mixing words, escapes, control characters,
// multi-byte and invalid UTF-8.
func randText(r *rand.Rand, n int) string {
	parts := []string{"word", " ", `"`, `\`, "\n", "\t", "\r", "\x01", "\x1f", "<b>&amp;", "é", "日本", "\u2028", "\xff", "\xe6\x97", "💡", "/"}
	var sb strings.Builder
	for i := 0; i < n; i++ {
		sb.WriteString(parts[r.Intn(len(parts))])
	}
	return sb.String()
}

func randRecord(r *rand.Rand) pageRecord {
	rec := pageRecord{URL: "http://a.example/" + randText(r, 3), Site: "http://a.example", Depth: r.Intn(5), Status: 200 + r.Intn(300),
		Seq: r.Int63n(1 << 40), Fetched: time.Unix(r.Int63n(1<<31), r.Int63n(1e9)).UTC()}
	if r.Intn(2) == 0 {
		rec.Final, rec.Parent, rec.Err, rec.Refetches = randText(r, 4), randText(r, 4), randText(r, 2), r.Intn(3)
	}
	if r.Intn(4) > 0 {
		rec.Title, rec.Text = randText(r, 5), randText(r, r.Intn(300))
	}
	for i := r.Intn(20); i > 0; i-- {
		rec.Links = append(rec.Links, linkRecord{U: randText(r, 3), A: randText(r, r.Intn(3)), B: randText(r, r.Intn(8)), F: randText(r, r.Intn(8))})
	}
	for i := r.Intn(4); i > 0; i-- {
		rec.Forms = append(rec.Forms, formRecord{Index: i, Kind: randText(r, 1), Searchable: r.Intn(2) == 0, Relevant: r.Intn(2) == 0,
			Dup: r.Intn(2) == 0, P: []float64{0, 1, r.Float64(), 1e-9 * r.Float64(), 3e21}[r.Intn(5)]})
	}
	return rec
}

// TestPageRecordEncode: the hand-written encoding reads back as the record
// json.Marshal writes (what readers of older directories see).
func TestPageRecordEncode(t *testing.T) {
	r := rand.New(rand.NewSource(int64(testseed.Seed(t))))
	cases := []pageRecord{
		{},
		{URL: "http://a.example/", Site: "http://a.example", Err: "timeout", Fetched: time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)},
	}
	for i := 0; i < 2000; i++ {
		cases = append(cases, randRecord(r))
	}
	for i, rec := range cases {
		got, err := rec.encode(nil)
		if err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		if !json.Valid(got) {
			t.Fatalf("record %d: invalid JSON %q", i, got)
		}
		want, err := json.Marshal(&rec)
		if err != nil {
			t.Fatal(err)
		}
		var a, b pageRecord
		if err := json.Unmarshal(got, &a); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(want, &b); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("record %d reads back as\n%+v\nwant\n%+v\n(%s)", i, a, b, got)
		}
		var ma, mb map[string]any // same keys, omitted alike
		json.Unmarshal(got, &ma)
		json.Unmarshal(want, &mb)
		if !reflect.DeepEqual(ma, mb) {
			t.Fatalf("record %d: fields %v, want %v", i, ma, mb)
		}
	}
}

func BenchmarkPageRecordEncode(b *testing.B) {
	r := rand.New(rand.NewSource(1))
	words := strings.Fields("car rental insurance daily compact fullsize agency city state location garden plant leaf spot tree")
	text := func(n int) string {
		w := make([]string, n)
		for i := range w {
			w[i] = words[r.Intn(len(words))]
		}
		return strings.Join(w, " ")
	}
	rec := pageRecord{URL: "http://drivepoint.com/rates/amc-matador-1840.html", Site: "http://drivepoint.com", Parent: "http://drivepoint.com/rates/",
		Depth: 2, Status: 200, Title: text(4), Text: text(300), Seq: 8336, Fetched: time.Now(),
		Forms: []formRecord{{Index: 0, Kind: "external", P: 0.9838274932614556}, {Index: 1, Kind: "login", P: 0.003865979381443299}}}
	for i := 0; i < 16; i++ {
		rec.Links = append(rec.Links, linkRecord{U: "http://drivepoint.com/rates/" + text(1) + ".html", A: text(2), B: text(10), F: text(10)})
	}
	b.Run("append", func(b *testing.B) {
		var buf []byte
		for i := 0; i < b.N; i++ {
			buf, _ = rec.encode(buf[:0])
		}
		b.ReportMetric(float64(len(buf)), "bytes/rec")
	})
	b.Run("json.Marshal", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := json.Marshal(&rec); err != nil {
				b.Fatal(err)
			}
		}
	})
}
