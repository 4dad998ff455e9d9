package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/dwcrawl/dwcrawl/internal/shareddata"
	"github.com/dwcrawl/dwcrawl/store"
	"github.com/dwcrawl/dwcrawl/testbed/simweb"
)

// realCrawl is a small testbed crawl made once by `dwcrawl run`; tests
// damage copies of it.
var realCrawl = sync.OnceValues(func() (string, error) {
	tmp, err := os.MkdirTemp("", "dwcrawl-check-test-")
	if err != nil {
		return "", err
	}
	cfg := filepath.Join(tmp, "small.json")
	if err := os.WriteFile(cfg, smallConfigJSON(), 0o644); err != nil {
		return "", err
	}
	dir := filepath.Join(tmp, "crawl")
	run := func(pages string) error {
		app := newApp()
		app.Writer, app.ErrWriter = io.Discard, io.Discard
		return app.Run([]string{"dwcrawl", "run", "--testbed", "--config", cfg, "--pages", pages, "--dir", dir, "--json", autoProfile})
	}
	// 200 pages in a table file, 100 more in the write-ahead log
	if err := run("200"); err != nil {
		return "", err
	}
	db, err := store.Open(dir, store.Options{})
	if err != nil {
		return "", err
	}
	err = db.Flush()
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", err
	}
	return dir, run("300")
})

// realCrawlUsed says whether a test made the shared crawl (to remove).
var realCrawlUsed bool

var autoProfile = filepath.Join("..", "..", "domains", "auto.lua")

func smallConfigJSON() []byte { return simweb.SmallConfig().JSON() }

func TestMain(m *testing.M) {
	if os.Getenv(selfMainEnv) != "" {
		// a child of a bench test: run as dwcrawl
		os.Args[0] = "dwcrawl"
		main()
		os.Exit(0)
	}
	code := m.Run()
	if realCrawlUsed {
		if dir, err := realCrawl(); err == nil && dir != "" {
			os.RemoveAll(filepath.Dir(dir))
		}
	}
	os.Exit(code)
}

func crawlCopy(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("crawls the simulated web")
	}
	realCrawlUsed = true
	src, err := realCrawl()
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), "crawl")
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// files lists the names and sizes in dir (the lock file left out).
func files(t *testing.T, dir string) string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if e.Name() == "LOCK" {
			continue
		}
		fi, _ := e.Info()
		out = append(out, fmt.Sprintf("%s:%d", e.Name(), fi.Size()))
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

func firstGlob(t *testing.T, dir, pattern string) string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(dir, pattern))
	if len(m) == 0 {
		t.Fatalf("no %s in %s", pattern, dir)
	}
	sort.Strings(m)
	return m[len(m)-1]
}

// TestMissingManifestMarkerLosesNothing reproduces the loss of a crawl in
// issue 19: with marker.manifest.* gone, `forms` exited 0 with no forms and
// deleted every table file, and `run` replaced the crawl with a new one.
// Now each is an error naming the marker, and every file stays.
func TestMissingManifestMarkerLosesNothing(t *testing.T) {
	dir := crawlCopy(t)
	marker := firstGlob(t, dir, "marker.manifest.*")
	if err := os.Remove(marker); err != nil {
		t.Fatal(err)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "*.sst")); len(m) == 0 {
		t.Fatal("the crawl has no table file")
	}
	before := files(t, dir)
	for _, args := range [][]string{
		{"forms", "--dir", dir},
		{"features", "--dir", dir},
		{"report", "--dir", dir, "--out", filepath.Join(t.TempDir(), "r.html")},
		{"docs", "--dir", dir},
		{"run", "--testbed", "--pages", "5", "--dir", dir, autoProfile},
		{"check", "--dir", dir},
	} {
		out, _, err := runApp(t, args...)
		if err == nil {
			t.Errorf("%s succeeded on a directory without its manifest marker:\n%s", args[0], out)
			continue
		}
		if !strings.Contains(err.Error()+out, "marker.manifest") {
			t.Errorf("%s: %v (want the missing marker named)", args[0], err)
		}
		if after := files(t, dir); after != before {
			t.Fatalf("%s changed the directory:\nbefore %s\nafter  %s", args[0], before, after)
		}
	}
}

// TestDamagedCrawl: a damaged copy of a real crawl is an error naming the
// damaged file for every read-only command and for check, never a panic.
func TestDamagedCrawl(t *testing.T) {
	for _, d := range []struct {
		name   string
		damage func(t *testing.T, dir string) string
		check  bool // only check sees it (a torn log is what a crash leaves)
	}{
		{"zeroed table footer", func(t *testing.T, dir string) string {
			f := firstGlob(t, dir, "*.sst")
			zeroEnd(t, f, 64)
			return filepath.Base(f)
		}, false},
		{"missing manifest", func(t *testing.T, dir string) string {
			f := firstGlob(t, dir, "MANIFEST-*")
			os.Remove(f)
			return filepath.Base(f)
		}, false},
		{"truncated log", func(t *testing.T, dir string) string {
			f := firstGlob(t, dir, "*.log")
			fi, _ := os.Stat(f)
			os.Truncate(f, fi.Size()*2/3)
			return filepath.Base(f)
		}, true},
	} {
		t.Run(d.name, func(t *testing.T) {
			dir := crawlCopy(t)
			file := d.damage(t, dir)
			before := files(t, dir)
			cmds := [][]string{{"check", "--dir", dir}}
			if !d.check {
				cmds = append(cmds, []string{"forms", "--dir", dir}, []string{"features", "--dir", dir})
			}
			for _, args := range cmds {
				out, _, err := runApp(t, args...)
				var ee errExit
				if err == nil || !errors.As(err, &ee) || ee.code != 1 {
					t.Errorf("%s: exit %v, want 1:\n%s", args[0], err, out)
					continue
				}
				if !strings.Contains(out+err.Error(), file) {
					t.Errorf("%s does not name %s: %v\n%s", args[0], file, err, out)
				}
			}
			if after := files(t, dir); after != before {
				t.Errorf("directory changed:\nbefore %s\nafter  %s", before, after)
			}
		})
	}
	// The undamaged crawl checks clean.
	dir := crawlCopy(t)
	out, _, err := runApp(t, "check", "--dir", dir)
	if err != nil || !strings.Contains(out, "no problems") || !strings.Contains(out, "crawl of profile auto") {
		t.Fatalf("check of the undamaged crawl: %v\n%s", err, out)
	}
}

func zeroEnd(t *testing.T, path string, n int64) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	if _, err := f.WriteAt(make([]byte, n), fi.Size()-n); err != nil {
		t.Fatal(err)
	}
}

// TestCrawlDirectoryIdentity: a crawl directory takes only its own crawl:
// another profile, another strategy or another kind of directory is
// refused naming both, and --continue-as lets another profile go on.
func TestCrawlDirectoryIdentity(t *testing.T) {
	dir := crawlCopy(t)
	cfg := filepath.Join(t.TempDir(), "small.json")
	if err := os.WriteFile(cfg, smallConfigJSON(), 0o644); err != nil {
		t.Fatal(err)
	}
	book := filepath.Join("..", "..", "domains", "book.lua")
	_, _, local, url := enrichFixture(t)
	before := files(t, dir)
	for _, tc := range []struct {
		name  string
		args  []string
		wants []string
	}{
		{"other profile", []string{"run", "--testbed", "--config", cfg, "--pages", "300", "--dir", dir, book}, []string{"profile auto", "profile book", "--continue-as"}},
		{"other strategy", []string{"run", "--testbed", "--config", cfg, "--pages", "300", "--strategy", "ache", "--dir", dir, autoProfile}, []string{"strategy smartcrawler", "strategy ache"}},
		{"other web", []string{"run", "--testbed", "--config", cfg, "--seed", "2", "--pages", "300", "--dir", dir, autoProfile}, []string{"simweb seed 1", "simweb seed 2"}},
		// the same seed and configuration on other data (an empty data
		// folder here; a run from another working directory in use)
		{"other data", []string{"run", "--testbed", "--config", cfg, "--pages", "300", "--dir", dir, autoProfile}, []string{"→ simweb seed 1", "data e3b0c44298fc" /* SHA-256 of no files */, shareddata.EnvVar}},
		{"enrich into a crawl", []string{"enrich", "--local", local, "--columns", "title,author", "--interface", url, "--budget", "2", "--dir", dir}, []string{"crawl directory", "made by dwcrawl run", "an enrich directory"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "other data" {
				t.Setenv(shareddata.EnvVar, t.TempDir())
			}
			out, _, err := runApp(t, tc.args...)
			if err == nil {
				t.Fatalf("accepted:\n%s", out)
			}
			for _, w := range tc.wants {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q: %v", w, err)
				}
			}
			if after := files(t, dir); after != before {
				t.Errorf("directory changed:\nbefore %s\nafter  %s", before, after)
			}
		})
	}
	// An enrichment directory given to run.
	edir := filepath.Join(t.TempDir(), "enrich")
	db, err := store.Open(edir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.ClaimKind(store.KindEnrich); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, _, err := runApp(t, "run", "--testbed", "--config", cfg, "--pages", "5", "--dir", edir, autoProfile); err == nil || !strings.Contains(err.Error(), "enrich directory") {
		t.Errorf("run into an enrichment directory: %v", err)
	}
	// The same crawl resumes; --continue-as takes another profile on.
	if _, _, err := runApp(t, "run", "--testbed", "--config", cfg, "--pages", "300", "--dir", dir, autoProfile); err != nil {
		t.Fatalf("resume: %v", err)
	}
	if _, _, err := runApp(t, "run", "--testbed", "--config", cfg, "--pages", "300", "--continue-as", "--dir", dir, book); err != nil {
		t.Fatalf("--continue-as: %v", err)
	}
	db, err = store.OpenReadOnly(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if id, ok, err := db.Identity(); err != nil || !ok || id.Profile != "book" || id.Updated.IsZero() {
		t.Errorf("identity after --continue-as: %+v %v %v", id, ok, err)
	}
}
