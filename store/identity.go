package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"time"

	"github.com/cockroachdb/pebble/v2"
)

// Directory kinds, as Identity.Kind records them.
const (
	KindCrawl   = "crawl"   // dwcrawl run
	KindSurface = "surface" // dwcrawl surface of a keyword interface
	KindEnrich  = "enrich"  // dwcrawl enrich
)

// ErrKind is returned (wrapped, naming both kinds) when a command opens a
// directory another kind of command made.
var ErrKind = errors.New("directory made by another command")

// Identity says what a directory is: which command made it and, for a
// crawl, from which profile, with which strategy, against which web. Later
// commands compare themselves with it so that two crawls never mix.
type Identity struct {
	Kind string `json:"kind"`
	// Profile is the profile's name, ProfileHash the SHA-256 of its file,
	// Domain its domain.
	Profile     string `json:"profile,omitempty"`
	ProfileHash string `json:"profile_hash,omitempty"`
	Domain      string `json:"domain,omitempty"`
	Strategy    string `json:"strategy,omitempty"`
	// Web is "real web" or "simweb seed N config HASH, DATA" (DATA: "built-in
	// data" or "data HASH"; directories of older versions omit it).
	Web     string    `json:"web,omitempty"`
	Created time.Time `json:"created"`
	// Updated is when a later command was allowed to change the identity
	// (--continue-as), zero otherwise.
	Updated time.Time `json:"updated,omitzero"`
}

var metaIdentityKey = []byte{TagMeta, 'i'}

// Identity returns the directory's recorded identity; ok is false for a
// directory made before identities were recorded, or not claimed yet.
func (db *DB) Identity() (id Identity, ok bool, err error) {
	v, ok, err := db.getRaw(metaIdentityKey)
	if err != nil || !ok {
		return id, false, wrapErr("read the directory's identity", err)
	}
	if err := json.Unmarshal(v, &id); err != nil {
		return id, false, fmt.Errorf("store: %s: the directory's identity record: %w", db.dir, err)
	}
	return id, true, nil
}

// SetIdentity records the directory's identity (synced).
func (db *DB) SetIdentity(id Identity) error {
	if err := db.checkWrite(); err != nil {
		return err
	}
	v, err := json.Marshal(id)
	if err != nil {
		return err
	}
	if err := db.pdb.Set(metaIdentityKey, v, pebble.Sync); err != nil {
		return wrapErr("record the directory's identity", err)
	}
	return nil
}

// ClaimKind checks that the directory was made by a command of kind, or of
// one of the kinds in also (a surfacing of a form a crawl found goes into
// the crawl's directory), and records kind in a directory that has no
// identity yet. It returns the identity in force.
func (db *DB) ClaimKind(kind string, also ...string) (Identity, error) {
	id, ok, err := db.Identity()
	if err != nil {
		return id, err
	}
	if ok {
		return id, kindError(db.dir, id, kind, also)
	}
	id = Identity{Kind: kind, Created: time.Now().UTC()}
	if db.readOnly {
		return id, nil
	}
	return id, db.SetIdentity(id)
}

// commandOf names the command that makes a kind of directory.
func commandOf(kind string) string {
	if kind == KindCrawl {
		return "run"
	}
	return kind
}

func article(kind string) string {
	if kind == "" {
		return "an unknown"
	}
	switch kind[0] {
	case 'a', 'e', 'i', 'o', 'u':
		return "an " + kind
	}
	return "a " + kind
}

// PeekIdentity returns the identity recorded in dir without changing
// anything there (a read-only open); ok is false when dir does not exist,
// is empty, or records none. A directory held by a running process is
// read from a snapshot.
func PeekIdentity(dir string) (id Identity, ok bool, err error) {
	switch st, err := inspectDir(dir); {
	case err != nil:
		return id, false, err
	case st != dirStore:
		return id, false, nil
	}
	db, err := OpenReadOnly(dir, Options{Logger: logQuiet})
	if err != nil {
		return id, false, err
	}
	defer db.Close()
	return db.Identity()
}

// peekKind refuses dir when it records a kind other than kind and also.
func peekKind(dir, kind string, also []string) error {
	id, ok, err := PeekIdentity(dir)
	if err != nil || !ok {
		return err
	}
	return kindError(dir, id, kind, also)
}

// kindError is ErrKind when id's kind is neither kind nor one of also.
func kindError(dir string, id Identity, kind string, also []string) error {
	if id.Kind == kind || slices.Contains(also, id.Kind) {
		return nil
	}
	return fmt.Errorf("store: %s is %s directory (made by dwcrawl %s), this command makes %s directory: %w; give another --dir",
		dir, article(id.Kind), commandOf(id.Kind), article(kind), ErrKind)
}

// logQuiet drops Pebble's messages of a peek (the open that follows logs
// them).
var logQuiet = slog.New(slog.NewTextHandler(io.Discard, nil))
