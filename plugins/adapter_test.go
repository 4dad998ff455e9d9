package plugins

import (
	"context"
	"errors"
	"net/http"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/dwcrawl/dwcrawl/core/script"
)

// declCase is a plugin declaration that an adapter must refuse: body is
// written among the keys of plugin kind/x, want is the start of the error
// (positioned in x.lua).
type declCase struct{ name, body, want string }

// checkDeclarations writes each case as plugin kind/x and checks that open
// (which opens kind/x from dir and returns how to close it) fails as wanted.
func checkDeclarations(t *testing.T, kind string, cases []declCase, open func(pool *script.Pool, dir string) (func(), error)) {
	t.Helper()
	dir := t.TempDir()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			writeFile(t, filepath.Join(dir, kind, "x.lua"), "return dw.plugin{\n  kind = '"+kind+"', name = 'x', version = '1.0',\n  "+tt.body+"\n  search = function() end,\n}\n")
			pool := script.NewPool(PoolOptions(script.Options{}, dir))
			defer pool.Close()
			closer, err := open(pool, dir)
			if err == nil {
				closer()
				t.Fatal("no error")
			}
			got := strings.TrimPrefix(err.Error(), filepath.Join(dir, kind)+string(filepath.Separator))
			if !strings.HasPrefix(got, tt.want) {
				t.Fatalf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

// checkWrongPlugin checks that wrap refuses plugin kind/name (of the other
// kind) and a closed plugin.
func checkWrongPlugin(t *testing.T, kind, name string, wrap func(*Plugin) error) {
	t.Helper()
	pool := script.NewPool(PoolOptions(script.Options{}))
	defer pool.Close()
	p, err := Load(context.Background(), pool, kind, name)
	if err != nil {
		t.Fatal(err)
	}
	if err := wrap(p); err == nil || !strings.Contains(err.Error(), "the adapter needs a") {
		t.Errorf("%s plugin accepted: %v", kind, err)
	}
	p.Close()
	if err := wrap(p); err == nil {
		t.Error("closed plugin accepted")
	}
}

// outcome is what one call of an adapter retry test did.
type outcome struct {
	err    error
	prefix string // every error of the call starts with it
	empty  bool   // the call returned an empty page with an unknown total
	slept  []time.Duration
	stats  Stats
}

// checkOutcome compares a call's outcome with the wanted error (nil:
// success) and message, the sleeps, and the stats (zero: not checked).
func checkOutcome(t *testing.T, got outcome, wantErr error, wantMsg string, sleeps []time.Duration, stats Stats) {
	t.Helper()
	if wantErr == nil {
		if got.err != nil {
			t.Fatal(got.err)
		}
	} else {
		var e *Error
		if !errors.Is(got.err, wantErr) || !errors.As(got.err, &e) {
			t.Fatalf("err = %v, want %v", got.err, wantErr)
		}
		if msg := got.err.Error(); !strings.Contains(msg, wantMsg) || !strings.HasPrefix(msg, got.prefix) {
			t.Errorf("err = %q\nwant it to start with %q and contain %q", msg, got.prefix, wantMsg)
		}
		if !got.empty {
			t.Error("a failed call returned results")
		}
	}
	if !reflect.DeepEqual(got.slept, sleeps) {
		t.Errorf("sleeps = %v, want %v", got.slept, sleeps)
	}
	if stats != (Stats{}) && got.stats != stats {
		t.Errorf("stats = %+v, want %+v", got.stats, stats)
	}
}

// checkFailure checks the failure of a call to a bundled plugin: its
// sentinel (wantErr) or code (wantCode), its message, the plugin position in
// it, and the waits before the retries.
func checkFailure(t *testing.T, name string, err, wantErr error, wantCode, wantMsg, position string, slept, wantSleeps []time.Duration) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) || (wantErr != nil && !errors.Is(err, wantErr)) || (wantCode != "" && e.Code != wantCode) || !strings.Contains(err.Error(), wantMsg) {
		t.Errorf("%s: err = %v, want %v%s containing %q", name, err, wantErr, wantCode, wantMsg)
	}
	if err != nil && !strings.Contains(err.Error(), position) {
		t.Errorf("%s: error without plugin position %s: %v", name, position, err)
	}
	if !reflect.DeepEqual(slept, wantSleeps) {
		t.Errorf("%s: sleeps %v, want %v", name, slept, wantSleeps)
	}
}

// checkParams checks query parameters of the request a call sent.
func checkParams(t *testing.T, name string, req *http.Request, params map[string]string) {
	t.Helper()
	for k, v := range params {
		if got := req.URL.Query().Get(k); got != v {
			t.Errorf("%s: request %s: %s = %q, want %q", name, req.URL, k, got, v)
		}
	}
}
