package store

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// The kill-9 test re-executes the test binary as a child that writes
// numbered batches and acknowledges each one on stdout once Commit(sync)
// returned; the parent SIGKILLs it mid-stream, reopens the directory and
// checks that every acknowledged batch is there whole and no batch is there
// in part.

const (
	killEnv  = "DWCRAWL_STORE_KILL_CHILD" // directory for the child to write to
	killKeys = 64                         // records per batch

	killSmallEnv = "DWCRAWL_STORE_KILL_SMALL" // set: the child flushes often
)

var killPad = strings.Repeat("payload ", 24)

func killKey(batch, k int) []byte { return fmt.Appendf(nil, "b%08d/k%03d", batch, k) }

// TestKill9Child is the child process; it is skipped in a normal run.
func TestKill9Child(t *testing.T) {
	dir := os.Getenv(killEnv)
	if dir == "" {
		t.Skip("helper process of TestKill9")
	}
	opt := Options{Logger: quietLog}
	if os.Getenv(killSmallEnv) != "" {
		opt.MemTableSize = 256 << 10 // flushes and compactions every few batches
	}
	db, err := Open(dir, opt)
	if err != nil {
		fmt.Fprintln(os.Stderr, "child open:", err)
		os.Exit(2)
	}
	done, err := db.Counter("batches")
	if err != nil {
		fmt.Fprintln(os.Stderr, "child counter:", err)
		os.Exit(2)
	}
	deadline := time.Now().Add(time.Minute) // in case the parent is gone
	for i := int(done) + 1; time.Now().Before(deadline); i++ {
		b := db.NewBatch()
		for k := 0; k < killKeys; k++ {
			_ = b.PutJSON(TagPages, killKey(i, k), killPad)
		}
		_ = b.PushFrontier(FrontierEntry{Queue: "kill", Score: float64(i % 7), URL: fmt.Sprintf("https://k.example/%08d", i)})
		_ = b.AddCounter("batches", 1)
		if err := b.Commit(true); err != nil {
			fmt.Fprintln(os.Stderr, "child commit:", err)
			os.Exit(2)
		}
		b.Close()
		fmt.Printf("ack %d\n", i) // stdout is unbuffered
	}
	os.Exit(3)
}

func TestKill9(t *testing.T) {
	if os.Getenv(killEnv) != "" {
		t.Skip("running as the child")
	}
	r := testRand(t)
	dir := t.TempDir()
	rounds := 3
	if testing.Short() {
		rounds = 1
	}
	maxAck := 0
	for round := 0; round < rounds; round++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestKill9Child$", "-test.count=1")
		cmd.Env = append(os.Environ(), killEnv+"="+dir)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.StdoutPipe()
		must(t, err)
		must(t, cmd.Start())
		want := 5 + r.Intn(40)
		acks := 0
		sc := bufio.NewScanner(out)
		for acks < want && sc.Scan() {
			var n int
			if _, err := fmt.Sscanf(sc.Text(), "ack %d", &n); err != nil {
				continue
			}
			if n <= maxAck {
				t.Fatalf("round %d: ack %d after ack %d", round, n, maxAck)
			}
			maxAck = n
			acks++
			if round == 0 && acks == 1 {
				// Another process holds the directory: Open must say so.
				if _, err := Open(dir, Options{Logger: quietLog}); !errors.Is(err, ErrLocked) {
					t.Errorf("open while the child holds the lock: %v", err)
				}
			}
		}
		_ = cmd.Process.Kill() // SIGKILL
		_ = cmd.Wait()
		if acks < want {
			t.Fatalf("round %d: child stopped after %d acks: %s", round, acks, stderr.String())
		}
		last := verifyKilled(t, dir, maxAck)
		t.Logf("round %d: %d acknowledged (last %d), %d batches on disk", round, acks, maxAck, last)
		maxAck = last
	}
}

// verifyKilled reopens dir and checks the batches; it returns the number of
// batches found.
func verifyKilled(t *testing.T, dir string, maxAck int) int {
	t.Helper()
	db, err := Open(dir, Options{Logger: quietLog})
	must(t, err)
	defer db.Close()
	last := verifyBatches(t, db, maxAck)
	checkFrontierInvariants(t, db)
	return last
}

// verifyBatches checks that db holds whole batches 1..last, last ≥ maxAck,
// with the counter and the frontier length at last, and returns last.
func verifyBatches(t *testing.T, db *DB, maxAck int) int {
	t.Helper()
	counts := map[int]int{}
	last := 0
	must(t, db.ScanJSON(TagPages, nil, func(k, v []byte) error {
		var b, i int
		if _, err := fmt.Sscanf(string(k), "b%08d/k%03d", &b, &i); err != nil {
			return fmt.Errorf("key %q: %w", k, err)
		}
		counts[b]++
		last = max(last, b)
		return nil
	}))
	if last < maxAck {
		t.Fatalf("acknowledged batch %d, but only %d batches on disk", maxAck, last)
	}
	for b := 1; b <= last; b++ {
		if counts[b] != killKeys {
			t.Fatalf("batch %d has %d of %d records (last batch %d)", b, counts[b], killKeys, last)
		}
	}
	if n, err := db.Counter("batches"); err != nil || int(n) != last {
		t.Fatalf("batch counter %d (err %v), %d batches on disk", n, err, last)
	}
	if n, err := db.FrontierLen("kill"); err != nil || n != last {
		t.Fatalf("frontier length %d (err %v), %d batches on disk", n, err, last)
	}
	return last
}

// TestReadWhileWriting opens a directory read-only, again and again, while
// another process commits batches to it with frequent flushes and
// compactions: every open must see whole batches only, a counter and a
// frontier length that match them, and at least every batch acknowledged
// before it.
func TestReadWhileWriting(t *testing.T) {
	if os.Getenv(killEnv) != "" {
		t.Skip("running as the child")
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestKill9Child$", "-test.count=1")
	cmd.Env = append(os.Environ(), killEnv+"="+dir, killSmallEnv+"=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	must(t, err)
	must(t, cmd.Start())
	defer func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}()
	var acked atomic.Int64
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			var n int64
			if _, err := fmt.Sscanf(sc.Text(), "ack %d", &n); err == nil {
				acked.Store(n)
			}
		}
	}()
	for acked.Load() < 20 {
		if cmd.ProcessState != nil {
			t.Fatalf("child ended: %s", stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	reads, first, last := 0, 0, 0
	for end := time.Now().Add(3 * time.Second); time.Now().Before(end) || reads < 5; reads++ {
		before := int(acked.Load())
		db, err := OpenReadOnly(dir, Options{Logger: quietLog})
		if err != nil {
			t.Fatalf("read %d: %v", reads, err)
		}
		if !db.Snapshotted() {
			t.Fatalf("read %d: opened in place while the child holds the directory", reads)
		}
		n := verifyBatches(t, db, before)
		must(t, db.Close())
		if reads == 0 {
			first = n
		}
		last = n
	}
	if last <= first {
		t.Fatalf("the child wrote nothing while %d reads ran (batches %d..%d)", reads, first, last)
	}
	ssts, _ := filepath.Glob(filepath.Join(dir, "*.sst"))
	t.Logf("%d consistent reads while batches %d..%d were written; %d table files now", reads, first, last, len(ssts))
}
