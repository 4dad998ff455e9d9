package learn

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// FileFormat names dwcrawl model files; FileVersion is the envelope version
// this build writes and the newest it reads.
const (
	FileFormat  = "dwcrawl-model"
	FileVersion = 1
)

// ErrKind is returned when a model file holds a different kind of model
// than the one asked for.
var ErrKind = errors.New("wrong model kind")

// Envelope is the documented layout of a model file (JSON):
//
//	{"format": "dwcrawl-model", "version": 1, "kind": "form-hifi",
//	 "meta": {"trained_on": "...", ...}, "model": {...kind-specific...}}
//
// Kind names the model type (e.g. "nb", "tree", "ovr-svm", "form-hifi",
// "siteclass") so a file is never decoded into the wrong structure; Meta
// records free-form provenance (data set, command, figures).
type Envelope struct {
	Format  string            `json:"format"`
	Version int               `json:"version"`
	Kind    string            `json:"kind"`
	Meta    map[string]string `json:"meta,omitempty"`
	Model   json.RawMessage   `json:"model"`
}

// Marshal encodes model (any JSON-encodable value) in an [Envelope].
func Marshal(kind string, meta map[string]string, model any) ([]byte, error) {
	raw, err := json.Marshal(model)
	if err != nil {
		return nil, fmt.Errorf("marshal %s model: %w", kind, err)
	}
	b, err := json.Marshal(Envelope{Format: FileFormat, Version: FileVersion, Kind: kind, Meta: meta, Model: raw})
	if err != nil {
		return nil, fmt.Errorf("marshal %s envelope: %w", kind, err)
	}
	return b, nil
}

// Unmarshal decodes an [Envelope] of the given kind into model and returns
// its meta data.
func Unmarshal(b []byte, kind string, model any) (map[string]string, error) {
	// One pass decodes the envelope and the model together (a form model
	// is about 1 MB of JSON, decoded at every start); the envelope is
	// checked after. Any error is reported by the two-pass decoding below,
	// which checks the envelope before touching the model.
	one := struct {
		Format  string            `json:"format"`
		Version int               `json:"version"`
		Kind    string            `json:"kind"`
		Meta    map[string]string `json:"meta,omitempty"`
		Model   any               `json:"model"` // decoded into model itself
	}{Model: model}
	if json.Unmarshal(b, &one) == nil && one.Format == FileFormat &&
		one.Version >= 1 && one.Version <= FileVersion && one.Kind == kind {
		return one.Meta, nil
	}
	var env Envelope
	if err := json.Unmarshal(b, &env); err != nil {
		return nil, fmt.Errorf("decode model file: %w", err)
	}
	if env.Format != FileFormat {
		return nil, fmt.Errorf("decode model file: format %q, want %q", env.Format, FileFormat)
	}
	if env.Version < 1 || env.Version > FileVersion {
		return nil, fmt.Errorf("decode model file: version %d not supported (this build reads 1..%d)", env.Version, FileVersion)
	}
	if env.Kind != kind {
		return nil, fmt.Errorf("decode model file: %w: have %q, want %q", ErrKind, env.Kind, kind)
	}
	dec := json.NewDecoder(bytes.NewReader(env.Model))
	if err := dec.Decode(model); err != nil {
		return nil, fmt.Errorf("decode %s model: %w", kind, err)
	}
	return env.Meta, nil
}

// Save writes model to path atomically (temporary file, then rename).
func Save(path, kind string, meta map[string]string, model any) error {
	b, err := Marshal(kind, meta, model)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".model-*")
	if err != nil {
		return fmt.Errorf("save model %s: %w", path, err)
	}
	_, werr := tmp.Write(append(b, '\n'))
	merr := tmp.Chmod(0o644)
	cerr := tmp.Close()
	if werr != nil || merr != nil || cerr != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("save model %s: %w", path, errors.Join(werr, merr, cerr))
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("save model %s: %w", path, err)
	}
	return nil
}

// Load reads a model file of the given kind into model.
func Load(path, kind string, model any) (map[string]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load model: %w", err)
	}
	meta, err := Unmarshal(b, kind, model)
	if err != nil {
		return nil, fmt.Errorf("load model %s: %w", path, err)
	}
	return meta, nil
}

// BlobStore is what model persistence needs from the crawl store: named
// byte blobs. The store's versioned models table fits with a small adapter:
//
//	type models struct{ db *store.DB }
//	func (m models) PutModel(name string, b []byte) error {
//		_, err := m.db.PutModel(store.Model{Name: name, Data: b})
//		return err
//	}
//	func (m models) GetModel(name string) ([]byte, error) {
//		r, ok, err := m.db.GetModel(name)
//		if err == nil && !ok {
//			err = fs.ErrNotExist
//		}
//		return r.Data, err
//	}
type BlobStore interface {
	PutModel(name string, blob []byte) error
	GetModel(name string) ([]byte, error)
}

// Put stores model under name in s, in the same envelope as a file.
func Put(s BlobStore, name, kind string, meta map[string]string, model any) error {
	b, err := Marshal(kind, meta, model)
	if err != nil {
		return err
	}
	if err := s.PutModel(name, b); err != nil {
		return fmt.Errorf("store model %s: %w", name, err)
	}
	return nil
}

// Get reads model name of the given kind from s.
func Get(s BlobStore, name, kind string, model any) (map[string]string, error) {
	b, err := s.GetModel(name)
	if err != nil {
		return nil, fmt.Errorf("get model %s: %w", name, err)
	}
	meta, err := Unmarshal(b, kind, model)
	if err != nil {
		return nil, fmt.Errorf("get model %s: %w", name, err)
	}
	return meta, nil
}
