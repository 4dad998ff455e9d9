package main

import (
	"os"
	"runtime/debug"
)

// GC settings when the environment sets none (GOGC, GOMEMLIMIT). A crawl
// keeps a large live heap of models and indexes and allocates per page
// mostly short-lived garbage; at the runtime's default (100) it marks that
// live heap every ~90 MB allocated, about 1.9 s of CPU in a 10,000-page crawl
// (GODEBUG=gctrace=1). Twice the headroom halves it; the soft memory limit
// makes the collector run earlier whenever the heap nears it, so a long
// crawl's memory stays bounded (the 1M-page target is 500 MiB of RSS).
const (
	defaultGCPercent   = 200
	defaultMemoryLimit = 320 << 20 // Go's own memory; Pebble's cache and memtables are outside it
)

// tuneGC applies the defaults the environment does not override.
func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(defaultGCPercent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(defaultMemoryLimit)
	}
}
