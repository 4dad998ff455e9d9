package plugins

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dwcrawl/dwcrawl/core/script"
)

func writeFile(t *testing.T, path, src string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestFind(t *testing.T) {
	user := t.TempDir()
	writeFile(t, filepath.Join(user, "keyword", "example.lua"), "-- user override\n")
	tests := []struct {
		kind, name string
		dirs       []string
		wantPath   string
		wantErr    error
	}{
		{"search", "example", nil, "plugins/search/example.lua", nil},
		{"keyword", "example", nil, "plugins/keyword/example.lua", nil},
		{"keyword", "example", []string{user}, filepath.Join(user, "keyword", "example.lua"), nil},
		{"search", "nope", []string{user}, "", ErrNotFound},
		{"weird", "example", nil, "", nil},
		{"search", "../x", nil, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.kind+"/"+tt.name, func(t *testing.T) {
			p, src, err := Find(tt.kind, tt.name, tt.dirs...)
			if tt.wantPath == "" {
				if err == nil {
					t.Fatalf("found %s", p)
				}
				if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p != tt.wantPath || len(src) == 0 {
				t.Fatalf("path = %s (%d bytes), want %s", p, len(src), tt.wantPath)
			}
		})
	}
	if k, n, err := SplitRef("search/simweb"); err != nil || k != "search" || n != "simweb" {
		t.Errorf("SplitRef = %q %q %v", k, n, err)
	}
	if _, _, err := SplitRef("simweb"); err == nil {
		t.Error("SplitRef accepted a bare name")
	}
}

func TestLoadAndCall(t *testing.T) {
	pool := script.NewPool(PoolOptions(script.Options{}))
	defer pool.Close()
	ctx := context.Background()

	kw, err := Load(ctx, pool, "keyword", "example")
	if err != nil {
		t.Fatal(err)
	}
	defer kw.Close()
	if kw.Kind != "keyword" || kw.Name != "example" || kw.Version != "0.1.0" || !kw.Embedded {
		t.Fatalf("info %+v", kw.Info)
	}
	res, err := kw.Call(ctx, "search", "used", 2)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(res.Go().(map[string]any)["records"]); !strings.Contains(got, "id:3") {
		t.Errorf("page 2 of 'used' = %s", got)
	}
	if _, err := kw.Call(ctx, "fetch"); err == nil || !strings.Contains(err.Error(), "fetch: plugin does not define this function") {
		t.Errorf("missing function: %v", err)
	}

	se, err := Load(ctx, pool, "search", "example")
	if err != nil {
		t.Fatal(err)
	}
	defer se.Close()
	res, err = se.Call(ctx, "search", "link:https://www.example-dealer.test/", 1)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(res.Go()); !strings.Contains(got, "https://www.example-cars.test/") {
		t.Errorf("link: query = %s", got)
	}
}

func TestValidation(t *testing.T) {
	user := t.TempDir()
	writeFile(t, filepath.Join(user, "search", "_helpers.lua"), "local M = {}\nfunction M.hello() return 'hi' end\nreturn M\n")
	cases := []struct {
		name, src, want string
	}{
		{"good with helper", "local h = require('search._helpers')\nreturn dw.plugin{ kind = 'search', name = 'x', version = '1.0.0', search = function() return h.hello() end }\n", ""},
		{"no version", "return dw.plugin{\n  kind = 'search',\n  name = 'x',\n  search = function() end,\n}\n", "x.lua:1: version: missing"},
		{"bad version", "return dw.plugin{\n  kind = 'search', name = 'x',\n  version = 'latest',\n  search = function() end,\n}\n", `x.lua:3: version: must be a version such as "1.0.0", got "latest"`},
		{"wrong kind", "return {\n  kind = 'keyword',\n  name = 'x', version = '1.0', search = function() end,\n}\n", `x.lua:2: kind: is "keyword" but a search plugin was asked for`},
		{"name mismatch", "return {\n  kind = 'search',\n  name = 'y',\n  version = '1.0', search = function() end,\n}\n", `x.lua:3: name: is "y" but the file is x.lua`},
		{"no search", "return { kind = 'search', name = 'x', version = '1.0' }\n", "x.lua:1: search: a search plugin must define search"},
		{"not a table", "return 'x'\n", "x.lua: a plugin must return a table"},
		{"syntax", "return {\n  kind = 'search'\n  name = 'x',\n}\n", "x.lua:3: syntax error near 'name'"},
		{"missing helper", "local h = require('search._nope')\nreturn {}\n", `x.lua:1: require "search._nope": module not found`},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			file := filepath.Join(user, "search", "x.lua")
			writeFile(t, file, tt.src)
			pool := script.NewPool(PoolOptions(script.Options{}, user))
			defer pool.Close()
			p, err := Load(context.Background(), pool, "search", "x", user)
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				defer p.Close()
				v, err := p.Call(context.Background(), "search")
				if err != nil || v.Go() != "hi" {
					t.Fatalf("call = %v, %v", v, err)
				}
				return
			}
			if err == nil {
				p.Close()
				t.Fatal("no error")
			}
			got := strings.TrimPrefix(err.Error(), filepath.Join(user, "search")+string(filepath.Separator))
			if !strings.HasPrefix(got, tt.want) {
				t.Fatalf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestList(t *testing.T) {
	user := t.TempDir()
	writeFile(t, filepath.Join(user, "search", "mine.lua"), "return dw.plugin{ kind = 'search', name = 'mine', version = '2.0', search = function() end }\n")
	writeFile(t, filepath.Join(user, "search", "_lib.lua"), "return {}\n")
	writeFile(t, filepath.Join(user, "keyword", "broken.lua"), "return {\n")
	list := List(user)
	byRef := map[string]Info{}
	for _, i := range list {
		byRef[i.Ref()] = i
	}
	if i := byRef["search/mine"]; i.Version != "2.0" || i.Embedded || i.Err != nil {
		t.Errorf("search/mine = %+v", i)
	}
	if i := byRef["search/example"]; !i.Embedded || i.Err != nil || i.Path != "plugins/search/example.lua" {
		t.Errorf("search/example = %+v", i)
	}
	if i := byRef["keyword/broken"]; i.Err == nil || !strings.Contains(i.Err.Error(), "broken.lua:1: syntax error") {
		t.Errorf("keyword/broken = %+v", i)
	}
	if _, ok := byRef["search/_lib"]; ok {
		t.Error("helper module listed as a plugin")
	}
	// Every bundled plugin loads cleanly.
	for _, i := range List() {
		if i.Err != nil {
			t.Errorf("bundled plugin %s: %v", i.Ref(), i.Err)
		}
	}
}
