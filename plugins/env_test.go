package plugins

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dwcrawl/dwcrawl/core/script"
)

// TestEnvDeclared: a plugin reads the variables it declares (env, and the
// env of its vars) and no others, also through a helper module; the error
// names the variable and where the plugin declared its list.
func TestEnvDeclared(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "search", "_peek.lua"), "return function(name) return dw.env(name) end\n")
	writeFile(t, filepath.Join(dir, "search", "nosy.lua"), `local peek = require("search._peek")
return dw.plugin{
  kind = "search", name = "nosy", version = "1.0",
  env = { "NOSY_KEY" },
  search = function(q)
    return { results = { { url = "https://a.example/", title = tostring(peek(q)) } } }
  end,
}
`)
	writeFile(t, filepath.Join(dir, "keyword", "kw.lua"), `return dw.plugin{
  kind = "keyword", name = "kw", version = "1.0",
  vars = { base = { env = "KW_BASE" } },
  search = function(q)
    return { records = { { id = tostring(dw.env(q)) } } }
  end,
}
`)
	writeFile(t, filepath.Join(dir, "search", "early.lua"), `local key = dw.env("EARLY_KEY")
return dw.plugin{ kind = "search", name = "early", version = "1.0", env = { "EARLY_KEY" }, search = function() return { results = {} } end }
`)
	env := map[string]string{"NOSY_KEY": "mine", "KW_BASE": "http://db.example", "AWS_SECRET_ACCESS_KEY": "s3cr3t", "EARLY_KEY": "e"}
	pool := script.NewPool(PoolOptions(script.Options{Env: envMap(env)}, dir))
	defer pool.Close()
	ctx := context.Background()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))

	e, err := OpenSearchEngine(ctx, pool, "search/nosy", SearchOptions{Retries: -1, Logger: quiet}, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	sp, err := e.Search(ctx, "NOSY_KEY", 1)
	if err != nil || sp.Results[0].Title != "mine" {
		t.Fatalf("declared variable: %+v, %v", sp, err)
	}
	_, err = e.Search(ctx, "AWS_SECRET_ACCESS_KEY", 1)
	want := fmt.Sprintf(`%s:1: dw.env("AWS_SECRET_ACCESS_KEY"): AWS_SECRET_ACCESS_KEY is not in the env list of the plugin (%s:4, declaring NOSY_KEY)`,
		filepath.Join(dir, "search", "_peek.lua"), filepath.Join(dir, "search", "nosy.lua"))
	if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "s3cr3t") {
		t.Errorf("undeclared variable:\n got %v\nwant it to contain %s", err, want)
	}

	ki, err := OpenKeywordInterface(ctx, pool, "keyword/kw", KeywordOptions{Retries: -1, Logger: quiet}, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ki.Close()
	if kp, err := ki.Search(ctx, "KW_BASE", 1); err != nil || kp.Records[0].ID != "http://db.example" {
		t.Errorf("a variable's env: %+v, %v", kp, err)
	}
	if _, err := ki.Search(ctx, "NOSY_KEY", 1); err == nil || !strings.Contains(err.Error(), `dw.env("NOSY_KEY"): NOSY_KEY is not in the env list`) {
		t.Errorf("another plugin's variable: %v", err)
	}

	// At load time the list is not known yet: dw.env raises.
	if _, err := Load(ctx, pool, "search", "early", dir); err == nil || !strings.Contains(err.Error(), "early.lua:1: dw.env(\"EARLY_KEY\"): no environment variables are readable here") {
		t.Errorf("dw.env at load time: %v", err)
	}
}

// TestAdapterJitter: without a retry_after, the adapters' waits are the
// doubled backoff with its upper half random, reproducible from the seed.
func TestAdapterJitter(t *testing.T) {
	pool := script.NewPool(PoolOptions(script.Options{}, "testdata"))
	defer pool.Close()
	const seed = 5
	t.Logf("seed %d", seed)
	waits := func() []time.Duration {
		e, clk := openEngine(t, pool, "search/fake", SearchOptions{Jitter: 0.5, Seed: seed}, "testdata")
		if _, err := e.Search(context.Background(), "busy:3", 1); err != nil {
			t.Fatal(err)
		}
		return clk.Sleeps()
	}
	got := waits()
	if len(got) != 3 {
		t.Fatalf("waits %v, want 3", got)
	}
	for i, d := range got {
		full := time.Second << i
		if d < full/2 || d > full {
			t.Errorf("wait %d = %v, want in [%v, %v]", i+1, d, full/2, full)
		}
	}
	if again := waits(); fmt.Sprint(again) != fmt.Sprint(got) {
		t.Errorf("seed %d: %v then %v", seed, got, again)
	}
}

// TestMemoryLimitNotRetried: a plugin call that exceeds the memory limit
// fails at once with ErrMemoryLimit (retrying would exceed it again); the
// plugin keeps working for normal calls.
func TestMemoryLimitNotRetried(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "search", "hog.lua"), `return dw.plugin{
  kind = "search", name = "hog", version = "1.0",
  search = function(q)
    if q == "hog" then
      local s = "x"
      while true do s = s .. s end
    end
    return { results = { { url = "https://a.example/" .. q } } }
  end,
}
`)
	pool := script.NewPool(PoolOptions(script.Options{MemoryLimit: 8 << 20}, dir))
	defer pool.Close()
	e, clk := openEngine(t, pool, "search/hog", SearchOptions{}, dir)
	_, err := e.Search(context.Background(), "hog", 1)
	if !errors.Is(err, script.ErrMemoryLimit) || e.Stats().Queries != 1 || len(clk.Sleeps()) != 0 {
		t.Fatalf("err %v after %d queries", err, e.Stats().Queries)
	}
	if !strings.Contains(err.Error(), "hog.lua:6: concatenation: memory limit of 8.0 MiB exceeded") {
		t.Errorf("error without position: %v", err)
	}
	if sp, err := e.Search(context.Background(), "ok", 1); err != nil || len(sp.Results) != 1 {
		t.Errorf("after the limit: %+v, %v", sp, err)
	}
}
