package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// miniFormasaurus writes a small folder in the Formasaurus layout: 16
// pages on 16 hosts, each with a search box and one other form.
func miniFormasaurus(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "html"), 0o755); err != nil {
		t.Fatal(err)
	}
	others := []struct{ label, html string }{
		{"l", `<form method="post" action="/login"><input name="username"><input type="password" name="password"><input type="submit" value="Log in"></form>`},
		{"m", `<form method="post" action="/newsletter"><input type="email" name="email" placeholder="Email"><input type="submit" value="Subscribe"></form>`},
		{"c", `<form method="post" action="/contact"><input name="name"><input type="email" name="email"><textarea name="message"></textarea><input type="submit" value="Send"></form>`},
		{"r", `<form method="post" action="/register"><input name="username"><input type="email" name="email"><input type="password" name="password"><input type="password" name="confirm"><input type="submit" value="Sign up"></form>`},
	}
	index := map[string]any{}
	for i := range 16 {
		o := others[i%len(others)]
		search := fmt.Sprintf(`<form action="/search" method="get"><input type="text" name="%s"><input type="submit" value="Search"></form>`, []string{"q", "query", "keywords", "s"}[i%4])
		body := "<html><body><h1>Site</h1>" + search + o.html + "</body></html>"
		name := fmt.Sprintf("html/site%d.example-0.html", i)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		index[name] = map[string]any{"forms": []string{"s", o.label}, "url": fmt.Sprintf("http://site%d.example/", i)}
	}
	b, _ := json.Marshal(index)
	if err := os.WriteFile(filepath.Join(dir, "index.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func runFormsCmd(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var buf bytes.Buffer
	app := newApp()
	app.Writer = &buf
	app.ErrWriter = &buf
	err := app.Run(append([]string{"dwcrawl"}, args...))
	return buf.String(), err
}

func TestTrainAndEvalForms(t *testing.T) {
	data := miniFormasaurus(t)
	model := filepath.Join(t.TempDir(), "forms.json")
	out, err := runFormsCmd(t, "train", "forms", "--data", data, "--out", model)
	if err != nil {
		t.Fatalf("train: %v\n%s", err, out)
	}
	if !strings.Contains(out, "loaded 32 labelled forms") || !strings.Contains(out, "wrote "+model) {
		t.Errorf("train output:\n%s", out)
	}
	out, err = runFormsCmd(t, "eval", "forms", "--data", data, "--model", model, "--json")
	if err != nil {
		t.Fatalf("eval: %v\n%s", err, out)
	}
	var r struct {
		Accuracy   float64 `json:"accuracy"`
		N          int     `json:"n"`
		Searchable struct {
			Precision, Recall, F1 float64
		} `json:"searchable"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("eval json: %v\n%s", err, out)
	}
	if r.N != 32 || r.Accuracy < 0.99 || r.Searchable.F1 < 0.99 {
		t.Errorf("eval on training data: %+v", r)
	}
	out, err = runFormsCmd(t, "eval", "forms", "--data", data, "--cv", "2", "--seed", "3")
	if err != nil {
		t.Fatalf("eval --cv: %v\n%s", err, out)
	}
	for _, want := range []string{"2-fold cross-validation grouped by host (seed 3)", "searchable vs not-searchable", "form kind", "accuracy"} {
		if !strings.Contains(out, want) {
			t.Errorf("cv output lacks %q:\n%s", want, out)
		}
	}
	// The embedded model on the same folder.
	if out, err = runFormsCmd(t, "eval", "forms", "--data", data); err != nil || !strings.Contains(out, "model: embedded default") {
		t.Errorf("eval default: %v\n%s", err, out)
	}
}

func TestTrainEvalErrors(t *testing.T) {
	tests := []struct {
		args []string
		code int
	}{
		{[]string{"eval", "forms", "--data", "x", "--cv", "1"}, 2},
		{[]string{"eval", "forms", "--data", "x", "--cv", "3", "--model", "m.json"}, 2},
	}
	for _, tt := range tests {
		_, err := runFormsCmd(t, tt.args...)
		var ee errExit
		if err == nil || !asFormsExit(err, &ee) || ee.code != tt.code {
			t.Errorf("%v: err %v, want exit %d", tt.args, err, tt.code)
		}
	}
	if _, err := runFormsCmd(t, "eval", "forms", "--data", t.TempDir()); err == nil {
		t.Error("empty folder accepted")
	}
	if _, err := runFormsCmd(t, "train", "forms", "--data", t.TempDir(), "--out", filepath.Join(t.TempDir(), "m.json")); err == nil {
		t.Error("train on empty folder accepted")
	}
}

// TestEvalDomains labels the mini folder's search forms (the first eight
// sites are none of the domains, the others bookshops whose pages say so)
// and scores the domain step on them, trains with the labels, and checks
// the errors.
func TestEvalDomains(t *testing.T) {
	data := miniFormasaurus(t)
	var labels strings.Builder
	labels.WriteString("# page\tform\tlabel\tdomain\tnote\n")
	for i := range 16 {
		name := fmt.Sprintf("html/site%d.example-0.html", i)
		dom := "none"
		if i >= 8 {
			dom = "book"
			p := filepath.Join(data, name)
			b, _ := os.ReadFile(p)
			b = []byte(strings.Replace(string(b), "<h1>Site</h1>", "<title>Rare books and first editions</title><h1>Used books, rare books, first editions</h1><p>Search our catalog of books by author, title or ISBN: novels, poetry, history.</p>", 1))
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		fmt.Fprintf(&labels, "%s\t0\ts\t%s\tmini\n", name, dom)
	}
	lf := filepath.Join(t.TempDir(), "domains.tsv")
	if err := os.WriteFile(lf, []byte(labels.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := runFormsCmd(t, "eval", "domains", "--data", data, "--labels", lf)
	if err != nil {
		t.Fatalf("eval domains: %v\n%s", err, out)
	}
	for _, want := range []string{"labelled search forms: 16", "(all 12)"} {
		if !strings.Contains(out, want) {
			t.Errorf("eval domains output lacks %q:\n%s", want, out)
		}
	}
	if f := strings.Fields(lineWith(out, "(any)")); len(f) != 7 || f[1] != "0/8" || f[4] != "8/8" {
		t.Errorf("(any): want 0/8 out-of-domain forms relevant and 8/8 bookshops found:\n%s", out)
	}
	out, err = runFormsCmd(t, "eval", "domains", "--data", data, "--labels", lf, "--cv", "2", "--json")
	if err != nil || !strings.Contains(out, `"folds": 2`) {
		t.Errorf("eval domains --cv: %v\n%s", err, out)
	}
	model := filepath.Join(t.TempDir(), "forms.json")
	out, err = runFormsCmd(t, "train", "forms", "--data", data, "--out", model, "--domain-labels", lf)
	if err != nil || !strings.Contains(out, "domain level thresholds calibrated on "+lf) {
		t.Errorf("train --domain-labels: %v\n%s", err, out)
	}
	if _, err := runFormsCmd(t, "eval", "domains", "--data", data); err == nil {
		t.Error("eval domains without --labels accepted")
	}
	bad := filepath.Join(t.TempDir(), "bad.tsv")
	os.WriteFile(bad, []byte("html/site0.example-0.html\t0\ts\tcars\n"), 0o644)
	if _, err := runFormsCmd(t, "eval", "domains", "--data", data, "--labels", bad); err == nil || !strings.Contains(err.Error(), "bad.tsv:1: unknown domain \"cars\"") {
		t.Errorf("bad label file: %v", err)
	}
}

// lineWith returns the first line of s containing sub.
func lineWith(s, sub string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			return l
		}
	}
	return ""
}
