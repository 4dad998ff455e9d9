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
		for _, kv := range sortedPairs(tb) {
			attrs = append(attrs, keyString(kv.k), ToGo(kv.v))
		}
	} else if L.GetTop() >= 3 && L.Get(3) != lua.LNil {
		L.ArgError(3, "fields must be a table")
	}
	p.opt.Logger.Log(L.Context(), level, msg, attrs...)
	return 0
}

// dwEnv is dw.env(name): the variable's value, nil when unset or empty.
// Plugins read API keys this way; profiles never hold secrets.
func (p *Pool) dwEnv(L *lua.LState) int {
	name := L.CheckString(1)
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
	g, err := toGo(L.CheckAny(1), 0, map[*lua.LTable]bool{}, true)
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
	L.Push(lua.LString(bytes.TrimRight(buf.Bytes(), "\n")))
	return 1
}

// dwJSONDecode is dw.json.decode(text): JSON null becomes nil.
func dwJSONDecode(L *lua.LState) int {
	s := L.CheckString(1)
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
	L.Push(lua.LString(url.QueryEscape(L.CheckString(1))))
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
		if err := setValues(q, tb, true); err != nil {
			raise(L, "dw.url.build: %v", err)
		}
	} else if L.Get(2) != lua.LNil {
		L.ArgError(2, "params must be a table")
	}
	u.RawQuery = q.Encode()
	L.Push(lua.LString(u.String()))
	return 1
}

// setValues copies a Lua table of parameters into url.Values: strings,
// numbers and booleans as text, lists as repeated values.
func setValues(q url.Values, tb *lua.LTable, replace bool) error {
	var err error
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
		if replace {
			q[name] = vals
		} else {
			q[name] = append(q[name], vals...)
		}
	})
	return err
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
