package form

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/dwcrawl/dwcrawl/core/domain"
	"github.com/dwcrawl/dwcrawl/core/learn"
)

func TestDefaultModel(t *testing.T) {
	m := mustDefault(t)
	if m.SFC == nil || m.Kinds == nil || m.DSFC == nil {
		t.Fatalf("incomplete default model %+v", m)
	}
	if m.Meta["trained_on"] != "formasaurus" || m.Meta["forms"] == "" {
		t.Errorf("meta %v", m.Meta)
	}
	if got := m.DSFC.Domains(); len(got) != len(domain.BuiltIn)+1 {
		t.Errorf("dsfc domains %v", got)
	}
	n, l := m.SFC.Tree.Size()
	t.Logf("default SFC: %d nodes, %d leaves\n%s", n, l, m.SFC)
}

func TestModelRoundTrip(t *testing.T) {
	m := mustDefault(t)
	path := filepath.Join(t.TempDir(), "m.json")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	back, err := LoadModel(path)
	if err != nil {
		t.Fatal(err)
	}
	p := fixture(t)
	h1, _ := NewHIFI(m, "")
	h2, _ := NewHIFI(back, "")
	for i := range p.Forms {
		d1, d2 := h1.Classify(&p.Forms[i], ""), h2.Classify(&p.Forms[i], "")
		if d1.Kind != d2.Kind || d1.PSearchable != d2.PSearchable || d1.Domain != d2.Domain {
			t.Errorf("form %d: %+v vs %+v", i, d1, d2)
		}
	}
}

func TestModelChecks(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, mutate func(env map[string]any)) string {
		b, _ := mustDefault(t).Marshal()
		var env map[string]any
		if err := json.Unmarshal(b, &env); err != nil {
			t.Fatal(err)
		}
		mutate(env)
		b, _ = json.Marshal(env)
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name   string
		mutate func(env map[string]any)
		want   string
	}{
		{"feature version", func(env map[string]any) {
			env["model"].(map[string]any)["sfc"].(map[string]any)["feature_version"] = 999
		}, "feature version 999"},
		{"kind", func(env map[string]any) { env["kind"] = "nb" }, learn.ErrKind.Error()},
		{"no sfc", func(env map[string]any) { delete(env["model"].(map[string]any), "sfc") }, "no sfc"},
		{"attribute", func(env map[string]any) {
			attrs := env["model"].(map[string]any)["sfc"].(map[string]any)["tree"].(map[string]any)["attrs"].([]any)
			attrs[0].(map[string]any)["name"] = "renamed"
		}, "retrain"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := LoadModel(write(tt.name+".json", tt.mutate))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
	if _, err := LoadModel(filepath.Join(dir, "missing.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

// TestUnmarshalModelOnePass: the embedded model decoded by UnmarshalModel
// (envelope and model in one pass) equals the model decoded the two-pass
// way (envelope with a raw model, then the model).
func TestUnmarshalModelOnePass(t *testing.T) {
	got, err := UnmarshalModel(defaultModel)
	if err != nil {
		t.Fatal(err)
	}
	var env learn.Envelope
	if err := json.Unmarshal(defaultModel, &env); err != nil {
		t.Fatal(err)
	}
	var want Model
	if err := json.Unmarshal(env.Model, &want); err != nil {
		t.Fatal(err)
	}
	want.Meta = env.Meta
	if err := want.Check(); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, &want) {
		t.Fatal("one-pass decoding differs from two-pass decoding")
	}
	// A file of another kind is refused, and names the kind.
	other, err := learn.Marshal("nb", nil, got)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := UnmarshalModel(other); !errors.Is(err, learn.ErrKind) {
		t.Fatalf("model of kind nb: err = %v, want ErrKind", err)
	}
}

// BenchmarkUnmarshalModel decodes the embedded model, as every start does.
func BenchmarkUnmarshalModel(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := UnmarshalModel(defaultModel); err != nil {
			b.Fatal(err)
		}
	}
}
