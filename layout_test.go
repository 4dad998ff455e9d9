// Package dwcrawl_test checks the layout rules of the repository (README
// "Layout"): the algorithms in core/ depend on nothing outside the core
// and the store, name no command-line flag, and the released binary does
// not link package testing (but through the required stemmer library, see
// testingImporters).
package dwcrawl_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/dwcrawl/dwcrawl/"

// outer are the folders no core package may import: the layers that use
// the core (the CLI, the assembly, the bundled plugins) and everything that
// exists only to evaluate or to generate.
var outer = []string{"cmd/", "internal/", "testbed/", "experiment/", "tools/", "plugins/"}

// coreFiles parses the non-test Go files under core/ (imports and string
// literals are all the rules need).
func coreFiles(t *testing.T) map[string]*ast.File {
	t.Helper()
	fset := token.NewFileSet()
	files := map[string]*ast.File{}
	err := filepath.WalkDir("core", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "testdata" {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files[path] = f
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 50 {
		t.Fatalf("found %d core files: not run from the repository root?", len(files))
	}
	return files
}

func TestCoreImportsNoOuterLayer(t *testing.T) {
	for path, f := range coreFiles(t) {
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			rel, ok := strings.CutPrefix(p, module)
			if !ok {
				continue
			}
			for _, o := range outer {
				if strings.HasPrefix(rel, o) {
					t.Errorf("%s imports %s: core packages must not depend on %s", path, p, o)
				}
			}
		}
	}
}

// flag matches a command-line flag inside a string: "give --k".
var flag = regexp.MustCompile(`(^|[\s("'\x60])--[a-z][a-z0-9-]*`)

func TestCoreNamesNoFlags(t *testing.T) {
	for path, f := range coreFiles(t) {
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			if s, err := strconv.Unquote(lit.Value); err == nil && flag.MatchString(s) {
				t.Errorf("%s: string %s names a command-line flag: return a flag-neutral error and let the CLI name the flag", path, lit.Value)
			}
			return true
		})
	}
}

// testingImporters are the packages outside this module allowed to import
// package testing from a non-test file. kljensen/snowball (a required
// library: the English stemmer) keeps a test helper in romance/testing_helpers.go
// in every released version (v0.6.0 to v0.10.0); nothing of ours may add to it.
var testingImporters = map[string]bool{"github.com/kljensen/snowball/romance": true}

func TestBinaryLinksNoTesting(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command:", err)
	}
	out, err := exec.Command(goBin, "list", "-deps", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./cmd/dwcrawl").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		p, imports := f[0], f[1:]
		for _, imp := range imports {
			if (imp == "testing" || strings.HasPrefix(imp, "testing/") || imp == "net/http/httptest") && !testingImporters[p] {
				t.Errorf("the dwcrawl binary links %s through %s", imp, p)
			}
		}
		if rel, ok := strings.CutPrefix(p, module); ok && (strings.HasPrefix(rel, "tools/") || strings.HasSuffix(rel, "/sharedtest")) {
			t.Errorf("the dwcrawl binary links %s", p)
		}
	}
}
