package form

import (
	_ "embed"
	"fmt"
	"sync"

	"github.com/dwcrawl/dwcrawl/core/learn"
)

// ModelKind names the model-file kind of a [Model].
const ModelKind = "form-hifi"

// Model bundles HIFI's classifiers: the searchable form classifier, the
// form-kind classifier and the domain classifier. It is saved as one
// versioned model file (see [learn.Envelope]).
type Model struct {
	SFC   *SFC              `json:"sfc"`
	Kinds *KindClassifier   `json:"kinds"`
	DSFC  *DSFC             `json:"dsfc,omitempty"`
	Meta  map[string]string `json:"-"`
}

// Check verifies that the model is complete and matches this build's
// features.
func (m *Model) Check() error {
	if m.SFC == nil {
		return fmt.Errorf("form model: no sfc")
	}
	if err := m.SFC.check("sfc"); err != nil {
		return err
	}
	if m.Kinds != nil {
		if err := m.Kinds.check("kinds"); err != nil {
			return err
		}
	}
	if m.DSFC != nil && (m.DSFC.Vec == nil || m.DSFC.SVM == nil) {
		return fmt.Errorf("form model: incomplete dsfc")
	}
	return nil
}

// Marshal encodes the model as a model file.
func (m *Model) Marshal() ([]byte, error) { return learn.Marshal(ModelKind, m.Meta, m) }

// Save writes the model file to path.
func (m *Model) Save(path string) error { return learn.Save(path, ModelKind, m.Meta, m) }

// UnmarshalModel decodes and checks a model file.
func UnmarshalModel(b []byte) (*Model, error) {
	var m Model
	meta, err := learn.Unmarshal(b, ModelKind, &m)
	if err != nil {
		return nil, err
	}
	m.Meta = meta
	if err := m.Check(); err != nil {
		return nil, err
	}
	return &m, nil
}

// LoadModel reads and checks a model file.
func LoadModel(path string) (*Model, error) {
	var m Model
	meta, err := learn.Load(path, ModelKind, &m)
	if err != nil {
		return nil, err
	}
	m.Meta = meta
	if err := m.Check(); err != nil {
		return nil, fmt.Errorf("load %s: %w", path, err)
	}
	return &m, nil
}

// defaultModel is the model trained on all of the shared Formasaurus data
// (plus the bundled domain examples), regenerated with
//
//	go run ./cmd/dwcrawl train forms --data ../shared/data/formasaurus --out core/form/model/default.json \
//	    --domain-labels core/form/testdata/formasaurus-domains.tsv
//
//go:embed model/default.json
var defaultModel []byte

var (
	defaultOnce sync.Once
	defaultM    *Model
	defaultErr  error
)

// Default returns the embedded default model (decoded once, shared: treat
// it as read-only).
func Default() (*Model, error) {
	defaultOnce.Do(func() {
		defaultM, defaultErr = UnmarshalModel(defaultModel)
		if defaultErr != nil {
			defaultErr = fmt.Errorf("embedded default form model: %w", defaultErr)
		}
	})
	return defaultM, defaultErr
}
