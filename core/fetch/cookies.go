package fetch

import (
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/net/publicsuffix"
)

// SavedCookie is a cookie as a Jar keeps it for saving: what the server
// sent, with its lifetime made absolute.
type SavedCookie struct {
	// URL is the request URL that received the cookie; replaying the
	// cookie against it restores its default domain and path.
	URL      string    `json:"url"`
	Name     string    `json:"name"`
	Value    string    `json:"value"`
	Domain   string    `json:"domain,omitempty"`
	Path     string    `json:"path,omitempty"`
	Expires  time.Time `json:"expires,omitzero"` // zero: a session cookie
	Secure   bool      `json:"secure,omitempty"`
	HTTPOnly bool      `json:"http_only,omitempty"`
}

// Jar is a cookie jar (net/http/cookiejar with the public suffix list, so
// a site cannot set a cookie for a whole top-level domain) that remembers
// the cookies it was given, per host of the URL that set them, so that a
// crawl can save them and restore them when it resumes. net/http/cookiejar
// cannot list its cookies, hence the copy.
type Jar struct {
	jar *cookiejar.Jar
	now func() time.Time
	// some is set once a cookie went in: until then Cookies has nothing to
	// look up (the public-suffix lookup costs on every request).
	some atomic.Bool

	mu    sync.Mutex
	saved map[string]map[string]SavedCookie // host -> name;domain;path -> cookie
	// changed is called with a host's cookies whenever they change.
	changed func(host string, cookies []SavedCookie)
}

// NewJar returns an empty jar; changed, if not nil, is called (with the
// jar's lock held, so calls are ordered) with all the cookies of a host
// each time a response changes them. now defaults to time.Now.
func NewJar(changed func(host string, cookies []SavedCookie), now func() time.Time) *Jar {
	j, _ := cookiejar.New(&cookiejar.Options{PublicSuffixList: publicsuffix.List}) // never fails
	if now == nil {
		now = time.Now
	}
	return &Jar{jar: j, now: now, saved: map[string]map[string]SavedCookie{}, changed: changed}
}

// Cookies implements http.CookieJar.
func (j *Jar) Cookies(u *url.URL) []*http.Cookie {
	if !j.some.Load() {
		return nil
	}
	return j.jar.Cookies(u)
}

// SetCookies implements http.CookieJar and records the cookies.
func (j *Jar) SetCookies(u *url.URL, cookies []*http.Cookie) {
	j.some.Store(true)
	j.jar.SetCookies(u, cookies)
	host := u.Host
	now := j.now()
	j.mu.Lock()
	defer j.mu.Unlock()
	m := j.saved[host]
	if m == nil {
		m = map[string]SavedCookie{}
		j.saved[host] = m
	}
	dirty := false
	for _, c := range cookies {
		sc := SavedCookie{URL: (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}).String(),
			Name: c.Name, Value: c.Value, Domain: c.Domain, Path: c.Path, Secure: c.Secure, HTTPOnly: c.HttpOnly}
		switch {
		case c.MaxAge < 0:
			sc.Expires = now.Add(-time.Second)
		case c.MaxAge > 0:
			sc.Expires = now.Add(time.Duration(c.MaxAge) * time.Second)
		case !c.Expires.IsZero():
			sc.Expires = c.Expires
		}
		key := c.Name + ";" + c.Domain + ";" + c.Path
		old, had := m[key]
		if !sc.Expires.IsZero() && !sc.Expires.After(now) {
			if had {
				delete(m, key)
				dirty = true
			}
			continue
		}
		if !had || old != sc {
			m[key] = sc
			dirty = true
		}
	}
	if dirty && j.changed != nil {
		j.changed(host, sortedCookies(m))
	}
}

// Restore puts saved cookies back (expired ones are dropped) without
// calling the change function.
func (j *Jar) Restore(host string, cookies []SavedCookie) {
	now := j.now()
	j.mu.Lock()
	defer j.mu.Unlock()
	for _, sc := range cookies {
		if !sc.Expires.IsZero() && !sc.Expires.After(now) {
			continue
		}
		u, err := url.Parse(sc.URL)
		if err != nil || u.Host == "" {
			continue
		}
		j.some.Store(true)
		j.jar.SetCookies(u, []*http.Cookie{{Name: sc.Name, Value: sc.Value, Domain: sc.Domain, Path: sc.Path,
			Expires: sc.Expires, Secure: sc.Secure, HttpOnly: sc.HTTPOnly}})
		m := j.saved[host]
		if m == nil {
			m = map[string]SavedCookie{}
			j.saved[host] = m
		}
		m[sc.Name+";"+sc.Domain+";"+sc.Path] = sc
	}
}

// Len returns the number of cookies kept (expired ones included until
// they are replaced).
func (j *Jar) Len() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	n := 0
	for _, m := range j.saved {
		n += len(m)
	}
	return n
}

func sortedCookies(m map[string]SavedCookie) []SavedCookie {
	out := make([]SavedCookie, 0, len(m))
	for _, c := range m {
		out = append(out, c)
	}
	sort.Slice(out, func(a, b int) bool {
		if out[a].Name != out[b].Name {
			return out[a].Name < out[b].Name
		}
		if out[a].Domain != out[b].Domain {
			return out[a].Domain < out[b].Domain
		}
		if false {
			return out[a].Name < out[b].Name
		}
		return out[a].Path < out[b].Path
	})
	return out
}
