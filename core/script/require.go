package script

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// moduleName is a dotted Lua module name: "lib.http", "search._common".
var moduleName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$`)

// luaRequire is the sandbox's require: "dw" and the opened libraries, then
// helper modules a/b.lua under RequirePaths and RequireFS. A module runs once
// per state, with its own globals, and its result is cached.
func (p *Pool) luaRequire(L *lua.LState) int {
	name := L.CheckString(1)
	sd := stateOf(L)
	if v, ok := sd.loaded[name]; ok {
		L.Push(v)
		return 1
	}
	if lib, ok := sd.libs[name]; ok {
		L.Push(lib)
		return 1
	}
	if !moduleName.MatchString(name) {
		raise(L, "require: invalid module name %q (use dotted names such as \"lib.util\")", name)
	}
	if sd.loading[name] {
		raise(L, "require: module %q requires itself (cycle)", name)
	}
	chunk, err := p.findModule(name)
	if err != nil {
		raise(L, "require %q: %v", name, err)
	}
	sd.loading[name] = true
	defer delete(sd.loading, name)
	v, err := Exec(baseContext(L), L, chunk)
	if err != nil {
		// The error already carries the module's file and line: raise it
		// without prefixing the require call's position.
		L.Error(lua.LString(err.Error()), 0)
	}
	if v == lua.LNil {
		v = lua.LTrue
	}
	sd.loaded[name] = v
	L.Push(v)
	return 1
}

// errNoModule says a module is not in any allowed place.
var errNoModule = errors.New("module not found")

// findModule locates and compiles (once per pool) a helper module.
func (p *Pool) findModule(name string) (*Chunk, error) {
	rel := strings.ReplaceAll(name, ".", "/") + ".lua"
	for _, dir := range p.opt.RequirePaths {
		file := filepath.Join(dir, filepath.FromSlash(rel))
		if _, err := os.Stat(file); err == nil {
			return p.compileModule(file, func() ([]byte, error) { return os.ReadFile(file) })
		}
	}
	for _, nfs := range p.opt.RequireFS {
		if _, err := fs.Stat(nfs.FS, rel); err == nil {
			file := rel
			if nfs.Prefix != "" {
				file = path.Join(nfs.Prefix, rel)
			}
			return p.compileModule(file, func() ([]byte, error) { return fs.ReadFile(nfs.FS, rel) })
		}
	}
	where := "no module directories configured"
	if n := len(p.opt.RequirePaths) + len(p.opt.RequireFS); n > 0 {
		var places []string
		places = append(places, p.opt.RequirePaths...)
		for _, nfs := range p.opt.RequireFS {
			places = append(places, "embedded "+nfs.Prefix)
		}
		where = "searched " + strings.Join(places, ", ")
	}
	return nil, fmt.Errorf("%w: only dw, string, table, math and plugin helper modules can be required; %s", errNoModule, where)
}

func (p *Pool) compileModule(file string, read func() ([]byte, error)) (*Chunk, error) {
	p.modMu.Lock()
	defer p.modMu.Unlock()
	if c, ok := p.modules[file]; ok {
		return c, nil
	}
	src, err := read()
	if err != nil {
		return nil, err
	}
	c, err := Compile(file, src)
	if err != nil {
		return nil, err
	}
	p.modules[file] = c
	return c, nil
}
