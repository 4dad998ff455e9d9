package crawl

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/dwcrawl/dwcrawl/core/fetch"
	"github.com/dwcrawl/dwcrawl/core/profile"
	"github.com/dwcrawl/dwcrawl/store"
	"github.com/dwcrawl/dwcrawl/testbed/simweb"
)

const testSeed = 3

// testWeb is a small simulated web shared by the tests (built once).
var testWeb = sync.OnceValue(func() *simweb.Web {
	cfg := simweb.SmallConfig()
	cfg.Seed = testSeed
	return simweb.MustNew(cfg)
})

func testProfile(t testing.TB, domain string) *profile.Profile {
	t.Helper()
	path := filepath.Join("..", "..", "domains", domain+".lua")
	p, err := profile.Load(context.Background(), path)
	if err != nil {
		t.Fatalf("loading %s: %v", path, err)
	}
	return p
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// countingFetcher records every URL fetched.
type countingFetcher struct {
	Fetcher
	mu   sync.Mutex
	urls []string
}

func (c *countingFetcher) Fetch(ctx context.Context, u string) (*fetch.Response, error) {
	c.mu.Lock()
	c.urls = append(c.urls, u)
	c.mu.Unlock()
	return c.Fetcher.Fetch(ctx, u)
}

// killWeb is larger, so that a crawl is still running when it is killed.
var killWeb = sync.OnceValue(func() *simweb.Web {
	cfg := simweb.SmallConfig()
	cfg.Seed = testSeed
	cfg.Sites = 600
	return simweb.MustNew(cfg)
})

func assemble(t testing.TB, dir, strategy string, pages int) *Crawl {
	t.Helper()
	return assembleOn(t, testWeb(), dir, strategy, pages)
}

func assembleOn(t testing.TB, w *simweb.Web, dir, strategy string, pages int) *Crawl {
	t.Helper()
	c, err := Assemble(context.Background(), Setup{Profile: testProfile(t, "auto"), Dir: dir, Strategy: strategy, Workers: 2, Pages: pages, Web: w, Logger: quiet(), Seed: testSeed})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// truthCheck recounts the stored forms against the simulated web's truth.
func truthCheck(t *testing.T, db *store.DB, w *simweb.Web, domain string) (relevant, falsePos int) {
	t.Helper()
	err := db.ScanForms(func(f store.Form) error {
		infos := w.FormsAt(f.PageURL)
		if f.Index >= len(infos) {
			t.Errorf("stored form %s#%d does not exist in the simulated web", f.PageURL, f.Index)
			return nil
		}
		if f.Relevant {
			if w.IsRelevantForm(f.PageURL, f.Index, domain) {
				relevant++
			} else {
				falsePos++
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return relevant, falsePos
}

func TestStrategies(t *testing.T) {
	t.Logf("simweb seed %d", testSeed)
	for _, strategy := range Strategies {
		t.Run(strategy, func(t *testing.T) {
			dir := t.TempDir()
			c := assemble(t, dir, strategy, 250)
			sn, err := c.Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if sn.Pages == 0 || sn.Pages > 250 {
				t.Fatalf("pages = %d, want 1..250", sn.Pages)
			}
			if problems, err := CheckCounters(c.DB); err != nil || len(problems) > 0 {
				t.Errorf("counters disagree with the records: %v %v", problems, err)
			}
			rel, fp := truthCheck(t, c.DB, testWeb(), "auto")
			t.Logf("%s: %d pages, %d relevant forms by the classifier, %d truly relevant, %d false positives", strategy, sn.Pages, sn.RelevantForms, rel, fp)
			if int64(rel+fp) != sn.RelevantForms {
				t.Errorf("store holds %d relevant forms, stats say %d", rel+fp, sn.RelevantForms)
			}
			if strategy == SmartCrawler && rel == 0 {
				t.Errorf("smartcrawler found no truly relevant form in %d pages", sn.Pages)
			}
			n, err := c.DB.Counter(ctrPages)
			if err != nil || n != sn.Pages {
				t.Errorf("pages counter %d (%v), snapshot %d", n, err, sn.Pages)
			}
			c.Close()
		})
	}
}

// TestResumeFetchesNothingTwice stops a crawl at a budget, resumes it with a
// larger one, and checks that no page recorded by the first run is fetched
// again and that the page count continues.
func TestResumeFetchesNothingTwice(t *testing.T) {
	for _, strategy := range []string{SmartCrawler, ACHE} {
		t.Run(strategy, func(t *testing.T) {
			dir := t.TempDir()
			c := assemble(t, dir, strategy, 120)
			first, err := c.Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			c.Close()
			before := recordedPages(t, dir)
			c = assemble(t, dir, strategy, 240)
			cf := &countingFetcher{Fetcher: c.deps.Fetcher}
			c.deps.Fetcher = cf
			second, err := c.Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			c.Close()
			for _, u := range cf.urls {
				if before[u] {
					t.Errorf("resumed crawl fetched %s again", u)
				}
			}
			if second.Pages < first.Pages || second.Pages > 240 {
				t.Errorf("pages after resume = %d, first run %d, budget 240", second.Pages, first.Pages)
			}
			if got := int64(len(cf.urls)); got != second.Pages-first.Pages {
				t.Errorf("resumed run fetched %d pages, counters moved by %d", got, second.Pages-first.Pages)
			}
		})
	}
}

func recordedPages(t *testing.T, dir string) map[string]bool {
	t.Helper()
	db, err := store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	out := map[string]bool{}
	db.ScanJSON(store.TagPages, nil, func(k, _ []byte) error {
		out[string(k)] = true
		return nil
	})
	return out
}

// TestKill9 kills a crawl process while it works and checks that every form
// it had reported is still stored and that a resumed crawl continues.
func TestKill9(t *testing.T) {
	if os.Getenv("DWCRAWL_KILL9_CHILD") != "" {
		kill9Child()
		return
	}
	if testing.Short() {
		t.Skip("kill -9 test skipped in -short mode")
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestKill9$")
	cmd.Env = append(os.Environ(), "DWCRAWL_KILL9_CHILD="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	acked := map[string]bool{}
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		line := sc.Text()
		if id, ok := strings.CutPrefix(line, "form "); ok {
			acked[id] = true
			if len(acked) >= 3 {
				break
			}
		}
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	if len(acked) == 0 {
		t.Fatal("child reported no form before being killed")
	}
	c := assembleOn(t, killWeb(), dir, SmartCrawler, 100000)
	defer c.Close()
	atKill, err := c.DB.Counter(ctrPages)
	if err != nil {
		t.Fatal(err)
	}
	// every counter the summary prints agrees with the records the kill left
	if problems, err := CheckCounters(c.DB); err != nil || len(problems) > 0 {
		t.Errorf("counters after kill -9 (%d pages): %v %v", atKill, problems, err)
	}
	for id := range acked {
		if _, ok, err := c.DB.GetForm(id); err != nil || !ok {
			t.Errorf("form %s acknowledged before kill -9 is missing (%v)", id, err)
		}
	}
	sn, err := c.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if sn.Pages <= atKill {
		t.Fatalf("resumed crawl fetched nothing new (%d pages at kill, %d after): the kill did not interrupt it", atKill, sn.Pages)
	}
	if problems, err := CheckCounters(c.DB); err != nil || len(problems) > 0 {
		t.Errorf("counters after the resumed crawl: %v %v", problems, err)
	}
	t.Logf("killed after %d acknowledged forms; resumed to %d pages, %d relevant forms", len(acked), sn.Pages, sn.RelevantForms)
}

// kill9Child crawls and prints every form as soon as it is stored.
func kill9Child() {
	dir := os.Getenv("DWCRAWL_KILL9_CHILD")
	w := killWeb()
	p, err := profile.Load(context.Background(), filepath.Join("..", "..", "domains", "auto.lua"))
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	c, err := Assemble(context.Background(), Setup{Profile: p, Dir: dir, Strategy: SmartCrawler, Workers: 2, Pages: 100000, Web: w, Logger: quiet(), Seed: testSeed})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	seen := map[string]bool{}
	go func() {
		for {
			var fresh []string
			c.DB.ScanForms(func(f store.Form) error {
				if !seen[f.ID] {
					seen[f.ID] = true
					fresh = append(fresh, f.ID)
				}
				return nil
			})
			// A committed batch is readable a moment before its WAL sync
			// returns (the store syncs outside its frontier lock); a form
			// counts as recorded once synced, so sync before acknowledging.
			if len(fresh) > 0 && c.DB.Sync() == nil {
				for _, id := range fresh {
					fmt.Println("form " + id)
				}
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	c.Run(context.Background())
	select {}
}
