// Package clustertest runs an embedded NATS server with JetStream
// (nats-server v2) on loopback for the tests of dwcrawl's distributed mode.
package clustertest

import (
	"net"
	"strconv"
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
