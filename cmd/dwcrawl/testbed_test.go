package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dwcrawl/dwcrawl/testbed/simweb"
)

// smallTestbedConfig writes SmallConfig as a --config file.
func smallTestbedConfig(t *testing.T) string {
	p := filepath.Join(t.TempDir(), "small.json")
	if err := os.WriteFile(p, simweb.SmallConfig().JSON(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestTestbedTruthAndStats(t *testing.T) {
	cfg := smallTestbedConfig(t)
	out := filepath.Join(t.TempDir(), "truth.jsonl")
	app := newApp()
	var buf bytes.Buffer
	app.Writer = &buf
	if err := app.Run([]string{"dwcrawl", "testbed", "truth", "--seed", "3", "--config", cfg, "--data", "builtin-none", "--out", out}); err == nil {
		t.Fatal("a missing data directory should be an error")
	}
	if err := app.Run([]string{"dwcrawl", "testbed", "truth", "--seed", "3", "--config", cfg, "--out", out}); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	types := map[string]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var v struct{ Type string }
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("bad line %s: %v", sc.Text(), err)
		}
		types[v.Type]++
	}
	for _, k := range []string{"site", "page", "form", "database"} {
		if types[k] == 0 {
			t.Errorf("no %s lines: %v", k, types)
		}
	}
	buf.Reset()
	if err := app.Run([]string{"dwcrawl", "testbed", "stats", "--seed", "3", "--config", cfg}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "density") || !regexp.MustCompile(`(?m)^auto\s+yes`).MatchString(buf.String()) {
		t.Errorf("stats table:\n%s", buf.String())
	}
	buf.Reset()
	if err := app.Run([]string{"dwcrawl", "testbed", "stats", "--seed", "3", "--config", cfg, "--json"}); err != nil {
		t.Fatal(err)
	}
	var st simweb.Stats
	if err := json.Unmarshal(buf.Bytes(), &st); err != nil || st.Pages == 0 || st.Seed != 3 {
		t.Errorf("stats --json: %v %+v", err, st)
	}
}

// syncBuffer is a bytes.Buffer safe for a concurrent writer and reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestTestbedServeProxy(t *testing.T) {
	cfg := smallTestbedConfig(t)
	app := newApp()
	out := &syncBuffer{}
	app.Writer = out
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- app.RunContext(ctx, []string{"dwcrawl", "testbed", "serve", "--addr", "127.0.0.1:0", "--proxy", "--seed", "4", "--config", cfg})
	}()
	re := regexp.MustCompile(`serving on http://(\S+)`)
	var addr string
	for i := 0; i < 500 && addr == ""; i++ {
		if m := re.FindStringSubmatch(out.String()); m != nil {
			addr = m[1]
		}
		time.Sleep(10 * time.Millisecond)
	}
	if addr == "" {
		cancel()
		t.Fatalf("server did not start: %s %v", out.String(), <-done)
	}
	c := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(&url.URL{Scheme: "http", Host: addr})}}
	resp, err := c.Get("http://" + simweb.SearchEngineHost + "/search?q=cars&format=json")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(b), `"results"`) {
		t.Errorf("search through the proxy: %d %s", resp.StatusCode, b)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("serve: %v", err)
	}
}
