package form

import (
	"net/url"
	"strings"

	"github.com/dwcrawl/dwcrawl/core/page"
)

// engines are the host-name labels of general web search engines and
// hosted site-search services. A host matches when one of these appears
// as a whole label sequence of it ("www.google.co.uk" matches "google").
var engines = []string{
	"google", "bing", "duckduckgo", "yahoo", "yandex", "baidu", "ask", "aol", "startpage",
	"ecosia", "qwant", "mojeek", "seznam", "naver", "sogou", "so", "dogpile", "excite",
	"lycos", "altavista", "alltheweb", "msn", "live", "searx", "searxng", "brave", "metager",
	"webcrawler", "info", "teoma", "gigablast", "yippy", "freefind", "atomz", "picosearch",
	"search.simweb",
}

// engineHosts are exact host suffixes of engines whose generic label is
// too common to match alone.
var engineHosts = []string{
	"search.brave.com", "search.yahoo.com", "search.aol.com", "search.msn.com", "search.live.com",
	"cse.google.com", "search.freefind.com", "search.atomz.com", "search.simweb", "html.duckduckgo.com",
	"search.info.com", "search.naver.com", "www.so.com", "www.ask.com", "ask.com",
}

// External reports whether f is a search box of an external web search
// engine (its action goes to a search engine's host, or it carries the
// hidden site-restriction fields those engines use) and says why. pageHost
// is the host of the page holding the form ("" if unknown); an engine's
// own search form on its own site is not external.
func External(f *page.Form, pageHost string) (bool, string) {
	host := ""
	if u, err := url.Parse(f.Action); err == nil {
		host = strings.ToLower(u.Hostname())
	}
	pageHost = strings.ToLower(pageHost)
	if host != "" && host != pageHost && isEngineHost(host) {
		return true, "action submits to search engine " + host
	}
	hasText := false
	for _, fd := range f.Fields {
		t := strings.ToLower(fd.Type)
		if isTextType(t) && fd.Tag != "select" && fd.Tag != "textarea" {
			hasText = true
		}
	}
	if !hasText {
		return false, ""
	}
	cx := false
	for _, fd := range f.Fields {
		if strings.ToLower(fd.Type) != "hidden" {
			continue
		}
		n := strings.ToLower(fd.Name)
		if (n == "sitesearch" || n == "as_sitesearch") && fd.Value != "" {
			return true, "hidden field " + n + "=" + fd.Value + " restricts a web search engine to one site"
		}
		if n == "cx" && strings.Contains(fd.Value, ":") {
			cx = true
		}
	}
	if cx {
		return true, "hidden field cx: Google Custom Search box"
	}
	return false, ""
}

func isEngineHost(host string) bool {
	for _, h := range engineHosts {
		if host == h || strings.HasSuffix(host, "."+h) {
			return true
		}
	}
	labels := strings.Split(host, ".")
	for _, e := range engines {
		if strings.Contains(e, ".") {
			continue
		}
		// The engine's name must be the registered-domain label: the one
		// before the public suffix (google.com, google.co.uk), not a
		// subdomain of some other site (ask.example.org).
		for i, l := range labels {
			if l != e {
				continue
			}
			rest := labels[i+1:]
			if len(rest) == 1 || (len(rest) == 2 && len(rest[0]) <= 3 && len(rest[1]) == 2) {
				return true
			}
		}
	}
	return false
}
