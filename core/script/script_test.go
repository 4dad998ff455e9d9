package script

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// run compiles src as name and runs it in a fresh pool.
func run(t *testing.T, opt Options, name, src string) (lua.LValue, error) {
	t.Helper()
	c, err := Compile(name, []byte(src))
	if err != nil {
		return lua.LNil, err
	}
	p := NewPool(opt)
	t.Cleanup(p.Close)
	return p.Run(context.Background(), c)
}

func asError(t *testing.T, err error) *Error {
	t.Helper()
	var se *Error
	if !errors.As(err, &se) {
		t.Fatalf("error %v (%T) is not a *script.Error", err, err)
	}
	return se
}

func TestSandbox(t *testing.T) {
	tests := []struct {
		name, src string
		wantErr   string // substring; empty: must succeed
	}{
		{"os absent", `return os.execute("true")`, "attempt to index a non-table object(nil)"},
		{"io absent", `return io.open("/etc/passwd")`, "attempt to index a non-table object(nil)"},
		{"debug absent", `return debug.getregistry()`, "non-table object(nil)"},
		{"dofile absent", `return dofile("/etc/passwd")`, "attempt to call a non-function object"},
		{"loadfile absent", `return loadfile("x.lua")`, "attempt to call a non-function object"},
		{"load absent", `return load(function() return nil end)`, "attempt to call a non-function object"},
		{"loadstring absent", `return loadstring("return 1")`, "attempt to call a non-function object"},
		{"getfenv absent", `return getfenv(0)`, "attempt to call a non-function object"},
		{"module absent", `module("x")`, "attempt to call a non-function object"},
		{"package absent", `return package.loaded`, "non-table object(nil)"},
		{"coroutine absent", `return coroutine.create(print)`, "non-table object(nil)"},
		{"string.dump absent", `return string.dump(print)`, "attempt to call a non-function object"},
		{"require os", `return require("os")`, "module not found"},
		{"require io", `local io = require "io"`, "module not found"},
		{"require path escape", `return require("../../etc/passwd")`, "invalid module name"},
		{"string meta hidden", `return getmetatable("")`, ""},
		{"string rep capped", `return string.rep("x", 1e9)`, "string.rep: result longer than"},
		{"safe libs present", `return string.upper("a") .. table.concat({"b","c"}) .. math.floor(1.5) .. ("d"):upper() .. tostring(type(pcall))`, ""},
		{"require dw", `return require("dw") ~= nil and require("string").upper("x")`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := run(t, Options{}, "sandbox.lua", tt.src)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("want error containing %q, got value %v", tt.wantErr, v)
			}
			se := asError(t, err)
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error %q does not contain %q", err, tt.wantErr)
			}
			if se.File != "sandbox.lua" || se.Line != 1 {
				t.Errorf("position = %s:%d, want sandbox.lua:1", se.File, se.Line)
			}
		})
	}
}

func TestGlobalsDoNotLeakBetweenRuns(t *testing.T) {
	p := NewPool(Options{})
	defer p.Close()
	a, _ := Compile("a.lua", []byte(`secret = 42; string.upper = nil; dw.log = nil; return 1`))
	b, _ := Compile("b.lua", []byte(`return tostring(secret) .. string.upper("x") .. type(dw.log)`))
	L := p.Get()
	defer p.Put(L)
	if _, err := Exec(context.Background(), L, a); err != nil {
		t.Fatal(err)
	}
	v, err := Exec(context.Background(), L, b)
	if err != nil {
		t.Fatal(err)
	}
	if got := lua.LVAsString(v); got != "nilXfunction" {
		t.Fatalf("second run saw %q, want nilXfunction", got)
	}
}

func TestTimeout(t *testing.T) {
	tests := []struct{ name, src string }{
		{"loop", "local n = 0\nwhile true do\n  n = n + 1\nend\n"},
		{"pcall cannot swallow", "while true do\n  pcall(function() while true do end end)\nend\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := run(t, Options{CallTimeout: 50 * time.Millisecond}, "loop.lua", tt.src)
			if err == nil {
				t.Fatal("infinite loop returned without error")
			}
			se := asError(t, err)
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("error %v does not wrap context.DeadlineExceeded", err)
			}
			if se.File != "loop.lua" || se.Line < 2 || se.Line > 4 {
				t.Errorf("position %s:%d, want loop.lua:2-4", se.File, se.Line)
			}
			if !strings.Contains(se.Msg, "timed out after 50ms") {
				t.Errorf("message %q", se.Msg)
			}
		})
	}
}

func TestCallerCancel(t *testing.T) {
	c, _ := Compile("spin.lua", []byte("while true do end"))
	p := NewPool(Options{CallTimeout: -1})
	defer p.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := p.Run(ctx, c)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestRecursionLimit(t *testing.T) {
	src := "local function f(n)\n  return 1 + f(n + 1)\nend\nreturn f(1)\n"
	_, err := run(t, Options{}, "rec.lua", src)
	if err == nil {
		t.Fatal("unbounded recursion returned without error")
	}
	se := asError(t, err)
	if !strings.Contains(se.Msg, "stack overflow") || se.File != "rec.lua" || se.Line != 2 {
		t.Fatalf("got %v", err)
	}
	// The pool still works afterwards.
	if _, err := run(t, Options{}, "ok.lua", "return 1"); err != nil {
		t.Fatal(err)
	}
}

func TestRegistryLimit(t *testing.T) {
	src := "local t = {}\nfor i = 1, 100000 do t[i] = i end\nreturn unpack(t)\n"
	_, err := run(t, Options{RegistryMaxSize: 4096}, "reg.lua", src)
	if err == nil {
		t.Fatal("unpack of 100000 values fit in a 4096-slot registry")
	}
	if se := asError(t, err); se.Line != 3 {
		t.Fatalf("got %v", err)
	}
}

func TestErrorLines(t *testing.T) {
	tests := []struct {
		name, src string
		want      string
	}{
		{"syntax", "local a = 1\nlocal b = = 2\n", "syn.lua:2: syntax error near '='"},
		{"syntax eof", "return {\n  a = 1,\n\n", "syn.lua:2: syntax error at end of file"},
		{"runtime", "local x = nil\n\nreturn x.y\n", "syn.lua:3: attempt to index a non-table object(nil) with key 'y'"},
		{"error()", "\nerror('boom')\n", "syn.lua:2: boom"},
		{"error level 0", "\nerror('plain', 0)\n", "syn.lua:2: plain"},
		{"error table", "\nerror({message = 'tbl'})\n", "syn.lua:2: tbl"},
		{"go function", "\n\nreturn dw.json.decode('{')\n", "syn.lua:3: dw.json.decode: unexpected EOF"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := run(t, Options{}, "syn.lua", tt.src)
			if err == nil {
				t.Fatal("no error")
			}
			asError(t, err)
			if err.Error() != tt.want {
				t.Fatalf("got  %q\nwant %q", err.Error(), tt.want)
			}
		})
	}
}

type limits struct {
	MaxDepth int           `lua:"max_depth"`
	Rate     float64       `lua:"rate"`
	Delay    time.Duration `lua:"delay"`
	On       bool          `lua:"on"`
}

type config struct {
	Name    string            `lua:"name"`
	Seeds   []string          `lua:"seeds"`
	Stop    limits            `lua:"stop"`
	Headers map[string]string `lua:"headers"`
	Extra   *limits           `lua:"extra"`
	Search  *lua.LFunction    `lua:"search"`
	Any     any               `lua:"any"`
	Skipped string            `lua:"-"`
	Count   uint              // snake_case "count"
}

func TestDecode(t *testing.T) {
	good := `return dw.domain{
  name = "auto",
  seeds = {"https://a.example/", "https://b.example/"},
  stop = { max_depth = 3, rate = 0.5, delay = "1m30s", on = true },
  headers = { ["Accept-Language"] = "en" },
  extra = { delay = 2.5 },
  search = function(q) return q end,
  any = { 1, "x", { k = true } },
  count = 7,
}`
	v, err := run(t, Options{}, "good.lua", good)
	if err != nil {
		t.Fatal(err)
	}
	var cfg config
	if err := Decode(v, &cfg, "good.lua"); err != nil {
		t.Fatal(err)
	}
	if cfg.Name != "auto" || len(cfg.Seeds) != 2 || cfg.Seeds[1] != "https://b.example/" ||
		cfg.Stop.MaxDepth != 3 || cfg.Stop.Rate != 0.5 || cfg.Stop.Delay != 90*time.Second || !cfg.Stop.On ||
		cfg.Headers["Accept-Language"] != "en" || cfg.Extra == nil || cfg.Extra.Delay != 2500*time.Millisecond ||
		cfg.Search == nil || cfg.Count != 7 {
		t.Fatalf("decoded %+v", cfg)
	}
	if got := fmt.Sprint(cfg.Any); got != "[1 x map[k:true]]" {
		t.Errorf("any = %s", got)
	}

	bad := []struct {
		name, src, want string
	}{
		{"wrong type", "return {\n  name = 'x',\n  stop = {\n    max_depth = \"3\",\n  },\n}\n",
			`bad.lua:4: stop.max_depth: expected integer, got string "3"`},
		{"not integer", "return {\n  stop = { max_depth = 2.5 },\n}\n",
			"bad.lua:2: stop.max_depth: expected integer, got number 2.5"},
		{"unknown key", "return dw.domain{\n  name = 'x',\n\n  stop = { max_dept = 3 },\n}\n",
			`bad.lua:4: stop.max_dept: unknown key (did you mean "max_depth"?)`},
		{"unknown top key", "return {\n  name = 'x',\n  colour = 'red',\n}\n",
			"bad.lua:3: colour: unknown key"},
		{"list element", "return {\n  seeds = {\n    'a',\n    42,\n  },\n}\n",
			"bad.lua:4: seeds[2]: expected string, got number 42"},
		{"list not table", "return {\n  seeds = 'a',\n}\n",
			`bad.lua:2: seeds: expected a list, got string "a"`},
		{"bad duration", "return {\n  stop = {\n    delay = 'soon' },\n}\n",
			`bad.lua:3: stop.delay: expected a duration such as "30s" or "1m30s", got "soon"`},
		{"first of several by line", "return {\n  name = 1,\n  stop = { on = 'yes' },\n}\n",
			"bad.lua:2: name: expected string, got number 1"},
		{"via local", "local p = {\n  name = 'x',\n}\np.stop = {\n  on = 1,\n}\nreturn p\n",
			"bad.lua:5: stop.on: expected boolean, got number 1"},
		{"declared without return", "dw.domain{\n  name = 'x',\n  count = -1,\n}\n",
			"bad.lua:3: count: expected a non-negative integer, got -1"},
		{"not a table", "return 5\n", "bad.lua: expected table, got number 5"},
		{"computed key falls back to parent", "local t = {name='x', stop={}}\nt.stop['max' .. '_x'] = 1\nreturn t\n",
			"bad.lua:1: stop.max_x: unknown key"},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			v, err := run(t, Options{}, "bad.lua", tt.src)
			if err != nil {
				t.Fatal(err)
			}
			var cfg config
			err = Decode(v, &cfg, "bad.lua")
			if err == nil {
				t.Fatal("no error")
			}
			asError(t, err)
			if err.Error() != tt.want {
				t.Fatalf("got  %q\nwant %q", err.Error(), tt.want)
			}
		})
	}
}

func TestToGoFromGo(t *testing.T) {
	L := NewPool(Options{}).Get()
	defer L.Close()
	type inner struct {
		A int           `lua:"a"`
		D time.Duration `lua:"d"`
	}
	in := map[string]any{"list": []int{1, 2}, "s": "x", "b": true, "in": inner{A: 1, D: time.Second}, "nil": nil, "bytes": []byte("hi")}
	got := ToGo(FromGo(L, in))
	want := "map[b:true bytes:hi in:map[a:1 d:1s] list:[1 2] s:x]"
	if fmt.Sprint(got) != want {
		t.Fatalf("round trip = %v, want %s", got, want)
	}
	cyc := L.NewTable()
	cyc.RawSetString("self", cyc)
	if g := fmt.Sprint(ToGo(cyc)); g != "map[self:<nil>]" {
		t.Fatalf("cycle = %s", g)
	}
}

func TestDWFunctions(t *testing.T) {
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	env := map[string]string{"DW_TEST_KEY": "k123"}
	opt := Options{Logger: logger, Env: func(n string) (string, bool) { v, ok := env[n]; return v, ok }}
	tests := []struct {
		name, src, want string
	}{
		{"json encode", `return dw.json.encode({b = {1, 2, "x"}, a = true, c = {n = 1.5}})`, `{"a":true,"b":[1,2,"x"],"c":{"n":1.5}}`},
		{"json decode", `local v = dw.json.decode('{"a":[1,{"b":"c"}],"n":null}') return v.a[2].b .. #v.a .. tostring(v.n)`, "c2nil"},
		{"json encode function", `local ok, err = pcall(dw.json.encode, {f = print}) return tostring(ok) .. " " .. err`, "false dw.lua:1: dw.json.encode: f: cannot convert a function to data"},
		{"url parse", `local u = dw.url.parse("https://user@www.ex.com:8080/a/b?q=used+car&x=1&x=2#frag")
			return table.concat({u.scheme, u.host, u.port, u.path, u.query.q, u.query.x[2], u.fragment, u.user}, "|")`,
			"https|www.ex.com|8080|/a/b|used car|2|frag|user"},
		{"url escape", `return dw.url.escape("a b&c=d/é")`, "a+b%26c%3Dd%2F%C3%A9"},
		{"url join", `return dw.url.join("http://h.com/a/b/c.html?x=1", "../d?y=2")`, "http://h.com/a/d?y=2"},
		{"url build", `return dw.url.build("http://h.com/s?keep=1&q=old", {q = "used cars", page = 2, tag = {"a", "b"}})`, "http://h.com/s?keep=1&page=2&q=used+cars&tag=a&tag=b"},
		{"html select", `local els = dw.html.select([[<ul><li class="r"><a href="/a">First  <b>one</b></a></li><li class="r"><a href="/b" rel="nofollow">Second</a></li></ul>]], "li.r a")
			return #els .. "|" .. els[1].text .. "|" .. els[2].attrs.href .. "|" .. els[2].attrs.rel .. "|" .. els[1].html .. "|" .. els[1].tag`,
			`2|First one|/b|nofollow|<a href="/a">First  <b>one</b></a>|a`},
		{"html attr", `return dw.html.attr('<form action="/s"><input name="q"><input name="z" value="v"></form>', "input", "value")`, "v"},
		{"html attr missing", `return tostring(dw.html.attr('<p>x</p>', "a", "href"))`, "nil"},
		{"html text", `return dw.html.text('<div><h1> Used   cars </h1></div>', "h1")`, "Used cars"},
		{"html bad selector", `local ok, err = pcall(dw.html.select, "<p></p>", "p[") return err`, `dw.html.select: invalid CSS selector "p["`},
		{"env not granted", `local ok, err = pcall(dw.env, "DW_TEST_KEY") return err`, `dw.lua:1: dw.env("DW_TEST_KEY"): no environment variables are readable here`},
		{"domain sugar", `local t = dw.domain{name = "x"} return t.name`, "x"},
		{"plugin sugar", `return dw.plugin{name = "p"}.name`, "p"},
		{"log", `dw.log("warn", "hello", {n = 3, who = "me"}) print("printed", 1) return "ok"`, "ok"},
		{"log bad level", `local ok, err = pcall(dw.log, "loud", "x") return err`, "unknown log level"},
		{"http without doer", `local ok, err = pcall(dw.http.get, "http://x.test/") return err`, "no HTTP client configured"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := run(t, opt, "dw.lua", tt.src)
			if err != nil {
				t.Fatal(err)
			}
			if got := lua.LVAsString(v); !strings.Contains(got, tt.want) {
				t.Fatalf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
	if l := logs.String(); !strings.Contains(l, "level=WARN msg=hello src=dw.lua:1 n=3 who=me") || !strings.Contains(l, `msg="printed\t1"`) {
		t.Errorf("logs:\n%s", l)
	}
}

// clientDoer adapts an *http.Client to HTTPDoer.
type clientDoer struct{ c *http.Client }

func (d clientDoer) Do(ctx context.Context, req *http.Request) (*http.Response, error) {
	return d.c.Do(req.WithContext(ctx))
}

func TestDWHTTP(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/get":
			w.Header().Set("X-Echo", r.Header.Get("X-Api-Key"))
			fmt.Fprintf(w, "q=%s", r.URL.Query().Get("q"))
		case "/post":
			r.ParseForm()
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"ct":%q,"q":%q,"tags":%d}`, r.Header.Get("Content-Type"), r.PostForm.Get("q"), len(r.PostForm["t"]))
		case "/raw":
			b := new(bytes.Buffer)
			b.ReadFrom(r.Body)
			fmt.Fprintf(w, "%s %s", r.Header.Get("Content-Type"), b)
		case "/redirect":
			http.Redirect(w, r, "/get?q=moved", http.StatusFound)
		case "/slow":
			select {
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
		case "/big":
			w.Write(bytes.Repeat([]byte("x"), 2048))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	opt := Options{HTTP: clientDoer{srv.Client()}, MaxBodyBytes: 1024}
	tests := []struct {
		name, src, want string
	}{
		{"get", `local r = dw.http.get(BASE .. "/get?q=cars", {headers = {["X-Api-Key"] = "s3"}})
			return r.status .. " " .. r.body .. " " .. r.headers["x-echo"]`, "200 q=cars s3"},
		{"post form", `local r = dw.http.post(BASE .. "/post", {q = "used car", t = {"a", "b"}})
			local j = dw.json.decode(r.body) return j.ct .. "|" .. j.q .. "|" .. j.tags`, "application/x-www-form-urlencoded|used car|2"},
		{"post raw", `return dw.http.post(BASE .. "/raw", '{"a":1}', {headers = {["Content-Type"] = "application/json"}}).body`, `application/json {"a":1}`},
		{"redirect final url", `local r = dw.http.get(BASE .. "/redirect") return r.url .. " " .. r.body`, "/get?q=moved q=moved"},
		{"404 is a status", `return dw.http.get(BASE .. "/nope").status`, "404"},
		{"timeout option", `local ok, err = pcall(dw.http.get, BASE .. "/slow", {timeout = 0.05}) return err`, "context deadline exceeded"},
		{"body limit", `local ok, err = pcall(dw.http.get, BASE .. "/big") return err`, "response body larger than 1024 bytes"},
		{"not http", `local ok, err = pcall(dw.http.get, "file:///etc/passwd") return err`, "is not an absolute http(s) URL"},
		// an API key in the query string stays out of error messages (logs)
		{"key redacted", `local ok, err = pcall(dw.http.get, BASE .. "/slow?q=x&api_key=s3cr3t", {timeout = 0.05}) return err`, "q=x&api_key=REDACTED"},
		{"key not leaked", `local ok, err = pcall(dw.http.get, BASE .. "/big?apiKey=s3cr3t")
			return (string.find(err, "s3cr3t", 1, true) and "LEAKED " or "CLEAN ") .. err`, "CLEAN "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := run(t, opt, "http.lua", "local BASE = "+fmt.Sprintf("%q", srv.URL)+"\n"+tt.src)
			if err != nil {
				t.Fatal(err)
			}
			if got := lua.LVAsString(v); !strings.Contains(got, tt.want) {
				t.Fatalf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestRequire(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "lib"), 0o755)
	os.WriteFile(filepath.Join(dir, "lib", "util.lua"), []byte("local M = {}\nfunction M.twice(s) return s .. s end\nreturn M\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "lib", "broken.lua"), []byte("local M = {}\n\nerror('broken module')\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "lib", "loop.lua"), []byte("return require('lib.loop')\n"), 0o644)
	mem := fstest.MapFS{"search/_common.lua": {Data: []byte("return { name = 'common' }\n")}}
	opt := Options{RequirePaths: []string{dir}, RequireFS: []NamedFS{{FS: mem, Prefix: "plugins"}}}
	tests := []struct {
		name, src, want, wantErr string
	}{
		{"dir module", `return require("lib.util").twice("ab")`, "abab", ""},
		{"cached", `return tostring(require("lib.util") == require("lib.util"))`, "true", ""},
		{"fs module", `return require("search._common").name`, "common", ""},
		{"missing", `return require("lib.nope")`, "", `main.lua:1: require "lib.nope": module not found`},
		{"module error keeps its position", `return require("lib.broken")`, "", filepath.Join(dir, "lib", "broken.lua") + ":3: broken module"},
		{"cycle", `return require("lib.loop")`, "", "requires itself"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := run(t, opt, "main.lua", tt.src)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := lua.LVAsString(v); got != tt.want {
				t.Fatalf("got %q want %q", got, tt.want)
			}
		})
	}
}

func TestCallFunc(t *testing.T) {
	p := NewPool(Options{CallTimeout: 100 * time.Millisecond})
	defer p.Close()
	c, err := Compile("plug.lua", []byte("return dw.plugin{\n  search = function(q, page)\n    if q == 'bad' then error('bad query') end\n    if q == 'spin' then while true do end end\n    return { records = { { id = q .. page } } }\n  end,\n}\n"))
	if err != nil {
		t.Fatal(err)
	}
	L := p.Get()
	v, err := Exec(context.Background(), L, c)
	if err != nil {
		t.Fatal(err)
	}
	fn := v.(*lua.LTable).RawGetString("search").(*lua.LFunction)
	res, err := CallFunc(context.Background(), L, fn, lua.LString("cars"), lua.LNumber(2))
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(ToGo(res)); got != "map[records:[map[id:cars2]]]" {
		t.Fatalf("result %s", got)
	}
	if _, err := CallFunc(context.Background(), L, fn, lua.LString("bad"), lua.LNumber(1)); err == nil || err.Error() != "plug.lua:3: bad query" {
		t.Fatalf("err = %v", err)
	}
	if _, err := CallFunc(context.Background(), L, fn, lua.LString("spin"), lua.LNumber(1)); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v", err)
	}
	p.Put(L) // a timed-out state is discarded, not reused
	if L2 := p.Get(); L2 == L {
		t.Fatal("timed-out state was reused")
	}
}

func TestPoolConcurrent(t *testing.T) {
	p := NewPool(Options{})
	defer p.Close()
	c, err := Compile("conc.lua", []byte(`
local n = 0
for i = 1, 200 do n = n + i end
local u = dw.url.parse("http://h.com/p?x=" .. n)
counter = (counter or 0) + 1
return dw.json.encode({x = u.query.x, runs = counter})`))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				v, err := p.Run(context.Background(), c)
				if err != nil {
					errs <- err
					return
				}
				if s := lua.LVAsString(v); s != `{"runs":1,"x":"20100"}` {
					errs <- fmt.Errorf("got %s", s)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

func TestSnake(t *testing.T) {
	for in, want := range map[string]string{"MaxPagesPerDepth": "max_pages_per_depth", "UserAgent": "user_agent", "URL": "url", "TopK": "top_k", "HTTPTimeout": "http_timeout", "Count": "count"} {
		if got := snake(in); got != want {
			t.Errorf("snake(%q) = %q, want %q", in, got, want)
		}
	}
}

// BenchmarkRun measures running a small profile-like chunk in a pooled
// state (per-run env, table construction) and decoding it.
func BenchmarkRun(b *testing.B) {
	c, err := Compile("bench.lua", []byte(`return dw.domain{ name = "auto", seeds = {"https://a.test/", "https://b.test/"}, stop = { max_depth = 3, rate = 0.5, delay = "2s" } }`))
	if err != nil {
		b.Fatal(err)
	}
	p := NewPool(Options{})
	defer p.Close()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		v, err := p.Run(ctx, c)
		if err != nil {
			b.Fatal(err)
		}
		var cfg config
		if err := c.Decode(v, &cfg); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCallFunc measures one call into a loaded plugin function.
func BenchmarkCallFunc(b *testing.B) {
	c, _ := Compile("plug.lua", []byte(`return { search = function(q, page) return { records = { { id = q .. page } }, next = false } end }`))
	p := NewPool(Options{})
	defer p.Close()
	L := p.Get()
	defer p.Put(L)
	v, err := Exec(context.Background(), L, c)
	if err != nil {
		b.Fatal(err)
	}
	fn := v.(*lua.LTable).RawGetString("search").(*lua.LFunction)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := CallFunc(ctx, L, fn, lua.LString("q"), lua.LNumber(1)); err != nil {
			b.Fatal(err)
		}
	}
}
