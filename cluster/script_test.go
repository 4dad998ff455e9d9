package cluster_test

import (
	"bytes"
	"context"
	"encoding/json"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// TestRun3Script runs testbed/cluster/run3.sh: a three-node NATS cluster
// (testbed/natsd, the nats-server v2 module built into a binary: no system
// nats-server needed) with three worker processes and a 300-page crawl.
func TestRun3Script(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a three-node NATS cluster and four dwcrawl processes; skipped in -short mode")
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is not installed: testbed/cluster/run3.sh cannot run")
	}
	bin, err := dwcrawlBinary()
	if err != nil {
		t.Fatal(err)
	}
	natsd := filepath.Join(t.TempDir(), "natsd")
	if out, err := exec.Command("go", "build", "-o", natsd, "github.com/dwcrawl/dwcrawl/testbed/natsd").CombinedOutput(); err != nil {
		t.Fatalf("go build natsd: %v\n%s", err, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	const pages = 300
	cmd := exec.CommandContext(ctx, bash, filepath.Join("..", "testbed", "cluster", "run3.sh"), strconv.Itoa(pages))
	// on a timeout the script's trap stops what it started
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = time.Minute
	cmd.Env = append(os.Environ(), "DWCRAWL="+bin, "NATSD="+natsd, "WORK="+t.TempDir(), "PORT="+strconv.Itoa(freePorts(t, 9)))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("run3.sh: %v\n%s", err, stderr.String())
	}
	out := stdout.Bytes()
	m := regexp.MustCompile(`(?m)^forms (\d+)$`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("run3.sh printed no form count:\n%s", out)
	}
	forms, _ := strconv.Atoi(string(m[1]))
	var sum struct {
		Pages           int64 `json:"pages"`
		SearchableForms int64 `json:"searchable_forms"`
	}
	if err := json.Unmarshal(out[:bytes.LastIndex(out, m[0])], &sum); err != nil {
		t.Fatalf("run3.sh's summary: %v\n%s", err, out)
	}
	if sum.Pages != pages {
		t.Errorf("%d pages crawled, budget %d", sum.Pages, pages)
	}
	if forms == 0 || int64(forms) != sum.SearchableForms {
		t.Errorf("dwcrawl forms exported %d forms, the crawl counted %d", forms, sum.SearchableForms)
	}
	t.Logf("%d pages, %d forms\n%s", sum.Pages, forms, stderr.String())
}

// freePorts returns the first of n consecutive loopback ports nothing
// holds, below the kernel's ephemeral ports (where another process's
// outgoing connection may take one between this check and the bind).
func freePorts(t *testing.T, n int) int {
	t.Helper()
	for range 100 {
		base := 20000 + rand.IntN(1200)*10
		var ls []net.Listener
		for p := base; p < base+n; p++ {
			l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
			if err != nil {
				break
			}
			ls = append(ls, l)
		}
		for _, l := range ls {
			l.Close()
		}
		if len(ls) == n {
			return base
		}
	}
	t.Fatalf("no %d free consecutive loopback ports", n)
	return 0
}
