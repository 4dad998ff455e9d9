package script

import (
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// Decode maps a Lua table onto out, a pointer to a struct (or to a map, slice
// or scalar), strictly: struct fields are matched by their `lua:"name"` tag
// (untagged exported fields by their snake_case name; `lua:"-"` skips a
// field), nested structs, slices (Lua arrays), maps with string keys, strings,
// integers, floats, booleans and time.Duration ("30s" or a number of seconds)
// are supported; a Func field receives a Lua function (nil leaves it
// undefined), fields of type lua.LValue or *lua.LFunction receive the raw
// value. The tag option "text" (`lua:"id,text"`) lets a string field, or
// the strings of a slice or map field, take numbers and booleans too (as
// text); a string given for a type implementing encoding.TextUnmarshaler is
// passed to its UnmarshalText (a shorthand such as vars = { url = "help" }).
// An unknown key or a value of the wrong type is an error naming the full
// key path ("stop.max_depth: expected integer, got string"). Errors are
// *Error positioned at the key's line when file was compiled by this process
// (see Chunk.Decode), at the returned table otherwise. When several keys are
// wrong, the first one in the file is reported.
func Decode(v lua.LValue, out any, file string) error {
	return decodeRoot(v, out, file, linesFor(file), 0)
}

// decodeRoot is Decode with the line map of file; keys it can't place are
// positioned at line (the definition of the function that returned v).
func decodeRoot(v lua.LValue, out any, file string, lines *lineMap, line int) error {
	rv := reflect.ValueOf(out)
	if !rv.IsValid() || rv.Kind() != reflect.Pointer || rv.IsNil() {
		return fmt.Errorf("script.Decode: out must be a non-nil pointer, got %T", out)
	}
	d := &decoder{file: file, lines: lines, line: line}
	d.value("", v, rv.Elem(), fieldOpts{})
	if len(d.errs) == 0 {
		return nil
	}
	first := d.errs[0]
	for _, e := range d.errs[1:] {
		if e.Line < first.Line || (e.Line == first.Line && e.Key < first.Key) {
			first = e
		}
	}
	return first
}

type decoder struct {
	file  string
	lines *lineMap
	line  int // line of keys the line map can't place
	errs  []*Error
}

func (d *decoder) fail(key, format string, args ...any) {
	line := d.lines.line(key)
	if line == 0 {
		line = d.line
	}
	d.errs = append(d.errs, &Error{File: d.file, Line: line, Key: key, Msg: fmt.Sprintf(format, args...)})
}

// fieldOpts are the options of a struct field's tag that apply to its value
// (and to the elements of a slice or map).
type fieldOpts struct {
	text      bool // strings accept numbers and booleans
	omitEmpty bool // FromGo leaves a zero value out
}

func parseOpts(tag string) fieldOpts {
	var o fieldOpts
	_, rest, _ := strings.Cut(tag, ",")
	for _, opt := range strings.Split(rest, ",") {
		switch opt {
		case "text":
			o.text = true
		case "omitempty":
			o.omitEmpty = true
		}
	}
	return o
}

var (
	durationType  = reflect.TypeOf(time.Duration(0))
	lvalueType    = reflect.TypeOf((*lua.LValue)(nil)).Elem()
	lfuncType     = reflect.TypeOf((*lua.LFunction)(nil))
	ltableType    = reflect.TypeOf((*lua.LTable)(nil))
	funcType      = reflect.TypeOf(Func{})
	unmarshalType = reflect.TypeOf((*encoding.TextUnmarshaler)(nil)).Elem()
)

func (d *decoder) value(key string, v lua.LValue, out reflect.Value, o fieldOpts) {
	t := out.Type()
	if s, ok := v.(lua.LString); ok && t.Kind() != reflect.String && reflect.PointerTo(t).Implements(unmarshalType) {
		if err := out.Addr().Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(s)); err != nil {
			d.fail(key, "%v", err)
		}
		return
	}
	switch t {
	case funcType:
		switch f := v.(type) {
		case *lua.LFunction:
			out.Set(reflect.ValueOf(Func{fn: f}))
		case *lua.LNilType:
			out.SetZero()
		default:
			d.fail(key, "expected function, got %s", describe(v))
		}
		return
	case lvalueType:
		out.Set(reflect.ValueOf(v))
		return
	case lfuncType:
		if f, ok := v.(*lua.LFunction); ok {
			out.Set(reflect.ValueOf(f))
			return
		}
		d.fail(key, "expected function, got %s", describe(v))
		return
	case ltableType:
		if tb, ok := v.(*lua.LTable); ok {
			out.Set(reflect.ValueOf(tb))
			return
		}
		d.fail(key, "expected table, got %s", describe(v))
		return
	case durationType:
		d.duration(key, v, out)
		return
	}
	switch t.Kind() {
	case reflect.Pointer:
		if v == lua.LNil {
			out.SetZero()
			return
		}
		p := reflect.New(t.Elem())
		d.value(key, v, p.Elem(), o)
		out.Set(p)
	case reflect.Struct:
		d.structure(key, v, out)
	case reflect.Slice:
		d.slice(key, v, out, o)
	case reflect.Map:
		d.mapping(key, v, out, o)
	case reflect.String:
		switch x := v.(type) {
		case lua.LString:
			out.SetString(string(x))
			return
		case lua.LNumber, lua.LBool:
			if o.text {
				out.SetString(x.String())
				return
			}
		}
		if o.text {
			d.fail(key, "expected a string, number or boolean, got %s", describe(v))
			return
		}
		d.fail(key, "expected string, got %s", describe(v))
	case reflect.Bool:
		if b, ok := v.(lua.LBool); ok {
			out.SetBool(bool(b))
			return
		}
		d.fail(key, "expected boolean, got %s", describe(v))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, ok := v.(lua.LNumber)
		f := float64(n)
		switch {
		case !ok:
			d.fail(key, "expected integer, got %s", describe(v))
		case f != math.Trunc(f) || math.IsInf(f, 0):
			d.fail(key, "expected integer, got %s", describe(v))
		case out.OverflowInt(int64(f)) || f > math.MaxInt64 || f < math.MinInt64:
			d.fail(key, "integer %v out of range", v)
		default:
			out.SetInt(int64(f))
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n, ok := v.(lua.LNumber)
		f := float64(n)
		switch {
		case !ok || f != math.Trunc(f) || math.IsInf(f, 0):
			d.fail(key, "expected integer, got %s", describe(v))
		case f < 0:
			d.fail(key, "expected a non-negative integer, got %v", v)
		case f > math.MaxUint64 || out.OverflowUint(uint64(f)):
			d.fail(key, "integer %v out of range", v)
		default:
			out.SetUint(uint64(f))
		}
	case reflect.Float32, reflect.Float64:
		if n, ok := v.(lua.LNumber); ok {
			out.SetFloat(float64(n))
			return
		}
		d.fail(key, "expected number, got %s", describe(v))
	case reflect.Interface:
		if t.NumMethod() == 0 {
			if g := ToGo(v); g != nil {
				out.Set(reflect.ValueOf(g))
			}
			return
		}
		d.fail(key, "cannot decode into %s", t)
	default:
		d.fail(key, "cannot decode into %s", t)
	}
}

func (d *decoder) duration(key string, v lua.LValue, out reflect.Value) {
	switch x := v.(type) {
	case lua.LString:
		dur, err := time.ParseDuration(strings.TrimSpace(string(x)))
		if err != nil {
			d.fail(key, "expected a duration such as \"30s\" or \"1m30s\", got %q", string(x))
			return
		}
		out.SetInt(int64(dur))
	case lua.LNumber:
		sec := float64(x)
		if math.IsNaN(sec) || math.IsInf(sec, 0) || math.Abs(sec) > float64(math.MaxInt64)/float64(time.Second) {
			d.fail(key, "duration %v seconds out of range", v)
			return
		}
		out.SetInt(int64(sec * float64(time.Second)))
	default:
		d.fail(key, "expected a duration (\"30s\" or seconds), got %s", describe(v))
	}
}

// fieldInfo is a struct field reachable by a Lua key.
type fieldInfo struct {
	index []int
	opts  fieldOpts
}

func structFields(t reflect.Type) (map[string]fieldInfo, []string) {
	fields := map[string]fieldInfo{}
	var names []string
	var walk func(t reflect.Type, index []int)
	walk = func(t reflect.Type, index []int) {
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			tag, hasTag := f.Tag.Lookup("lua")
			if tag == "-" {
				continue
			}
			idx := append(append([]int(nil), index...), i)
			if f.Anonymous && !hasTag && f.Type.Kind() == reflect.Struct {
				walk(f.Type, idx)
				continue
			}
			if !f.IsExported() {
				continue
			}
			name, _, _ := strings.Cut(tag, ",")
			if name == "" {
				name = snake(f.Name)
			}
			if _, dup := fields[name]; !dup {
				names = append(names, name)
			}
			fields[name] = fieldInfo{index: idx, opts: parseOpts(tag)}
		}
	}
	walk(t, nil)
	return fields, names
}

func (d *decoder) structure(key string, v lua.LValue, out reflect.Value) {
	tb, ok := v.(*lua.LTable)
	if !ok {
		if reflect.PointerTo(out.Type()).Implements(unmarshalType) {
			d.fail(key, "expected a string or a table, got %s", describe(v))
			return
		}
		d.fail(key, "expected table, got %s", describe(v))
		return
	}
	fields, names := structFields(out.Type())
	for _, kv := range sortedPairs(tb) {
		name, isStr := kv.k.(lua.LString)
		if !isStr {
			d.fail(elemKey(key, kv.k), "unexpected list element (expected keys such as %s)", strings.Join(names, ", "))
			continue
		}
		sub := joinKey(key, string(name))
		f, known := fields[string(name)]
		if !known {
			msg := "unknown key"
			if s := suggest(string(name), names); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			}
			d.fail(sub, "%s", msg)
			continue
		}
		d.value(sub, kv.v, out.FieldByIndex(f.index), f.opts)
	}
}

func (d *decoder) slice(key string, v lua.LValue, out reflect.Value, o fieldOpts) {
	tb, ok := v.(*lua.LTable)
	if !ok {
		d.fail(key, "expected a list, got %s", describe(v))
		return
	}
	n := tb.Len()
	bad := false
	tb.ForEach(func(k, _ lua.LValue) {
		if num, ok := k.(lua.LNumber); ok && float64(num) == math.Trunc(float64(num)) && num >= 1 && int(num) <= n {
			return
		}
		if !bad {
			d.fail(elemKey(key, k), "unexpected key in a list")
		}
		bad = true
	})
	s := reflect.MakeSlice(out.Type(), n, n)
	for i := 1; i <= n; i++ {
		d.value(fmt.Sprintf("%s[%d]", key, i), tb.RawGetInt(i), s.Index(i-1), o)
	}
	out.Set(s)
}

func (d *decoder) mapping(key string, v lua.LValue, out reflect.Value, o fieldOpts) {
	tb, ok := v.(*lua.LTable)
	if !ok {
		d.fail(key, "expected table, got %s", describe(v))
		return
	}
	t := out.Type()
	if t.Key().Kind() != reflect.String {
		d.fail(key, "cannot decode into %s (map keys must be strings)", t)
		return
	}
	m := reflect.MakeMap(t)
	for _, kv := range sortedPairs(tb) {
		name, isStr := kv.k.(lua.LString)
		if !isStr {
			d.fail(elemKey(key, kv.k), "expected a string key, got %s", describe(kv.k))
			continue
		}
		ev := reflect.New(t.Elem()).Elem()
		d.value(joinKey(key, string(name)), kv.v, ev, o)
		m.SetMapIndex(reflect.ValueOf(string(name)).Convert(t.Key()), ev)
	}
	out.Set(m)
}

type pair struct{ k, v lua.LValue }

// sortedPairs lists a table's entries, numbers first (ascending), then strings.
func sortedPairs(tb *lua.LTable) []pair {
	var ps []pair
	tb.ForEach(func(k, v lua.LValue) { ps = append(ps, pair{k, v}) })
	sort.SliceStable(ps, func(i, j int) bool {
		ni, iNum := ps[i].k.(lua.LNumber)
		nj, jNum := ps[j].k.(lua.LNumber)
		switch {
		case iNum && jNum:
			return ni < nj
		case iNum != jNum:
			return iNum
		}
		return ps[i].k.String() < ps[j].k.String()
	})
	return ps
}

// joinKey appends a string key to a path: "stop" + "max_depth" =
// "stop.max_depth"; keys that aren't identifiers are bracketed:
// headers["Content-Type"].
func joinKey(prefix, name string) string {
	if !isIdent(name) {
		return prefix + "[" + strconv.Quote(name) + "]"
	}
	if prefix == "" {
		return name
	}
	return prefix + "." + name
}

func elemKey(prefix string, k lua.LValue) string {
	if s, ok := k.(lua.LString); ok {
		return joinKey(prefix, string(s))
	}
	return prefix + "[" + k.String() + "]"
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (i > 0 && r >= '0' && r <= '9') {
			continue
		}
		return false
	}
	return true
}

// snake converts a Go field name to snake_case: MaxPagesPerDepth ->
// max_pages_per_depth, UserAgent -> user_agent, URL -> url.
func snake(name string) string {
	var b strings.Builder
	rs := []rune(name)
	for i, r := range rs {
		upper := r >= 'A' && r <= 'Z'
		if upper && i > 0 {
			prevLower := rs[i-1] >= 'a' && rs[i-1] <= 'z' || rs[i-1] >= '0' && rs[i-1] <= '9'
			nextLower := i+1 < len(rs) && rs[i+1] >= 'a' && rs[i+1] <= 'z'
			if prevLower || (nextLower && rs[i-1] >= 'A' && rs[i-1] <= 'Z') {
				b.WriteByte('_')
			}
		}
		if upper {
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// suggest returns the known name closest to an unknown key (edit distance at
// most 2, or a case-insensitive match), or "".
func suggest(name string, known []string) string {
	best, bestD := "", 3
	for _, k := range known {
		if strings.EqualFold(k, name) {
			return k
		}
		if d := editDistance(name, k); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// luaTypeName is the Lua type of v ("string", "number", "table", ...).
func luaTypeName(v lua.LValue) string {
	if v == nil {
		return "nil"
	}
	return v.Type().String()
}

// describe names a value's type for messages, with the value when short.
func describe(v lua.LValue) string {
	switch x := v.(type) {
	case lua.LString:
		if len(x) <= 24 {
			return fmt.Sprintf("string %q", string(x))
		}
		return "string"
	case lua.LNumber:
		return "number " + x.String()
	}
	return luaTypeName(v)
}

// ToGo converts a Lua value to plain Go data: nil, bool, float64, string,
// []any (a table whose keys are exactly 1..n, n > 0) or map[string]any (any
// other table; non-string keys are formatted). Functions and other
// non-data values become nil, as do tables nested deeper than 100 levels or
// reached again through a cycle.
func ToGo(v lua.LValue) any {
	g, _ := toGo(v, 0, map[*lua.LTable]bool{}, false, nil)
	return g
}

// errTooLarge is the error of toGo when the strings it met exceed its
// budget.
var errTooLarge = errors.New("value too large")

// toGo is ToGo; in strict mode it reports values that have no data form.
// With a budget, the bytes of the strings it meets (a string shared by many
// tables each time) are taken from it, and running out is errTooLarge.
func toGo(v lua.LValue, depth int, seen map[*lua.LTable]bool, strict bool, budget *int64) (any, error) {
	switch x := v.(type) {
	case nil, *lua.LNilType:
		return nil, nil
	case lua.LBool:
		return bool(x), nil
	case lua.LNumber:
		return float64(x), nil
	case lua.LString:
		if budget != nil {
			if *budget -= int64(len(x)) + 2; *budget < 0 {
				return nil, errTooLarge
			}
		}
		return string(x), nil
	case *lua.LTable:
		if depth > 100 || seen[x] {
			if strict {
				return nil, fmt.Errorf("table nested too deep or cyclic")
			}
			return nil, nil
		}
		seen[x] = true
		defer delete(seen, x)
		n := x.Len()
		count := 0
		x.ForEach(func(_, _ lua.LValue) { count++ })
		if n > 0 && count == n {
			arr := make([]any, n)
			for i := 1; i <= n; i++ {
				g, err := toGo(x.RawGetInt(i), depth+1, seen, strict, budget)
				if err != nil {
					return nil, fmt.Errorf("[%d]: %w", i, err)
				}
				arr[i-1] = g
			}
			return arr, nil
		}
		m := make(map[string]any, count)
		var err error
		x.ForEach(func(k, val lua.LValue) {
			if err != nil {
				return
			}
			var g any
			g, err = toGo(val, depth+1, seen, strict, budget)
			if err != nil {
				err = fmt.Errorf("%s: %w", elemKey("", k), err)
				return
			}
			m[keyString(k)] = g
		})
		return m, err
	}
	if strict {
		return nil, fmt.Errorf("cannot convert a %s to data", luaTypeName(v))
	}
	return nil, nil
}

func keyString(k lua.LValue) string {
	if n, ok := k.(lua.LNumber); ok {
		f := float64(n)
		if f == math.Trunc(f) && math.Abs(f) < 1e15 {
			return strconv.FormatInt(int64(f), 10)
		}
	}
	return k.String()
}

// FromGo converts Go data to a Lua value: nil, booleans, numbers, strings,
// []byte (as a string), slices and arrays (as Lua arrays), maps (keys
// formatted as strings), structs (as tables keyed by their `lua` tag or
// snake_case name), time.Duration (as "30s"), time.Time (RFC 3339),
// json.Number, pointers (followed) and lua.LValue (as is). Unsupported values
// such as channels and functions become nil, so Go types never leak to Lua.
func FromGo(L *lua.LState, v any) lua.LValue {
	return fromGo(L, reflect.ValueOf(v), 0)
}

var timeType = reflect.TypeOf(time.Time{})

func fromGo(L *lua.LState, rv reflect.Value, depth int) lua.LValue {
	if !rv.IsValid() || depth > 100 {
		return lua.LNil
	}
	if rv.Type().Implements(lvalueType) && rv.Kind() != reflect.Interface {
		return rv.Interface().(lua.LValue)
	}
	switch rv.Type() {
	case durationType:
		return lua.LString(time.Duration(rv.Int()).String())
	case timeType:
		return lua.LString(rv.Interface().(time.Time).Format(time.RFC3339Nano))
	case reflect.TypeOf(json.Number("")):
		f, err := strconv.ParseFloat(rv.String(), 64)
		if err != nil {
			return lua.LString(rv.String())
		}
		return lua.LNumber(f)
	}
	switch rv.Kind() {
	case reflect.Interface, reflect.Pointer:
		if rv.IsNil() {
			return lua.LNil
		}
		return fromGo(L, rv.Elem(), depth+1)
	case reflect.Bool:
		return lua.LBool(rv.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return lua.LNumber(rv.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return lua.LNumber(rv.Uint())
	case reflect.Float32, reflect.Float64:
		return lua.LNumber(rv.Float())
	case reflect.String:
		return lua.LString(rv.String())
	case reflect.Slice, reflect.Array:
		if rv.Kind() == reflect.Slice && rv.Type().Elem().Kind() == reflect.Uint8 {
			return lua.LString(rv.Bytes())
		}
		if rv.Kind() == reflect.Slice && rv.IsNil() {
			return L.NewTable()
		}
		tb := L.CreateTable(rv.Len(), 0)
		for i := 0; i < rv.Len(); i++ {
			tb.RawSetInt(i+1, fromGo(L, rv.Index(i), depth+1))
		}
		return tb
	case reflect.Map:
		tb := L.CreateTable(0, rv.Len())
		it := rv.MapRange()
		for it.Next() {
			tb.RawSetString(fmt.Sprint(it.Key().Interface()), fromGo(L, it.Value(), depth+1))
		}
		return tb
	case reflect.Struct:
		fields, names := structFields(rv.Type())
		tb := L.CreateTable(0, len(names))
		for _, n := range names {
			f := fields[n]
			fv := rv.FieldByIndex(f.index)
			if f.opts.omitEmpty && fv.IsZero() {
				continue
			}
			tb.RawSetString(n, fromGo(L, fv, depth+1))
		}
		return tb
	}
	return lua.LNil
}
