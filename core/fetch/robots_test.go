package fetch

import (
	"testing"
	"time"
)

const robotsSample = "\xef\xbb\xbf# sample\r\n" + `User-agent: *
Disallow: /private/
Disallow: /tmp
Allow: /private/public
Crawl-delay: 1

User-agent: dwcrawl
User-agent: otherbot
Disallow: /cgi-bin/   # scripts
Disallow: /*.pdf$
Disallow: /search?*q=
Allow: /cgi-bin/ok.cgi
Disallow:
Crawl-delay: 2.5

user-agent: DWCRAWL/1.0
disallow: /merged/

User-agent: badbot
Disallow: /

Sitemap: https://example.com/sitemap.xml
`

func TestRobotsFor(t *testing.T) {
	r := ParseRobots([]byte(robotsSample))
	if len(r.Sitemaps) != 1 || r.Sitemaps[0] != "https://example.com/sitemap.xml" {
		t.Errorf("sitemaps = %v", r.Sitemaps)
	}
	tests := []struct {
		agent, path string
		want        bool
	}{
		// dwcrawl: its own two groups merged, "*" ignored.
		{"dwcrawl", "/", true},
		{"dwcrawl", "/private/x", true}, // "*" group does not apply
		{"dwcrawl", "/cgi-bin/run", false},
		{"dwcrawl", "/cgi-bin/ok.cgi", true}, // longer allow wins
		{"dwcrawl", "/doc/a.pdf", false},
		{"dwcrawl", "/doc/a.pdf?x=1", true}, // $ anchors the end
		{"dwcrawl", "/search?lang=en&q=cars", false},
		{"dwcrawl", "/search?lang=en", true},
		{"dwcrawl", "/merged/page", false},
		{"Dwcrawl/0.1.0 (+https://x)", "/merged/page", false}, // full UA string reduced to its token
		{"dwcrawl", "/robots.txt", true},
		// others: the "*" group.
		{"somebot", "/private/x", false},
		{"somebot", "/private/public/a", true},
		{"somebot", "/tmp", false},
		{"somebot", "/tmpfile", false},
		{"somebot", "/cgi-bin/run", true},
		{"badbot", "/anything", false},
		{"badbot", "/robots.txt", true},
	}
	for _, tt := range tests {
		t.Run(tt.agent+tt.path, func(t *testing.T) {
			if got := r.For(tt.agent).Allowed(tt.path); got != tt.want {
				t.Errorf("For(%q).Allowed(%q) = %v, want %v", tt.agent, tt.path, got, tt.want)
			}
		})
	}
	if d := r.For("dwcrawl").CrawlDelay; d != 2500*time.Millisecond {
		t.Errorf("dwcrawl crawl-delay = %s, want 2.5s", d)
	}
	if d := r.For("somebot").CrawlDelay; d != time.Second {
		t.Errorf("somebot crawl-delay = %s, want 1s", d)
	}
}

func TestRulesAllowed(t *testing.T) {
	tests := []struct {
		name, robots, path string
		want               bool
	}{
		{"empty file", "", "/x", true},
		{"no group for anyone", "User-agent: foo\nDisallow: /", "/x", true},
		{"empty disallow", "User-agent: *\nDisallow:", "/x", true},
		{"disallow all", "User-agent: *\nDisallow: /", "/x", false},
		{"allow wins tie", "User-agent: *\nDisallow: /page\nAllow: /page", "/page", true},
		{"longest wins (disallow)", "User-agent: *\nAllow: /a\nDisallow: /a/b", "/a/b/c", false},
		{"longest wins (allow)", "User-agent: *\nDisallow: /a\nAllow: /a/b", "/a/b/c", true},
		{"star middle", "User-agent: *\nDisallow: /a*/c", "/abbb/c", false},
		{"star middle no match", "User-agent: *\nDisallow: /a*/c", "/abbb/d", true},
		{"dollar exact", "User-agent: *\nDisallow: /$", "/", false},
		{"dollar exact other", "User-agent: *\nDisallow: /$", "/a", true},
		{"star dollar", "User-agent: *\nDisallow: /*.php$", "/x/y.php", false},
		{"star dollar suffix", "User-agent: *\nDisallow: /*.php$", "/x/y.php5", true},
		{"percent normalised", "User-agent: *\nDisallow: /%7Ejoe/", "/~joe/index", false},
		{"utf8 pattern", "User-agent: *\nDisallow: /foo/bär", "/foo/b%C3%A4r", false},
		{"lower hex escape", "User-agent: *\nDisallow: /a%2fb", "/a%2Fb", false},
		{"group ends at rule", "User-agent: a\nDisallow: /x\nUser-agent: *\nDisallow: /y", "/x", true},
		{"agents share group", "User-agent: a\nUser-agent: *\nDisallow: /y", "/y", false},
		{"rules before group ignored", "Disallow: /\nUser-agent: *\nAllow: /", "/x", true},
		{"comment only line", "User-agent: * # all\n# Disallow: /\nDisallow: /z", "/x", true},
		{"CR line ends", "User-agent: *\rDisallow: /x\r", "/x", false},
		{"no colon ignored", "User-agent *\nDisallow /", "/x", true},
		{"empty path is root", "User-agent: *\nDisallow: /$", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ParseRobots([]byte(tt.robots)).For("dwcrawl").Allowed(tt.path); got != tt.want {
				t.Errorf("Allowed(%q) = %v, want %v", tt.path, got, tt.want)
			}
		})
	}
}

func TestAllowDisallowAll(t *testing.T) {
	if !AllowAll.Allowed("/x") || DisallowAll.Allowed("/x") || !DisallowAll.Allowed("/robots.txt") {
		t.Fatal("AllowAll/DisallowAll verdicts wrong")
	}
}

func FuzzParseRobots(f *testing.F) {
	f.Add([]byte(robotsSample), "/cgi-bin/ok.cgi")
	f.Add([]byte("User-agent: *\nDisallow: /*a*$"), "/bab")
	f.Add([]byte("User-agent:*\nAllow:%zz%"), "/%%")
	f.Fuzz(func(t *testing.T, body []byte, path string) {
		r := ParseRobots(body)
		_ = r.For("dwcrawl").Allowed(path)
		_ = r.For("*").Allowed("/" + path)
	})
}

func BenchmarkRobotsAllowed(b *testing.B) {
	r := ParseRobots([]byte(robotsSample)).For("dwcrawl")
	b.ReportAllocs()
	for b.Loop() {
		r.Allowed("/search/cars?make=ford&q=focus")
	}
}
