// Package clustertest runs an embedded NATS server with JetStream
// (nats-server v2) on loopback for the tests of dwcrawl's distributed mode.
package clustertest

import (
	"bufio"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// TestServer is an embedded NATS server with JetStream for the tests,
// storing its streams in a directory so that it can be restarted.
type TestServer struct {
	t    testing.TB
	dir  string
	port int
	s    *server.Server
}

// StartServer starts a JetStream server on a free loopback port, storing
// in dir; it is shut down when the test ends.
func StartServer(t testing.TB, dir string) *TestServer {
	t.Helper()
	ts := &TestServer{t: t, dir: dir, port: -1}
	ts.Start()
	t.Cleanup(ts.Shutdown)
	return ts
}

// NewServer returns a JetStream server on a free loopback port, storing in
// dir, that is not started yet (a client started before its server): Start
// starts it. It is shut down when the test ends.
func NewServer(t testing.TB, dir string) *TestServer {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	ts := &TestServer{t: t, dir: dir, port: port}
	t.Cleanup(ts.Shutdown)
	return ts
}

// Start (re)starts the server on its port with its storage.
func (ts *TestServer) Start() {
	ts.t.Helper()
	opts := &server.Options{Host: "127.0.0.1", Port: ts.port, JetStream: true, StoreDir: ts.dir, NoSigs: true, NoLog: true}
	s, err := server.NewServer(opts)
	if err != nil {
		ts.t.Fatal(err)
	}
	go s.Start()
	if !s.ReadyForConnections(30 * time.Second) {
		ts.t.Fatal("the NATS server did not start")
	}
	ts.s = s
	ts.port = s.Addr().(*net.TCPAddr).Port
}

// Shutdown stops the server (Start starts it again).
func (ts *TestServer) Shutdown() {
	if ts.s != nil {
		ts.s.Shutdown()
		ts.s.WaitForShutdown()
		ts.s = nil
	}
}

// URL is the server's client URL.
func (ts *TestServer) URL() string { return "nats://127.0.0.1:" + strconv.Itoa(ts.port) }

// StartBinary runs the nats-server binary bin (another version than the
// embedded one: Debian's, an old release) with JetStream on a free
// loopback port, storing in dir, and returns its client URL and version;
// it is stopped when the test ends.
func StartBinary(t testing.TB, bin, dir string) (url, version string) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	cmd := exec.Command(bin, "-a", "127.0.0.1", "-p", port, "-js", "-sd", dir)
	out, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("%s: %v", bin, err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	})
	// the server logs its version, then that it is ready
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		line := sc.Text()
		if _, v, ok := strings.Cut(line, "Version:"); ok && version == "" {
			version = strings.TrimSpace(v)
		}
		if strings.Contains(line, "Server is ready") {
			go func() {
				for sc.Scan() {
				}
			}()
			return "nats://127.0.0.1:" + port, version
		}
	}
	t.Fatalf("%s did not start (%v)", bin, sc.Err())
	return "", ""
}
