package retry

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dwcrawl/dwcrawl/core/clock"
)

const testSeed = 7

func TestDelay(t *testing.T) {
	t.Logf("seed %d", testSeed)
	s := time.Second
	exact := New(Policy{Base: s, Max: 5 * s, Jitter: -1})
	var got []time.Duration
	for n := 1; n <= 5; n++ {
		got = append(got, exact.Delay(n))
	}
	if want := []time.Duration{s, 2 * s, 4 * s, 5 * s, 5 * s}; !reflect.DeepEqual(got, want) {
		t.Errorf("no jitter: %v, want %v", got, want)
	}
	for _, jitter := range []float64{0, 0.25, 1} {
		b := New(Policy{Base: s, Max: 8 * s, Jitter: jitter, Seed: testSeed})
		j := b.Policy().Jitter
		distinct := map[time.Duration]bool{}
		for n := 1; n <= 4; n++ {
			d := time.Second << (n - 1)
			for i := 0; i < 50; i++ {
				w := b.Delay(n)
				lo := d - time.Duration(float64(d)*j)
				if w < lo || w > d {
					t.Fatalf("jitter %v: retry %d waits %v, want in [%v, %v]", jitter, n, w, lo, d)
				}
				distinct[w] = true
			}
		}
		if len(distinct) < 100 {
			t.Errorf("jitter %v: only %d distinct waits in 200", jitter, len(distinct))
		}
	}
	// The same seed gives the same waits; another seed others.
	seq := func(seed uint64) []time.Duration {
		b := New(Policy{Seed: seed})
		var out []time.Duration
		for n := 1; n <= 6; n++ {
			out = append(out, b.Delay(n))
		}
		return out
	}
	if a, b := seq(testSeed), seq(testSeed); !reflect.DeepEqual(a, b) {
		t.Errorf("same seed, different waits: %v %v", a, b)
	}
	if a, b := seq(testSeed), seq(testSeed+1); reflect.DeepEqual(a, b) {
		t.Errorf("seeds %d and %d give the same waits %v", testSeed, testSeed+1, a)
	}
}

// afterErr is an error carrying a server-requested wait.
type afterErr struct{ d time.Duration }

func (e afterErr) Error() string { return fmt.Sprintf("busy, retry after %v", e.d) }

func classifyAfter(err error) (bool, time.Duration) {
	var a afterErr
	if errors.As(err, &a) {
		return true, a.d
	}
	return Classify(err)
}

func TestNext(t *testing.T) {
	s := time.Second
	reset := fmt.Errorf("read: %w", syscall.ECONNRESET)
	tests := []struct {
		name     string
		policy   Policy
		n        int
		elapsed  time.Duration
		err      error
		wantWait time.Duration // 0: stop
		wantMsg  string        // substring of the final error, when stopping
	}{
		{"reset retried", Policy{Retries: 3}, 1, 0, reset, s, ""},
		{"second retry doubles", Policy{Retries: 3}, 2, 0, reset, 2 * s, ""},
		{"retries spent", Policy{Retries: 3}, 4, 0, reset, 0, "connection reset"},
		{"no retries", Policy{}, 1, 0, reset, 0, "connection reset"},
		{"permanent", Policy{Retries: 3}, 1, 0, Permanent(reset), 0, "connection reset"},
		{"cancelled", Policy{Retries: 3}, 1, 0, fmt.Errorf("get: %w", context.Canceled), 0, "canceled"},
		{"attempt timeout retried", Policy{Retries: 3}, 1, 0, fmt.Errorf("get: %w", context.DeadlineExceeded), s, ""},
		{"unknown host", Policy{Retries: 3}, 1, 0, &net.DNSError{Err: "no such host", Name: "x.invalid", IsNotFound: true}, 0, "no such host"},
		{"DNS timeout retried", Policy{Retries: 3}, 1, 0, &net.DNSError{Err: "timeout", Name: "x.example", IsTimeout: true}, s, ""},
		{"bad certificate", Policy{Retries: 3}, 1, 0, fmt.Errorf("tls: %w", x509.UnknownAuthorityError{}), 0, "unknown authority"},
		{"EOF retried", Policy{Retries: 3}, 1, 0, io.ErrUnexpectedEOF, s, ""},
		{"retry-after honoured", Policy{Retries: 3, Classify: classifyAfter}, 1, 0, afterErr{7 * s}, 7 * s, ""},
		{"retry-after over the cap", Policy{Retries: 3, Classify: classifyAfter}, 1, 0, afterErr{time.Hour}, 0, "asks to wait 1h0m0s, more than the 2m0s allowed"},
		{"time cap", Policy{Retries: 9, MaxElapsed: 10 * s}, 4, 3 * s, reset, 0, "stopped retrying after 3s"},
		{"within the time cap", Policy{Retries: 9, MaxElapsed: 10 * s}, 2, 3 * s, reset, 2 * s, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.policy.Base, tt.policy.Jitter = s, -1
			wait, err := New(tt.policy).Next(tt.n, tt.elapsed, tt.err)
			if wait != tt.wantWait {
				t.Errorf("wait = %v, want %v", wait, tt.wantWait)
			}
			if tt.wantWait != 0 {
				if err != nil {
					t.Errorf("retrying, but err = %v", err)
				}
				return
			}
			if err == nil || !errors.Is(err, tt.err) || !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("err = %v, want %v containing %q", err, tt.err, tt.wantMsg)
			}
		})
	}
}

func TestDo(t *testing.T) {
	s := time.Second
	busy := errors.New("503 busy")
	tests := []struct {
		name      string
		fails     int // failures before success
		err       error
		cancelAt  time.Duration // cancel the context when asked to wait this long
		wantCalls int
		wantErr   error
		sleeps    []time.Duration
	}{
		{"first try", 0, busy, 0, 1, nil, nil},
		{"two failures", 2, busy, 0, 3, nil, []time.Duration{s, 2 * s}},
		{"gives up", 9, busy, 0, 4, busy, []time.Duration{s, 2 * s, 4 * s}},
		{"permanent", 9, Permanent(busy), 0, 1, busy, nil},
		{"cancelled while waiting", 9, busy, 2 * s, 2, context.Canceled, []time.Duration{s}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			clk := clock.NewFake(time.Unix(0, 0))
			clk.OnSleep = func(d time.Duration) {
				if d == tt.cancelAt {
					cancel()
				}
			}
			b := New(Policy{Retries: 3, Base: s, Jitter: -1, Clock: clk})
			calls := 0
			err := b.Do(ctx, func(context.Context) error {
				calls++
				if calls <= tt.fails {
					return tt.err
				}
				return nil
			})
			if calls != tt.wantCalls || !reflect.DeepEqual(clk.Sleeps(), tt.sleeps) {
				t.Errorf("%d calls, sleeps %v; want %d, %v", calls, clk.Sleeps(), tt.wantCalls, tt.sleeps)
			}
			if (tt.wantErr == nil) != (err == nil) || (tt.wantErr != nil && !errors.Is(err, tt.wantErr)) {
				t.Errorf("err = %v, want %v", err, tt.wantErr)
			}
			if tt.cancelAt != 0 && !errors.Is(err, busy) {
				t.Errorf("cancelled wait lost the cause: %v", err)
			}
		})
	}
}

func TestStatus(t *testing.T) {
	for code, want := range map[int]bool{200: false, 304: false, 400: false, 403: false, 404: false, 408: true,
		429: true, 500: true, 501: false, 502: true, 503: true, 504: true, 505: false, 599: true, 600: false} {
		if got := Status(code); got != want {
			t.Errorf("Status(%d) = %v, want %v", code, got, want)
		}
	}
}

func TestSystemClockSleepCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	if err := (SystemClock{}).Sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if time.Since(start) > time.Minute {
		t.Fatal("a cancelled sleep waited")
	}
}
