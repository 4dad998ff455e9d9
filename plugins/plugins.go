package plugins

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/dwcrawl/dwcrawl/core/script"
	lua "github.com/yuin/gopher-lua"
)

//go:embed search/*.lua keyword/*.lua
var bundled embed.FS

// embedPrefix names embedded files in error positions, as in the source tree.
const embedPrefix = "plugins"

// Kinds are the plugin kinds, one directory each.
var Kinds = []string{"search", "keyword"}

// ErrNotFound is returned when no plugin has the requested kind and name.
var ErrNotFound = errors.New("plugin not found")

var (
	nameRe    = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*$`)
	versionRe = regexp.MustCompile(`^\d+\.\d+(\.\d+)?([-+][0-9A-Za-z.-]+)?$`)
)

// Info describes a plugin.
type Info struct {
	Kind        string
	Name        string
	Version     string
	Description string
	Path        string // file path; "plugins/<kind>/<name>.lua" for embedded plugins
	Embedded    bool
	Err         error // set by List when the plugin failed to load
}

// Ref returns "kind/name".
func (i Info) Ref() string { return i.Kind + "/" + i.Name }

// SplitRef splits "search/simweb" into its kind and name.
func SplitRef(ref string) (kind, name string, err error) {
	kind, name, ok := strings.Cut(ref, "/")
	if !ok || !validKind(kind) || !nameRe.MatchString(name) {
		return "", "", fmt.Errorf("plugin reference %q: want kind/name with kind one of %s", ref, strings.Join(Kinds, ", "))
	}
	return kind, name, nil
}

func validKind(k string) bool {
	for _, x := range Kinds {
		if x == k {
			return true
		}
	}
	return false
}

// FS returns the embedded plugin files (search/*.lua, keyword/*.lua).
func FS() fs.FS { return bundled }

// PoolOptions returns opt with the plugin roots (userDirs, then the
// embedded plugins) added to its require path, so plugins can require their
// helper modules.
func PoolOptions(opt script.Options, userDirs ...string) script.Options {
	opt.RequirePaths = append(append([]string(nil), userDirs...), opt.RequirePaths...)
	opt.RequireFS = append(append([]script.NamedFS(nil), opt.RequireFS...), script.NamedFS{FS: bundled, Prefix: embedPrefix})
	return opt
}

// Find returns the path and source of plugin kind/name: userDirs are searched
// first (<dir>/<kind>/<name>.lua), then the embedded plugins. A name that is a
// file path (it contains a path separator or ends in ".lua") is read as is.
func Find(kind, name string, userDirs ...string) (string, []byte, error) {
	file, src, _, err := find(kind, name, userDirs)
	return file, src, err
}

func find(kind, name string, userDirs []string) (file string, src []byte, embedded bool, err error) {
	if strings.HasSuffix(name, ".lua") || strings.ContainsAny(name, `/\`) {
		src, err = os.ReadFile(name)
		if err != nil {
			return "", nil, false, fmt.Errorf("plugin %s: %w", name, err)
		}
		return name, src, false, nil
	}
	if !validKind(kind) {
		return "", nil, false, fmt.Errorf("plugin kind %q: want one of %s", kind, strings.Join(Kinds, ", "))
	}
	if !nameRe.MatchString(name) {
		return "", nil, false, fmt.Errorf("plugin name %q: want lower-case letters, digits, '-' and '_'", name)
	}
	for _, dir := range userDirs {
		p := filepath.Join(dir, kind, name+".lua")
		src, err = os.ReadFile(p)
		if err == nil {
			return p, src, false, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", nil, false, fmt.Errorf("plugin %s/%s: %w", kind, name, err)
		}
	}
	rel := kind + "/" + name + ".lua"
	if src, err := bundled.ReadFile(rel); err == nil {
		return path.Join(embedPrefix, rel), src, true, nil
	}
	return "", nil, false, fmt.Errorf("%w: %s/%s (searched %s)", ErrNotFound, kind, name, strings.Join(append(append([]string(nil), userDirs...), "bundled plugins"), ", "))
}

// List loads every plugin of userDirs and of the embedded set, sorted by
// kind and name; a user plugin hides a bundled one of the same name. A plugin
// that fails to load is listed with Err set.
func List(userDirs ...string) []Info {
	pool := script.NewPool(PoolOptions(script.Options{CallTimeout: 5 * time.Second}, userDirs...))
	defer pool.Close()
	seen := map[string]bool{}
	var out []Info
	add := func(kind, name, file string, embedded bool, read func() ([]byte, error)) {
		if seen[kind+"/"+name] {
			return
		}
		seen[kind+"/"+name] = true
		info := Info{Kind: kind, Name: name, Path: file, Embedded: embedded}
		src, err := read()
		if err == nil {
			var p *Plugin
			p, err = load(context.Background(), pool, kind, file, src, embedded)
			if err == nil {
				info = p.Info
				p.Close()
			}
		}
		info.Err = err
		out = append(out, info)
	}
	for _, dir := range userDirs {
		for _, kind := range Kinds {
			files, _ := filepath.Glob(filepath.Join(dir, kind, "*.lua"))
			sort.Strings(files)
			for _, f := range files {
				name := strings.TrimSuffix(filepath.Base(f), ".lua")
				if strings.HasPrefix(name, "_") {
					continue
				}
				add(kind, name, f, false, func() ([]byte, error) { return os.ReadFile(f) })
			}
		}
	}
	for _, kind := range Kinds {
		files, _ := fs.Glob(bundled, kind+"/*.lua")
		for _, f := range files {
			name := strings.TrimSuffix(path.Base(f), ".lua")
			if strings.HasPrefix(name, "_") {
				continue
			}
			add(kind, name, path.Join(embedPrefix, f), true, func() ([]byte, error) { return bundled.ReadFile(f) })
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Ref() < out[j].Ref() })
	return out
}

// Plugin is a loaded plugin: its table lives in a state taken from a pool,
// held until Close. A Plugin is used by one goroutine at a time; give each
// worker its own.
type Plugin struct {
	Info
	// Table is the table the plugin returned.
	Table *lua.LTable
	// L is the state holding Table; pass it to script.CallFunc.
	L *lua.LState

	pool  *script.Pool
	chunk *script.Chunk
}

// Load finds plugin kind/name (see Find) and runs it in a state from pool,
// which should be configured with PoolOptions so the plugin's helper modules
// resolve. The plugin's declared kind, name and version are validated.
func Load(ctx context.Context, pool *script.Pool, kind, name string, userDirs ...string) (*Plugin, error) {
	file, src, embedded, err := find(kind, name, userDirs)
	if err != nil {
		return nil, err
	}
	return load(ctx, pool, kind, file, src, embedded)
}

// LoadSource runs a plugin already in memory; path names it in errors and
// kind is the expected kind ("" accepts any).
func LoadSource(ctx context.Context, pool *script.Pool, kind, path string, src []byte) (*Plugin, error) {
	return load(ctx, pool, kind, path, src, false)
}

func load(ctx context.Context, pool *script.Pool, kind, file string, src []byte, embedded bool) (*Plugin, error) {
	c, err := script.Compile(file, src)
	if err != nil {
		return nil, err
	}
	L := pool.Get()
	v, err := script.Exec(ctx, L, c)
	if err != nil {
		pool.Put(L)
		return nil, err
	}
	p := &Plugin{L: L, pool: pool, chunk: c, Info: Info{Path: file, Embedded: embedded}}
	if err := p.validate(v, kind, file); err != nil {
		pool.Put(L)
		return nil, err
	}
	return p, nil
}

// validate checks the declared metadata and the functions every plugin of
// the kind must have.
func (p *Plugin) validate(v lua.LValue, kind, file string) error {
	c := p.chunk
	tb, ok := v.(*lua.LTable)
	if !ok {
		return &script.Error{File: file, Line: c.KeyLine(""), Msg: fmt.Sprintf("a plugin must return a table (dw.plugin{kind=, name=, version=, ...}), got %s", v.Type())}
	}
	p.Table = tb
	str := func(key string, required bool) (string, error) {
		switch x := tb.RawGetString(key).(type) {
		case lua.LString:
			return string(x), nil
		case *lua.LNilType:
			if required {
				return "", c.Errorf(key, "missing; a plugin declares kind, name and version")
			}
			return "", nil
		default:
			return "", c.Errorf(key, "expected string, got %s", x.Type())
		}
	}
	var err error
	if p.Kind, err = str("kind", true); err != nil {
		return err
	}
	if p.Name, err = str("name", true); err != nil {
		return err
	}
	if p.Version, err = str("version", true); err != nil {
		return err
	}
	if p.Description, err = str("description", false); err != nil {
		return err
	}
	if !validKind(p.Kind) {
		return c.Errorf("kind", "must be one of %s, got %q", strings.Join(Kinds, ", "), p.Kind)
	}
	if kind != "" && p.Kind != kind {
		return c.Errorf("kind", "is %q but a %s plugin was asked for", p.Kind, kind)
	}
	if !nameRe.MatchString(p.Name) {
		return c.Errorf("name", "must be lower-case letters, digits, '-' and '_', got %q", p.Name)
	}
	base := strings.TrimSuffix(filepath.Base(file), ".lua")
	if base != p.Name && nameRe.MatchString(base) && strings.HasSuffix(file, ".lua") {
		return c.Errorf("name", "is %q but the file is %s.lua; the file name is how the plugin is found", p.Name, base)
	}
	if !versionRe.MatchString(p.Version) {
		return c.Errorf("version", "must be a version such as \"1.0.0\", got %q", p.Version)
	}
	if _, ok := tb.RawGetString("search").(*lua.LFunction); !ok {
		return c.Errorf("search", "a %s plugin must define search = function(query, page) ... end", p.Kind)
	}
	if p.Kind == "keyword" {
		for _, key := range []string{"k", "page_size"} {
			switch x := tb.RawGetString(key).(type) {
			case *lua.LNilType:
			case lua.LNumber:
				if float64(x) < 1 || float64(x) != float64(int64(x)) {
					return c.Errorf(key, "must be a positive integer, got %v", x)
				}
			default:
				return c.Errorf(key, "expected integer, got %s", x.Type())
			}
		}
		switch x := tb.RawGetString("conjunctive").(type) {
		case *lua.LNilType, lua.LBool:
		default:
			return c.Errorf("conjunctive", "expected boolean, got %s", x.Type())
		}
		switch x := tb.RawGetString("fetch").(type) {
		case *lua.LNilType, *lua.LFunction:
		default:
			return c.Errorf("fetch", "expected function, got %s", x.Type())
		}
	}
	return nil
}

// Field returns a key of the plugin's table (nil when absent).
func (p *Plugin) Field(key string) lua.LValue { return p.Table.RawGetString(key) }

// Func returns the plugin function key, if the plugin defines it.
func (p *Plugin) Func(key string) (*lua.LFunction, bool) {
	f, ok := p.Table.RawGetString(key).(*lua.LFunction)
	return f, ok
}

// Call calls the plugin function key with args, bounded by ctx and the
// pool's CallTimeout. A missing function or a Lua error is an error carrying
// the plugin file and line; it fails this call only.
func (p *Plugin) Call(ctx context.Context, key string, args ...lua.LValue) (lua.LValue, error) {
	fn, ok := p.Func(key)
	if !ok {
		return lua.LNil, &script.Error{File: p.Path, Line: p.chunk.KeyLine(""), Key: key, Msg: "plugin does not define this function"}
	}
	return script.CallFunc(ctx, p.L, fn, args...)
}

// Decode maps the plugin's table onto out strictly (see script.Decode),
// with errors positioned in the plugin file.
func (p *Plugin) Decode(out any) error { return p.chunk.Decode(p.Table, out) }

// Close returns the plugin's state to its pool; the plugin is unusable
// afterwards.
func (p *Plugin) Close() {
	if p.L != nil {
		p.pool.Put(p.L)
		p.L, p.Table = nil, nil
	}
}
