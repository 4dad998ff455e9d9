package script

import (
	"strconv"
	"strings"
	"unsafe"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/pm"
)

// The library functions that build a value in proportion to their
// arguments, replaced by versions that check the result's size against
// MaxStringBytes and the memory limit before building it (see memory.go).

// checkLibs installs the checked functions in the state's library tables.
func (p *Pool) checkLibs(L *lua.LState, sd *stateData) {
	str, tab := sd.libs[lua.StringLibName], sd.libs[lua.TabLibName]
	orig := func(t *lua.LTable, name string) lua.LGFunction {
		return t.RawGetString(name).(*lua.LFunction).GFunction
	}
	for _, name := range []string{"upper", "lower", "reverse"} {
		f, what := orig(str, name), "string."+name
		str.RawSetString(name, L.NewFunction(func(L *lua.LState) int {
			reserveL(L, int64(len(L.CheckString(1))), what)
			return f(L)
		}))
	}
	str.RawSetString("rep", L.NewFunction(strRep))
	format := orig(str, "format")
	str.RawSetString("format", L.NewFunction(func(L *lua.LState) int {
		reserveL(L, formatBound(L), "string.format")
		return format(L)
	}))
	str.RawSetString("gsub", L.NewFunction(strGsub))
	str.RawSetString("gmatch", L.NewFunction(strGmatch))
	tab.RawSetString("concat", L.NewFunction(tableConcat))
}

// strRep is string.rep(s, n) with its result checked first.
func strRep(L *lua.LState) int {
	s := L.CheckString(1)
	n := L.CheckInt(2)
	if n <= 0 || s == "" {
		L.Push(lua.LString(""))
		return 1
	}
	total := int64(len(s)) * int64(n)
	if total/int64(n) != int64(len(s)) {
		total = 1 << 62
	}
	reserveL(L, total, "string.rep")
	L.Push(lua.LString(strings.Repeat(s, n)))
	return 1
}

// formatBound is an upper bound of string.format's result. gopher-lua
// formats with Go's fmt, whose widths reach a million; as in Lua 5.1, a
// width or precision has at most two digits.
func formatBound(L *lua.LState) int64 {
	f := L.CheckString(1)
	bound := int64(len(f))
	arg := 2
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			continue
		}
		i++
		if i < len(f) && f[i] == '%' {
			continue
		}
		for i < len(f) && strings.IndexByte("-+ #0", f[i]) >= 0 {
			i++
		}
		digits := func() {
			n := 0
			for ; i < len(f) && f[i] >= '0' && f[i] <= '9'; i++ {
				n++
			}
			if n > 2 {
				raise(L, "string.format: invalid format (width or precision too long)")
			}
		}
		digits()
		if i < len(f) && f[i] == '.' {
			i++
			digits()
		}
		bound += 2 * 100 // width and precision
		if i < len(f) && (f[i] == 's' || f[i] == 'q' || f[i] == 'v') {
			bound += 4*int64(len(lua.LVAsString(L.Get(arg)))) + 2 // %q escapes a byte in at most 4
		} else {
			bound += 400 // a number: %f of 1e308 has 309 digits
		}
		arg++
	}
	return bound
}

// strGsub is string.gsub with gopher-lua's pattern matcher and its
// replacement rules (a string's %0-%9 are captures and %% a percent sign,
// any other %x stays as it is; a table is indexed and a function called
// with the first capture or the whole match; false or nil keep the match),
// building the result in one pass: gopher-lua's own copies the whole
// string once per match, quadratic in the number of matches. The result is
// checked as it grows (a callback may run Lua code in between).
func strGsub(L *lua.LState) int {
	defer holding(L)()
	src := L.CheckString(1)
	pat := L.CheckString(2)
	L.CheckTypes(3, lua.LTString, lua.LTTable, lua.LTFunction)
	repl := L.CheckAny(3)
	mt := newMatcher(src, pat, L.OptInt(4, -1))
	matches := mt.next(L)
	if len(matches) == 0 {
		L.SetTop(1)
		L.Push(lua.LNumber(0))
		return 2
	}
	maxLen := 16 << 20
	if sd := stateOf(L); sd != nil {
		maxLen = sd.pool.opt.MaxStringBytes
	}
	var b strings.Builder
	var pending int64
	charge := func(n int) {
		if b.Len()+n > maxLen {
			raise(L, "string.gsub: result longer than %d bytes", maxLen)
		}
		if pending += int64(n); pending >= 64<<10 {
			holdL(L, pending, "string.gsub")
			pending = 0
		}
	}
	capture := func(m *pm.MatchData, idx int) string {
		if idx > 2 && idx >= m.CaptureLength() {
			raise(L, "invalid capture index")
		}
		if idx >= m.CaptureLength() && idx == 2 {
			idx = 0
		}
		if m.IsPosCapture(idx) {
			return strconv.Itoa(m.Capture(idx))
		}
		return src[m.Capture(idx):m.Capture(idx+1)]
	}
	prev, count := 0, 0
	for ; len(matches) > 0; matches = mt.next(L) {
		for _, m := range matches {
			prev = gsubOne(L, &b, charge, capture, src, prev, m, repl)
		}
		count += len(matches)
	}
	charge(len(src) - prev)
	b.WriteString(src[prev:])
	L.Push(lua.LString(b.String()))
	L.Push(lua.LNumber(count))
	return 2
}

// gsubOne writes the text before match m (from prev) and its replacement,
// and returns where the text after it starts.
func gsubOne(L *lua.LState, b *strings.Builder, charge func(int), capture func(*pm.MatchData, int) string, src string, prev int, m *pm.MatchData, repl lua.LValue) int {
	start, end := m.Capture(0), m.Capture(1)
	charge(start - prev)
	b.WriteString(src[prev:start])
	prev = end
	switch r := repl.(type) {
	case lua.LString:
		rs := string(r)
		piece := func(write bool) int {
			n := 0
			for i := 0; i < len(rs); i++ {
				c := rs[i]
				var part string
				switch {
				case c == '%' && i+1 < len(rs) && rs[i+1] == '%':
					part, i = "%", i+1
				case c == '%' && i+1 < len(rs) && rs[i+1] >= '0' && rs[i+1] <= '9':
					part, i = capture(m, 2*int(rs[i+1]-'0')), i+1
				case c == '%' && i+1 < len(rs):
					part, i = rs[i:i+2], i+1
				default:
					part = rs[i : i+1]
				}
				n += len(part)
				if write {
					b.WriteString(part)
				}
			}
			return n
		}
		charge(piece(false))
		piece(true)
	case *lua.LTable:
		idx := 0
		if m.CaptureLength() > 2 {
			idx = 2
		}
		var v lua.LValue
		if m.IsPosCapture(idx) {
			v = L.GetTable(r, lua.LNumber(m.Capture(idx)))
		} else {
			v = L.GetField(r, src[m.Capture(idx):m.Capture(idx+1)])
		}
		writeValue(b, charge, v, src[start:end])
	case *lua.LFunction:
		L.Push(r)
		nargs := 0
		if m.CaptureLength() > 2 {
			for i := 2; i < m.CaptureLength(); i += 2 {
				if m.IsPosCapture(i) {
					L.Push(lua.LNumber(m.Capture(i)))
				} else {
					L.Push(lua.LString(capture(m, i)))
				}
				nargs++
			}
		} else {
			L.Push(lua.LString(capture(m, 0)))
			nargs++
		}
		L.Call(nargs, 1)
		v := L.Get(-1)
		L.Pop(1)
		writeValue(b, charge, v, src[start:end])
	}
	return prev
}

// matcher yields the matches of a Lua pattern a chunk at a time: pm.Find
// returns all of them at once, an allocation per match (a gsub or gmatch
// of "." over a 16 MiB string would hold 16 million).
type matcher struct {
	pat      string
	src      []byte
	anchored bool // "^...": one attempt, at the start
	offset   int
	left     int // matches still wanted; negative: all
	done     bool
}

const matchChunk = 1024

func newMatcher(src, pat string, limit int) *matcher {
	return &matcher{pat: pat, src: unsafe.Slice(unsafe.StringData(src), len(src)), anchored: strings.HasPrefix(pat, "^"), left: limit}
}

func (mt *matcher) next(L *lua.LState) []*pm.MatchData {
	n := matchChunk
	if mt.left >= 0 {
		n = min(n, mt.left)
	}
	if mt.done || n == 0 {
		return nil
	}
	ms, err := pm.Find(mt.pat, mt.src, mt.offset, n)
	if err != nil {
		raise(L, "%s", err.Error())
	}
	if mt.left >= 0 {
		mt.left -= len(ms)
	}
	if len(ms) < n || mt.anchored {
		mt.done = true
	} else {
		last := ms[len(ms)-1]
		mt.offset = max(last.Capture(0)+1, last.Capture(1)) // where pm.Find would have gone on
	}
	return ms
}

// strGmatch is string.gmatch, its matches found a chunk at a time (see
// matcher); the iterator returns the captures, or the whole match.
func strGmatch(L *lua.LState) int {
	src := L.CheckString(1)
	mt := newMatcher(src, L.CheckString(2), -1)
	buf := mt.next(L) // a bad pattern fails here, as in gopher-lua
	L.Push(L.NewFunction(func(L *lua.LState) int {
		if len(buf) == 0 {
			if buf = mt.next(L); len(buf) == 0 {
				return 0
			}
		}
		m := buf[0]
		buf = buf[1:]
		if m.CaptureLength() == 2 {
			L.Push(lua.LString(src[m.Capture(0):m.Capture(1)]))
			return 1
		}
		for i := 2; i < m.CaptureLength(); i += 2 {
			if m.IsPosCapture(i) {
				L.Push(lua.LNumber(m.Capture(i)))
			} else {
				L.Push(lua.LString(src[m.Capture(i):m.Capture(i+1)]))
			}
		}
		return m.CaptureLength()/2 - 1
	}))
	return 1
}

// writeValue writes a gsub replacement value: the match itself for false
// or nil, else the value as a string ("" for a value that has none, as
// gopher-lua does).
func writeValue(b *strings.Builder, charge func(int), v lua.LValue, match string) {
	s := match
	if !lua.LVIsFalse(v) {
		s = lua.LVAsString(v)
	}
	charge(len(s))
	b.WriteString(s)
}

// tableConcat is table.concat(t [, sep [, i [, j]]]) with gopher-lua's
// range rules (i and j clamped to #t), built in one buffer after its
// length is checked: gopher-lua's own pushes every element on the data
// stack, which overflows past about 128,000 elements.
func tableConcat(L *lua.LState) int {
	tb := L.CheckTable(1)
	sep := L.OptString(2, "")
	n := tb.Len()
	i := L.OptInt(3, 1)
	j := L.OptInt(4, n)
	if L.GetTop() == 3 && (i > n || i < 1) {
		L.Push(lua.LString(""))
		return 1
	}
	i, j = max(min(i, n), 1), min(j, n)
	if i > j {
		L.Push(lua.LString(""))
		return 1
	}
	var total int64
	for k := i; k <= j; k++ {
		v := tb.RawGetInt(k)
		if !lua.LVCanConvToString(v) {
			raise(L, "invalid value (%s) at index %d in table for concat", v.Type(), k)
		}
		total += int64(len(lua.LVAsString(v)))
		if k < j {
			total += int64(len(sep))
		}
	}
	reserveL(L, total, "table.concat")
	var b strings.Builder
	b.Grow(int(total))
	for k := i; k <= j; k++ {
		b.WriteString(lua.LVAsString(tb.RawGetInt(k)))
		if k < j {
			b.WriteString(sep)
		}
	}
	L.Push(lua.LString(b.String()))
	return 1
}
