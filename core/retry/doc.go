// Package retry is dwcrawl's one retry policy, shared by the fetcher
// (core/fetch), the keyword-interface clients (core/keyword) and the Lua
// plugin adapters (plugins): "network faults are retried with backoff, then
// recorded with their cause, never fatal to a crawl".
//
// A [Policy] says how many extra attempts a request gets, the first backoff
// and its cap (doubling each time, the lower part of each wait fixed and the
// upper part drawn at random from a seeded generator, so that workers that
// failed together do not retry together and a run is reproducible), the
// longest Retry-After a server may ask for (a longer one ends the retries
// at once: a quota, not a hiccup), and an optional cap on the total time
// spent retrying. A [Classifier] says which failures are worth another
// attempt: timeouts, resets, refused connections, 5xx, 408 and 429 are;
// other 4xx, robots.txt refusals, the address policy, TLS certificate
// errors, unknown hosts and cancellation are not. Callers with their own
// knowledge (fetch's sentinel errors, keyword's HTTPError, the plugins'
// error codes) classify first and fall back to [Classify].
//
// [Backoff.Next] decides one retry (whether, and after how long) without
// sleeping, so that the fetcher can fold the wait into its per-host
// politeness slot and the plugin adapters into their pacing and query
// budget; [Backoff.Do] is the plain loop for everyone else. Every wait
// honours context.Context. Errors keep their cause: Next returns the
// attempt's error itself, or that error wrapped (%w) with why retrying
// stopped, so failure records can name it.
//
// Why not github.com/cenkalti/backoff/v5 (the maintained library the module
// proxy serves, considered first): its Retry loop sleeps on a timer that can't
// be replaced, so the politeness and budget logic above could not share it
// and tests would have to sleep instead of reading a fake clock; its
// ExponentialBackOff draws jitter from the global, unseeded math/rand, which
// breaks reproducible crawls; a RetryAfterError replaces the operation's
// error (the cause is lost), counts whole seconds and is never capped; and
// on cancellation Retry returns the context's error instead of the last
// failure. What the three callers share is small — the capped exponential
// wait with seeded jitter, the Retry-After cap and the classification — so
// it lives here, in about a hundred lines.
package retry
