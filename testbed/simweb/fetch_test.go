package simweb

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

// The requests for many hosts share the kept-alive connections to the one
// server and still name their own host.
func TestOneServerSharesConnections(t *testing.T) {
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "%s %s", r.Host, r.URL.RequestURI())
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	rt := newOneServer(srv.Listener.Addr().String())
	defer rt.CloseIdleConnections()
	for i := range 20 {
		host := fmt.Sprintf("site%d.example", i%10)
		req, err := http.NewRequest(http.MethodGet, "http://"+host+"/p?q=1", nil)
		if err != nil {
			t.Fatal(err)
		}
		if i%2 == 1 {
			req.Host = "" // the URL's host goes in the Host header
		}
		before, beforeHost := *req.URL, req.Host
		resp, err := rt.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if want := host + " /p?q=1"; string(body) != want {
			t.Errorf("request %d: server saw %q, want %q", i, body, want)
		}
		if resp.Request != req {
			t.Errorf("request %d: the response names another request than the caller's", i)
		}
		if *req.URL != before || req.Host != beforeHost {
			t.Errorf("request %d: the caller's request was modified (%s, %q)", i, req.URL, req.Host)
		}
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("20 sequential requests to 10 hosts opened %d connections, want 1", n)
	}
}
