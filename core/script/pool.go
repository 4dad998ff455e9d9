package script

import (
	"context"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"sync"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// HTTPDoer sends an HTTP request for dw.http; the crawler's polite fetcher
// satisfies it, tests pass a client for an httptest server. The request
// already carries the script's context.
type HTTPDoer interface {
	Do(ctx context.Context, req *http.Request) (*http.Response, error)
}

// Default limits of a state, used when the Options field is zero.
const (
	DefaultCallTimeout     = 30 * time.Second
	DefaultCallStackSize   = 200
	DefaultRegistrySize    = 1024
	DefaultRegistryMaxSize = 256 * 1024
	DefaultMaxBodyBytes    = 8 << 20
	DefaultMaxStringBytes  = 16 << 20
)

// MaxLogBytes bounds a message of print or dw.log (longer ones are cut).
const MaxLogBytes = 64 << 10

// Options configures the states of a Pool. The zero value is usable: no HTTP
// (dw.http raises a clear error), slog.Default, the default limits.
type Options struct {
	// HTTP sends dw.http requests; nil disables dw.http.
	HTTP HTTPDoer
	// Logger receives dw.log and print output; nil means slog.Default().
	Logger *slog.Logger
	// CallTimeout bounds every Run, Exec and CallFunc (the caller's context
	// may end it earlier); 0 means DefaultCallTimeout, negative means no limit
	// beyond the caller's context.
	CallTimeout time.Duration
	// RequirePaths are directories searched, in order, by require("a.b")
	// for a/b.lua; RequireFS are searched after them (the embedded plugins).
	RequirePaths []string
	RequireFS    []NamedFS
	// CallStackSize bounds recursion (Lua call frames); 0 means the default.
	CallStackSize int
	// RegistrySize is the initial data-stack size of a state and
	// RegistryMaxSize its limit; 0 means the defaults.
	RegistrySize    int
	RegistryMaxSize int
	// MaxBodyBytes bounds a dw.http response body; 0 means the default.
	MaxBodyBytes int64
	// MaxStringBytes bounds one string built by a script (concatenation,
	// string.rep, table.concat ...); 0 means the default.
	MaxStringBytes int
	// MemoryLimit bounds the memory a state's scripts hold: tables,
	// strings and functions they can still reach, estimated (see
	// memory.go). A run or call that exceeds it fails with an error
	// wrapping ErrMemoryLimit, positioned at the script line; the process
	// and the other states are unaffected. 0 means DefaultMemoryLimit
	// (64 MiB), negative means no limit.
	MemoryLimit int64
	// Env looks up dw.env variables; nil means os.LookupEnv. A script reads
	// only the variables its Instance was granted (Instance.GrantEnv: a
	// plugin's declared env list); a profile reads none.
	Env func(name string) (string, bool)
	// MaxIdle is the number of idle states kept for reuse; 0 means 64.
	MaxIdle int
}

// NamedFS is a file system searched by require, with the name used in error
// positions for its files (Prefix + "/" + path, e.g. "plugins/search/x.lua").
type NamedFS struct {
	FS     fs.FS
	Prefix string
}

func (o Options) withDefaults() Options {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.CallTimeout == 0 {
		o.CallTimeout = DefaultCallTimeout
	}
	if o.CallStackSize <= 0 {
		o.CallStackSize = DefaultCallStackSize
	}
	if o.RegistrySize <= 0 {
		o.RegistrySize = DefaultRegistrySize
	}
	if o.RegistryMaxSize <= 0 {
		o.RegistryMaxSize = DefaultRegistryMaxSize
	}
	if o.RegistryMaxSize < o.RegistrySize {
		o.RegistryMaxSize = o.RegistrySize
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if o.MaxStringBytes <= 0 {
		o.MaxStringBytes = DefaultMaxStringBytes
	}
	if o.MemoryLimit == 0 {
		o.MemoryLimit = DefaultMemoryLimit
	}
	if o.Env == nil {
		o.Env = os.LookupEnv
	}
	if o.MaxIdle <= 0 {
		o.MaxIdle = 64
	}
	return o
}

// Pool hands out sandboxed states. Get returns an idle state or creates one;
// Put returns it. A state must be used by one goroutine at a time; values a
// state returned (tables, functions) belong to it until it is Put back.
type Pool struct {
	opt Options

	mu     sync.Mutex
	idle   []*lua.LState
	closed bool

	modMu   sync.Mutex
	modules map[string]*Chunk // compiled require modules by resolved path
}

// NewPool creates a pool of states configured by opt.
func NewPool(opt Options) *Pool {
	return &Pool{opt: opt.withDefaults(), modules: map[string]*Chunk{}}
}

// Options returns the pool's options with defaults applied.
func (p *Pool) Options() Options { return p.opt }

// Get returns an idle state or a new one.
func (p *Pool) Get() *lua.LState {
	p.mu.Lock()
	if n := len(p.idle); n > 0 {
		L := p.idle[n-1]
		p.idle = p.idle[:n-1]
		p.mu.Unlock()
		return L
	}
	p.mu.Unlock()
	return p.newState()
}

// Put returns a state to the pool, resetting its stack. States that were
// stopped by a timeout or cancellation, and states beyond MaxIdle, are closed.
func (p *Pool) Put(L *lua.LState) {
	if L == nil {
		return
	}
	sd := stateOf(L)
	discard := sd == nil || sd.discard || sd.pool != p
	if sd != nil {
		sd.declared, sd.env, sd.pinned = nil, nil, nil
	}
	if !discard {
		L.SetTop(0)
	}
	p.mu.Lock()
	if !discard && !p.closed && len(p.idle) < p.opt.MaxIdle {
		p.idle = append(p.idle, L)
		L = nil
	}
	p.mu.Unlock()
	if L != nil {
		L.Close()
	}
}

// Close closes the idle states; states still out are closed when Put back.
func (p *Pool) Close() {
	p.mu.Lock()
	idle := p.idle
	p.idle, p.closed = nil, true
	p.mu.Unlock()
	for _, L := range idle {
		L.Close()
	}
}

// Run runs a compiled chunk in a pooled state and returns its result (the
// value it returns, or the table it declared with dw.domain / dw.plugin). The
// state goes back to the pool before Run returns, so the result must be
// treated as data (decode it); to keep calling functions of the result, use
// Get, Exec, CallFunc and Put.
func (p *Pool) Run(ctx context.Context, c *Chunk) (lua.LValue, error) {
	L := p.Get()
	defer p.Put(L)
	return Exec(ctx, L, c)
}

// Exec runs a compiled chunk in L (a state from a Pool) with a fresh global
// table and returns its first result or, when it returns nothing, the table
// it declared with dw.domain or dw.plugin.
func Exec(ctx context.Context, L *lua.LState, c *Chunk) (lua.LValue, error) {
	sd := stateOf(L)
	if sd == nil {
		return lua.LNil, &Error{File: c.Path, Msg: "script.Exec: state does not come from a script.Pool"}
	}
	fn := L.NewFunctionFromProto(c.Proto)
	fn.Env = sd.newEnv(L)
	prev := sd.declared
	sd.declared = nil
	defer func() { sd.declared = prev }()
	v, err := call(ctx, L, c.Path, fn)
	if err != nil {
		return lua.LNil, err
	}
	if v == lua.LNil && sd.declared != nil {
		v = sd.declared
	}
	return v, nil
}

// CallFunc calls a Lua function in L with args, bounded by the pool's
// CallTimeout and by ctx, and returns its first result. Errors are *Error
// positioned in the function's file.
func CallFunc(ctx context.Context, L *lua.LState, fn *lua.LFunction, args ...lua.LValue) (lua.LValue, error) {
	if fn == nil {
		return lua.LNil, &Error{Msg: "script.CallFunc: nil function"}
	}
	file := ""
	if fn.Proto != nil {
		file = fn.Proto.SourceName
	}
	return call(ctx, L, file, fn, args...)
}

// call runs fn under a context derived from ctx and the CallTimeout, and
// restores the state's previous context afterwards (calls may nest when a Go
// function called from Lua calls back into Lua).
func call(ctx context.Context, L *lua.LState, file string, fn *lua.LFunction, args ...lua.LValue) (lua.LValue, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if m, ok := ctx.(*memCtx); ok {
		ctx = m.Context // never derive a context from the hook (see memCtx)
	}
	sd := stateOf(L)
	timeout := DefaultCallTimeout
	if sd != nil {
		timeout = sd.pool.opt.CallTimeout
	}
	run, cancel := ctx, context.CancelFunc(func() {})
	if timeout > 0 {
		run, cancel = context.WithTimeout(ctx, timeout)
	}
	defer cancel()
	old := L.Context()
	if sd != nil {
		if _, nested := old.(*memCtx); !nested {
			sd.mem.begin()
		}
		L.SetContext(&memCtx{Context: run, sd: sd, L: L})
	} else {
		L.SetContext(run)
	}
	defer func() {
		if old != nil {
			L.SetContext(old)
		} else {
			L.RemoveContext()
		}
	}()
	top := L.GetTop()
	L.Push(fn)
	for _, a := range args {
		L.Push(a)
	}
	if err := L.PCall(len(args), 1, nil); err != nil {
		L.SetTop(top)
		if sd != nil && (run.Err() != nil || sd.mem.err != nil) {
			sd.discard = true
		}
		cerr := convertErrorT(run, ctx, err, file, timeout)
		if se, ok := cerr.(*Error); ok && sd != nil && sd.mem.err != nil && se.err == nil {
			se.err = sd.mem.err
		}
		return lua.LNil, cerr
	}
	v := L.Get(-1)
	L.SetTop(top)
	return v, nil
}
