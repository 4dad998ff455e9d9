package profile

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/dwcrawl/dwcrawl/core/script"
)

// repoFile finds a file of the repository by walking up from the package dir.
func repoFile(t *testing.T, rel string) string {
	t.Helper()
	dir, _ := os.Getwd()
	for {
		p := filepath.Join(dir, rel)
		if _, err := os.Stat(p); err == nil {
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatalf("%s not found above the package directory", rel)
		}
		dir = parent
	}
}

func TestLoadAuto(t *testing.T) {
	p, err := Load(context.Background(), repoFile(t, "domains/auto.lua"))
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "auto" || p.Domain != "auto" || p.Strategy != "smartcrawler" {
		t.Errorf("name/domain/strategy = %q/%q/%q", p.Name, p.Domain, p.Strategy)
	}
	if len(p.Seeds) < 5 || p.Seeds[0] != "https://www.autotrader.com/" {
		t.Errorf("seeds = %v", p.Seeds)
	}
	if p.Reverse.Plugin != "" || len(p.Reverse.Engines()) != 3 || p.Reverse.Engines()[0] != "search/searxng" || p.Stop.MaxDepth != 5 || p.Rank.Alpha != 0.5 ||
		p.Learn.SitesEvery != 50 || p.Learn.FormsEvery != 100 || p.Politeness.Delay != 2*time.Second {
		t.Errorf("settings: %+v", p)
	}
	s := p.String()
	for _, want := range []string{"name: auto\n", "  max_depth: 5", "# SC1", "  - https://www.cars.com/\n", "  delay: 2s\n", "user_agent: dwcrawl/0.1 (+https://github.com/dwcrawl/dwcrawl)\n"} {
		if !strings.Contains(s, want) {
			t.Errorf("String() lacks %q:\n%s", want, s)
		}
	}
}

func TestDefaults(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "tiny.lua")
	os.WriteFile(path, []byte(`return { keywords = {" Used  CAR ", "used car"}, seeds = {"Example.COM", "http://x.test/a"}, rank = { alpha = 0 } }`), 0o644)
	p, err := Load(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	d := Defaults()
	if p.Name != "tiny" || p.Domain != "tiny" || p.Stop != d.Stop || p.Learn != d.Learn || !reflect.DeepEqual(p.Politeness, d.Politeness) ||
		!reflect.DeepEqual(p.Reverse, d.Reverse) || p.Sitemaps != d.Sitemaps || !p.Sitemaps.Enabled || p.Scope.Limited() {
		t.Errorf("defaults not applied: %+v", p)
	}
	if p.Rank.Alpha != 0 || p.Rank.TopK != 20 {
		t.Errorf("explicit alpha 0 lost or top_k default missing: %+v", p.Rank)
	}
	if strings.Join(p.Keywords, "|") != "used car" {
		t.Errorf("keywords = %q", p.Keywords)
	}
	if strings.Join(p.Seeds, " ") != "https://example.com/ http://x.test/a" {
		t.Errorf("seeds = %q", p.Seeds)
	}
}

func TestErrors(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "form.html"), []byte("<form></form>"), 0o644)
	tests := []struct {
		name, src, want string
	}{
		{"wrong type", "return dw.domain{\n  keywords = {'car'},\n  seeds = {'a.com'},\n  stop = {\n    max_depth = \"3\",\n  },\n}\n",
			`x.lua:5: stop.max_depth: expected integer, got string "3"`},
		{"unknown key", "return {\n  keywords = {'car'},\n  seeds = {'a.com'},\n  stop = { max_deph = 3 },\n}\n",
			`x.lua:4: stop.max_deph: unknown key (did you mean "max_depth"?)`},
		{"alpha range", "return {\n  keywords = {'car'},\n  seeds = {'a.com'},\n  rank = {\n    alpha = 1.5,\n  },\n}\n",
			"x.lua:5: rank.alpha: must be in [0,1], got 1.5"},
		{"no keywords", "return {\n  seeds = {'a.com'},\n}\n", "x.lua:1: keywords: must list at least one topic keyword"},
		{"bad seed", "return {\n  keywords = {'car'},\n  seeds = {\n    'a.com',\n    'ftp://b.com',\n  },\n}\n",
			`x.lua:5: seeds[2]: seed must be an http or https URL, got "ftp://b.com"`},
		{"no seeds nor plugin", "return { keywords = {'car'} }\n", "x.lua:1: seeds: give at least one seed site"},
		{"bad plugin", "return {\n  keywords = {'car'},\n  reverse = { plugin = 'simweb' },\n}\n",
			`x.lua:3: reverse.plugin: must name a search plugin as "search/<name>", got "simweb"`},
		{"bad strategy", "return {\n  keywords = {'car'}, seeds = {'a.com'},\n  strategy = 'dfs',\n}\n",
			`x.lua:3: strategy: must be one of smartcrawler, scdi, ache, bestfirst, got "dfs"`},
		{"negative learn", "return {\n  keywords = {'car'}, seeds = {'a.com'},\n  learn = { forms_every = 0 },\n}\n",
			"x.lua:3: learn.forms_every: must be at least 1, got 0"},
		{"missing example", "return {\n  keywords = {'car'}, seeds = {'a.com'},\n  forms = { examples = {\n    'form.html',\n    'nope.html',\n  } },\n}\n",
			"x.lua:5: forms.examples[2]: form example file: stat"},
		{"missing example page", "return {\n  keywords = {'car'}, seeds = {'a.com'},\n  examples = { 'https://cars.example/', 'nope.html' },\n}\n",
			"x.lua:3: examples[2]: example page file: stat"},
		{"bad example URL", "return {\n  keywords = {'car'}, seeds = {'a.com'},\n  examples = { 'https:///x' },\n}\n",
			"x.lua:3: examples[1]: example page URL"},
		{"bad duration", "return {\n  keywords = {'car'}, seeds = {'a.com'},\n  politeness = { delay = 'fast' },\n}\n",
			`x.lua:3: politeness.delay: expected a duration such as "30s" or "1m30s", got "fast"`},
		{"bad plugins", "return {\n  keywords = {'car'},\n  reverse = { plugins = {\n    'search/brave',\n    'brave',\n  } },\n}\n",
			`x.lua:5: reverse.plugins[2]: must name a search plugin as "search/<name>", got "brave"`},
		{"bad per_ip", "return {\n  keywords = {'car'}, seeds = {'a.com'},\n  politeness = { per_ip = 'yes' },\n}\n",
			`x.lua:3: politeness.per_ip: expected boolean, got string "yes"`},
		{"bad header name", "return {\n  keywords = {'car'}, seeds = {'a.com'},\n  politeness = { headers = {\n    ['Bad Name'] = 'x',\n  } },\n}\n",
			`x.lua:4: politeness.headers["Bad Name"]: "Bad Name" is not an HTTP header name`},
		{"header user agent", "return {\n  keywords = {'car'}, seeds = {'a.com'},\n  politeness = { headers = { ['user-agent'] = 'x' } },\n}\n",
			`x.lua:3: politeness.headers["user-agent"]: set the User-Agent with politeness.user_agent`},
		{"bad host glob", "return {\n  keywords = {'car'}, seeds = {'a.com'},\n  scope = {\n    allow_hosts = { 'http://*.a.com' },\n  },\n}\n",
			`x.lua:4: scope.allow_hosts[1]: want a host name glob`},
		{"bad regexp", "return {\n  keywords = {'car'}, seeds = {'a.com'},\n  scope = {\n    deny = {\n      '/ok',\n      '(unclosed',\n    },\n  },\n}\n",
			"x.lua:6: scope.deny[2]: bad regular expression: error parsing regexp: missing closing )"},
		{"negative cap", "return {\n  keywords = {'car'}, seeds = {'a.com'},\n  scope = { max_pages_per_host = -1 },\n}\n",
			"x.lua:3: scope.max_pages_per_host: must not be negative"},
		{"sitemap files", "return {\n  keywords = {'car'}, seeds = {'a.com'},\n  sitemaps = { max_files = 0 },\n}\n",
			"x.lua:3: sitemaps.max_files: must be at least 1"},
		{"syntax", "return {\n  keywords = {'car'}\n  seeds = {'a.com'},\n}\n", "x.lua:3: syntax error near 'seeds'"},
		{"runtime", "local base = nil\nreturn {\n  keywords = base.keywords,\n}\n", "x.lua:3: attempt to index a non-table object(nil) with key 'keywords'"},
		{"returns nothing", "local x = 1\n", "x.lua: expected table, got nil"},
		{"probe one query", "return {\n  keywords = {'car'}, seeds = {'a.com'},\n  probe = {\n    queries = 1,\n  },\n}\n",
			"x.lua:4: probe.queries: must be 0 (no probing) or from 2 to 20"},
		{"probe too many", "return {\n  keywords = {'car'}, seeds = {'a.com'},\n  probe = { queries = 21 },\n}\n",
			"x.lua:3: probe.queries: must be 0 (no probing) or from 2 to 20"},
		{"probe wrong type", "return {\n  keywords = {'car'}, seeds = {'a.com'},\n  probe = { queries = 'three' },\n}\n",
			`x.lua:3: probe.queries: expected integer, got string "three"`},
		{"probe unknown key", "return {\n  keywords = {'car'}, seeds = {'a.com'},\n  probe = { querys = 3 },\n}\n",
			`x.lua:3: probe.querys: unknown key (did you mean "queries"?)`},
		{"probe budget below a form", "return {\n  keywords = {'car'}, seeds = {'a.com'},\n  probe = { queries = 4,\n    budget = 3 },\n}\n",
			"x.lua:4: probe.budget: must allow one form's probe (4 queries), got 3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, "x.lua")
			_, err := LoadSource(context.Background(), path, []byte(tt.src))
			if err == nil {
				t.Fatal("no error")
			}
			var se *script.Error
			if !errors.As(err, &se) {
				t.Fatalf("%v is %T, not *script.Error", err, err)
			}
			got := strings.TrimPrefix(err.Error(), dir+string(filepath.Separator))
			if !strings.HasPrefix(got, tt.want) {
				t.Fatalf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestProbe(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "p.lua")
	os.WriteFile(path, []byte(`return { keywords = {"car"}, seeds = {"a.com"}, probe = { queries = 4 } }`), 0o644)
	p, err := Load(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if p.Probe.Queries != 4 || p.Probe.Budget != 200 {
		t.Errorf("probe = %+v, want 4 queries and the default budget 200", p.Probe)
	}
	if !strings.Contains(p.String(), "queries: 4") {
		t.Errorf("String() lacks the probe settings:\n%s", p.String())
	}
	if d := Defaults(); d.Probe.Queries != 0 {
		t.Errorf("probing is on by default: %+v", d.Probe)
	}
}

func TestMarshalJSON(t *testing.T) {
	d := Defaults()
	d.Name = "x"
	b, err := d.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"max_pages_no_form":50`, `"delay":"1s"`, `"alpha":0.5`, `"seeds":[]`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("JSON lacks %s: %s", want, b)
		}
	}
}

func TestScope(t *testing.T) {
	src := `return {
  keywords = {'law'}, seeds = {'http://law.lab.test:8080/'},
  politeness = { headers = { ['Accept-Language'] = 'de' } },
  scope = {
    allow_hosts = { '*.lab.test' },
    deny_hosts = { 'forms.lab.test' },
    allow = { '^https?://' },
    deny = { '[?&]action=(edit|history)', '/wp-login\\.php' },
    max_pages_per_host = 40,
  },
}`
	p, err := LoadSource(context.Background(), filepath.Join(t.TempDir(), "lab.lua"), []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if p.Politeness.Headers["Accept-Language"] != "de" || p.Scope.MaxPagesPerHost != 40 || !p.Scope.Limited() {
		t.Fatalf("profile: %+v", p)
	}
	if s := p.String(); !strings.Contains(s, "  headers:\n    Accept-Language: de\n") || !strings.Contains(s, "max_pages_per_host: 40") {
		t.Errorf("String():\n%s", s)
	}
	tests := []struct {
		url  string
		ok   bool
		rule string
	}{
		{"http://law.lab.test:8080/cgi-bin/omega?P=court", true, ""},
		{"http://LAB.TEST/", false, "allow_hosts"}, // the glob wants a subdomain
		{"http://forms.lab.test:8080/pages/x.html", false, "deny_hosts"},
		{"http://wiki.lab.test:8080/index.php?title=X&action=edit", false, "scope.deny"},
		{"http://blog.lab.test:8080/wp-login.php?action=register", false, "scope.deny"},
		{"http://wordpress.org/", false, "allow_hosts"},
		{"http://evil.example/?x=.lab.test", false, "allow_hosts"},
	}
	for _, tt := range tests {
		ok, why := p.Scope.Check(tt.url)
		if ok != tt.ok || !strings.Contains(why, tt.rule) {
			t.Errorf("Check(%s) = %v %q, want %v (%s)", tt.url, ok, why, tt.ok, tt.rule)
		}
	}
	if eng := (Reverse{Plugins: []string{"search/searxng", "search/brave"}}).Engines(); len(eng) != 2 {
		t.Errorf("Engines = %v", eng)
	}
	if eng := (Reverse{Plugin: "search/google", Plugins: []string{"search/brave"}}).Engines(); len(eng) != 1 || eng[0] != "search/google" {
		t.Errorf("Engines with plugin = %v", eng)
	}
}
