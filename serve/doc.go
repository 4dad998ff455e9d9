// Package serve is dwcrawl's HTTP service (`dwcrawl serve`): one process
// runs many crawls, harvests, surfacing and enrichment jobs, and shows them through a
// REST API, a live dashboard and Prometheus metrics.
//
// Every job has a directory under the server's root, named by its id:
// job.json records what was asked (the request), its state (running, done,
// stopped, failed) and its last counts, so a restarted server lists every
// job it finds and can resume it. A crawl's or a harvest's directory is
// also its Pebble store, so `dwcrawl forms --dir ROOT/ID` (or `dwcrawl docs
// --dir ROOT/ID`) reads it once the server is gone.
//
// The server holds at most one open store per directory and shares it
// between the job that writes it and the requests that read it (forms,
// failures, features, curves, metrics): DESIGN.md's "never a second copy".
// A store nobody uses is closed after a short idle time.
//
// The jobs themselves are assembled elsewhere: the server declares the
// Runner it needs and internal/app supplies it (app.NewCrawl, app.Harvest,
// app.Surface, app.Enrich), so this package knows the store and the core's record types
// but no assembly.
//
// Security: requests that change something (POST) need the server's token
// when it has one (Authorization: Bearer T), and a server that listens
// beyond loopback must have one; cross-origin POSTs are refused. Files are
// named by path only inside the allowed directories; an inline profile
// (profile_lua) is written to the job's directory and loaded by the same
// sandboxed loader, with the same limits, as a profile file.
package serve
