package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dwcrawl/dwcrawl/core/fetch"
	"github.com/dwcrawl/dwcrawl/core/form"
)

// formsPage is the form classifier's fixture page (five forms: search,
// login, external, newsletter and a used-car search).
var formsPage = filepath.Join("..", "..", "core", "form", "testdata", "forms.html")

func TestClassifyFile(t *testing.T) {
	var buf bytes.Buffer
	if err := Classify(context.Background(), ClassifyOptions{Target: formsPage}, &buf); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{"5 form(s)", "kind search", "kind login", "kind external", "kind newsletter", "domain auto", "p(searchable)="} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	buf.Reset()
	if err := Classify(context.Background(), ClassifyOptions{Target: formsPage, JSON: true, Domain: "auto"}, &buf); err != nil {
		t.Fatal(err)
	}
	var res struct {
		Forms []struct {
			Kind     string `json:"kind"`
			Relevant bool   `json:"relevant"`
			Action   string `json:"action"`
		} `json:"forms"`
	}
	if err := json.Unmarshal(buf.Bytes(), &res); err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	if len(res.Forms) != 5 || !res.Forms[3].Relevant || res.Forms[2].Kind != form.KindExternal {
		t.Errorf("json %+v", res.Forms)
	}
}

func TestClassifyURL(t *testing.T) {
	body, err := os.ReadFile(formsPage)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			w.Write([]byte("User-agent: *\nDisallow: /private\n"))
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(body)
	}))
	defer srv.Close()
	ctx := context.Background()
	local := NetOptions{AllowPrivate: true}
	var buf bytes.Buffer
	if err := Classify(ctx, ClassifyOptions{Target: srv.URL + "/cars", Net: local}, &buf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "5 form(s)") || !strings.Contains(buf.String(), srv.URL) {
		t.Errorf("output:\n%s", buf.String())
	}
	// a host name mapped to the server with --resolve
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	buf.Reset()
	mapped := NetOptions{AllowPrivate: true, Resolve: []string{"shop.example.test:" + port + ":127.0.0.1"}}
	if err := Classify(ctx, ClassifyOptions{Target: "http://shop.example.test:" + port + "/cars", Net: mapped}, &buf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "http://shop.example.test:"+port+"/cars: 5 form(s)") {
		t.Errorf("--resolve output:\n%s", buf.String())
	}
	// the address policy: loopback needs AllowPrivate, also when mapped
	for _, tt := range []struct {
		url string
		net NetOptions
	}{
		{srv.URL + "/cars", NetOptions{}},
		{"http://shop.example.test:" + port + "/cars", NetOptions{Resolve: mapped.Resolve}},
	} {
		if err := Classify(ctx, ClassifyOptions{Target: tt.url, Net: tt.net}, &buf); !errors.Is(err, fetch.ErrBlocked) {
			t.Errorf("%s without AllowPrivate: err = %v, want the address policy's refusal", tt.url, err)
		}
	}
	// robots.txt is obeyed as in a crawl
	if err := Classify(ctx, ClassifyOptions{Target: srv.URL + "/private/page", Net: local}, &buf); !errors.Is(err, fetch.ErrDisallowed) {
		t.Errorf("robots.txt: err = %v", err)
	}
	if err := Classify(ctx, ClassifyOptions{Target: "testdata/missing.html"}, &buf); err == nil {
		t.Error("missing file accepted")
	}
	if err := Classify(ctx, ClassifyOptions{Target: srv.URL, Net: NetOptions{Resolve: []string{"nonsense"}}}, &buf); err == nil {
		t.Error("bad --resolve accepted")
	}
}
