// Package script is dwcrawl's sandboxed Lua runtime (DESIGN.md, "Lua").
//
// Domain profiles, search-engine plugins and keyword-interface plugins are
// Lua files. Each file is parsed and compiled once ([Compile], [CompileFile])
// keeping its real path, and the compiled chunk is run in pooled states
// ([Pool]); an LState is not goroutine-safe, so every crawl worker holds its own
// state from the pool, in the spirit of k6's per-VU runtimes.
//
// A state opens only the safe parts of the standard library: base (without
// dofile, loadfile, load, loadstring, module, getfenv/setfenv, newproxy), table,
// string (without dump) and math; no os, io, debug, coroutine, channel or
// package library. require is replaced by a restricted loader that only finds
// the dw module, the opened libraries and helper modules under the
// configured plugin roots. Every run and call is bounded in time (a context
// derived from the caller's with [Options.CallTimeout], checked between VM
// instructions), in recursion (call-stack size), in data-stack size
// (registry limits) and in memory ([Options.MemoryLimit], 64 MiB by default:
// library calls check their result's size before building it, and the
// values a state can reach are measured when it may have grown past the
// limit; see memory.go for how, and for what it can't bound). Each run of a
// chunk gets its own global table, so a profile's globals never leak into
// the next file run in the same state.
//
// Scripts see one module, dw (also a global): dw.log, dw.json, dw.url,
// dw.html, dw.http (through an injected [HTTPDoer], normally the crawler's
// polite fetcher), dw.env, dw.domain and dw.plugin. Go values never leak into
// Lua: everything crosses the boundary as strings, numbers, booleans and tables.
// dw.env reads only the environment variables granted to the state
// ([Instance.GrantEnv]: a plugin's declared env list); a profile reads none.
//
// Packages that run plugins use [Pool.Load], [Instance], [Func] and [Value]
// (decode a plugin's table into a Go struct with Func fields, call its
// functions with Go arguments, decode what they return), so that only this
// package imports gopher-lua.
//
// Errors are reported once, in one place, as [*Error] with the file and line
// ("domains/auto.lua:12: stop.max_depth: expected integer, got string"):
// syntax errors, runtime errors, timeouts and the strict table-to-struct
// mapping of [Decode], which names the key path and, using the parsed syntax
// tree of the file, the line where that key was written.
//
// Known limits of the sandbox: the time limit is checked between VM
// instructions, so one very expensive library call (a pathological pattern
// match over a huge string) runs to its end before the timeout is noticed;
// memory is estimated, not metered by an allocator (memory.go).
package script
