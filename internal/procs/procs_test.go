package procs

import (
	"context"
	"sync"
	"testing"
	"time"
)

func TestObserve(t *testing.T) {
	ms := time.Millisecond
	type step struct {
		cpu  time.Duration // CPU used in a 100 ms window
		want int           // processors after it
	}
	tests := []struct {
		name     string
		min, max int
		from     int // processors before the first window (0: New's own start)
		up       int // Options.UpAfter (0: the default)
		steps    []step
	}{
		{"starts at min; saturated for eight windows doubles", 1, 2, 0, 0, []step{
			{95 * ms, 1}, {95 * ms, 1}, {95 * ms, 1}, {95 * ms, 1}, {95 * ms, 1}, {95 * ms, 1}, {95 * ms, 1}, {95 * ms, 2}, {190 * ms, 2}}},
		{"a start-up burst of seven windows does not add", 1, 2, 0, 0, []step{
			{95 * ms, 1}, {95 * ms, 1}, {95 * ms, 1}, {95 * ms, 1}, {95 * ms, 1}, {95 * ms, 1}, {95 * ms, 1}, {30 * ms, 1}, {95 * ms, 1}}},
		{"idle goes down after four windows", 1, 8, 8, 0, []step{
			{30 * ms, 8}, {30 * ms, 8}, {30 * ms, 8}, {30 * ms, 1}, {30 * ms, 1}}},
		{"a burst does not add", 1, 2, 2, 2, []step{
			{30 * ms, 2}, {30 * ms, 2}, {30 * ms, 2}, {30 * ms, 1}, {95 * ms, 1}, {30 * ms, 1}, {95 * ms, 1}, {89 * ms, 1}}},
		{"saturated for two windows doubles, up to max", 1, 4, 4, 2, []step{
			{0, 4}, {0, 4}, {0, 4}, {0, 1}, {95 * ms, 1}, {95 * ms, 2}, {190 * ms, 2}, {185 * ms, 4}, {400 * ms, 4}, {400 * ms, 4}}},
		{"a saturated window in between restarts the count", 1, 8, 8, 0, []step{
			{30 * ms, 8}, {30 * ms, 8}, {750 * ms, 8}, {30 * ms, 8}, {30 * ms, 8}, {30 * ms, 8}, {30 * ms, 1}}},
		{"going down keeps what the busiest low window needed", 1, 8, 8, 0, []step{
			{30 * ms, 8}, {200 * ms, 8}, {30 * ms, 8}, {30 * ms, 3}}},
		{"between busy x (n-1) and busy x n nothing changes", 1, 2, 2, 0, []step{
			{91 * ms, 2}, {120 * ms, 2}, {170 * ms, 2}, {100 * ms, 2}, {95 * ms, 2}, {91 * ms, 2}}},
		{"ninety percent of one processor on two goes down to one", 1, 2, 2, 0, []step{
			{85 * ms, 2}, {85 * ms, 2}, {85 * ms, 2}, {85 * ms, 1}, {85 * ms, 1}}},
		{"min is kept", 2, 8, 8, 0, []step{
			{0, 8}, {0, 8}, {0, 8}, {0, 2}, {0, 2}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := New(Options{Min: tt.min, Max: tt.max, UpAfter: tt.up, cpu: func() (time.Duration, error) { return 0, nil }, set: func(int) {}})
			if g.Procs() != tt.min {
				t.Fatalf("a new governor has %d processors, want min %d", g.Procs(), tt.min)
			}
			if tt.from > 0 {
				g.procs = tt.from
			}
			for i, s := range tt.steps {
				if got := g.Observe(s.cpu, 100*ms); got != s.want {
					t.Fatalf("window %d (%v of CPU in 100ms): %d processors, want %d", i, s.cpu, got, s.want)
				}
			}
		})
	}
}

// TestRun drives the loop with a fake CPU clock: an idle process is taken
// down to one processor, a busy one back up, and the start value is
// restored when the context ends.
func TestRun(t *testing.T) {
	var mu sync.Mutex
	var cpu time.Duration
	busy := false
	var sets []int
	last := time.Now()
	o := Options{Min: 1, Max: 4, Interval: 5 * time.Millisecond, DownAfter: 2, UpAfter: 2,
		cpu: func() (time.Duration, error) {
			mu.Lock()
			defer mu.Unlock()
			now := time.Now()
			if busy { // four processors' worth of CPU
				cpu += 4 * now.Sub(last)
			}
			last = now
			return cpu, nil
		},
		set: func(n int) {
			mu.Lock()
			sets = append(sets, n)
			mu.Unlock()
		}}
	g := New(o)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { g.Run(ctx); close(done) }()
	waitFor := func(what string, ok func([]int) bool) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for time.Now().Before(deadline) {
			mu.Lock()
			s := append([]int(nil), sets...)
			mu.Unlock()
			if ok(s) {
				return
			}
			time.Sleep(time.Millisecond)
		}
		t.Fatalf("%s: GOMAXPROCS set to %v", what, sets)
	}
	waitFor("idle", func(s []int) bool { return len(s) > 0 && s[len(s)-1] == 1 })
	mu.Lock()
	busy = true
	mu.Unlock()
	waitFor("busy", func(s []int) bool { return len(s) > 0 && s[len(s)-1] == 4 })
	cancel()
	<-done
	mu.Lock()
	defer mu.Unlock()
	if end, start := sets[len(sets)-1], g.start; end != start {
		t.Errorf("after the end GOMAXPROCS is %d, want the start value %d", end, start)
	}
}

func TestStartKeepsUserChoice(t *testing.T) {
	tests := []struct {
		env  string
		want bool
	}{{"3", false}, {"", true}}
	for _, tt := range tests {
		stop, governed := Start(Options{}, func(k string) string {
			if k == "GOMAXPROCS" {
				return tt.env
			}
			return ""
		})
		stop()
		if governed != tt.want {
			t.Errorf("GOMAXPROCS=%q: governed %v, want %v", tt.env, governed, tt.want)
		}
	}
}

// TestProcessCPU burns CPU until processCPU counts 20 ms more (on a loaded
// machine that takes longer than 20 ms of wall time, never 10 s).
func TestProcessCPU(t *testing.T) {
	a, err := processCPU()
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		for i := 0; i < 1e6; i++ { // burn CPU
			sink += i
		}
		b, err := processCPU()
		if err != nil {
			t.Fatal(err)
		}
		if b-a >= 20*time.Millisecond {
			return
		}
	}
	t.Fatal("10 s of busy loop: processCPU counted less than 20 ms")
}

var sink int
