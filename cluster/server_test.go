package cluster

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/dwcrawl/dwcrawl/cluster/clustertest"
)

// logRecorder is a slog handler that hands every record to the test.
type logRecorder struct {
	mu   sync.Mutex
	recs []slog.Record
	ch   chan struct{}
}

func newLogRecorder() *logRecorder { return &logRecorder{ch: make(chan struct{}, 1)} }

func (l *logRecorder) Enabled(context.Context, slog.Level) bool { return true }
func (l *logRecorder) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *logRecorder) WithGroup(string) slog.Handler            { return l }
func (l *logRecorder) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	l.recs = append(l.recs, r.Clone())
	l.mu.Unlock()
	select {
	case l.ch <- struct{}{}:
	default:
	}
	return nil
}

// wait returns the first record with message msg, waiting for it (the
// test's deadline bounds the wait).
func (l *logRecorder) wait(t *testing.T, msg string) slog.Record {
	t.Helper()
	for {
		l.mu.Lock()
		for _, r := range l.recs {
			if r.Message == msg {
				l.mu.Unlock()
				return r
			}
		}
		l.mu.Unlock()
		<-l.ch
	}
}

func attrs(r slog.Record) map[string]string {
	m := map[string]string{}
	r.Attrs(func(a slog.Attr) bool { m[a.Key] = a.Value.String(); return true })
	return m
}

// TestConnectWaitsForServer starts a client before its server, as a worker
// started together with its server is: Connect retries, says what it waits
// for, and connects once the server is up.
func TestConnectWaitsForServer(t *testing.T) {
	ts := clustertest.NewServer(t, t.TempDir())
	logs := newLogRecorder()
	type result struct {
		c   *Conn
		err error
	}
	done := make(chan result, 1)
	go func() {
		c, err := Connect(t.Context(), ts.URL(), Options{Logger: slog.New(logs), Wait: -1})
		done <- result{c, err}
	}()
	r := logs.wait(t, "nats: waiting for the server")
	a := attrs(r)
	if a["url"] != ts.URL() || a["waited"] == "" || !strings.Contains(a["err"], "no servers") {
		t.Errorf("the wait is logged as %v, want the URL %s, how long and why", a, ts.URL())
	}
	ts.Start()
	res := <-done
	if res.err != nil {
		t.Fatalf("connecting once the server is up: %v", res.err)
	}
	defer res.c.Close()
	if up := attrs(logs.wait(t, "nats: server up")); up["version"] != server.VERSION {
		t.Errorf("server up logged as %v, want version %s", up, server.VERSION)
	}
	// the connection works: its streams and buckets were made
	if _, err := res.c.PagesReserved(t.Context(), "any"); err != nil {
		t.Error(err)
	}
}

// TestConnectWaitEnds checks the ends of a wait for a server that never
// comes: ^C (the context), the Wait given, and no wait at all.
func TestConnectWaitEnds(t *testing.T) {
	ts := clustertest.NewServer(t, t.TempDir()) // never started
	t.Run("cancelled", func(t *testing.T) {
		logs := newLogRecorder()
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() {
			_, err := Connect(ctx, ts.URL(), Options{Logger: slog.New(logs), Wait: -1})
			done <- err
		}()
		logs.wait(t, "nats: waiting for the server")
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), ts.URL()) {
			t.Errorf("a cancelled wait: %v, want context.Canceled naming %s", err, ts.URL())
		}
	})
	t.Run("bounded", func(t *testing.T) {
		_, err := Connect(t.Context(), ts.URL(), Options{Logger: quiet(), Wait: 300 * time.Millisecond})
		if !errors.Is(err, nats.ErrNoServers) || !strings.Contains(err.Error(), "no server after waiting") {
			t.Errorf("a bounded wait: %v", err)
		}
	})
	t.Run("none", func(t *testing.T) {
		logs := newLogRecorder()
		_, err := Connect(t.Context(), ts.URL(), Options{Logger: slog.New(logs)})
		if !errors.Is(err, nats.ErrNoServers) {
			t.Errorf("no wait: %v, want nats.ErrNoServers", err)
		}
		if len(logs.recs) != 0 {
			t.Errorf("no wait logged %d records", len(logs.recs))
		}
	})
}

// TestConnectNoJetStream connects to a server without JetStream: Connect
// fails at once saying so, instead of retrying for its patience.
func TestConnectNoJetStream(t *testing.T) {
	s, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, NoSigs: true, NoLog: true})
	if err != nil {
		t.Fatal(err)
	}
	go s.Start()
	t.Cleanup(s.Shutdown)
	if !s.ReadyForConnections(30 * time.Second) {
		t.Fatal("the NATS server did not start")
	}
	_, err = Connect(t.Context(), s.ClientURL(), Options{Logger: quiet()})
	if err == nil || !strings.Contains(err.Error(), "JetStream is not enabled") {
		t.Errorf("a server without JetStream: %v", err)
	}
}

func TestCheckServerVersion(t *testing.T) {
	for _, tc := range []struct {
		version string
		ok      bool
	}{
		{"2.9.10", false}, // Debian 12
		{"2.9.25", false},
		{"1.99.99", false},
		{"2.10.0", true},
		{"2.10.0-RC.1", true},
		{"v2.10.4", true},
		{"2.11.3", true},
		{"2.15.2", true},
		{"3.0.0", true},
		{"", false},
		{"2.10", false},
		{"two.ten.zero", false},
	} {
		err := CheckServerVersion(tc.version)
		if (err == nil) != tc.ok {
			t.Errorf("%q: %v, want ok %v", tc.version, err, tc.ok)
			continue
		}
		if err != nil && (!errors.Is(err, ErrServerTooOld) || !strings.Contains(err.Error(), MinServerVersion) || !strings.Contains(err.Error(), tc.version)) {
			t.Errorf("%q: %v does not name the version and the one needed", tc.version, err)
		}
	}
	if err := CheckServerVersion(server.VERSION); err != nil {
		t.Errorf("the embedded server %s: %v", server.VERSION, err)
	}
}

// TestConnectOldServer connects to a nats-server binary older than
// MinServerVersion when DWCRAWL_TEST_OLD_NATS_SERVER names one (Debian 12's
// /usr/sbin/nats-server, 2.9.10): Connect refuses it at once, naming both
// versions.
func TestConnectOldServer(t *testing.T) {
	bin := os.Getenv("DWCRAWL_TEST_OLD_NATS_SERVER")
	if bin == "" {
		t.Skip("DWCRAWL_TEST_OLD_NATS_SERVER names no old nats-server binary")
	}
	url, version := clustertest.StartBinary(t, bin, t.TempDir())
	if CheckServerVersion(version) == nil {
		t.Skipf("%s is nats-server %s, not older than %s", bin, version, MinServerVersion)
	}
	_, err := Connect(t.Context(), url, Options{Logger: quiet(), Wait: -1})
	if !errors.Is(err, ErrServerTooOld) || !strings.Contains(err.Error(), version) || !strings.Contains(err.Error(), MinServerVersion) {
		t.Errorf("nats-server %s: %v, want ErrServerTooOld naming %s and %s", version, err, version, MinServerVersion)
	}
	t.Log(err)
}
