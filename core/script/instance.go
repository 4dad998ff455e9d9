package script

import (
	"context"
	"fmt"
	"sort"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// Instance is a chunk run in a state held from its pool: the value the
// chunk returned (a plugin's table) and the state in which its functions
// are called. Packages that run plugins use it instead of gopher-lua: no
// Lua type crosses its methods. An Instance is used by one goroutine at a
// time and holds its state until Close.
type Instance struct {
	pool  *Pool
	L     *lua.LState
	chunk *Chunk
	value lua.LValue
}

// Load runs c in a state of the pool, like Run, and keeps the state so
// that the functions c returned can be called.
func (p *Pool) Load(ctx context.Context, c *Chunk) (*Instance, error) {
	L := p.Get()
	v, err := Exec(ctx, L, c)
	if err != nil {
		p.Put(L)
		return nil, err
	}
	if sd := stateOf(L); sd != nil {
		sd.pinned = append(sd.pinned, v)
	}
	return &Instance{pool: p, L: L, chunk: c, value: v}, nil
}

// Chunk is the compiled file the instance runs.
func (in *Instance) Chunk() *Chunk { return in.chunk }

// Type is the Lua type of the value the chunk returned: "table", "nil" ...
func (in *Instance) Type() string { return luaTypeName(in.value) }

// Get returns key of the table the chunk returned as plain Go data (see
// ToGo), nil when absent or when the chunk returned no table.
func (in *Instance) Get(key string) any {
	tb, ok := in.value.(*lua.LTable)
	if !ok {
		return nil
	}
	return ToGo(tb.RawGetString(key))
}

// Decode maps the value the chunk returned onto out strictly (see Decode),
// errors positioned at the keys' lines in the file.
func (in *Instance) Decode(out any) error { return in.chunk.Decode(in.value, out) }

// GrantEnv lets the scripts of this instance read the environment
// variables names with dw.env, and no others: the list a plugin declared
// at declared ("file:line", named in the error an undeclared variable
// raises). Until a grant, dw.env raises for every name; the grant ends
// when the instance is closed.
func (in *Instance) GrantEnv(names []string, declared string) {
	if sd := stateOf(in.L); sd != nil {
		g := &envGrant{names: make(map[string]bool, len(names)), declared: declared}
		for _, n := range names {
			g.names[n] = true
		}
		sd.env = g
	}
}

// Call calls f, a function the chunk returned (decoded into a Func field),
// with args converted by FromGo, bounded by ctx and the pool's CallTimeout
// and memory limit. A Lua error, a timeout or a Go panic fails this call
// only; the error is an *Error positioned where it happened.
func (in *Instance) Call(ctx context.Context, f Func, args ...any) (v Value, err error) {
	if in.L == nil {
		return Value{}, &Error{File: in.chunk.Path, Msg: "script: call on a closed instance"}
	}
	if f.fn == nil {
		return Value{}, &Error{File: in.chunk.Path, Msg: "script: call of an undefined function"}
	}
	defer func() {
		if r := recover(); r != nil {
			file, line := f.Pos()
			v, err = Value{}, &Error{File: file, Line: line, Msg: fmt.Sprintf("panic in a Go function called by the script: %v", r)}
			if sd := stateOf(in.L); sd != nil {
				sd.discard = true
			}
		}
	}()
	lv := make([]lua.LValue, len(args))
	for i, a := range args {
		lv[i] = FromGo(in.L, a)
	}
	res, err := CallFunc(ctx, in.L, f.fn, lv...)
	if err != nil {
		return Value{}, err
	}
	file, line := f.Pos()
	return Value{v: res, file: file, line: line}, nil
}

// Close returns the instance's state to its pool; the instance, its Funcs
// and its Values are unusable afterwards.
func (in *Instance) Close() {
	if in.L != nil {
		in.pool.Put(in.L)
		in.L, in.value = nil, lua.LNil
	}
}

// Func is a Lua function of a script: a struct field of type Func receives
// it when a table is decoded (nil leaves it undefined). Call it with the
// Instance it came from.
type Func struct{ fn *lua.LFunction }

// Defined reports whether the script gave a function.
func (f Func) Defined() bool { return f.fn != nil }

// Pos is the file and line where the function was defined ("", 0 for a Go
// function or an undefined Func).
func (f Func) Pos() (file string, line int) {
	if f.fn == nil || f.fn.Proto == nil {
		return "", 0
	}
	return f.fn.Proto.SourceName, f.fn.Proto.LineDefined
}

// Value is what a called function returned, valid until its instance is
// closed.
type Value struct {
	v    lua.LValue
	file string
	line int // definition of the function that returned it
}

// Type is the Lua type of the value: "nil", "boolean", "number", "string",
// "table" or "function".
func (v Value) Type() string {
	if v.v == nil {
		return "nil"
	}
	return luaTypeName(v.v)
}

// Go returns the value as plain Go data (see ToGo).
func (v Value) Go() any { return ToGo(v.v) }

// Decode maps the value onto out strictly (see Decode); errors are *Error
// positioned at the definition of the function that returned it, Key the
// path inside the value ("results[2].url").
func (v Value) Decode(out any) error {
	lv := v.v
	if lv == nil {
		lv = lua.LNil
	}
	return decodeRoot(lv, out, v.file, nil, v.line)
}

// envGrant is the set of environment variables dw.env may read in a state.
type envGrant struct {
	names    map[string]bool
	declared string // where the list was declared, for errors
}

// list names the granted variables, sorted, for errors.
func (g *envGrant) list() string {
	if len(g.names) == 0 {
		return "none"
	}
	out := make([]string, 0, len(g.names))
	for n := range g.names {
		out = append(out, n)
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}
