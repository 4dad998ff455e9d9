package retry

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"sync"
	"time"
)

// Defaults of a Policy, used when its field is zero.
const (
	DefaultBase          = 500 * time.Millisecond
	DefaultMax           = 30 * time.Second
	DefaultJitter        = 0.5
	DefaultMaxRetryAfter = 2 * time.Minute
)

// Clock reads time and sleeps; tests use a fake one whose Sleep advances
// Now at once, so waits are checked exactly and nothing sleeps.
type Clock interface {
	Now() time.Time
	// Sleep waits for d or until ctx is done, returning ctx.Err() then.
	Sleep(ctx context.Context, d time.Duration) error
}

// SystemClock is the real clock.
type SystemClock struct{}

// Now returns time.Now().
func (SystemClock) Now() time.Time { return time.Now() }

// Sleep waits for d or until ctx is done.
func (SystemClock) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Classifier reports whether a failed attempt is worth another one and,
// when the server said so, how long to wait first (0: the backoff decides).
type Classifier func(err error) (retry bool, after time.Duration)

// Policy is a retry policy. Zero durations and Jitter take the defaults;
// Retries means what it says (0: a single attempt).
type Policy struct {
	// Retries is the number of attempts after the first.
	Retries int
	// Base is the wait before the first retry; it doubles on each retry up
	// to Max. Defaults DefaultBase and DefaultMax.
	Base, Max time.Duration
	// Jitter is the fraction of each wait drawn at random: with 0.5 the wait
	// before retry n lies in [d/2, d] for the doubled d. 0 means
	// DefaultJitter, negative means none (exact waits).
	Jitter float64
	// MaxRetryAfter is the longest wait a server may ask for (Retry-After,
	// a plugin's retry_after); a longer one ends the retries at once.
	// Default DefaultMaxRetryAfter.
	MaxRetryAfter time.Duration
	// MaxElapsed, when positive, ends the retries when the next wait would
	// end later than this after the first attempt began.
	MaxElapsed time.Duration
	// Seed seeds the jitter.
	Seed uint64
	// Classify decides which failures are retried; nil means Classify.
	Classify Classifier
	// Clock is used by Do; nil means SystemClock.
	Clock Clock
}

func (p Policy) withDefaults() Policy {
	if p.Retries < 0 {
		p.Retries = 0
	}
	if p.Base <= 0 {
		p.Base = DefaultBase
	}
	if p.Max <= 0 {
		p.Max = DefaultMax
	}
	p.Max = max(p.Max, p.Base)
	switch {
	case p.Jitter == 0:
		p.Jitter = DefaultJitter
	case p.Jitter < 0:
		p.Jitter = 0
	case p.Jitter > 1:
		p.Jitter = 1
	}
	if p.MaxRetryAfter <= 0 {
		p.MaxRetryAfter = DefaultMaxRetryAfter
	}
	if p.Classify == nil {
		p.Classify = Classify
	}
	if p.Clock == nil {
		p.Clock = SystemClock{}
	}
	return p
}

// Backoff applies a Policy. It is safe for concurrent use; the jitter of
// all its callers comes from one seeded generator.
type Backoff struct {
	p   Policy
	mu  sync.Mutex
	rng *rand.Rand
}

// New returns a Backoff for p with the defaults filled in.
func New(p Policy) *Backoff {
	p = p.withDefaults()
	return &Backoff{p: p, rng: rand.New(rand.NewPCG(p.Seed, 0x64776372))}
}

// Policy returns the policy with its defaults filled in.
func (b *Backoff) Policy() Policy { return b.p }

// Delay returns the wait before retry n (1-based): Base doubled n-1 times,
// capped at Max, its Jitter fraction drawn at random.
func (b *Backoff) Delay(n int) time.Duration {
	d := b.p.Base
	for i := 1; i < n && d < b.p.Max; i++ {
		d *= 2
	}
	d = min(d, b.p.Max)
	spread := time.Duration(float64(d) * b.p.Jitter)
	if spread <= 0 {
		return d
	}
	b.mu.Lock()
	j := time.Duration(b.rng.Int64N(int64(spread) + 1))
	b.mu.Unlock()
	return d - spread + j
}

// Next decides what follows failed attempt n (1-based) of a request whose
// first attempt began elapsed ago: the wait before the next attempt and a
// nil error, or the error to return. That error is err itself when err is
// not retryable or the retries are spent, and err wrapped with the reason
// when a server asked for too long a wait or the time cap is reached.
func (b *Backoff) Next(n int, elapsed time.Duration, err error) (time.Duration, error) {
	retry, after := b.p.Classify(err)
	if !retry {
		return 0, err
	}
	if after > b.p.MaxRetryAfter {
		return 0, fmt.Errorf("%w (the server asks to wait %v, more than the %v allowed)", err, after.Round(time.Second), b.p.MaxRetryAfter)
	}
	if n > b.p.Retries {
		return 0, err
	}
	wait := after
	if wait <= 0 {
		wait = b.Delay(n)
	}
	if b.p.MaxElapsed > 0 && elapsed+wait > b.p.MaxElapsed {
		return 0, fmt.Errorf("%w (stopped retrying after %v)", err, elapsed.Round(time.Millisecond))
	}
	return wait, nil
}

// Do calls op until it succeeds, Next stops it, or ctx ends (which also
// ends a wait). It returns nil or the last error, wrapped with the
// context's error when ctx ended during a wait.
func (b *Backoff) Do(ctx context.Context, op func(ctx context.Context) error) error {
	start := b.p.Clock.Now()
	for n := 1; ; n++ {
		err := op(ctx)
		if err == nil || ctx.Err() != nil {
			return err
		}
		wait, stop := b.Next(n, b.p.Clock.Now().Sub(start), err)
		if stop != nil {
			return stop
		}
		if serr := b.p.Clock.Sleep(ctx, wait); serr != nil {
			return fmt.Errorf("%w (while waiting to retry: %w)", err, serr)
		}
	}
}

// permanent marks an error no retry can fix.
type permanent struct{ err error }

func (p *permanent) Error() string { return p.err.Error() }
func (p *permanent) Unwrap() error { return p.err }

// Permanent marks err as not worth retrying (Classify says no); the message
// and the chain are err's.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return &permanent{err}
}

// Status reports whether an HTTP status is worth retrying: 408, 429 and the
// 5xx except 501 (not implemented) and 505 (HTTP version).
func Status(code int) bool {
	switch {
	case code == http.StatusRequestTimeout, code == http.StatusTooManyRequests:
		return true
	case code >= 500 && code <= 599 && code != http.StatusNotImplemented && code != http.StatusHTTPVersionNotSupported:
		return true
	}
	return false
}

// Classify is the default Classifier for transport errors: errors marked
// Permanent, cancellation, unknown hosts and TLS certificate problems are
// final; anything else (timeouts, resets, refused or dropped connections,
// truncated answers) is retried after the backoff. Callers classify their
// own errors (HTTP statuses, policy refusals) before falling back to it.
func Classify(err error) (bool, time.Duration) {
	if err == nil {
		return false, 0
	}
	var p *permanent
	if errors.As(err, &p) || errors.Is(err, context.Canceled) {
		return false, 0
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) && dnsErr.IsNotFound {
		return false, 0
	}
	if CertificateError(err) {
		return false, 0
	}
	return true, 0
}

// CertificateError reports whether err is a TLS certificate verification
// failure (unknown authority, wrong host name, invalid or expired
// certificate), which no retry fixes.
func CertificateError(err error) bool {
	var ua x509.UnknownAuthorityError
	var hn x509.HostnameError
	var ci x509.CertificateInvalidError
	var cv *tls.CertificateVerificationError
	return errors.As(err, &ua) || errors.As(err, &hn) || errors.As(err, &ci) || errors.As(err, &cv)
}
