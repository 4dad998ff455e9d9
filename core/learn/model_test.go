package learn

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

type memStore map[string][]byte

func (m memStore) PutModel(name string, b []byte) error {
	m[name] = append([]byte(nil), b...)
	return nil
}
func (m memStore) GetModel(name string) ([]byte, error) {
	b, ok := m[name]
	if !ok {
		return nil, errors.New("not found")
	}
	return b, nil
}

func TestModelRoundTrip(t *testing.T) {
	d := loadWeather(t)
	tr, err := TrainTree(d, TreeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "tree.json")
	meta := map[string]string{"data": "weather"}
	if err := Save(path, "tree", meta, tr); err != nil {
		t.Fatal(err)
	}
	var back Tree
	gotMeta, err := Load(path, "tree", &back)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(gotMeta, meta) || back.String() != tr.String() {
		t.Errorf("round trip: meta %v tree\n%s", gotMeta, back.String())
	}
	for _, x := range d.X {
		if !reflect.DeepEqual(back.Probs(x), tr.Probs(x)) {
			t.Fatal("probabilities differ after reload")
		}
	}
	var nb NB
	if _, err := Load(path, "nb", &nb); !errors.Is(err, ErrKind) {
		t.Errorf("wrong kind: %v", err)
	}

	m, _ := TrainNB([][]string{{"a"}, {"b"}}, []string{"x", "y"}, 1)
	s := memStore{}
	if err := Put(s, "site", "nb", nil, m); err != nil {
		t.Fatal(err)
	}
	var m2 NB
	if _, err := Get(s, "site", "nb", &m2); err != nil {
		t.Fatal(err)
	}
	if l, _ := m2.Predict([]string{"b"}); l != "y" {
		t.Errorf("reloaded nb predicts %s", l)
	}
	if _, err := Get(s, "missing", "nb", &m2); err == nil {
		t.Error("missing blob accepted")
	}
}

func TestModelVersionAndFormat(t *testing.T) {
	tests := []struct{ name, body, want string }{
		{"future", `{"format":"dwcrawl-model","version":99,"kind":"nb","model":{}}`, "version 99"},
		{"format", `{"format":"other","version":1,"kind":"nb","model":{}}`, "format"},
		{"json", `{`, "decode"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "m.json")
			if err := os.WriteFile(p, []byte(tt.body), 0o644); err != nil {
				t.Fatal(err)
			}
			var nb NB
			_, err := Load(p, "nb", &nb)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestOVRRoundTrip(t *testing.T) {
	X := []Sparse{sp([]int32{0}, []float64{1}), sp([]int32{1}, []float64{1}), sp([]int32{2}, []float64{1})}
	var xs []Sparse
	var ls []string
	for i := range 30 {
		xs = append(xs, X[i%3])
		ls = append(ls, []string{"a", "b", "c"}[i%3])
	}
	m, err := TrainOVR(xs, ls, 3, SVMOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Marshal("ovr", nil, m)
	if err != nil {
		t.Fatal(err)
	}
	var back OVR
	if _, err := Unmarshal(b, "ovr", &back); err != nil {
		t.Fatal(err)
	}
	for i, x := range X {
		p1, p2 := m.Probs(x), back.Probs(x)
		for c := range p1 {
			if d := p1[c] - p2[c]; d > 1e-5 || d < -1e-5 {
				t.Errorf("case %d class %d: %v vs %v", i, c, p1[c], p2[c])
			}
		}
	}
}
