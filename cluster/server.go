package cluster

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/dwcrawl/dwcrawl/core/retry"
)

// MinServerVersion is the oldest nats-server dwcrawl's cluster runs on.
// Servers before 2.10 refuse a consumer whose filter subject spans several
// of its stream's subjects ("consumer filter subject is not a valid subset
// of the interest subjects"): the coordinator's results consumer filters on
// dwcrawl.*.<crawl>.>, which spans the page and done subjects of
// StreamResults. 2.10 is also the first to compress a stream (the results
// stream is S2-compressed) and to take several filter subjects on one
// consumer.
const MinServerVersion = "2.10.0"

// ErrServerTooOld is the error of a server older than MinServerVersion.
var ErrServerTooOld = errors.New("NATS server too old")

// CheckServerVersion returns an error naming version and the version
// needed when a server of that version (as the server announces it,
// "2.9.10", "2.10.0-RC.2") is too old for the cluster. A pre-release counts
// as its release.
func CheckServerVersion(version string) error {
	have, ok := parseVersion(version)
	if !ok {
		return fmt.Errorf("%w: cannot read the server's version %q (dwcrawl needs nats-server %s or later)", ErrServerTooOld, version, MinServerVersion)
	}
	need, _ := parseVersion(MinServerVersion)
	for i := range have {
		if have[i] != need[i] {
			if have[i] < need[i] {
				return fmt.Errorf("%w: the server runs nats-server %s, dwcrawl needs %s or later (JetStream consumers filtering on subjects that span a stream's subjects)",
					ErrServerTooOld, version, MinServerVersion)
			}
			return nil
		}
	}
	return nil
}

// parseVersion reads major.minor.patch, ignoring a pre-release or build
// suffix.
func parseVersion(v string) ([3]int, bool) {
	var out [3]int
	v = strings.TrimPrefix(v, "v")
	if i := strings.IndexAny(v, "-+"); i >= 0 {
		v = v[:i]
	}
	parts := strings.Split(v, ".")
	if len(parts) != 3 {
		return out, false
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return out, false
		}
		out[i] = n
	}
	return out, true
}

// waitLogEvery is how often a client waiting for its server says so.
const waitLogEvery = 5 * time.Second

// dial connects to url, waiting up to wait (negative: until ctx ends) for a
// server that is not up yet: retrying with backoff and logging every
// waitLogEvery what it waits for and since when. Errors no wait cures (a
// bad URL, credentials or certificate refused) end the wait at once.
func dial(ctx context.Context, url string, wait time.Duration, log *slog.Logger, opts ...nats.Option) (*nats.Conn, error) {
	// seeded by the process: workers started together retry apart
	bo := retry.New(retry.Policy{Retries: 1 << 30, Base: 100 * time.Millisecond, Max: 2 * time.Second, Seed: uint64(os.Getpid())})
	start := time.Now()
	var lastLog time.Time
	for attempt := 0; ; attempt++ {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("waiting for the server for %s: %w", time.Since(start).Round(time.Millisecond), err)
		}
		nc, err := nats.Connect(url, opts...)
		if err == nil {
			if attempt > 0 {
				log.Info("nats: server up", "url", nc.ConnectedUrlRedacted(), "version", nc.ConnectedServerVersion(), "waited", time.Since(start).Round(time.Millisecond))
			}
			return nc, nil
		}
		waited := time.Since(start)
		if wait == 0 || !serverAway(err) {
			return nil, err
		}
		if wait > 0 && waited >= wait {
			return nil, fmt.Errorf("no server after waiting %s: %w", waited.Round(time.Second), err)
		}
		if lastLog.IsZero() || time.Since(lastLog) >= waitLogEvery {
			log.Warn("nats: waiting for the server", "url", redactURL(url), "waited", waited.Round(time.Second), "err", err)
			lastLog = time.Now()
		}
		if err := (retry.SystemClock{}).Sleep(ctx, bo.Delay(attempt+1)); err != nil {
			return nil, fmt.Errorf("waiting for the server for %s: %w", time.Since(start).Round(time.Millisecond), err)
		}
	}
}

// serverAway reports whether a failed connection is worth another try: no
// server answered (not up yet, restarting), not one that answered no.
func serverAway(err error) bool {
	var ue *url.Error
	var ce x509.CertificateInvalidError
	var ua x509.UnknownAuthorityError
	var he x509.HostnameError
	switch {
	case errors.Is(err, nats.ErrAuthorization), errors.Is(err, nats.ErrAuthExpired), errors.Is(err, nats.ErrAuthRevoked),
		errors.Is(err, nats.ErrNkeysNotSupported), errors.Is(err, nats.ErrSecureConnRequired), errors.Is(err, nats.ErrSecureConnWanted),
		errors.Is(err, nats.ErrBadTimeout), errors.Is(err, nats.ErrInvalidConnection),
		errors.As(err, &ue), errors.As(err, &ce), errors.As(err, &ua), errors.As(err, &he):
		return false
	}
	return true
}

// redactURL hides the passwords of a comma-separated list of server URLs.
func redactURL(urls string) string {
	parts := strings.Split(urls, ",")
	for i, p := range parts {
		if u, err := url.Parse(strings.TrimSpace(p)); err == nil && u.User != nil {
			parts[i] = u.Redacted()
		}
	}
	return strings.Join(parts, ",")
}
