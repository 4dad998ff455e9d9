package fetch

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"sync/atomic"
	"testing"
)

func TestPost(t *testing.T) {
	s := newSite(t, "User-agent: *\nDisallow: /private\n")
	var bodies, methods atomic.Value
	s.mux.HandleFunc("/search", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		bodies.Store(string(b))
		methods.Store(r.Method + " " + r.Header.Get("Content-Type"))
		v, _ := url.ParseQuery(string(b))
		html("results for "+v.Get("q"))(w, r)
	})
	s.mux.HandleFunc("/see-other", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/results?q="+url.QueryEscape(r.FormValue("q")), http.StatusSeeOther)
	})
	s.mux.HandleFunc("/results", func(w http.ResponseWriter, r *http.Request) {
		methods.Store(r.Method)
		html("listed "+r.FormValue("q"))(w, r)
	})
	s.mux.HandleFunc("/keep", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/search", http.StatusTemporaryRedirect)
	})
	var flaky atomic.Int32
	s.mux.HandleFunc("/flaky", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if flaky.Add(1) == 1 {
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		html("got "+string(b))(w, r)
	})
	f, _ := newTestFetcher(t, Options{Retries: 2})
	ctx := context.Background()
	vals := url.Values{"q": {"used cars"}, "make": {"ford"}}

	resp, err := f.Post(ctx, s.URL+"/search", vals)
	if err != nil {
		t.Fatal(err)
	}
	if got := bodies.Load(); got != "make=ford&q=used+cars" || methods.Load() != "POST application/x-www-form-urlencoded" {
		t.Errorf("server got %v %v", methods.Load(), got)
	}
	if !bytes.Contains(resp.Body, []byte("results for used cars")) || resp.Status != 200 {
		t.Errorf("resp %d %q", resp.Status, resp.Body)
	}

	// 303: the result page is fetched with GET
	resp, err = f.Post(ctx, s.URL+"/see-other", vals)
	if err != nil {
		t.Fatal(err)
	}
	if methods.Load() != "GET" || !bytes.Contains(resp.Body, []byte("listed used cars")) || len(resp.Redirects) != 1 {
		t.Errorf("after 303: %v %q %v", methods.Load(), resp.Body, resp.Redirects)
	}
	// 307 keeps the POST and its body
	bodies.Store("")
	if _, err = f.Post(ctx, s.URL+"/keep", vals); err != nil || bodies.Load() != "make=ford&q=used+cars" {
		t.Errorf("after 307: body %v, err %v", bodies.Load(), err)
	}
	// a retried POST sends its body again
	resp, err = f.Post(ctx, s.URL+"/flaky", vals)
	if err != nil || !bytes.Contains(resp.Body, []byte("got make=ford")) || resp.Attempts != 2 {
		t.Errorf("retried POST: %v %q attempts %d", err, resp.Body, resp.Attempts)
	}
	// robots.txt applies to the action
	if _, err := f.Post(ctx, s.URL+"/private/search", vals); !errors.Is(err, ErrDisallowed) {
		t.Errorf("POST to a disallowed action: %v, want ErrDisallowed", err)
	}
	// an HTTP error is a StatusError, as for Fetch
	var se *StatusError
	if _, err := f.Post(ctx, s.URL+"/nowhere", vals); !errors.As(err, &se) || se.Code != 404 {
		t.Errorf("POST to a missing page: %v", err)
	}
}
