package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestProfileCheck(t *testing.T) {
	good := filepath.Join("..", "..", "domains", "auto.lua")
	src, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	broken := func(name, from, to string) string {
		if !bytes.Contains(src, []byte(from)) {
			t.Fatalf("auto.lua no longer contains %q", from)
		}
		p := filepath.Join(dir, name)
		os.WriteFile(p, bytes.Replace(src, []byte(from), []byte(to), 1), 0o644)
		return p
	}
	lineOf := func(s string) int {
		return bytes.Count(src[:bytes.Index(src, []byte(s))], []byte("\n")) + 1
	}
	depth := "max_depth                   = 5,"
	tests := []struct {
		name    string
		args    []string
		wantOut []string
		wantErr string
		code    int
	}{
		{"good", []string{good}, []string{"name: auto\n", "max_depth: 5", "# SC1", "  - https://www.autotrader.com/\n"}, "", 0},
		{"json", []string{"--json", good}, []string{`"max_depth": 5`, `"plugins": [`, `"search/searxng"`}, "", 0},
		{"wrong type", []string{broken("type.lua", depth, `max_depth = "3",`)}, nil,
			filepath.Join(dir, "type.lua") + ":" + strconv.Itoa(lineOf(depth)) + `: stop.max_depth: expected integer, got string "3"`, 1},
		{"unknown key", []string{broken("key.lua", depth, `max_dept = 3,`)}, nil,
			filepath.Join(dir, "key.lua") + ":" + strconv.Itoa(lineOf(depth)) + `: stop.max_dept: unknown key (did you mean "max_depth"?)`, 1},
		{"syntax", []string{broken("syntax.lua", depth, `max_depth = 3 3,`)}, nil,
			filepath.Join(dir, "syntax.lua") + ":" + strconv.Itoa(lineOf(depth)) + ": syntax error near '3'", 1},
		{"alpha", []string{broken("alpha.lua", "alpha = 0.5", "alpha = 2")}, nil,
			filepath.Join(dir, "alpha.lua") + ":" + strconv.Itoa(lineOf("alpha = 0.5")) + ": rank.alpha: must be in [0,1], got 2", 1},
		{"custom domain", []string{filepath.Join("..", "..", "core", "crawl", "testdata", "recipes.lua")}, []string{
			"domain: cooking\n", `# custom domain "cooking": classifiers trained from the profile`,
			`domain classifier for "cooking" trained from 19 keywords, 7 form keywords, 1 example forms and 1 example pages`,
			`site classifier for "cooking" trained from 26 keywords, 1 homepages`, "learn from 3 fetched pages"}, "", 0},
		{"built-in domain", []string{good}, []string{`# classifiers: the embedded form model's "auto" domain`}, "", 0},
		{"missing file", []string{filepath.Join(dir, "none.lua")}, nil, "no such file", 1},
		{"no argument", nil, nil, "expected one FILE.lua argument", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			app := newApp()
			app.Writer, app.ErrWriter = &out, &errOut
			err := app.Run(append([]string{"dwcrawl", "profile", "check"}, tt.args...))
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("error: %v", err)
				}
				for _, w := range tt.wantOut {
					if !strings.Contains(out.String(), w) {
						t.Errorf("output lacks %q:\n%s", w, out.String())
					}
				}
				if tt.name == "json" {
					var m map[string]any
					if err := json.Unmarshal(out.Bytes(), &m); err != nil {
						t.Errorf("--json output is not JSON: %v", err)
					}
				}
				return
			}
			var ee errExit
			if !errors.As(err, &ee) || ee.code != tt.code {
				t.Fatalf("err = %v (%T), want errExit code %d", err, err, tt.code)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("got  %q\nwant %q", err.Error(), tt.wantErr)
			}
		})
	}
}
