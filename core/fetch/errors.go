package fetch

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"syscall"
	"time"

	"github.com/dwcrawl/dwcrawl/core/retry"
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

// sentinels are this package's refusals with their Reason labels, in the
// order they are tested.
var sentinels = []struct {
	err   error
	label string
}{
	{ErrBadURL, "bad-url"}, {ErrBlocked, "blocked"}, {ErrDisallowed, "robots"}, {ErrStatus, "status"},
	{ErrContentType, "content-type"}, {ErrRedirectLoop, "redirect-loop"}, {ErrTooManyRedirects, "redirects"},
}

// sentinelLabel is the label of the sentinel err wraps, "" when none.
func sentinelLabel(err error) string {
	for _, s := range sentinels {
		if errors.Is(err, s.err) {
			return s.label
		}
	}
	return ""
}

// Reason returns a short stable label for err, for statistics and URL
// records: "" (nil), "bad-url", "blocked", "robots", "status",
// "content-type", "redirect-loop", "redirects", "timeout", "canceled",
// "network".
func Reason(err error) string {
	if err == nil {
		return ""
	}
	if l := sentinelLabel(err); l != "" {
		return l
	}
	switch {
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

// StatusError is the error of an HTTP status that ends a fetch (a non-2xx
// final status, or a retryable one after the last attempt). It wraps
// ErrStatus.
type StatusError struct {
	Code int
	// RetryAfter is the server's Retry-After, 0 when absent.
	RetryAfter time.Duration
}

// Error reads "status 503: fetch: HTTP error status".
func (e *StatusError) Error() string { return fmt.Sprintf("status %d: %v", e.Code, ErrStatus) }

// Unwrap returns ErrStatus.
func (e *StatusError) Unwrap() error { return ErrStatus }

// classify is the fetcher's retry classifier: retryable statuses (with
// their Retry-After), never the policy refusals of this package, and the
// retry package's rules for transport errors.
func classify(err error) (bool, time.Duration) {
	for _, s := range sentinels {
		if s.err != ErrStatus && errors.Is(err, s.err) {
			return false, 0
		}
	}
	var se *StatusError
	if errors.As(err, &se) {
		return retry.Status(se.Code), se.RetryAfter
	}
	return retry.Classify(err)
}

// Cause names why a fetch failed, finer than Reason, for failure records:
// "" (nil), "bad-url", "blocked" (the address policy), "robots",
// "http-NNN" (the final HTTP status), "content-type", "redirect-loop",
// "redirects", "timeout", "canceled", "dns" (the name did not resolve),
// "refused", "reset" (the connection was reset or closed mid-answer),
// "tls" (handshake or certificate) or "network" (any other transport
// error). A host whose robots.txt could not be fetched has the cause of
// that failure: a transport one (dns, refused ...) is returned as such,
// never as ErrDisallowed; a robots.txt answering 5xx or 429 disallows the
// host for a while ("robots").
func Cause(err error) string {
	var se *StatusError
	switch {
	case err == nil:
		return ""
	case errors.Is(err, ErrDisallowed):
		if c := transportCause(err); c != "" {
			return c
		}
		return "robots"
	case errors.As(err, &se):
		return "http-" + strconv.Itoa(se.Code)
	case errors.Is(err, context.Canceled):
		return "canceled"
	}
	if l := sentinelLabel(err); l != "" {
		return l
	}
	if c := transportCause(err); c != "" {
		return c
	}
	return "network"
}

// transportCause is the Cause of a transport error, "" when err is none
// of the kinds it knows.
func transportCause(err error) string {
	var dnsErr *net.DNSError
	var ne net.Error
	var recErr tls.RecordHeaderError
	var alert tls.AlertError
	switch {
	case errors.As(err, &dnsErr):
		if dnsErr.IsTimeout {
			return "timeout"
		}
		return "dns"
	case errors.Is(err, errTimeout), errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return "timeout"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "refused"
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE), errors.Is(err, syscall.ECONNABORTED),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "reset"
	case retry.CertificateError(err), errors.As(err, &recErr), errors.As(err, &alert):
		return "tls"
	}
	return ""
}
