package main

import (
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const classifyPage = `<html><head><title>Cars</title></head><body>
<form action="/search"><input name="q" placeholder="Search used cars"><input type="submit" value="Search"></form>
<form method="post" action="/login"><input name="user"><input type="password" name="pass"><input type="submit" value="Sign in"></form>
</body></html>`

func asFormsExit(err error, ee *errExit) bool { return errors.As(err, ee) }

func TestClassify(t *testing.T) {
	file := filepath.Join(t.TempDir(), "page.html")
	if err := os.WriteFile(file, []byte(classifyPage), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := runFormsCmd(t, "classify", file)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{"2 form(s)", "kind search", "kind login", "p(searchable)="} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	out, err = runFormsCmd(t, "classify", "--json", "--domain", "auto", file)
	if err != nil || !strings.Contains(out, `"kind": "search"`) || !strings.Contains(out, `"domain": "auto"`) {
		t.Errorf("json: %v\n%s", err, out)
	}

	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(classifyPage))
	}))
	defer srv.Close()
	if out, err = runFormsCmd(t, "classify", "--allow-private", srv.URL+"/"); err != nil || !strings.Contains(out, "2 form(s)") {
		t.Errorf("loopback URL: %v\n%s", err, out)
	}
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	named := "http://cars.example.test:" + port + "/"
	if out, err = runFormsCmd(t, "classify", "--allow-private", "--resolve", "cars.example.test:"+port+":127.0.0.1", named); err != nil ||
		!strings.Contains(out, named+": 2 form(s)") {
		t.Errorf("--resolve: %v\n%s", err, out)
	}
	// loopback without --allow-private: refused, and the error says what to do
	if _, err = runFormsCmd(t, "classify", srv.URL+"/"); err == nil || !strings.Contains(err.Error(), "--allow-private") {
		t.Errorf("loopback URL without --allow-private: %v", err)
	}
	var ee errExit
	if _, err = runFormsCmd(t, "classify"); !asFormsExit(err, &ee) || ee.code != 2 {
		t.Errorf("no argument: %v", err)
	}
	if _, err = runFormsCmd(t, "classify", "--domain", "nope", file); err == nil {
		t.Error("unknown domain accepted")
	}
}
