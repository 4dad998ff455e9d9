package plugins

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/dwcrawl/dwcrawl/core/script"
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

// Plugin is a loaded plugin: the table it returned, decoded and checked,
// and the script instance (a state held from a pool) its functions run in,
// held until Close. A Plugin is used by one goroutine at a time; give each
// worker its own.
type Plugin struct {
	Info

	inst    *script.Instance
	search  *searchDecl  // kind "search"
	keyword *keywordDecl // kind "keyword"
	env     []string     // the environment variables it declares (env, and its vars' env)

	lookupEnv func(string) (string, bool) // the pool's environment
}

// header is what every plugin declares in the table it returns.
type header struct {
	Kind        string   `lua:"kind"`
	Name        string   `lua:"name"`
	Version     string   `lua:"version"`
	Description string   `lua:"description"`
	Env         []string `lua:"env"`
}

// Load finds plugin kind/name (see Find) and runs it in a state from pool,
// which should be configured with PoolOptions so the plugin's helper modules
// resolve. The plugin's table is decoded strictly (unknown keys and wrong
// types are errors naming the key, at its line) and checked against the
// contract of its kind; from then on dw.env reads only the variables the
// plugin declares.
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
	in, err := pool.Load(ctx, c)
	if err != nil {
		return nil, err
	}
	p := &Plugin{inst: in, Info: Info{Path: file, Embedded: embedded}, lookupEnv: pool.Options().Env}
	if err := p.declare(kind); err != nil {
		in.Close()
		return nil, err
	}
	in.GrantEnv(p.env, fmt.Sprintf("%s:%d", file, c.KeyLine("env")))
	return p, nil
}

// declare decodes the plugin's table as the declaration of its kind (want,
// when not empty) and checks what every plugin must declare.
func (p *Plugin) declare(want string) error {
	c := p.inst.Chunk()
	if t := p.inst.Type(); t != "table" {
		return &script.Error{File: c.Path, Line: c.KeyLine(""), Msg: "a plugin must return a table (dw.plugin{kind=, name=, version=, ...}), got " + t}
	}
	kind, ok := p.inst.Get("kind").(string)
	switch {
	case p.inst.Get("kind") == nil:
		return c.Errorf("kind", "missing; a plugin declares kind, name and version")
	case !ok:
		return c.Errorf("kind", "expected string, got %s", goType(p.inst.Get("kind")))
	case !validKind(kind):
		return c.Errorf("kind", "must be one of %s, got %q", strings.Join(Kinds, ", "), kind)
	case want != "" && kind != want:
		return c.Errorf("kind", "is %q but a %s plugin was asked for", kind, want)
	}
	var h *header
	var err error
	switch kind {
	case "search":
		p.search = &searchDecl{}
		if err = p.inst.Decode(p.search); err == nil {
			err = p.search.check(c)
		}
		h = &p.search.header
	case "keyword":
		p.keyword = &keywordDecl{}
		if err = p.inst.Decode(p.keyword); err == nil {
			err = p.keyword.check(c)
		}
		h = &p.keyword.header
	}
	if err != nil {
		return err
	}
	if err := h.check(c, p.Path); err != nil {
		return err
	}
	p.Kind, p.Name, p.Version, p.Description = h.Kind, h.Name, h.Version, h.Description
	p.env = append([]string(nil), h.Env...)
	if p.keyword != nil {
		for _, v := range p.keyword.vars() {
			if v.Env != "" && !slices.Contains(p.env, v.Env) {
				p.env = append(p.env, v.Env)
			}
		}
	}
	return nil
}

// check validates the header's values (types are the decoder's job).
func (h *header) check(c *script.Chunk, file string) error {
	for _, k := range []struct{ key, val string }{{"name", h.Name}, {"version", h.Version}} {
		if k.val == "" {
			return c.Errorf(k.key, "missing; a plugin declares kind, name and version")
		}
	}
	if !nameRe.MatchString(h.Name) {
		return c.Errorf("name", "must be lower-case letters, digits, '-' and '_', got %q", h.Name)
	}
	base := strings.TrimSuffix(filepath.Base(file), ".lua")
	if base != h.Name && nameRe.MatchString(base) && strings.HasSuffix(file, ".lua") {
		return c.Errorf("name", "is %q but the file is %s.lua; the file name is how the plugin is found", h.Name, base)
	}
	if !versionRe.MatchString(h.Version) {
		return c.Errorf("version", "must be a version such as \"1.0.0\", got %q", h.Version)
	}
	for i, name := range h.Env {
		if !envNameRe.MatchString(name) {
			return c.Errorf(fmt.Sprintf("env[%d]", i+1), "expected the name of an environment variable, got %q", name)
		}
	}
	return nil
}

var envNameRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// checkInterval checks a declared min_interval (seconds).
func checkInterval(c *script.Chunk, v *float64) error {
	if v != nil && (*v < 0 || math.IsNaN(*v) || *v > 3600) {
		return c.Errorf("min_interval", "must be seconds in [0, 3600], got %v", *v)
	}
	return nil
}

// interval is a declared min_interval as a duration.
func interval(v *float64) time.Duration {
	if v == nil {
		return 0
	}
	return time.Duration(*v * float64(time.Second))
}

// goType names the Lua type of a value converted by script.ToGo.
func goType(v any) string {
	switch v.(type) {
	case nil:
		return "nil"
	case bool:
		return "boolean"
	case float64:
		return "number"
	case string:
		return "string"
	case []any, map[string]any:
		return "table"
	}
	return "function"
}

// funcs are the plugin's functions by name.
func (p *Plugin) funcs() map[string]script.Func {
	switch {
	case p.search != nil:
		d := p.search
		return map[string]script.Func{"search": d.Search, "link": d.Link, "site": d.Site, "check": d.Check}
	case p.keyword != nil:
		d := p.keyword
		return map[string]script.Func{"search": d.Search, "fetch": d.Fetch, "check": d.Check}
	}
	return nil
}

// fn returns the plugin function key, if the plugin defines it.
func (p *Plugin) fn(key string) (script.Func, bool) {
	f := p.funcs()[key]
	return f, f.Defined()
}

// Env lists the environment variables the plugin declares (its env list,
// then the env of its variables); dw.env reads these and no others.
func (p *Plugin) Env() []string { return append([]string(nil), p.env...) }

// Call calls the plugin function key with args (Go data, see
// script.FromGo), bounded by ctx and the pool's CallTimeout and memory
// limit. A missing function or a Lua error is an error carrying the plugin
// file and line; it fails this call only.
func (p *Plugin) Call(ctx context.Context, key string, args ...any) (script.Value, error) {
	if p.inst == nil {
		return script.Value{}, &script.Error{File: p.Path, Key: key, Msg: "plugin is closed"}
	}
	f, ok := p.fn(key)
	if !ok {
		return script.Value{}, &script.Error{File: p.Path, Line: p.inst.Chunk().KeyLine(""), Key: key, Msg: "plugin does not define this function"}
	}
	return p.inst.Call(ctx, f, args...)
}

// Decode maps the plugin's table onto out strictly (see script.Decode),
// with errors positioned in the plugin file.
func (p *Plugin) Decode(out any) error { return p.inst.Decode(out) }

// Close returns the plugin's state to its pool; the plugin is unusable
// afterwards.
func (p *Plugin) Close() {
	if p.inst != nil {
		p.inst.Close()
		p.inst = nil
	}
}
