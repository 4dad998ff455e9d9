package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/dwcrawl/dwcrawl/internal/app"
	"github.com/dwcrawl/dwcrawl/testbed/simweb"
)

// screenshot, when set, is where TestServeDashboard also writes its
// screenshot (the README's: go test ./cmd/dwcrawl -run Dashboard -screenshot ../../docs/dashboard.png).
var screenshot = flag.String("screenshot", "", "write the dashboard screenshot to this PNG file")

// startServe runs `dwcrawl serve` in this process on a free loopback port
// and returns its base URL; the server stops at the end of the test.
func startServe(t *testing.T, args ...string) string {
	t.Helper()
	c := simweb.SmallConfig()
	c.Sites = 600
	c.Faults = simweb.DefaultConfig().Faults // the failures table has something to show
	cfg := filepath.Join(t.TempDir(), "web.json")
	if err := os.WriteFile(cfg, c.JSON(), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	a := newApp()
	a.Writer, a.ErrWriter = io.Discard, pw
	done := make(chan error, 1)
	go func() {
		done <- a.RunContext(ctx, append([]string{"dwcrawl", "serve", "--addr", "127.0.0.1:0", "--root", filepath.Join(t.TempDir(), "jobs"),
			"--allow", "../../domains", "--config", cfg, "--seed", "5"}, args...))
		pw.Close()
	}()
	addr := make(chan string, 1)
	go func() {
		re := regexp.MustCompile(`dwcrawl serve: (http://[^/]+)/`)
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				addr <- m[1]
			}
			t.Log("serve:", sc.Text())
		}
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("dwcrawl serve: %v", err)
		}
	})
	select {
	case u := <-addr:
		return u
	case err := <-done:
		t.Fatalf("dwcrawl serve exited: %v", err)
	case <-time.After(time.Minute):
		t.Fatal("dwcrawl serve did not start")
	}
	return ""
}

func TestServeCommand(t *testing.T) {
	// a server reachable beyond loopback needs a token; the check comes
	// before anything is bound
	_, err := runCLI(t, "serve", "--addr", "0.0.0.0:0", "--root", t.TempDir())
	var ee errExit
	if !errors.Is(err, app.ErrNeedToken) || !errors.As(withFlagHint(err), &ee) || ee.code != 2 || !strings.Contains(withFlagHint(err).Error(), "--token") {
		t.Fatalf("serve on 0.0.0.0 without a token: %v", withFlagHint(err))
	}
	base := startServe(t)
	resp, err := http.Get(base + "/api/crawls")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("GET /api/crawls: %s", resp.Status)
	}
}

// newBrowser starts Debian's headless chromium for the test (skipping
// the test where there is none) and returns its context, cancelled after
// three minutes or at the end of the test.
func newBrowser(t *testing.T) context.Context {
	t.Helper()
	bin, err := exec.LookPath("chromium")
	if err != nil {
		if bin, err = exec.LookPath("/usr/bin/chromium"); err != nil {
			t.Skip("no chromium on this machine (apt-get install -y chromium)")
		}
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(bin),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-domain-reliability", true),
		chromedp.Flag("disable-client-side-phishing-detection", true),
		chromedp.Flag("disable-default-apps", true),
		chromedp.Flag("metrics-recording-only", true),
		chromedp.Flag("disable-features", "Translate,MediaRouter,OptimizationHints,AutofillServerCommunication"),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1440, 1000),
	}
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	ctx, cancel := chromedp.NewContext(actx, chromedp.WithLogf(t.Logf))
	t.Cleanup(cancel)
	ctx, cancel = context.WithTimeout(ctx, 3*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// TestServeDashboard drives the dashboard in a real headless browser
// (Debian's chromium through chromedp): it starts a testbed crawl from the
// page, waits for forms to appear in the forms table, stops and resumes the
// crawl with the page's buttons, and saves a screenshot.
func TestServeDashboard(t *testing.T) {
	ctx := newBrowser(t)
	// the bundled auto profile, learning often enough that the small web
	// shows learning rounds
	src, err := os.ReadFile("../../domains/auto.lua")
	if err != nil {
		t.Fatal(err)
	}
	learn := regexp.MustCompile(`learn = \{[^}]*\}`)
	if !learn.Match(src) {
		t.Fatal("domains/auto.lua has no learn = {...} line to change")
	}
	profiles := t.TempDir()
	if err := os.WriteFile(filepath.Join(profiles, "auto.lua"), learn.ReplaceAll(src, []byte("learn = { sites_every = 4, forms_every = 8 }")), 0o644); err != nil {
		t.Fatal(err)
	}
	base := startServe(t, "--allow", profiles)

	err = chromedp.Do(ctx, chromedp.Navigate(base+"/"), chromedp.WaitVisible(`#start`))
	if err != nil {
		t.Fatalf("opening the dashboard: %v", err)
	}
	offered, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('#start select[name=profile] option')).map(o => o.value)`))
	if err != nil {
		t.Fatal(err)
	}
	auto := ""
	for _, p := range offered {
		if p == filepath.Join(profiles, "auto.lua") {
			auto = p
		}
	}
	if auto == "" || len(offered) < 13 {
		t.Fatalf("the start form offers %v, want the 12 bundled profiles and %s", offered, filepath.Join(profiles, "auto.lua"))
	}
	err = chromedp.Do(ctx,
		chromedp.SetValue(`#start select[name=profile]`, auto),
		chromedp.SetValue(`#start input[name=pages]`, "2500"),
		chromedp.SetValue(`#start select[name=strategy]`, "smartcrawler"),
		chromedp.Click(`#start button[type=submit]`),
		// the page goes to the new crawl; forms appear as they are found
		chromedp.WaitVisible(`#forms tbody tr td a`),
		chromedp.WaitVisible(`#curve path.series`),
	)
	if err != nil {
		t.Fatalf("starting a crawl from the page: %v", err)
	}
	url, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	formsCount, err := chromedp.Run(ctx, chromedp.Text(`#forms-count`))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('#forms tbody tr').length`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(url, "/crawls/auto-1") || rows == 0 || !regexp.MustCompile(`^\(\d+, \d+ relevant\)$`).MatchString(formsCount) {
		t.Fatalf("crawl page %s: %d form rows, count %q", url, rows, formsCount)
	}
	t.Logf("%s: %d forms in the table %s", url, rows, formsCount)

	// stop and resume with the page's buttons
	stateText, err := chromedp.Run(ctx, chromedp.Text(`#state`))
	if err != nil {
		t.Fatal(err)
	}
	if stateText == "running" {
		err = chromedp.Do(ctx, chromedp.Click(`#stop`), chromedp.WaitVisible(`#state.stopped, #state.done`))
		if err != nil {
			t.Fatalf("stop button: %v", err)
		}
		if st, _ := chromedp.Run(ctx, chromedp.Text(`#state`)); st == "stopped" {
			err = chromedp.Do(ctx, chromedp.Click(`#resume`), chromedp.WaitNotPresent(`#state.stopped`))
			if err != nil {
				t.Fatalf("resume button: %v", err)
			}
			t.Log("stopped and resumed from the page")
		} else {
			t.Logf("the crawl finished (%s) before the stop button took effect", st)
		}
	} else {
		t.Logf("the crawl was %s before the stop button could be tried", stateText)
	}
	// let it finish, then take the picture
	err = chromedp.Do(ctx,
		chromedp.WaitVisible(`#state.done`),
		chromedp.WaitVisible(`#features tbody tr:not(.empty)`),
		chromedp.Sleep(2500*time.Millisecond), // one more refresh of every table
	)
	if err != nil {
		t.Fatalf("waiting for the crawl to finish: %v", err)
	}
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	if len(png) < 1000 || string(png[1:4]) != "PNG" {
		t.Fatalf("screenshot is not a PNG (%d bytes)", len(png))
	}
	out := filepath.Join(t.TempDir(), "dashboard.png")
	if *screenshot != "" {
		out = *screenshot
	}
	if err := os.WriteFile(out, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s (%d bytes)", out, len(png))

	// the front page lists the crawl as done
	err = chromedp.Do(ctx, chromedp.Navigate(base+"/"), chromedp.WaitVisible(`#crawls tbody tr[data-id="auto-1"] .state.done`))
	if err != nil {
		t.Fatalf("front page: %v", err)
	}
	listed, err := chromedp.Run(ctx, chromedp.Text(`#crawls tbody tr[data-id="auto-1"]`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(listed, "done") || !strings.Contains(listed, "/ 2500") {
		t.Fatalf("front page row: %q", listed)
	}
}
