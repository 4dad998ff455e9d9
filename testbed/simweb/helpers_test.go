package simweb

import (
	"bytes"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// parsed is what the test crawler extracts from a page.
type parsed struct {
	links []string
	forms []parsedForm
}

type parsedForm struct {
	action, method string
	inputs         map[string]string // name → type (select, text, …)
}

// parsePage extracts absolute links and forms as an HTML5 parser sees them.
func parsePage(t testing.TB, base *url.URL, body []byte) parsed {
	t.Helper()
	doc, err := html.Parse(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("parse %s: %v", base, err)
	}
	var p parsed
	var walk func(n *html.Node, f *parsedForm)
	walk = func(n *html.Node, f *parsedForm) {
		if n.Type == html.ElementNode {
			switch n.DataAtom {
			case atom.A:
				if h := attr(n, "href"); h != "" {
					if u, err := base.Parse(h); err == nil {
						u.Fragment = ""
						p.links = append(p.links, u.String())
					}
				}
			case atom.Form:
				act, _ := base.Parse(attr(n, "action"))
				p.forms = append(p.forms, parsedForm{action: act.String(), method: strings.ToUpper(attr(n, "method")), inputs: map[string]string{}})
				f = &p.forms[len(p.forms)-1]
			case atom.Input, atom.Select, atom.Textarea:
				if f != nil && attr(n, "name") != "" {
					typ := attr(n, "type")
					if n.DataAtom != atom.Input {
						typ = n.Data
					}
					f.inputs[attr(n, "name")] = typ
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, f)
		}
	}
	walk(doc, nil)
	return p
}

// get fetches a URL and returns status and body.
func get(t testing.TB, c *http.Client, u string) (int, []byte) {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: read: %v", u, err)
	}
	return resp.StatusCode, b
}

// canon drops session ids the way a crawler's canonicaliser would.
func canon(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	if i := strings.Index(u.Path, ";"); i >= 0 {
		u.Path = u.Path[:i]
	}
	q := u.Query()
	for k := range q {
		if contains(sessionParams, strings.ToLower(k)) {
			q.Del(k)
		}
	}
	u.RawQuery = q.Encode()
	u.Fragment = ""
	return u.String()
}

// smallWeb builds the SmallConfig web with the seed logged.
func smallWeb(t testing.TB, seed int64, edit func(*Config)) *Web {
	t.Helper()
	cfg := SmallConfig()
	cfg.Seed = seed
	if edit != nil {
		edit(&cfg)
	}
	t.Logf("seed %d", seed)
	w, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return w
}
