package storetest

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

type inner struct {
	N    int
	Tags map[string]float64
}

type record struct {
	S       string
	B       bool
	U       uint16
	F       float64
	T       time.Time
	L       []inner
	P       *inner
	Skipped string `json:"-"`
	private int
}

// TestFill: every exported field but the skipped one is filled.
func TestFill(t *testing.T) {
	var r record
	if err := Fill(&r, rand.New(rand.NewPCG(1, 1))); err != nil {
		t.Fatal(err)
	}
	if z := Zero(&r); len(z) > 0 {
		t.Fatalf("fields %v left zero: %+v", z, r)
	}
	if r.Skipped != "" || r.private != 0 {
		t.Fatalf("filled a field that is not stored: %+v", r)
	}
	if err := Fill(&struct{ C chan int }{}, rand.New(rand.NewPCG(1, 1))); err == nil || !strings.Contains(err.Error(), ".C") {
		t.Fatalf("a channel field filled, error %v", err)
	}
}

// TestRoundTrip: encoding/json passes; an encoder that drops a field, or
// changes a value, fails.
func TestRoundTrip(t *testing.T) {
	viaJSON := func(edit func(*record)) func(record) (record, error) {
		return func(r record) (record, error) {
			edit(&r)
			b, err := json.Marshal(r)
			if err != nil {
				return record{}, err
			}
			var back record
			return back, json.Unmarshal(b, &back)
		}
	}
	if err := RoundTrip(7, 50, viaJSON(func(*record) {})); err != nil {
		t.Fatal(err)
	}
	for name, edit := range map[string]func(*record){
		"drops a field":     func(r *record) { r.U = 0 },
		"drops a sub-field": func(r *record) { r.L = append([]inner{{Tags: r.L[0].Tags}}, r.L[1:]...) },
		"changes a value":   func(r *record) { r.S += "x" },
		"loses a time zone": func(r *record) { r.T = r.T.Local().In(time.FixedZone("z", 3600)) },
	} {
		if err := RoundTrip(7, 50, viaJSON(edit)); err == nil {
			t.Errorf("an encoder that %s passed", name)
		}
	}
}
