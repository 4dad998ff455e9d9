package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(body)
	}))
	defer srv.Close()
	var buf bytes.Buffer
	if err := Classify(context.Background(), ClassifyOptions{Target: srv.URL + "/cars"}, &buf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "5 form(s)") || !strings.Contains(buf.String(), srv.URL) {
		t.Errorf("output:\n%s", buf.String())
	}
	tests := []string{"http://example.com/", "http://93.184.216.34/", "https://10.0.0.1:8443/x", "http://[2001:db8::1]/"}
	for _, u := range tests {
		err := Classify(context.Background(), ClassifyOptions{Target: u}, &buf)
		if !errors.Is(err, ErrNotLoopback) {
			t.Errorf("%s: err = %v, want ErrNotLoopback", u, err)
		}
	}
	// A loopback page that redirects elsewhere is refused at dial time.
	redir := httptest.NewServer(http.RedirectHandler("http://192.0.2.1/", http.StatusFound))
	defer redir.Close()
	if err := Classify(context.Background(), ClassifyOptions{Target: redir.URL}, &buf); !errors.Is(err, ErrNotLoopback) {
		t.Errorf("redirect: err = %v", err)
	}
	if err := Classify(context.Background(), ClassifyOptions{Target: "testdata/missing.html"}, &buf); err == nil {
		t.Error("missing file accepted")
	}
}
