package plugins

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

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
