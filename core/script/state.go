package script

import (
	"fmt"
	"log/slog"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// stateData is the Go side of one pooled state, kept in its registry (which
// scripts can't reach: there is no debug library).
type stateData struct {
	pool     *Pool
	template map[string]lua.LValue // pristine globals copied into every run's env
	libs     map[string]*lua.LTable
	loaded   map[string]lua.LValue // require cache of this state
	loading  map[string]bool
	declared lua.LValue   // table passed to dw.domain / dw.plugin during the current run
	discard  bool         // stopped mid-run: close instead of reuse
	env      *envGrant    // variables dw.env may read; nil: none
	pinned   []lua.LValue // values Go holds for the state's scripts (an Instance's table)
	mem      memory
}

const stateKey = "dwcrawl.script.state"

func stateOf(L *lua.LState) *stateData {
	reg, ok := L.Get(lua.RegistryIndex).(*lua.LTable)
	if !ok {
		return nil
	}
	ud, ok := reg.RawGetString(stateKey).(*lua.LUserData)
	if !ok {
		return nil
	}
	sd, _ := ud.Value.(*stateData)
	return sd
}

// Base functions kept in the sandbox. dofile, loadfile, load, loadstring,
// module, require (replaced), getfenv/setfenv (they reach the shared
// globals), newproxy (userdata) and _printregs are left out; print and
// collectgarbage are replaced.
var safeBase = []string{
	"assert", "error", "getmetatable", "ipairs", "next", "pairs", "pcall",
	"rawequal", "rawget", "rawset", "select", "setmetatable", "tonumber",
	"tostring", "type", "unpack", "xpcall", "_VERSION",
}

// libraries opened, each copied per run so one file can't change another's.
var safeLibs = []struct {
	name string
	open lua.LGFunction
	drop []string
}{
	{lua.TabLibName, lua.OpenTable, nil},
	{lua.StringLibName, lua.OpenString, []string{"dump", "gfind"}},
	{lua.MathLibName, lua.OpenMath, nil},
}

func (p *Pool) newState() *lua.LState {
	o := p.opt
	L := lua.NewState(lua.Options{
		SkipOpenLibs:        true,
		CallStackSize:       o.CallStackSize,
		RegistrySize:        o.RegistrySize,
		RegistryMaxSize:     o.RegistryMaxSize,
		MinimizeStackMemory: true,
	})
	sd := &stateData{pool: p, template: map[string]lua.LValue{}, libs: map[string]*lua.LTable{}, loaded: map[string]lua.LValue{}, loading: map[string]bool{}}
	sd.mem.limit = max(o.MemoryLimit, 0)
	reg := L.Get(lua.RegistryIndex).(*lua.LTable)
	reg.RawSetString(stateKey, &lua.LUserData{Value: sd})

	L.Push(L.NewFunction(lua.OpenBase))
	L.Push(lua.LString(lua.BaseLibName))
	L.Call(1, 0)
	g := L.G.Global
	for _, name := range safeBase {
		sd.template[name] = g.RawGetString(name)
	}
	for _, lib := range safeLibs {
		L.Push(L.NewFunction(lib.open))
		L.Push(lua.LString(lib.name))
		L.Call(1, 1)
		tb := L.Get(-1).(*lua.LTable)
		L.Pop(1)
		for _, d := range lib.drop {
			tb.RawSetString(d, lua.LNil)
		}
		sd.libs[lib.name] = tb
	}
	// Library calls that build values in proportion to their arguments
	// check the size first (the memory limit, memory.go).
	p.checkLibs(L, sd)
	// Method calls on strings ("x"):upper() go through the string metatable;
	// give it a private copy of the library and hide it from getmetatable.
	strMeta := L.NewTable()
	strMeta.RawSetString("__index", copyTable(L, sd.libs[lua.StringLibName], 0))
	strMeta.RawSetString("__metatable", lua.LFalse)
	L.SetMetatable(lua.LString(""), strMeta)

	sd.template["print"] = L.NewFunction(p.luaPrint)
	sd.template["collectgarbage"] = L.NewFunction(func(L *lua.LState) int { L.Push(lua.LNumber(0)); return 1 })
	sd.template["require"] = L.NewFunction(p.luaRequire)
	sd.template[concatName] = L.NewFunction(luaConcat)
	sd.libs["dw"] = p.newDW(L)

	// Wipe the state's own globals: everything a script sees comes from its
	// per-run env.
	for _, k := range keysOf(g) {
		g.RawSet(k, lua.LNil)
	}
	reg.RawSetString("_LOADED", L.NewTable())
	return L
}

// newEnv builds a fresh global table for one run: the safe base functions
// and copies of the library tables.
func (sd *stateData) newEnv(L *lua.LState) *lua.LTable {
	env := L.CreateTable(0, len(sd.template)+len(sd.libs)+1)
	for k, v := range sd.template {
		env.RawSetString(k, v)
	}
	for name, lib := range sd.libs {
		env.RawSetString(name, copyTable(L, lib, 0))
	}
	env.RawSetString("_G", env)
	return env
}

// copyTable copies a library table, sub-tables included (dw.json, dw.url ...).
func copyTable(L *lua.LState, t *lua.LTable, depth int) *lua.LTable {
	c := L.CreateTable(0, 16)
	t.ForEach(func(k, v lua.LValue) {
		if sub, ok := v.(*lua.LTable); ok && depth < 3 {
			v = copyTable(L, sub, depth+1)
		}
		c.RawSet(k, v)
	})
	return c
}

func keysOf(t *lua.LTable) []lua.LValue {
	var ks []lua.LValue
	t.ForEach(func(k, _ lua.LValue) { ks = append(ks, k) })
	return ks
}

// luaPrint sends print output to the logger at info level, cut at
// MaxLogBytes.
func (p *Pool) luaPrint(L *lua.LState) int {
	n := L.GetTop()
	var b strings.Builder
	for i := 1; i <= n && b.Len() <= MaxLogBytes; i++ {
		if i > 1 {
			b.WriteByte('\t')
		}
		b.WriteString(L.ToStringMeta(L.Get(i)).String())
	}
	p.opt.Logger.Log(baseContext(L), slog.LevelInfo, cut(b.String(), MaxLogBytes), "src", where(L))
	return 0
}

// cut shortens s to at most n bytes, saying so.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "... (cut)"
}

// where is the "file:line" of the Lua code that called the current Go
// function.
func where(L *lua.LState) string {
	w := L.Where(1)
	if len(w) > 0 && w[len(w)-1] == ':' {
		w = w[:len(w)-1]
	}
	return w
}

// raise raises a Lua error from a Go function, positioned at the Lua caller.
func raise(L *lua.LState, format string, args ...any) {
	L.RaiseError("%s", fmt.Sprintf(format, args...))
}
