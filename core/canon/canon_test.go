package canon

import (
	"errors"
	"net/url"
	"strings"
	"testing"
)

func TestCanonical(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"lower scheme and host", "HTTP://Example.COM/Path", "http://example.com/Path"},
		{"empty path", "http://example.com", "http://example.com/"},
		{"empty path with query", "http://example.com?b=2&a=1", "http://example.com/?a=1&b=2"},
		{"default http port", "http://example.com:80/a", "http://example.com/a"},
		{"default https port", "https://example.com:443/a", "https://example.com/a"},
		{"non-default port kept", "https://example.com:8443/a", "https://example.com:8443/a"},
		{"port leading zeros", "http://example.com:0080/", "http://example.com/"},
		{"empty port", "http://example.com:/a", "http://example.com/a"},
		{"fragment dropped", "http://example.com/a#top", "http://example.com/a"},
		{"dot segments", "http://example.com/a/b/../c/./d", "http://example.com/a/c/d"},
		{"dot segments above root", "http://example.com/../../x", "http://example.com/x"},
		{"trailing dot segment", "http://example.com/a/b/..", "http://example.com/a/"},
		{"trailing slash kept", "http://example.com/dir/", "http://example.com/dir/"},
		{"query sorted", "http://example.com/s?q=b&a=2&a=1", "http://example.com/s?a=1&a=2&q=b"},
		{"empty query", "http://example.com/s?", "http://example.com/s"},
		{"empty params", "http://example.com/s?&&a=1&", "http://example.com/s?a=1"},
		{"jsessionid param", "http://example.com/s?JSESSIONID=abc&q=1", "http://example.com/s?q=1"},
		{"phpsessid", "http://example.com/s?PHPSESSID=0123&x=y", "http://example.com/s?x=y"},
		{"sid", "http://example.com/s?sid=9&x=y", "http://example.com/s?x=y"},
		{"sessionid and session_id", "http://example.com/?sessionid=1&session_id=2&k=v", "http://example.com/?k=v"},
		{"aspsessionid prefix", "http://example.com/?ASPSESSIONIDQQGGQ=XYZ&k=v", "http://example.com/?k=v"},
		{"s as 32 hex", "http://example.com/?s=0123456789abcdef0123456789ABCDEF&k=v", "http://example.com/?k=v"},
		{"s kept when not hex", "http://example.com/?s=books", "http://example.com/?s=books"},
		{"jsessionid path param", "http://example.com/shop/list.jsp;jsessionid=A1B2C3?cat=2", "http://example.com/shop/list.jsp?cat=2"},
		{"jsessionid path param in dir", "http://example.com/a;jsessionid=1/b", "http://example.com/a/b"},
		{"other path params kept", "http://example.com/a;v=1", "http://example.com/a;v=1"},
		{"unreserved escapes decoded", "http://example.com/%7Euser/%41", "http://example.com/~user/A"},
		{"reserved escapes upper-cased", "http://example.com/a%2fb?q=a%3db", "http://example.com/a%2Fb?q=a%3Db"},
		{"bad percent", "http://example.com/100%/x", "http://example.com/100%25/x"},
		{"space escaped", "http://example.com/a b?q=x y", "http://example.com/a%20b?q=x%20y"},
		{"plus kept", "http://example.com/?q=a+b", "http://example.com/?q=a+b"},
		{"utf8 path escaped", "http://example.com/café", "http://example.com/caf%C3%A9"},
		{"idna host", "http://Bücher.Example/", "http://xn--bcher-kva.example/"},
		{"trailing dot host", "http://example.com./", "http://example.com/"},
		{"ipv6 host", "http://[2001:DB8::1]:8080/", "http://[2001:db8::1]:8080/"},
		{"userinfo kept", "http://user:pw@example.com/", "http://user:pw@example.com/"},
		{"surrounding space and newline", "  http://exa\nmple.com/a\t  ", "http://example.com/a"},
		{"backslashes", `http:\\example.com\a\b?x=\`, "http://example.com/a/b?x=%5C"},
		{"underscore host", "http://my_host.example.com/", "http://my_host.example.com/"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Canonical(tc.in)
			if err != nil {
				t.Fatalf("Canonical(%q): %v", tc.in, err)
			}
			if got != tc.want {
				t.Errorf("Canonical(%q) = %q, want %q", tc.in, got, tc.want)
			}
			again, err := Canonical(got)
			if err != nil || again != got {
				t.Errorf("not idempotent: %q -> %q (%v)", got, again, err)
			}
		})
	}
}

func TestCanonicalErrors(t *testing.T) {
	tests := []struct {
		in   string
		want error
	}{
		{"javascript:void(0)", ErrScheme},
		{"mailto:a@example.com", ErrScheme},
		{"ftp://example.com/", ErrScheme},
		{"/relative/path", ErrScheme},
		{"", ErrScheme},
		{"http://", ErrHost},
		{"http://exa mple.com/", ErrHost},
		{"http://a..b/", ErrHost},
		{"http://[::1/", ErrHost},
		{"http://example.com:99999/", ErrPort},
		{"http://example.com:8x/", ErrPort},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			_, err := Canonical(tc.in)
			if !errors.Is(err, tc.want) {
				t.Errorf("Canonical(%q) error = %v, want %v", tc.in, err, tc.want)
			}
		})
	}
}

func TestResolve(t *testing.T) {
	base, err := url.Parse("http://Example.com/dir/page.html?x=1")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		ref, want string
		err       error
	}{
		{"other.html", "http://example.com/dir/other.html", nil},
		{"../up.html", "http://example.com/up.html", nil},
		{"/abs?b=2&a=1#frag", "http://example.com/abs?a=1&b=2", nil},
		{"?q=books", "http://example.com/dir/page.html?q=books", nil},
		{"//cdn.example.org/x", "http://cdn.example.org/x", nil},
		{"https://Other.example:443/", "https://other.example/", nil},
		{"  sub/\npage.html ", "http://example.com/dir/sub/page.html", nil},
		{"#top", "http://example.com/dir/page.html?x=1", nil},
		{"list.jsp;jsessionid=XYZ", "http://example.com/dir/list.jsp", nil},
		{"50%off.html", "http://example.com/dir/50%25off.html", nil},
		{`sub\page.html`, "http://example.com/dir/sub/page.html", nil},
		{"javascript:void(0)", "", ErrScheme},
		{"JavaScript:go()", "", ErrScheme},
		{"mailto:x@example.com", "", ErrScheme},
		{"tel:+123", "", ErrScheme},
		{"data:text/html,hi", "", ErrScheme},
	}
	for _, tc := range tests {
		t.Run(tc.ref, func(t *testing.T) {
			got, err := Resolve(base, tc.ref)
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("Resolve(%q) error = %v, want %v", tc.ref, err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Resolve(%q): %v", tc.ref, err)
			}
			if got != tc.want {
				t.Errorf("Resolve(%q) = %q, want %q", tc.ref, got, tc.want)
			}
		})
	}
	if got, err := Resolve(nil, "HTTP://A.example/x"); err != nil || got != "http://a.example/x" {
		t.Errorf("Resolve(nil, absolute) = %q, %v", got, err)
	}
	if _, err := Resolve(nil, "relative.html"); !errors.Is(err, ErrScheme) {
		t.Errorf("Resolve(nil, relative) error = %v, want ErrScheme", err)
	}
}

func TestHostSite(t *testing.T) {
	tests := []struct {
		in, host, site string
	}{
		{"http://WWW.Example.com:80/a?b", "www.example.com", "http://www.example.com"},
		{"https://example.com:8443/", "example.com", "https://example.com:8443"},
		{"Example.COM/path", "example.com", "http://example.com"},
		{"localhost:8080", "localhost", "http://localhost:8080"},
		{"http://[::1]:81/", "[::1]", "http://[::1]:81"},
		{"http://Bücher.example/", "xn--bcher-kva.example", "http://xn--bcher-kva.example"},
		{"mailto:x@example.com", "", ""},
		{"", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			if got := Host(tc.in); got != tc.host {
				t.Errorf("Host(%q) = %q, want %q", tc.in, got, tc.host)
			}
			if got := Site(tc.in); got != tc.site {
				t.Errorf("Site(%q) = %q, want %q", tc.in, got, tc.site)
			}
		})
	}
}

func FuzzCanonical(f *testing.F) {
	for _, s := range []string{
		"http://example.com/", "HTTPS://Ex.com:443/a/../b?z=1&a=2#f",
		"http://example.com/a;jsessionid=1?PHPSESSID=2", "http://[::1]:80/",
		"http://Bücher.example/%7e%2f", "http://a/%zz?%", "javascript:alert(1)",
	} {
		f.Add(s)
	}
	base, _ := url.Parse("http://example.com/dir/page?x=1")
	f.Fuzz(func(t *testing.T, raw string) {
		c, err := Canonical(raw)
		if err == nil {
			c2, err := Canonical(c)
			if err != nil {
				t.Fatalf("Canonical(%q) = %q which fails: %v", raw, c, err)
			}
			if c2 != c {
				t.Fatalf("not idempotent: %q -> %q -> %q", raw, c, c2)
			}
			if _, err := url.Parse(c); err != nil {
				t.Fatalf("Canonical(%q) = %q does not parse: %v", raw, c, err)
			}
		}
		if r, err := Resolve(base, raw); err == nil {
			if r2, err := Canonical(r); err != nil || r2 != r {
				t.Fatalf("Resolve(%q) = %q not canonical: %q %v", raw, r, r2, err)
			}
		}
		checkPlainSite(t, raw)
		if c, ok := plainCanonical(raw); ok {
			p, err := split(raw)
			if err != nil || p.String() != c {
				t.Fatalf("plainCanonical(%q) = %q, the full parse %v %v", raw, c, p, err)
			}
		}
		for _, b := range []*url.URL{base, plainBase} {
			checkPlainResolve(t, b, raw)
		}
	})
}

var plainBase, _ = url.Parse("https://www.cars-4-u.example.org/used/list.php?make=ford")

// checkPlainResolve checks that Resolve's shortcut answers what the full
// resolution does.
func checkPlainResolve(t *testing.T, base *url.URL, ref string) {
	t.Helper()
	ref = cleanSpace(ref)
	got, ok := plainResolve(base, ref)
	if !ok {
		return
	}
	want, err := resolve(base, ref)
	if err != nil || got != want {
		t.Fatalf("plainResolve(%s, %q) = %q, the full resolution %q %v", base, ref, got, want, err)
	}
}

// checkPlainSite checks that Host and Site's shortcut answers what the
// full parse does.
func checkPlainSite(t *testing.T, raw string) {
	t.Helper()
	site, host, ok := plainSite(raw)
	if !ok {
		return
	}
	p, err := split(withScheme(raw))
	if err != nil {
		t.Fatalf("plainSite(%q) = %q, the full parse fails: %v", raw, site, err)
	}
	if site != p.site() || site[host:] != p.host {
		t.Fatalf("plainSite(%q) = %q host %q, the full parse %q host %q", raw, site, site[host:], p.site(), p.host)
	}
}

// TestPlainResolve runs the shortcut of Resolve against the full resolution
// on references and bases at its edges.
func TestPlainResolve(t *testing.T) {
	var bases []*url.URL
	for _, b := range []string{"http://example.com/a/b.html", "https://www.ex-1.example/?q=1", "http://Example.com/",
		"http://example.com:8080/", "http://u@example.com/", "http://example.com./", "ftp://example.com/", "http://[::1]/x"} {
		u, err := url.Parse(b)
		if err != nil {
			t.Fatal(err)
		}
		bases = append(bases, u)
	}
	for _, ref := range []string{"/", "/a", "/a/b.html", "/A/B~c_d-e.f", "/a#frag", "/a/./b", "/a/../b", "/a/.", "/..", "//host/a",
		"/a?q=1", "/a;jsessionid=12", "/a%41", "/a b", "/a\\b", "a/b", "", "#x", "/a/b/", "/a//b", "/é"} {
		for _, b := range bases {
			checkPlainResolve(t, b, ref)
			got, err := Resolve(b, ref)
			want, werr := resolve(b, cleanSpace(ref))
			if got != want || (err == nil) != (werr == nil) {
				t.Errorf("Resolve(%s, %q) = %q %v, the full resolution %q %v", b, ref, got, err, want, werr)
			}
		}
	}
	if _, ok := plainResolve(bases[0], "/cars/list.html"); !ok {
		t.Error("the shortcut is not taken for a plain path on a plain host")
	}
}

// TestPlainCanonical runs Canonical's shortcut against the full parse on
// URLs at its edges.
func TestPlainCanonical(t *testing.T) {
	taken := 0
	for _, raw := range []string{"http://example.com", "http://example.com/", "https://a.example/b/c.html#x", "http://example.com#x",
		"http://example.com/a/./b", "http://example.com/a/..", "http://example.com/a?b=1", "http://example.com/a;sid=1",
		"http://example.com/%41", "http://Example.com/a", "http://example.com:80/a", "http://example.com/a b", "http://example.com//a",
		"http://example.com/~u/A_B-c.d"} {
		c, ok := plainCanonical(raw)
		p, err := split(raw)
		if ok {
			taken++
			if err != nil || p.String() != c {
				t.Errorf("plainCanonical(%q) = %q, the full parse %v %v", raw, c, p, err)
			}
		}
	}
	if taken < 6 {
		t.Errorf("the shortcut was taken for %d URLs, want the 6 plain ones at least", taken)
	}
}

// TestPlainSite runs the shortcut of Host and Site against the full parse on
// URLs at its edges.
func TestPlainSite(t *testing.T) {
	for _, raw := range []string{
		"http://example.com", "http://example.com/", "https://a-b_c.example.org/x?y#z", "http://example.com?q",
		"http://example.com#f", "http://Example.com/", "http://example.com./", "http://.example.com/",
		"http://exa..mple.com/", "http://example.com:80/", "http://example.com:8080/", "http://u@example.com/",
		"http://ex%41mple.com/", "http://example.com\\a", "http://example.com /", " http://example.com/",
		"http://ex\tample.com/", "http:///example.com/", "http://", "https://", "http://[::1]/", "http://bücher.example/",
		"http://1.2.3.4/", "http://example.com;x", "HTTP://example.com/",
	} {
		t.Run(raw, func(t *testing.T) {
			checkPlainSite(t, raw)
			_, _, ok := plainSite(raw)
			want := Site(raw)
			if p, err := split(withScheme(raw)); err == nil && p.site() != want {
				t.Errorf("Site(%q) = %q, the full parse %q (shortcut %v)", raw, want, p.site(), ok)
			}
		})
	}
}

func TestRedacted(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://api.example.test/s?q=cars&key=abc123", "https://api.example.test/s?q=cars&key=REDACTED"},
		{"https://api.example.test/s?api_key=abc&page=2", "https://api.example.test/s?api_key=REDACTED&page=2"},
		{"https://api.example.test/s?apiKey=abc&access_token=t&X-Amz-Signature=s", "https://api.example.test/s?apiKey=REDACTED&access_token=REDACTED&X-Amz-Signature=REDACTED"},
		{"https://api.example.test/s?client_secret=x&monkey=y", "https://api.example.test/s?client_secret=REDACTED&monkey=y"},
		{"https://user:pw@api.example.test/s?q=a", "https://user:xxxxx@api.example.test/s?q=a"},
		{"https://api.example.test/s?q=key&keyword=used+cars", "https://api.example.test/s?q=key&keyword=used+cars"},
		{"https://api.example.test/s?api%5Fkey=abc", "https://api.example.test/s?api%5Fkey=REDACTED"},
		{"https://api.example.test/s?key", "https://api.example.test/s?key"},
		{"://bad", "://bad"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := Redacted(tt.in); got != tt.want {
				t.Fatalf("Redacted(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
	msg := `Get "https://api.example.test/s?key=abc": dial tcp: refused`
	if got := RedactIn(msg, "https://api.example.test/s?key=abc"); strings.Contains(got, "abc") || !strings.Contains(got, "key=REDACTED") {
		t.Fatalf("RedactIn: %q", got)
	}
}

// BenchmarkResolve: a link from the root of its site, as most are.
func BenchmarkResolve(b *testing.B) {
	b.ReportAllocs()
	base, _ := url.Parse("http://www.example-autos.com/inventory/used/list.php?make=ford&page=2")
	for i := 0; i < b.N; i++ {
		if _, err := Resolve(base, "/inventory/new/ford-focus.html"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSite: the site of a canonical URL, as the crawler asks for it
// for every page and link.
func BenchmarkSite(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if Site("http://www.example-autos.com/inventory/used/list.php?make=ford&page=2") == "" {
			b.Fatal("no site")
		}
	}
}
