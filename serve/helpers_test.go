package serve_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dwcrawl/dwcrawl/internal/app"
	"github.com/dwcrawl/dwcrawl/serve"
	"github.com/dwcrawl/dwcrawl/testbed/simweb"
)

// webSeed is the simulated web of every test here.
const webSeed = 7

// testWeb writes a web config: the unit-test web, larger, so that crawls
// last long enough to be stopped.
func testWeb(t testing.TB) app.WebOptions { t.Helper(); return testWebSites(t, 600) }

// testWebSites is testWeb with n sites.
func testWebSites(t testing.TB, n int) app.WebOptions {
	t.Helper()
	c := simweb.SmallConfig()
	c.Sites = n
	p := filepath.Join(t.TempDir(), "web.json")
	if err := os.WriteFile(p, c.JSON(), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("simulated web: SmallConfig with %d sites, seed %d", n, webSeed)
	return app.WebOptions{Config: p, Seed: webSeed, SeedSet: true}
}

// domainsDir is the repository's profiles.
func domainsDir(t testing.TB) string {
	t.Helper()
	d, err := filepath.Abs("../domains")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// harness is a server on a loopback test listener.
type harness struct {
	t      testing.TB
	root   string
	opt    serve.Options
	srv    *serve.Server
	http   *httptest.Server
	runner *app.ServeRunner
	token  string
}

func quietLogger() *slog.Logger {
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

// newHarness starts a server over root ("" for a new one).
func newHarness(t testing.TB, root string, web app.WebOptions, mod func(*serve.Options)) *harness {
	t.Helper()
	if root == "" {
		root = filepath.Join(t.TempDir(), "jobs")
	}
	h := &harness{t: t, root: root, runner: &app.ServeRunner{Web: web, Logger: quietLogger()}}
	h.opt = serve.Options{Root: root, Loopback: true, Allow: []string{domainsDir(t)}, Runner: h.runner, Logger: quietLogger()}
	if mod != nil {
		mod(&h.opt)
	}
	h.token = h.opt.Token
	srv, err := serve.New(h.opt)
	if err != nil {
		t.Fatal(err)
	}
	h.srv = srv
	h.http = httptest.NewServer(srv.Handler())
	t.Cleanup(h.close)
	return h
}

func (h *harness) close() {
	if h.http == nil {
		return
	}
	// jobs stop first, as dwcrawl serve stops them on a signal: closing the
	// test server first waits for its open requests while crawls run on
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := h.srv.Close(ctx); err != nil {
		h.t.Errorf("closing the server: %v", err)
	}
	h.http.Close()
	h.runner.Close()
	h.http = nil
}

// do sends a request and returns the status and body.
func (h *harness) do(method, path, body string, hdr ...string) (int, []byte) {
	h.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, h.http.URL+path, rd)
	if err != nil {
		h.t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if h.token != "" {
		req.Header.Set("Authorization", "Bearer "+h.token)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		if hdr[i] == "Host" { // the client sends req.Host, not a Host header
			req.Host = hdr[i+1]
		} else if hdr[i+1] == "" {
			req.Header.Del(hdr[i])
		} else {
			req.Header.Set(hdr[i], hdr[i+1])
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		h.t.Fatal(err)
	}
	return resp.StatusCode, b
}

// json sends a request that must answer want and decodes the body into v.
func (h *harness) json(method, path, body string, want int, v any) {
	h.t.Helper()
	code, b := h.do(method, path, body)
	if code != want {
		h.t.Fatalf("%s %s: status %d, want %d: %s", method, path, code, want, b)
	}
	if v != nil {
		if err := json.Unmarshal(b, v); err != nil {
			h.t.Fatalf("%s %s: %v in %s", method, path, err, b)
		}
	}
}

// startCrawl posts a crawl and returns its id.
func (h *harness) startCrawl(body string) string {
	h.t.Helper()
	var r struct{ ID string }
	h.json("POST", "/api/crawls", body, http.StatusCreated, &r)
	if r.ID == "" {
		h.t.Fatalf("POST /api/crawls %s: no id", body)
	}
	return r.ID
}

func (h *harness) status(id string) serve.CrawlStatus {
	h.t.Helper()
	var st serve.CrawlStatus
	h.json("GET", "/api/crawls/"+id, "", http.StatusOK, &st)
	return st
}

// waitDone polls a crawl until its state is not running.
func (h *harness) waitDone(id string, limit time.Duration) serve.CrawlStatus {
	h.t.Helper()
	return h.waitDoneEvery(id, limit, 100*time.Millisecond)
}

func (h *harness) waitDoneEvery(id string, limit, every time.Duration) serve.CrawlStatus {
	h.t.Helper()
	deadline := time.Now().Add(limit)
	for {
		st := h.status(id)
		if st.State != serve.StateRunning {
			return st
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("crawl %s still running after %s: %+v", id, limit, st)
		}
		time.Sleep(every)
	}
}

// formIDs returns the ids of the crawl's forms.
func (h *harness) formIDs(id string) map[string]bool {
	h.t.Helper()
	var forms []struct{ ID string }
	h.json("GET", "/api/crawls/"+id+"/forms?format=json", "", http.StatusOK, &forms)
	out := map[string]bool{}
	for _, f := range forms {
		out[f.ID] = true
	}
	return out
}

func mustJSON(t testing.TB, v any) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.NewEncoder(&b).Encode(v); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
