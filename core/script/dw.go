package script

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/url"
	"sort"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// newDW builds the dw module table of a state.
func (p *Pool) newDW(L *lua.LState) *lua.LTable {
	dw := L.NewTable()
	L.SetFuncs(dw, map[string]lua.LGFunction{
		"log":    p.dwLog,
		"env":    p.dwEnv,
		"domain": dwDeclare,
		"plugin": dwDeclare,
	})
	sub := func(name string, funcs map[string]lua.LGFunction) {
		dw.RawSetString(name, L.SetFuncs(L.NewTable(), funcs))
	}
	sub("json", map[string]lua.LGFunction{"encode": dwJSONEncode, "decode": dwJSONDecode})
	sub("url", map[string]lua.LGFunction{"parse": dwURLParse, "escape": dwURLEscape, "unescape": dwURLUnescape, "join": dwURLJoin, "build": dwURLBuild})
	sub("html", map[string]lua.LGFunction{"select": dwHTMLSelect, "attr": dwHTMLAttr, "text": dwHTMLText})
	sub("http", map[string]lua.LGFunction{"get": p.dwHTTPGet, "post": p.dwHTTPPost})
	dw.RawSetString("version", lua.LString("1"))
	return dw
}

// dwDeclare is dw.domain{...} / dw.plugin{...}: it returns its table and
// remembers it as the file's result, so a file may call it without return.
func dwDeclare(L *lua.LState) int {
	tb := L.CheckTable(1)
	if sd := stateOf(L); sd != nil {
		sd.declared = tb
	}
	L.Push(tb)
	return 1
}

// dwLog is dw.log(level, msg [, fields]): level is debug, info, warn or error.
func (p *Pool) dwLog(L *lua.LState) int {
	lvl := L.CheckString(1)
	msg := L.CheckString(2)
	var level slog.Level
	switch strings.ToLower(lvl) {
	case "debug":
		level = slog.LevelDebug
	case "info":
		level = slog.LevelInfo
	case "warn", "warning":
		level = slog.LevelWarn
	case "error":
		level = slog.LevelError
	default:
		L.ArgError(1, fmt.Sprintf("unknown log level %q (use debug, info, warn or error)", lvl))
	}
	attrs := []any{"src", where(L)}
	if tb, ok := L.Get(3).(*lua.LTable); ok {
		budget := int64(MaxLogBytes)
		for _, kv := range sortedPairs(tb) {
			g, err := toGo(kv.v, 0, map[*lua.LTable]bool{}, false, &budget)
			if err != nil {
				raise(L, "dw.log: fields longer than %d bytes", MaxLogBytes)
			}
			attrs = append(attrs, keyString(kv.k), g)
		}
	} else if L.GetTop() >= 3 && L.Get(3) != lua.LNil {
		L.ArgError(3, "fields must be a table")
	}
	p.opt.Logger.Log(baseContext(L), level, cut(msg, MaxLogBytes), attrs...)
	return 0
}

// dwEnv is dw.env(name): the variable's value, nil when unset or empty.
// Plugins read API keys this way, and only the variables they declare in
// their env list (granted to their state by Instance.GrantEnv): a shared
// plugin can't read the user's other secrets. Profiles never hold secrets
// and read none.
func (p *Pool) dwEnv(L *lua.LState) int {
	name := L.CheckString(1)
	sd := stateOf(L)
	switch {
	case sd == nil || sd.env == nil:
		raise(L, "dw.env(%q): no environment variables are readable here; only a plugin's functions read the variables its env list declares", name)
	case !sd.env.names[name]:
		raise(L, "dw.env(%q): %s is not in the env list of the plugin (%s, declaring %s); add it there to read it", name, name, sd.env.declared, sd.env.list())
	}
	if v, ok := p.opt.Env(name); ok && v != "" {
		L.Push(lua.LString(v))
	} else {
		L.Push(lua.LNil)
	}
	return 1
}

// dwJSONEncode is dw.json.encode(value [, indent]): tables with keys 1..n
// become arrays, other tables objects (keys sorted); functions are an error.
func dwJSONEncode(L *lua.LState) int {
	budget := int64(DefaultMaxStringBytes)
	if sd := stateOf(L); sd != nil {
		budget = int64(sd.pool.opt.MaxStringBytes)
	}
	g, err := toGo(L.CheckAny(1), 0, map[*lua.LTable]bool{}, true, &budget)
	if err != nil {
		raise(L, "dw.json.encode: %v", err)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if L.OptBool(2, false) {
		enc.SetIndent("", "  ")
	}
	if err := enc.Encode(g); err != nil {
		raise(L, "dw.json.encode: %v", err)
	}
	out := bytes.TrimRight(buf.Bytes(), "\n")
	reserveL(L, int64(len(out)), "dw.json.encode")
	L.Push(lua.LString(out))
	return 1
}

// dwJSONDecode is dw.json.decode(text): JSON null becomes nil. The size of
// the value is estimated from the text before decoding (jsonSize).
func dwJSONDecode(L *lua.LState) int {
	s := L.CheckString(1)
	size, err := jsonSize(s)
	if err != nil {
		raise(L, "dw.json.decode: %v", err)
	}
	reserveL(L, size, "dw.json.decode")
	var v any
	dec := json.NewDecoder(strings.NewReader(s))
	if err := dec.Decode(&v); err != nil {
		raise(L, "dw.json.decode: %v", err)
	}
	if dec.More() {
		raise(L, "dw.json.decode: trailing data after the JSON value")
	}
	L.Push(FromGo(L, v))
	return 1
}

// maxJSONDepth bounds the nesting of a decoded value.
const maxJSONDepth = 100

// jsonSize estimates, in one pass over the text, the memory of the Lua
// value it decodes to: the text itself (strings) plus a slot per array
// element and a hash entry per object member, with room for the Go
// decoder's own copy. A value nested deeper than maxJSONDepth is an error.
func jsonSize(s string) (int64, error) {
	var stack []byte
	inStr, esc := false, false
	var elems, members int64
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case inStr:
			if esc {
				esc = false
			} else if c == '\\' {
				esc = true
			} else if c == '"' {
				inStr = false
			}
		case c == '"':
			inStr = true
		case c == '[' || c == '{':
			if len(stack) >= maxJSONDepth {
				return 0, fmt.Errorf("nested deeper than %d levels", maxJSONDepth)
			}
			stack = append(stack, c)
			elems++
		case c == ']' || c == '}':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		case c == ',':
			if len(stack) > 0 && stack[len(stack)-1] == '{' {
				members++
			} else {
				elems++
			}
		}
	}
	values := elems + members + 1
	return 2*int64(len(s)) + values*(sizeSlot+2*sizeNumber) + (members+1)*sizeHashSlot + elems*sizeTable/4, nil
}

// dwURLParse is dw.url.parse(u): {scheme, host, port, path, query, fragment,
// user} where query maps each name to its value (a list when repeated).
func dwURLParse(L *lua.LState) int {
	u, err := url.Parse(L.CheckString(1))
	if err != nil {
		raise(L, "dw.url.parse: %v", err)
	}
	tb := L.NewTable()
	tb.RawSetString("scheme", lua.LString(u.Scheme))
	tb.RawSetString("host", lua.LString(u.Hostname()))
	tb.RawSetString("port", lua.LString(u.Port()))
	tb.RawSetString("path", lua.LString(u.Path))
	tb.RawSetString("raw_query", lua.LString(u.RawQuery))
	tb.RawSetString("fragment", lua.LString(u.Fragment))
	tb.RawSetString("user", lua.LString(u.User.Username()))
	q := L.NewTable()
	for k, vs := range u.Query() {
		if len(vs) == 1 {
			q.RawSetString(k, lua.LString(vs[0]))
			continue
		}
		arr := L.CreateTable(len(vs), 0)
		for _, v := range vs {
			arr.Append(lua.LString(v))
		}
		q.RawSetString(k, arr)
	}
	tb.RawSetString("query", q)
	L.Push(tb)
	return 1
}

// dwURLEscape is dw.url.escape(s): query escaping ("a b&c" -> "a+b%26c").
func dwURLEscape(L *lua.LState) int {
	s := L.CheckString(1)
	reserveL(L, 3*int64(len(s)), "dw.url.escape")
	L.Push(lua.LString(url.QueryEscape(s)))
	return 1
}

// dwURLUnescape is dw.url.unescape(s), the inverse of escape.
func dwURLUnescape(L *lua.LState) int {
	s, err := url.QueryUnescape(L.CheckString(1))
	if err != nil {
		raise(L, "dw.url.unescape: %v", err)
	}
	L.Push(lua.LString(s))
	return 1
}

// dwURLJoin is dw.url.join(base, ref): ref resolved against base.
func dwURLJoin(L *lua.LState) int {
	base, err := url.Parse(L.CheckString(1))
	if err != nil {
		raise(L, "dw.url.join: base: %v", err)
	}
	ref, err := url.Parse(L.CheckString(2))
	if err != nil {
		raise(L, "dw.url.join: ref: %v", err)
	}
	L.Push(lua.LString(base.ResolveReference(ref).String()))
	return 1
}

// dwURLBuild is dw.url.build(base, params): base with params set in its
// query (a list value repeats the parameter); keys are sorted.
func dwURLBuild(L *lua.LState) int {
	u, err := url.Parse(L.CheckString(1))
	if err != nil {
		raise(L, "dw.url.build: %v", err)
	}
	q := u.Query()
	if tb, ok := L.Get(2).(*lua.LTable); ok {
		n, err := setValues(q, tb, true)
		if err != nil {
			raise(L, "dw.url.build: %v", err)
		}
		reserveL(L, int64(len(u.String()))+3*n, "dw.url.build")
	} else if L.Get(2) != lua.LNil {
		L.ArgError(2, "params must be a table")
	}
	u.RawQuery = q.Encode()
	L.Push(lua.LString(u.String()))
	return 1
}

// setValues copies a Lua table of parameters into url.Values: strings,
// numbers and booleans as text, lists as repeated values. It returns the
// total length of names and values.
func setValues(q url.Values, tb *lua.LTable, replace bool) (int64, error) {
	var err error
	var total int64
	tb.ForEach(func(k, v lua.LValue) {
		if err != nil {
			return
		}
		name := keyString(k)
		var vals []string
		switch x := v.(type) {
		case *lua.LTable:
			for i := 1; i <= x.Len(); i++ {
				s, ok := scalarString(x.RawGetInt(i))
				if !ok {
					err = fmt.Errorf("parameter %s[%d]: expected string or number, got %s", name, i, luaTypeName(x.RawGetInt(i)))
					return
				}
				vals = append(vals, s)
			}
		default:
			s, ok := scalarString(v)
			if !ok {
				err = fmt.Errorf("parameter %s: expected string or number, got %s", name, luaTypeName(v))
				return
			}
			vals = []string{s}
		}
		for _, v := range vals {
			total += int64(len(name) + len(v) + 2)
		}
		if replace {
			q[name] = vals
		} else {
			q[name] = append(q[name], vals...)
		}
	})
	return total, err
}

func scalarString(v lua.LValue) (string, bool) {
	switch x := v.(type) {
	case lua.LString:
		return string(x), true
	case lua.LNumber:
		return x.String(), true
	case lua.LBool:
		return x.String(), true
	}
	return "", false
}

// headersTable converts headers to a table keyed by lower-case names, values
// of repeated headers joined with ", ".
func headersTable(L *lua.LState, h map[string][]string) *lua.LTable {
	tb := L.CreateTable(0, len(h))
	names := make([]string, 0, len(h))
	for k := range h {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		tb.RawSetString(strings.ToLower(k), lua.LString(strings.Join(h[k], ", ")))
	}
	return tb
}
