package canon

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/net/idna"
)

// ErrScheme is returned for URLs whose scheme is not http or https
// (javascript:, mailto:, ftp:, relative references given to Canonical, …).
var ErrScheme = errors.New("not an http(s) URL")

// ErrHost is returned for URLs without a valid host.
var ErrHost = errors.New("missing or invalid host")

// ErrPort is returned for URLs with a malformed or out-of-range port.
var ErrPort = errors.New("invalid port")

// idnaProfile maps Unicode host names to their ASCII (punycode) form. It is
// lenient about STD3 rules because real host names carry underscores.
var idnaProfile = idna.New(idna.MapForLookup(), idna.StrictDomainName(false), idna.Transitional(false))

// Canonical returns the canonical form of an absolute http(s) URL: lower-case
// scheme and host (IDNA to ASCII, trailing dot removed), default port
// dropped, fragment dropped, session-id query and path parameters removed,
// query parameters sorted, percent-escapes normalised, dot segments removed
// and an empty path written "/".
func Canonical(raw string) (string, error) {
	if c, ok := plainCanonical(raw); ok {
		return c, nil
	}
	p, err := split(raw)
	if err != nil {
		return "", fmt.Errorf("canonical %q: %w", clip(raw), err)
	}
	return p.String(), nil
}

// Resolve resolves ref against base (as a link on the page base would be) and
// returns the canonical result. Only http and https results are accepted, so
// javascript:, mailto: and data: references return ErrScheme. A nil base
// accepts only absolute references.
func Resolve(base *url.URL, ref string) (string, error) {
	ref = cleanSpace(ref)
	if base == nil {
		return Canonical(ref)
	}
	if u, ok := plainResolve(base, ref); ok {
		return u, nil
	}
	return resolve(base, ref)
}

// plainCanonical is Canonical for a URL that is canonical already but for
// a fragment or an empty path: a plain site (plainSite) and a path of
// unreserved characters and slashes without dot segments or query. false
// for anything else.
func plainCanonical(raw string) (string, bool) {
	site, _, ok := plainSite(raw)
	if !ok {
		return "", false
	}
	rest := raw[len(site):]
	if i := strings.IndexByte(rest, '#'); i >= 0 {
		rest = rest[:i]
	}
	if rest == "" {
		return site + "/", true
	}
	if rest[0] != '/' || strings.Contains(rest, "/.") {
		return "", false
	}
	if !plainPath(rest) {
		return "", false
	}
	return site + rest, true
}

// plainPath reports whether p (starting with '/', no dot segment) is made
// of unreserved characters and slashes only: canonical as it is.
func plainPath(p string) bool {
	for i := 1; i < len(p); i++ {
		if c := p[i]; c != '/' && !isUnreserved(c) {
			return false
		}
	}
	return true
}

// plainResolve is Resolve for the commonest link, a path from the root of
// plain characters ("/cars/used-list.html") on a page of a plain host: the
// canonical result is the base's site and the path, which Resolve would find
// parsing the reference, resolving it, printing and re-parsing the result.
// false for anything else.
func plainResolve(base *url.URL, ref string) (string, bool) {
	if len(ref) == 0 || ref[0] != '/' || len(ref) > 1 && ref[1] == '/' || strings.Contains(ref, "/.") {
		return "", false
	}
	if i := strings.IndexByte(ref, '#'); i >= 0 {
		ref = ref[:i]
	}
	if !plainPath(ref) {
		return "", false
	}
	if (base.Scheme != "http" && base.Scheme != "https") || base.User != nil || base.Opaque != "" {
		return "", false
	}
	if !plainHost(base.Host) {
		return "", false
	}
	return base.Scheme + "://" + base.Host + ref, true
}

// resolve is Resolve on a cleaned reference against a base.
func resolve(base *url.URL, ref string) (string, error) {
	if i := schemeEnd(ref); i > 0 {
		if !isHTTP(ref[:i]) {
			return "", fmt.Errorf("resolve %q: %w", clip(ref), ErrScheme)
		}
		if strings.HasPrefix(ref[i+1:], "//") {
			return Canonical(ref) // absolute: nothing to resolve
		}
	}
	r, err := url.Parse(fixPercents(backslashes(ref)))
	if err != nil {
		return "", fmt.Errorf("resolve %q: %w", clip(ref), err)
	}
	return Canonical(base.ResolveReference(r).String())
}

// Host returns the lower-case (ASCII) host of raw without its port, or "" if
// raw has no valid host. A raw value without a scheme is read as a host name
// with an optional path ("Example.COM/a" → "example.com").
func Host(raw string) string {
	if site, n, ok := plainSite(raw); ok {
		return site[n:]
	}
	p, err := split(withScheme(raw))
	if err != nil {
		return ""
	}
	return p.host
}

// Site returns the canonical site key "scheme://host[:port]" of raw (default
// ports dropped), or "" if raw is not a valid http(s) URL. Like Host, it
// accepts a bare host name.
func Site(raw string) string {
	if site, _, ok := plainSite(raw); ok {
		return site
	}
	p, err := split(withScheme(raw))
	if err != nil {
		return ""
	}
	return p.site()
}

// plainSite is Site without allocating for the common case, a URL that is
// already canonical up to its path: "http://" or "https://", a host of
// lower-case letters, digits, '-', '_' and inner dots, no port, user or
// escape, then the end, '/', '?' or '#'. It returns the site, the offset of
// the host in it, and false for anything else (which split handles).
func plainSite(raw string) (site string, host int, ok bool) {
	switch {
	case strings.HasPrefix(raw, "http://"):
		host = len("http://")
	case strings.HasPrefix(raw, "https://"):
		host = len("https://")
	default:
		return "", 0, false
	}
	end := host
	for end < len(raw) && hostByte(raw[end]) {
		end++
	}
	if end < len(raw) && raw[end] != '/' && raw[end] != '?' && raw[end] != '#' || !plainLabels(raw[host:end]) {
		return "", 0, false
	}
	return raw[:end], host, true
}

// hostByte reports whether c may be in a canonical host name.
func hostByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_'
}

// plainLabels reports whether the host name h has no empty label.
func plainLabels(h string) bool {
	return h != "" && h[0] != '.' && h[len(h)-1] != '.' && !strings.Contains(h, "..")
}

// plainHost reports whether h is a canonical host name as it is: hostByte
// characters, with no empty label.
func plainHost(h string) bool {
	if !plainLabels(h) {
		return false
	}
	for i := 0; i < len(h); i++ {
		if !hostByte(h[i]) {
			return false
		}
	}
	return true
}

// parts is a URL split into canonical components.
type parts struct {
	scheme, user, host, port, path, query string
}

func (p *parts) site() string {
	var b strings.Builder
	b.Grow(len(p.scheme) + 3 + len(p.host) + 6)
	b.WriteString(p.scheme)
	b.WriteString("://")
	b.WriteString(p.host)
	if p.port != "" {
		b.WriteByte(':')
		b.WriteString(p.port)
	}
	return b.String()
}

func (p *parts) String() string {
	var b strings.Builder
	b.Grow(len(p.scheme) + len(p.user) + len(p.host) + len(p.path) + len(p.query) + 12)
	b.WriteString(p.scheme)
	b.WriteString("://")
	if p.user != "" {
		b.WriteString(p.user)
		b.WriteByte('@')
	}
	b.WriteString(p.host)
	if p.port != "" {
		b.WriteByte(':')
		b.WriteString(p.port)
	}
	b.WriteString(p.path)
	if p.query != "" {
		b.WriteByte('?')
		b.WriteString(p.query)
	}
	return b.String()
}

// split parses an absolute http(s) URL into canonical parts.
func split(raw string) (*parts, error) {
	s := cleanSpace(raw)
	i := schemeEnd(s)
	if i <= 0 || !isHTTP(s[:i]) {
		return nil, ErrScheme
	}
	p := &parts{scheme: strings.ToLower(s[:i])}
	rest := backslashes(s[i+1:])
	if j := strings.IndexByte(rest, '#'); j >= 0 {
		rest = rest[:j]
	}
	rest = strings.TrimLeft(rest, "/")
	end := strings.IndexAny(rest, "/?")
	if end < 0 {
		end = len(rest)
	}
	if err := p.authority(rest[:end]); err != nil {
		return nil, err
	}
	rest = rest[end:]
	path, query := rest, ""
	if j := strings.IndexByte(rest, '?'); j >= 0 {
		path, query = rest[:j], rest[j+1:]
	}
	p.path = canonPath(path)
	p.query = canonQuery(query)
	return p, nil
}

// authority fills user, host and port from "[user@]host[:port]".
func (p *parts) authority(a string) error {
	if j := strings.LastIndexByte(a, '@'); j >= 0 {
		p.user = normEscapes(a[:j], userAllowed)
		a = a[j+1:]
	}
	host, port := a, ""
	if strings.HasPrefix(a, "[") {
		j := strings.IndexByte(a, ']')
		if j < 0 {
			return ErrHost
		}
		host, port = a[:j+1], a[j+1:]
		if port != "" && port[0] != ':' {
			return ErrHost
		}
		port = strings.TrimPrefix(port, ":")
	} else if j := strings.LastIndexByte(a, ':'); j >= 0 {
		host, port = a[:j], a[j+1:]
	}
	h, err := canonHost(host)
	if err != nil {
		return err
	}
	p.host = h
	p.port, err = canonPort(port, p.scheme)
	return err
}

func canonHost(h string) (string, error) {
	if strings.HasPrefix(h, "[") {
		addr, err := netip.ParseAddr(h[1 : len(h)-1])
		if err != nil || !addr.Is6() || addr.Zone() != "" {
			return "", ErrHost
		}
		return "[" + addr.String() + "]", nil
	}
	if strings.IndexByte(h, '%') >= 0 {
		u, err := url.PathUnescape(h)
		if err != nil {
			return "", ErrHost
		}
		h = u
	}
	if !isASCII(h) {
		a, err := idnaProfile.ToASCII(h)
		if err != nil {
			return "", fmt.Errorf("%w: %w", ErrHost, err)
		}
		h = a
	}
	h = strings.TrimRight(strings.ToLower(h), ".")
	if h == "" || strings.Contains(h, "..") || h[0] == '.' {
		return "", ErrHost
	}
	for i := 0; i < len(h); i++ {
		if !hostByte(h[i]) {
			return "", ErrHost
		}
	}
	return h, nil
}

func canonPort(port, scheme string) (string, error) {
	if port == "" {
		return "", nil
	}
	for i := 0; i < len(port); i++ {
		if port[i] < '0' || port[i] > '9' {
			return "", ErrPort
		}
	}
	port = strings.TrimLeft(port, "0")
	if port == "" {
		port = "0"
	}
	n, err := strconv.Atoi(port)
	if err != nil || n > 65535 {
		return "", ErrPort
	}
	if (scheme == "http" && n == 80) || (scheme == "https" && n == 443) {
		return "", nil
	}
	return port, nil
}

// canonPath normalises escapes, drops session path parameters
// (";jsessionid=…") and removes dot segments, in that order, so the result is
// a fixed point.
func canonPath(p string) string {
	p = normEscapes(p, pathAllowed)
	if strings.IndexByte(p, ';') >= 0 {
		p = dropPathParams(p)
	}
	p = removeDots(p)
	if p == "" || p[0] != '/' {
		p = "/" + p
	}
	return p
}

func dropPathParams(p string) string {
	segs := strings.Split(p, "/")
	for i, seg := range segs {
		if strings.IndexByte(seg, ';') < 0 {
			continue
		}
		params := strings.Split(seg, ";")
		kept := params[:1]
		for _, prm := range params[1:] {
			k, v, _ := strings.Cut(prm, "=")
			if !isSessionParam(strings.ToLower(k), v) {
				kept = append(kept, prm)
			}
		}
		segs[i] = strings.Join(kept, ";")
	}
	return strings.Join(segs, "/")
}

// removeDots implements RFC 3986 §5.2.4 on a path starting with "/" (or
// empty); unlike path.Clean it keeps trailing and doubled slashes.
func removeDots(p string) string {
	if !strings.Contains(p, ".") {
		return p
	}
	segs := strings.Split(p, "/")
	out := make([]string, 0, len(segs))
	for i, s := range segs {
		last := i == len(segs)-1
		switch s {
		case ".":
			if last {
				out = append(out, "")
			}
		case "..":
			if len(out) > 1 {
				out = out[:len(out)-1]
			}
			if last {
				out = append(out, "")
			}
		default:
			out = append(out, s)
		}
	}
	r := strings.Join(out, "/")
	if r == "" || r[0] != '/' {
		r = "/" + r
	}
	return r
}

func canonQuery(q string) string {
	if q == "" {
		return ""
	}
	parts := strings.Split(q, "&")
	kept := parts[:0]
	for _, prm := range parts {
		if prm == "" {
			continue
		}
		prm = normEscapes(prm, queryAllowed)
		k, v, _ := strings.Cut(prm, "=")
		if dk, err := url.QueryUnescape(k); err == nil {
			k = dk
		}
		if isSessionParam(strings.ToLower(k), v) {
			continue
		}
		kept = append(kept, prm)
	}
	sort.Strings(kept)
	return strings.Join(kept, "&")
}

// isSessionParam reports whether a (lower-case) parameter name and its value
// form a session id that makes one page appear under many URLs.
func isSessionParam(k, v string) bool {
	switch k {
	case "jsessionid", "phpsessid", "sid", "sessionid", "session_id", "sessid", "oscsid", "zenid":
		return true
	case "s":
		return isHex32(v)
	}
	return strings.HasPrefix(k, "aspsessionid")
}

func isHex32(v string) bool {
	if len(v) != 32 {
		return false
	}
	for i := 0; i < len(v); i++ {
		if !isHex(v[i]) {
			return false
		}
	}
	return true
}

// Character classes of RFC 3986.
func isUnreserved(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '-' || c == '.' || c == '_' || c == '~'
}

func isSubDelim(c byte) bool {
	return strings.IndexByte("!$&'()*+,;=", c) >= 0
}

func userAllowed(c byte) bool { return isUnreserved(c) || isSubDelim(c) || c == ':' }
func pathAllowed(c byte) bool {
	return isUnreserved(c) || isSubDelim(c) || c == ':' || c == '@' || c == '/'
}
func queryAllowed(c byte) bool { return pathAllowed(c) || c == '?' }

// normEscapes rewrites s so that escapes of unreserved characters are
// decoded, other escapes use upper-case hex, a '%' that starts no escape is
// itself escaped, and every byte outside allowed is escaped.
func normEscapes(s string, allowed func(byte) bool) string {
	clean := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '%' || !allowed(c) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	const hexdig = "0123456789ABCDEF"
	b := make([]byte, 0, len(s)+8)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			v := unhex(s[i+1])<<4 | unhex(s[i+2])
			if isUnreserved(v) {
				b = append(b, v)
			} else {
				b = append(b, '%', hexdig[v>>4], hexdig[v&15])
			}
			i += 2
			continue
		}
		if c != '%' && allowed(c) {
			b = append(b, c)
			continue
		}
		b = append(b, '%', hexdig[c>>4], hexdig[c&15])
	}
	return string(b)
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	default:
		return c - 'A' + 10
	}
}

// cleanSpace trims leading/trailing C0 controls and spaces and removes tabs
// and newlines anywhere, as browsers do before parsing a URL.
func cleanSpace(s string) string {
	s = strings.TrimFunc(s, func(r rune) bool { return r <= ' ' })
	if strings.ContainsAny(s, "\t\n\r") {
		s = strings.NewReplacer("\t", "", "\n", "", "\r", "").Replace(s)
	}
	return s
}

// schemeEnd returns the index of the ':' ending a syntactically valid scheme
// at the start of s, or -1.
func schemeEnd(s string) int {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		case i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'):
		case c == ':' && i > 0:
			return i
		default:
			return -1
		}
	}
	return -1
}

func isHTTP(scheme string) bool {
	return strings.EqualFold(scheme, "http") || strings.EqualFold(scheme, "https")
}

// backslashes turns '\' into '/' before the query, as browsers do for http.
func backslashes(s string) string {
	end := strings.IndexAny(s, "?#")
	if end < 0 {
		end = len(s)
	}
	if strings.IndexByte(s[:end], '\\') < 0 {
		return s
	}
	return strings.ReplaceAll(s[:end], `\`, "/") + s[end:]
}

// fixPercents escapes every '%' that does not start a valid escape, so that
// url.Parse accepts what browsers accept.
func fixPercents(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && !(i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2])) {
			var b strings.Builder
			for j := 0; j < len(s); j++ {
				if s[j] == '%' && !(j+2 < len(s) && isHex(s[j+1]) && isHex(s[j+2])) {
					b.WriteString("%25")
				} else {
					b.WriteByte(s[j])
				}
			}
			return b.String()
		}
	}
	return s
}

func withScheme(raw string) string {
	s := cleanSpace(raw)
	if i := schemeEnd(s); i > 0 {
		// "host:8080" is a host and port; anything else with a scheme is
		// taken as a URL (and fails unless it is http or https).
		if rest := s[i+1:]; isHTTP(s[:i]) || rest == "" || rest[0] < '0' || rest[0] > '9' {
			return s
		}
	}
	return "http://" + strings.TrimLeft(s, "/")
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// clip shortens a URL for an error message.
func clip(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

// secretParams are query parameter names (lower case, without _ and -) that
// carry credentials in the APIs plugins talk to.
var secretParams = map[string]bool{
	"key": true, "apikey": true, "token": true, "accesstoken": true, "authtoken": true, "auth": true,
	"secret": true, "clientsecret": true, "password": true, "passwd": true, "pwd": true,
	"sig": true, "signature": true, "xamzsignature": true, "xamzcredential": true, "xamzsecuritytoken": true,
	"subscriptionkey": true, "appkey": true, "appid": true, "sessionkey": true,
}

// IsSecretParam reports whether a query parameter name looks like it carries
// a credential (key, api_key, apiKey, access_token, signature, …).
func IsSecretParam(name string) bool {
	n := strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(name))
	return secretParams[n] || strings.HasSuffix(n, "apikey") || strings.HasSuffix(n, "secret") || strings.HasSuffix(n, "token")
}

// Redacted returns u for logs and error messages: the password of its user
// information and the values of credential-like query parameters (see
// [IsSecretParam]) are replaced by "REDACTED". Anything that does not parse
// as a URL is returned as is.
func Redacted(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	if u.RawQuery != "" {
		parts := strings.Split(u.RawQuery, "&")
		changed := false
		for i, p := range parts {
			name, _, ok := strings.Cut(p, "=")
			if n, err := url.QueryUnescape(name); err == nil {
				name = n
			}
			if ok && IsSecretParam(name) {
				parts[i] = p[:strings.IndexByte(p, '=')] + "=REDACTED"
				changed = true
			}
		}
		if changed {
			u.RawQuery = strings.Join(parts, "&")
		}
	}
	return u.Redacted()
}

// RedactIn replaces every occurrence of raw in s by [Redacted](raw): for
// error texts from lower layers that quote the URL they were given.
func RedactIn(s, raw string) string {
	r := Redacted(raw)
	if r == raw || raw == "" {
		return s
	}
	return strings.ReplaceAll(s, raw, r)
}
