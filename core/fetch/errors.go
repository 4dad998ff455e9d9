package fetch

import (
	"context"
	"crypto/x509"
	"errors"
	"net"
)

// Sentinel errors; a failed fetch wraps one of them (check with errors.Is)
// or a network error. Reason maps any of them to a short label.
var (
	// ErrBadURL: the URL does not parse or is not http/https.
	ErrBadURL = errors.New("fetch: bad URL")
	// ErrBlocked: the address policy refused the host or its address.
	ErrBlocked = errors.New("fetch: address not allowed")
	// ErrDisallowed: robots.txt disallows the URL (or the host's robots.txt
	// is unavailable, which disallows the host for a while).
	ErrDisallowed = errors.New("fetch: disallowed by robots.txt")
	// ErrStatus: the final response has a non-2xx status; the Response
	// still carries Status and Header.
	ErrStatus = errors.New("fetch: HTTP error status")
	// ErrContentType: the media type is not one of Options.ContentTypes.
	ErrContentType = errors.New("fetch: content type not accepted")
	// ErrRedirectLoop: a redirect leads back to a URL of the same chain.
	ErrRedirectLoop = errors.New("fetch: redirect loop")
	// ErrTooManyRedirects: the chain is longer than Options.MaxRedirects.
	ErrTooManyRedirects = errors.New("fetch: too many redirects")
	// errTimeout marks an attempt that ran out of Options.Timeout.
	errTimeout = errors.New("fetch: timeout")
)

// Reason returns a short stable label for err, for statistics and URL
// records: "" (nil), "bad-url", "blocked", "robots", "status",
// "content-type", "redirect-loop", "redirects", "timeout", "canceled",
// "network".
func Reason(err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, ErrBadURL):
		return "bad-url"
	case errors.Is(err, ErrBlocked):
		return "blocked"
	case errors.Is(err, ErrDisallowed):
		return "robots"
	case errors.Is(err, ErrStatus):
		return "status"
	case errors.Is(err, ErrContentType):
		return "content-type"
	case errors.Is(err, ErrRedirectLoop):
		return "redirect-loop"
	case errors.Is(err, ErrTooManyRedirects):
		return "redirects"
	case errors.Is(err, errTimeout), errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.Is(err, context.Canceled):
		return "canceled"
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return "timeout"
	}
	return "network"
}

// retryableErr reports whether a transport error is worth another attempt:
// timeouts, resets, refused or dropped connections are; policy refusals,
// unknown hosts, certificate problems and cancellation are not.
func retryableErr(err error) bool {
	if errors.Is(err, ErrBlocked) || errors.Is(err, context.Canceled) {
		return false
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) && dnsErr.IsNotFound {
		return false
	}
	var ua x509.UnknownAuthorityError
	var hn x509.HostnameError
	var ci x509.CertificateInvalidError
	if errors.As(err, &ua) || errors.As(err, &hn) || errors.As(err, &ci) {
		return false
	}
	return true
}
