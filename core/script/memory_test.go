package script

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// totalAlloc is the bytes the process has allocated so far.
func totalAlloc() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.TotalAlloc
}

// TestMemoryLimitHostile runs scripts that try to exhaust memory: each
// fails with an error wrapping ErrMemoryLimit (or the string cap) at the
// script line, without allocating much more than the limit, and the pool
// goes on working.
func TestMemoryLimitHostile(t *testing.T) {
	const limit = 16 << 20
	tests := []struct {
		name, src string
		line      int
		want      string // substring of the message
		cap       bool   // the single-string cap (MaxStringBytes), not the memory limit
	}{
		{"string doubling", "local s = 'x'\nwhile true do\n  s = s .. s\nend\n", 3, "concatenation: memory limit of 16.0 MiB exceeded", false},
		{"concat chain", "local s = string.rep('y', 3000000)\nlocal a = s .. s .. s\nlocal b = a .. s\nreturn #b\n", 3, "concatenation: memory limit", false},
		{"table.concat of a huge table", "local t = {}\nlocal s = string.rep('x', 1048576)\nfor i = 1, 16000 do t[i] = s end\nreturn table.concat(t)\n", 4, "table.concat: result longer than", true},
		{"table.concat over the limit", "local t = {}\nlocal s = string.rep('x', 1048576)\nfor i = 1, 10 do t[i] = s end\nlocal keep = table.concat(t)\nreturn table.concat(t) .. keep\n", 5, "memory limit", false},
		{"string.rep huge", "return string.rep('abc', 1e9)\n", 1, "string.rep: result longer than 67108864 bytes", true},
		{"string.rep over the limit", "local a = string.rep('a', 10485760)\nlocal b = string.rep('b', 10485760)\nreturn a .. b\n", 2, "string.rep: memory limit", false},
		{"table growth", "local t = {}\nlocal i = 0\nwhile true do\n  i = i + 1\n  t[i] = i\nend\n", 0, "memory limit of 16.0 MiB exceeded", false},
		{"table of tables", "local t = {}\nfor i = 1, 1e8 do\n  t[i] = { i, i }\nend\n", 0, "memory limit", false},
		{"hash growth", "local t = {}\nfor i = 1, 1e8 do\n  t['k' .. i] = true\nend\n", 0, "memory limit", false},
		{"closures", "local fs = {}\nfor i = 1, 1e8 do\n  fs[i] = function() return i end\nend\n", 0, "memory limit", false},
		{"gsub expansion", "local s = string.rep('a', 1048576)\nreturn (s:gsub('a', string.rep('b', 40)))\n", 2, "string.gsub: memory limit", false},
		{"gsub function", "local s = string.rep('a', 1048576)\nlocal big = string.rep('b', 1000)\nreturn (s:gsub('a', function() return big end))\n", 3, "string.gsub: memory limit", false},
		{"upper of many", "local s = string.rep('a', 1048576)\nlocal t = {}\nfor i = 1, 100 do t[i] = s:upper() end\n", 3, "string.upper: memory limit", false},
		{"format width", "return string.format('%999999999d', 1)\n", 1, "invalid format (width or precision too long)", true},
		{"json encode of shared strings", "local big = string.rep('x', 1048576)\nlocal t = {}\nfor i = 1, 100 do t[i] = big end\nreturn dw.json.encode(t)\n", 4, "value too large", true},
		{"json decode", "local n = string.rep('[1,2,3,4,5,6,7,8],', 20000)\nlocal t = {}\nfor i = 1, 100 do t[i] = dw.json.decode('[' .. n .. '0]') end\n", 3, "dw.json.decode: memory limit", false},
		{"json nesting", "return dw.json.decode(string.rep('[', 100000))\n", 1, "nested deeper than 100 levels", true},
		{"varargs down the stack", "local function build()\n  local t = {}\n  for i = 1, 100000 do t[i] = i end\n  return t\nend\nlocal function f(n, ...)\n  if n == 0 then return select('#', ...) end\n  local r = f(n - 1, build(), ...)\n  return r\nend\nreturn f(100)\n", 0, "memory limit", false},
		{"hostile profile", "return dw.domain{\n  name = 'x',\n  seeds = (function()\n    local t = {}\n    while true do t[#t + 1] = 'http://x.example/' .. #t end\n  end)(),\n}\n", 5, "memory limit", false},
		{"hostile helper module", "local m = require('hog')\nreturn m\n", 0, "memory limit", false},
		{"pcall can't swallow", "local t = {}\nwhile true do\n  pcall(function() t[#t + 1] = string.rep('x', 1048576) end)\nend\n", 0, "memory limit", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Single strings may be as large as the limit, so that the
			// memory limit, not the string cap, stops these scripts.
			mods := fstest.MapFS{"hog.lua": {Data: []byte("local t = {}\nfor i = 1, 1e8 do t[i] = { i } end\nreturn t\n")}}
			p := NewPool(Options{MemoryLimit: limit, MaxStringBytes: 4 * limit, CallTimeout: 20 * time.Second, RequireFS: []NamedFS{{FS: mods, Prefix: "mods"}}})
			defer p.Close()
			c, err := Compile("hog.lua", []byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			runtime.GC()
			before := totalAlloc()
			start := time.Now()
			_, err = p.Run(context.Background(), c)
			allocated := totalAlloc() - before
			t.Logf("%v in %v, %.0f MiB allocated", err, time.Since(start).Round(time.Millisecond), float64(allocated)/(1<<20))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
			if !tt.cap && !errors.Is(err, ErrMemoryLimit) {
				t.Errorf("error does not wrap ErrMemoryLimit: %v", err)
			}
			se := asError(t, err)
			if tt.name == "hostile helper module" {
				se.File = strings.TrimPrefix(se.File, "mods/") // the module's own file
			}
			if se.File != "hog.lua" || se.Line == 0 || (tt.line != 0 && se.Line != tt.line) {
				t.Errorf("position %s:%d, want hog.lua:%d", se.File, se.Line, tt.line)
			}
			// Far from the gigabytes the scripts ask for: what the limit
			// allows, garbage included, and the walker's maps.
			if allocated > 20*limit {
				t.Errorf("the script allocated %.0f MiB under a %d MiB limit", float64(allocated)/(1<<20), limit>>20)
			}
			// The pool still serves normal scripts.
			ok, _ := Compile("ok.lua", []byte("local t = {} for i = 1, 1000 do t[i] = 'v' .. i end return #table.concat(t, ',')"))
			if v, err := p.Run(context.Background(), ok); err != nil || v.(lua.LNumber) != 4892 {
				t.Errorf("after the limit: %v, %v", v, err)
			}
		})
	}
}

// TestMemoryLimitDefault: the 64 MiB default stops a doubling loop and
// lets a script use tens of MiB.
func TestMemoryLimitDefault(t *testing.T) {
	p := NewPool(Options{})
	defer p.Close()
	if p.Options().MemoryLimit != DefaultMemoryLimit {
		t.Fatalf("limit %d", p.Options().MemoryLimit)
	}
	_, err := run(t, Options{}, "copies.lua", "local t, s = {}, string.rep('x', 1048576)\nfor i = 1, 1000 do\n  t[i] = s .. i\nend\n")
	if !errors.Is(err, ErrMemoryLimit) || !strings.Contains(err.Error(), "copies.lua:3: concatenation: memory limit of 64.0 MiB exceeded") {
		t.Fatalf("1000 copies of 1 MiB: %v", err)
	}
	// 40 MiB of live data under the default: fine.
	v, err := run(t, Options{}, "big.lua", "local t = {}\nfor i = 1, 40 do t[i] = string.rep(string.char(64 + i), 1048576) end\nreturn #table.concat(t, '', 1, 10)\n")
	if err != nil || v.(lua.LNumber) != 10<<20 {
		t.Fatalf("40 MiB script: %v, %v", v, err)
	}
	// No limit: the same doubling runs into the string cap instead.
	_, err = run(t, Options{MemoryLimit: -1}, "double.lua", "local s = 'x'\nfor i = 1, 40 do s = s .. s end\n")
	if err == nil || errors.Is(err, ErrMemoryLimit) || !strings.Contains(err.Error(), "concatenation: result longer than") {
		t.Fatalf("unlimited: %v", err)
	}
}

// TestMemoryMeasure checks the walk's estimate against a known layout and
// that shared strings count once.
func TestMemoryMeasure(t *testing.T) {
	p := NewPool(Options{})
	defer p.Close()
	L := p.Get()
	defer p.Put(L)
	sd := stateOf(L)
	if arr := registryArray(L); arr == nil {
		t.Fatal("the data stack of gopher-lua is not reachable (registryArray); the memory walk misses registers")
	}
	measure := func(src string) int64 {
		c, err := Compile("m.lua", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		v, err := Exec(context.Background(), L, c)
		if err != nil {
			t.Fatal(err)
		}
		sd.pinned = []lua.LValue{v}
		defer func() { sd.pinned = nil }()
		sd.measure(L)
		return sd.mem.live
	}
	base := measure("return nil")
	arr := measure("local t = {} for i = 1, 100000 do t[i] = i end return t") - base
	if want := int64(100000 * (sizeSlot + sizeNumber)); arr < want || arr > want+want/10 {
		t.Errorf("array of 100000 numbers: %d bytes, want about %d", arr, want)
	}
	shared := measure("local s = string.rep('x', 1048576) local t = {} for i = 1, 1000 do t[i] = s end return t") - base
	if shared < 1<<20 || shared > 1<<20+100000 {
		t.Errorf("1000 references to one 1 MiB string: %d bytes, want about 1 MiB", shared)
	}
	distinct := measure("local t = {} for i = 1, 10 do t[i] = string.rep(string.char(64 + i), 1048576) end return t") - base
	if distinct < 10<<20 || distinct > 10<<20+10000 {
		t.Errorf("10 distinct 1 MiB strings: %d bytes, want about 10 MiB", distinct)
	}
	t.Logf("empty state %d bytes; 100000-number array %d; 1000 refs to 1 MiB %d; 10 x 1 MiB %d", base, arr, shared, distinct)
}

// TestConcatSemantics: the rewritten concatenation behaves as Lua's.
func TestConcatSemantics(t *testing.T) {
	tests := []struct{ src, want string }{
		{`return "a" .. "b" .. "c"`, "abc"},
		{`return 1 .. 2 .. "x" .. 1.5`, "12x1.5"},
		{`local t = setmetatable({}, {__concat = function(a, b) return "T" end}) return "a" .. t .. "b"`, "aT"},
		{`local t = setmetatable({}, {__concat = function(a, b) return (type(a) == "table" and "T" or a) .. "|" .. (type(b) == "table" and "T" or b) end}) return (t .. "x") .. "y"`, "T|xy"},
		{`local s = "" for i = 1, 5 do s = s .. i end return s`, "12345"},
		{`local function f() return "a", "b" end return f() .. "c"`, "ac"},
		{`return ("x"):rep(3) .. #"abc"`, "xxx3"},
		{`local function f(u) if true then u = "http://" .. u end return u end return f("x")`, "http://x"},
		{`local function f(a, b) a = a .. b .. a return a end return f("x", "y")`, "xyx"},
		{`local function f() return "a", "b" end return "c" .. f()`, "ca"},
		{`local function f(...) return "x" .. ... end return f(1, 2, 3)`, "x1"},
		{`local function f(...) return ... .. "y" end return f(1, 2, 3)`, "1y"},
		{`local function f() return "a", "b" end local t = {"c" .. f()} return #t .. t[1]`, "1ca"},
		{`local t = {"p" .. "q"} return t[1] .. tostring(#t)`, "pq1"},
	}
	for _, tt := range tests {
		v, err := run(t, Options{}, "cat.lua", tt.src)
		if err != nil {
			t.Errorf("%s: %v", tt.src, err)
			continue
		}
		if got := lua.LVAsString(v); got != tt.want {
			t.Errorf("%s = %q, want %q", tt.src, got, tt.want)
		}
	}
	_, err := run(t, Options{}, "cat.lua", "local x\n\nreturn 'a' .. x\n")
	if err == nil || err.Error() != "cat.lua:3: cannot perform concat operation between string and nil" {
		t.Errorf("nil operand: %v", err)
	}
	_, err = run(t, Options{}, "cat.lua", "local function f(x)\n  return 'a' .. x\nend\nreturn f({})\n")
	if err == nil || err.Error() != "cat.lua:2: cannot perform concat operation between string and table" {
		t.Errorf("table operand in a tail call: %v", err)
	}
}

// BenchmarkScript measures the cost of the memory bound on scripts that
// don't come near it: a table-building loop (the instruction hook and the
// periodic walk) and string building (the checked concatenation), against
// the same code on a bare gopher-lua state.
func BenchmarkScript(b *testing.B) {
	progs := map[string]string{
		"tables":   "local t = {} for i = 1, 200000 do t[i] = { i } end local n = 0 for i = 1, #t do n = n + t[i][1] end return n",
		"concat":   "local parts = {} for i = 1, 5000 do parts[#parts + 1] = 'item ' .. i .. ': ' .. (i * 2) end return #table.concat(parts, '\\n')",
		"concatop": "local n = 0 for i = 1, 100000 do local s = 'a' .. i .. 'b' n = n + #s end return n",
		"gsub":     "local s = string.rep('<b>word</b> ', 2000) local n = 0 for i = 1, 5 do n = n + #s:gsub('<[^>]*>', '') end return n",
	}
	for name, src := range progs {
		b.Run(name+"/bare", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				L := lua.NewState(lua.Options{RegistrySize: DefaultRegistrySize, RegistryMaxSize: DefaultRegistryMaxSize})
				if err := L.DoString(src); err != nil {
					b.Fatal(err)
				}
				L.Close()
			}
		})
		for _, lim := range []int64{-1, DefaultMemoryLimit} {
			b.Run(fmt.Sprintf("%s/limit=%d", name, lim), func(b *testing.B) {
				p := NewPool(Options{MemoryLimit: lim})
				defer p.Close()
				c, err := Compile("bench.lua", []byte(src))
				if err != nil {
					b.Fatal(err)
				}
				for i := 0; i < b.N; i++ {
					if _, err := p.Run(context.Background(), c); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// TestLibrarySemantics: the checked string.gsub, table.concat, string.rep
// and string.format give what gopher-lua's own give (run on a bare state).
func TestLibrarySemantics(t *testing.T) {
	exprs := []string{
		`("hello world"):gsub("o", "0")`,
		`("hello world"):gsub("(o)", "[%1]")`,
		`("hello world"):gsub("l+", "%0%0")`,
		`("hello world"):gsub("o", "%%")`,
		`("hello world"):gsub("o", "%x")`,
		`("hello world"):gsub("o", "100%")`,
		`("hello world"):gsub("(h)(e)", "%2%1")`,
		`("hello world"):gsub("()o", "%1")`,
		`("hello world"):gsub("o", "0", 1)`,
		`("hello world"):gsub("", "-")`,
		`("hello world"):gsub("x*", "-")`,
		`("hello world"):gsub("^h", "H")`,
		`("hello world"):gsub("%w+", {hello = "HI", world = false})`,
		`("hello world"):gsub("(%w)(%w*)", {h = 1, w = "W"})`,
		`("hello world"):gsub("%w+", function(w) return w:upper() end)`,
		`("hello world"):gsub("(%w)%w*", function(c) if c == "h" then return nil end return 42 end)`,
		`("a,b,,c"):gsub(",", ";", 2)`,
		`("abc"):gsub(".", {a = 1, b = true})`,
		`("<b>x</b> y"):gsub("<[^>]*>", "")`,
		`("x = 1, y = 2"):gsub("(%w+) = (%w+)", "%2 = %1")`,
		`(function() local o = {} for w in ("one two  three"):gmatch("%a+") do o[#o+1] = w end return table.concat(o, "/") end)()`,
		`(function() local o = {} for k, v in ("k=v, a=b"):gmatch("(%w+)=(%w+)") do o[#o+1] = k .. v end return table.concat(o, "/") end)()`,
		`(function() local o = {} for p in ("abcabc"):gmatch("()b") do o[#o+1] = p end return table.concat(o, "/") end)()`,
		`(function() local o = {} for w in ("hello hello"):gmatch("^hello") do o[#o+1] = w end return table.concat(o, "/") end)()`,
		`(function() local o = {} for w in ("abc"):gmatch("") do o[#o+1] = "[" .. w .. "]" end return table.concat(o) end)()`,
		`(function() local s = string.rep("ab ", 3000) local n, last = 0 for w in s:gmatch("%a+") do n = n + 1 last = w end return n .. last end)()`,
		`(function() local s = string.rep("ab ", 3000) return select(2, s:gsub("%a+", "x")) .. #s:gsub("b", "") end)()`,
		`("x"):gsub("(", "")`,
		`table.concat({1, 2, "three"}, ", ")`,
		`table.concat({1, 2, 3}, "-", 2)`,
		`table.concat({1, 2, 3}, "-", 2, 3)`,
		`table.concat({1, 2, 3}, "-", 5)`,
		`table.concat({1, 2, 3}, "-", 1, 9)`,
		`table.concat({}, "x")`,
		`table.concat({"a", "b"})`,
		`string.rep("ab", 3)`,
		`string.rep("ab", 0)`,
		`string.format("%5.2f|%-5s|%d|%q", 3.14159, "ab", 42, "q\"x")`,
		`string.upper("aBc") .. string.lower("aBc") .. string.reverse("abc")`,
	}
	p := NewPool(Options{})
	defer p.Close()
	for _, e := range exprs {
		src := "local a, b = " + e + "\nreturn tostring(a) .. '|' .. tostring(b)"
		bare := lua.NewState()
		err := bare.DoString(src)
		want := ""
		if err == nil {
			want = lua.LVAsString(bare.Get(-1))
		}
		bare.Close()
		c, cerr := Compile("lib.lua", []byte(src))
		if cerr != nil {
			t.Fatal(cerr)
		}
		v, err2 := p.Run(context.Background(), c)
		if (err == nil) != (err2 == nil) {
			t.Errorf("%s: gopher-lua err %v, ours %v", e, err, err2)
			continue
		}
		if got := lua.LVAsString(v); err == nil && got != want {
			t.Errorf("%s = %q, gopher-lua gives %q", e, got, want)
		}
	}
	// Beyond gopher-lua's own: no data-stack limit, linear time.
	v, err := run(t, Options{}, "big.lua", "local t = {}\nfor i = 1, 300000 do t[i] = 'x' end\nlocal s = table.concat(t)\nreturn #s .. ' ' .. #(s:gsub('x', 'yy'))\n")
	if err != nil || lua.LVAsString(v) != "300000 600000" {
		t.Errorf("300000-element concat and gsub: %v, %v", v, err)
	}
}
