package fetch

import (
	"bytes"
	"strconv"
	"strings"
	"time"
)

// Robots is a parsed robots.txt file (RFC 9309).
type Robots struct {
	groups []robotsGroup
	// Sitemaps lists the Sitemap: URLs, in file order.
	Sitemaps []string
}

type robotsGroup struct {
	agents   []string // lower-case product tokens, "*" for everyone
	rules    []robotsRule
	delay    time.Duration
	hasDelay bool
}

type robotsRule struct {
	allow   bool
	pattern string // normalised path pattern, may contain '*' and end in '$'
}

// Rules are the robots.txt rules that apply to one crawler.
type Rules struct {
	rules []robotsRule
	// CrawlDelay is the crawl-delay of the matching group (0 when absent).
	CrawlDelay time.Duration
	// Sitemaps are the file's Sitemap: URLs, which apply to every crawler.
	Sitemaps []string
	// all is the verdict for every path when the rules stand for a whole
	// robots.txt status: allAllow (4xx) or allDeny (5xx, unreachable).
	all int8
}

const (
	allAllow int8 = 1
	allDeny  int8 = 2
)

var (
	// AllowAll are the rules of a host without a robots.txt (4xx).
	AllowAll = &Rules{all: allAllow}
	// DisallowAll are the rules of a host whose robots.txt is unavailable
	// (5xx, unreachable).
	DisallowAll = &Rules{all: allDeny}
)

// ParseRobots parses a robots.txt body. It never fails: unknown lines and
// lines without a colon are ignored, as RFC 9309 asks.
func ParseRobots(body []byte) *Robots {
	body = bytes.TrimPrefix(body, []byte("\xef\xbb\xbf"))
	r := &Robots{}
	var cur *robotsGroup
	inAgents := false // the previous significant line was a user-agent line
	for len(body) > 0 {
		var line []byte
		if i := bytes.IndexAny(body, "\r\n"); i >= 0 {
			line, body = body[:i], body[i+1:]
		} else {
			line, body = body, nil
		}
		if i := bytes.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		colon := bytes.IndexByte(line, ':')
		if colon < 0 {
			continue
		}
		key := strings.ToLower(string(bytes.TrimSpace(line[:colon])))
		val := string(bytes.TrimSpace(line[colon+1:]))
		switch key {
		case "user-agent", "useragent", "user agent":
			if !inAgents || cur == nil {
				r.groups = append(r.groups, robotsGroup{})
				cur = &r.groups[len(r.groups)-1]
			}
			cur.agents = append(cur.agents, agentToken(val))
			inAgents = true
		case "allow", "disallow":
			inAgents = false
			if cur == nil || val == "" { // rules before any group; empty = no rule
				continue
			}
			cur.rules = append(cur.rules, robotsRule{allow: key == "allow", pattern: normPath(val)})
		case "crawl-delay", "crawldelay":
			inAgents = false
			if cur == nil {
				continue
			}
			if f, err := strconv.ParseFloat(val, 64); err == nil && f >= 0 && f < 1e6 {
				cur.delay = time.Duration(f * float64(time.Second))
				cur.hasDelay = true
			}
		case "sitemap":
			if val != "" {
				r.Sitemaps = append(r.Sitemaps, val)
			}
		default:
			// Other records (host, clean-param, …) end a run of user-agent lines
			// without starting a group.
			inAgents = false
		}
	}
	return r
}

// agentToken reduces a user-agent value to its lower-case product token:
// "Googlebot/2.1 (+http://…)" → "googlebot".
func agentToken(v string) string {
	v = strings.ToLower(strings.TrimSpace(v))
	if i := strings.IndexAny(v, "/ \t("); i >= 0 {
		v = v[:i]
	}
	return v
}

// For returns the rules for the crawler whose product token is agent: the
// merged groups that name it, else the merged "*" groups, else no rules.
func (r *Robots) For(agent string) *Rules {
	agent = agentToken(agent)
	out := &Rules{Sitemaps: r.Sitemaps}
	found := false
	for pass := 0; pass < 2 && !found; pass++ {
		want := agent
		if pass == 1 {
			want = "*"
		}
		for i := range r.groups {
			g := &r.groups[i]
			if !hasAgent(g.agents, want) {
				continue
			}
			found = true
			out.rules = append(out.rules, g.rules...)
			if g.hasDelay && g.delay > out.CrawlDelay {
				out.CrawlDelay = g.delay
			}
		}
	}
	return out
}

func hasAgent(agents []string, want string) bool {
	for _, a := range agents {
		if a == want {
			return true
		}
	}
	return false
}

// Allowed reports whether the URL path (with its query, "/a/b?x=1") may be
// fetched: the longest matching pattern decides, allow wins a tie, and a
// path no rule matches is allowed. "/robots.txt" is always allowed.
func (r *Rules) Allowed(path string) bool {
	switch r.all {
	case allAllow:
		return true
	case allDeny:
		return path == "/robots.txt"
	}
	if path == "" {
		path = "/"
	}
	if path == "/robots.txt" {
		return true
	}
	path = normPath(path)
	best, allow := -1, true
	for _, rule := range r.rules {
		n := len(rule.pattern)
		if n < best || (n == best && allow) {
			continue
		}
		if matchPattern(rule.pattern, path) {
			best, allow = n, rule.allow
		}
	}
	return allow
}

// matchPattern matches a robots.txt path pattern against a path: the
// pattern is anchored at the start, '*' matches any run of characters and a
// final '$' anchors the end.
func matchPattern(pat, path string) bool {
	anchored := strings.HasSuffix(pat, "$")
	if anchored {
		pat = pat[:len(pat)-1]
	}
	first, rest, star := strings.Cut(pat, "*")
	if !strings.HasPrefix(path, first) {
		return false
	}
	path = path[len(first):]
	if !star {
		return !anchored || path == ""
	}
	for {
		seg, more, star := strings.Cut(rest, "*")
		if !star { // the last segment
			if anchored {
				return strings.HasSuffix(path, seg)
			}
			return strings.Contains(path, seg)
		}
		// Leftmost matches are safe for '*' globs: a later match of seg
		// leaves less room for the segments after it.
		i := strings.Index(path, seg)
		if i < 0 {
			return false
		}
		path, rest = path[i+len(seg):], more
	}
}

// normPath puts a path or pattern in the form robots.txt matching compares:
// bytes outside printable ASCII percent-encoded, percent escapes in upper
// case, and escapes of unreserved characters decoded.
func normPath(s string) string {
	clean := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c >= 0x7f || c == '%' {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	const hexdig = "0123456789ABCDEF"
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%' && isHex(s, i+1) && isHex(s, i+2):
			v := unhex(s[i+1])<<4 | unhex(s[i+2])
			if isUnreserved(v) {
				b.WriteByte(v)
			} else {
				b.WriteByte('%')
				b.WriteByte(hexdig[v>>4])
				b.WriteByte(hexdig[v&15])
			}
			i += 2
		case c <= ' ' || c >= 0x7f:
			b.WriteByte('%')
			b.WriteByte(hexdig[c>>4])
			b.WriteByte(hexdig[c&15])
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func isHex(s string, i int) bool {
	if i >= len(s) {
		return false
	}
	c := s[i]
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case '0' <= c && c <= '9':
		return c - '0'
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10
	default:
		return c - 'A' + 10
	}
}

func isUnreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '-' || c == '.' || c == '_' || c == '~'
}
