package script

// Memory bound of a state (Options.MemoryLimit).
//
// gopher-lua has no allocator hook, so the bound is kept by two means that
// together cover what a script can build:
//
//   - Every library call that builds a value in proportion to its
//     arguments checks its result size before allocating and counts it:
//     the concatenation operator (the compiler turns a .. b .. c into a
//     call of a checked function, see rewrite.go), string.rep, format,
//     gsub, upper, lower, reverse, table.concat, dw.json, dw.html, dw.url
//     and dw.http bodies. One call can therefore never ask for more than
//     is left (the 16 GB table.concat of a hostile profile fails before
//     allocating anything).
//   - The state's context is wrapped so that its Done method, which the VM
//     calls before every instruction, counts instructions. Every 4096 of
//     them it reads the process's cumulative heap allocations
//     (runtime/metrics, about a microsecond): this state cannot have
//     allocated more than the process did. When that could have taken the
//     state past its limit, the values the state can still reach are
//     measured by walking them (tables, strings, functions and their
//     upvalues, from the registry, the whole data stack and the call stack).
//     Garbage is not counted; a state whose reachable data exceeds the limit
//     stops at the next instruction. A state far from its limit is rarely
//     walked; one close to it, that keeps allocating, often (slowly, but it
//     is about to fail anyway).
//
// Exceeding the limit raises "file:line: memory limit of N MiB exceeded"
// in the script (sticky: pcall can't swallow it, as with the time limit);
// the run or call fails with an *Error wrapping ErrMemoryLimit, and the
// state is closed instead of reused.
//
// What this does not bound: sizes are estimates of gopher-lua's and Go's
// layout (a value slot 16 bytes, a hash entry about 96, a table 80, a
// string its length plus 16; strings of 64 bytes or more referenced many
// times count once); a substring counts its length though Go keeps its
// whole backing string alive; uncounted instructions (table stores,
// closures, tostring) are checked every 4096 instructions, so a state may
// pass its limit by what those allocate (a few hundred KiB, or one doubling
// of a big table's array); transient Go memory inside one library
// call (parsing an HTML body of at most MaxBodyBytes, escaping JSON) is
// bounded by that call's input limit, not by the state's limit; memory the
// Go garbage collector has not reclaimed yet is the process's, not the
// state's.

import (
	"context"
	"fmt"
	"reflect"
	"runtime/metrics"
	"unsafe"

	lua "github.com/yuin/gopher-lua"
)

// DefaultMemoryLimit bounds the memory a state's scripts hold.
const DefaultMemoryLimit = 64 << 20

// sampleSteps is how many instructions pass between two reads of the
// process's allocations; smallReserve is how many bytes library calls may
// reserve between two checks.
const (
	sampleSteps  = 4096
	smallReserve = 64 << 10
)

// memory is the accounting of one state.
type memory struct {
	limit  int64  // 0: unlimited
	live   int64  // bytes reachable at the last measure
	base   uint64 // the process's heap allocations at the last measure
	held   int64  // bytes a library call is building, not yet reachable from Lua
	small  int64  // bytes of small reservations not checked yet
	steps  int    // instructions since the last allocation sample
	fresh  bool   // measured in this call
	err    error  // the limit was exceeded in the current call (sticky)
	sample []metrics.Sample
	w      walker
}

// begin resets the accounting at the start of a top-level call; the first
// instruction measures.
func (m *memory) begin() {
	m.err, m.held, m.steps, m.fresh = nil, 0, 0, false
}

// allocs is the process's cumulative heap allocation.
func (m *memory) allocs() uint64 {
	if m.sample == nil {
		m.sample = []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	}
	metrics.Read(m.sample)
	if m.sample[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return m.sample[0].Value.Uint64()
}

// grown is an upper bound of what the state allocated since the last
// measure: what the whole process did.
func (m *memory) grown() int64 { return int64(m.allocs() - m.base) }

// memCtx is the context a state runs under: the call's context, whose
// Done method also counts the VM's instructions (the VM calls it before
// each one, on the state's goroutine) and measures the state's memory.
// It must not be handed to code that calls Done from other goroutines:
// baseContext unwraps it.
type memCtx struct {
	context.Context
	sd *stateData
	L  *lua.LState
}

var closedDone = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

func (c *memCtx) Done() <-chan struct{} {
	m := &c.sd.mem
	if m.err != nil {
		return closedDone
	}
	if m.limit <= 0 {
		return c.Context.Done()
	}
	if m.steps++; m.steps >= sampleSteps || !m.fresh {
		m.steps = 0
		if (!m.fresh || m.live+m.held+m.grown() > m.limit) && !c.sd.measure(c.L) {
			return closedDone
		}
	}
	return c.Context.Done()
}

func (c *memCtx) Err() error {
	if err := c.sd.mem.err; err != nil {
		return err
	}
	return c.Context.Err()
}

// baseContext is L's context without the memory hook, for Go code that
// waits on it (HTTP requests, loggers, nested calls).
func baseContext(L *lua.LState) context.Context {
	ctx := L.Context()
	if m, ok := ctx.(*memCtx); ok {
		return m.Context
	}
	if ctx == nil {
		return context.Background()
	}
	return ctx
}

// memoryError is the error of an exceeded limit; its message is what the
// script sees.
type memoryError struct {
	limit, used, need int64
	what              string // the library call that needed more, if any
}

func (e *memoryError) Error() string {
	if e.what != "" {
		return fmt.Sprintf("%s: memory limit of %s exceeded (%s more needed, about %s in use)", e.what, mib(e.limit), mib(e.need), mib(e.used))
	}
	return fmt.Sprintf("memory limit of %s exceeded (about %s in use)", mib(e.limit), mib(e.used))
}

func (e *memoryError) Unwrap() error { return ErrMemoryLimit }

func mib(n int64) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d bytes", n)
}

// measure walks the state's reachable values and reports whether they fit
// the limit; when they don't, the sticky error is set.
func (sd *stateData) measure(L *lua.LState) bool {
	m := &sd.mem
	m.fresh = true
	if m.limit <= 0 {
		return true
	}
	live, within := m.w.measure(L, sd, m.limit-m.held)
	m.live, m.base = live+m.held, m.allocs()
	if !within {
		m.err = &memoryError{limit: m.limit, used: live}
	}
	return within
}

// reserve is called by a library call before it allocates about n bytes
// (what names it in the error): when they don't fit what is left of the
// limit, the state is measured again (the garbage of earlier calls no
// longer counts) and, if they still don't fit, the script gets the memory
// error. A single value longer than MaxStringBytes is refused too.
func (sd *stateData) reserve(L *lua.LState, n int64, what string) {
	if n > int64(sd.pool.opt.MaxStringBytes) {
		raise(L, "%s: result longer than %d bytes", what, sd.pool.opt.MaxStringBytes)
	}
	m := &sd.mem
	if m.limit <= 0 {
		return
	}
	// Small results add up until a check is worth reading the allocation
	// counter (the instruction hook samples it anyway).
	if m.small += n; m.fresh && m.small < smallReserve {
		return
	}
	m.small = 0
	if !m.fresh || m.live+m.held+m.grown()+n > m.limit {
		sd.measure(L)
		m.err = nil
		if m.live+n > m.limit {
			m.err = &memoryError{limit: m.limit, used: m.live, need: n, what: what}
			raise(L, "%s", m.err.Error())
		}
	}
}

// reserveL is reserve for the state of L (no-op outside a pool's state),
// for a value the call returns at once (the process's allocation counter
// sees it from then on).
func reserveL(L *lua.LState, n int64, what string) {
	if sd := stateOf(L); sd != nil {
		sd.reserve(L, n, what)
	}
}

// holdL reserves n bytes of a value a library call builds piece by piece
// while Lua code may run (a gsub callback) or a measure may happen: they
// count as held until release, called (deferred) when the call returns.
func holdL(L *lua.LState, n int64, what string) {
	if sd := stateOf(L); sd != nil {
		sd.reserve(L, n, what)
		sd.mem.held += n
	}
}

// holding returns the function that ends a library call's holds (they
// become part of its result, which the next measure finds).
func holding(L *lua.LState) func() {
	sd := stateOf(L)
	if sd == nil {
		return func() {}
	}
	before := sd.mem.held
	return func() { sd.mem.held = before }
}

// Estimated sizes of gopher-lua values (64-bit).
const (
	sizeTable    = 80
	sizeSlot     = 16 // an array-part slot
	sizeHashSlot = 96 // a hash-part entry: map entry, key order slice, key index
	sizeString   = 16
	sizeNumber   = 8 // boxed float
	sizeFunction = 80
	sizeUpvalue  = 48
	sizeUserData = 64
	dedupString  = 64 // strings this long are counted once however often referenced
)

// walker measures the values a state can reach. Its maps are kept between
// measures (cleared) unless they grew large: an idle state in the pool
// should not hold the walker's memory of its biggest walk.
type walker struct {
	tables map[*lua.LTable]struct{}
	funcs  map[*lua.LFunction]struct{}
	strs   map[strKey]struct{}
	stack  []lua.LValue

	bytes, limit int64
}

type strKey struct {
	p *byte
	n int
}

func (w *walker) measure(L *lua.LState, sd *stateData, limit int64) (int64, bool) {
	if w.tables == nil {
		w.tables = map[*lua.LTable]struct{}{}
		w.funcs = map[*lua.LFunction]struct{}{}
		w.strs = map[strKey]struct{}{}
	}
	defer func() {
		if len(w.tables)+len(w.funcs)+len(w.strs) > 4096 || cap(w.stack) > 4096 {
			w.tables, w.funcs, w.strs, w.stack = nil, nil, nil, nil
			return
		}
		clear(w.tables)
		clear(w.funcs)
		clear(w.strs)
		w.stack = w.stack[:0]
	}()
	w.bytes, w.limit = 0, limit
	w.push(L.Get(lua.RegistryIndex))
	w.push(L.Get(lua.GlobalsIndex))
	w.push(L.GetMetatable(lua.LString("")))
	for _, v := range registryArray(L) {
		w.push(v)
	}
	for level := 0; ; level++ {
		dbg, ok := L.GetStack(level)
		if !ok {
			break
		}
		if f, err := L.GetInfo("f", dbg, lua.LNil); err == nil {
			w.push(f)
		}
	}
	for _, v := range sd.loaded {
		w.push(v)
	}
	w.push(sd.declared)
	for _, v := range sd.pinned {
		w.push(v)
	}
	within := w.drain()
	return w.bytes, within
}

// push counts v and queues what it refers to.
func (w *walker) push(v lua.LValue) {
	switch x := v.(type) {
	case lua.LString:
		if len(x) >= dedupString {
			k := strKey{unsafe.StringData(string(x)), len(x)}
			if _, seen := w.strs[k]; seen {
				return
			}
			w.strs[k] = struct{}{}
		}
		w.bytes += sizeString + int64(len(x))
	case lua.LNumber:
		w.bytes += sizeNumber
	case *lua.LTable:
		if x == nil {
			return
		}
		if _, seen := w.tables[x]; !seen {
			w.tables[x] = struct{}{}
			w.stack = append(w.stack, x)
		}
	case *lua.LFunction:
		if x == nil {
			return
		}
		if _, seen := w.funcs[x]; !seen {
			w.funcs[x] = struct{}{}
			w.stack = append(w.stack, x)
		}
	case *lua.LUserData:
		if x != nil {
			w.bytes += sizeUserData
			w.push(x.Metatable)
			if x.Env != nil {
				w.push(x.Env)
			}
		}
	}
}

// drain walks the queued tables and functions; it stops early, reporting
// false, once the limit is exceeded.
func (w *walker) drain() bool {
	for len(w.stack) > 0 {
		if w.bytes > w.limit {
			return false
		}
		v := w.stack[len(w.stack)-1]
		w.stack = w.stack[:len(w.stack)-1]
		switch x := v.(type) {
		case *lua.LTable:
			w.table(x)
		case *lua.LFunction:
			w.bytes += sizeFunction + sizeUpvalue*int64(len(x.Upvalues))
			if x.Env != nil {
				w.push(x.Env)
			}
			for _, uv := range x.Upvalues {
				if uv != nil {
					w.push(uv.Value())
				}
			}
		}
	}
	return w.bytes <= w.limit
}

// table counts a table: its array part by index (no boxing), its hash part
// by Next.
func (w *walker) table(t *lua.LTable) {
	w.bytes += sizeTable
	w.push(t.Metatable)
	n := t.Len()
	for i := 1; i <= n; i++ {
		w.bytes += sizeSlot
		w.push(t.RawGetInt(i))
		if i&0xfff == 0 && w.bytes > w.limit {
			return
		}
	}
	var k lua.LValue = lua.LNil
	if n > 0 {
		k = lua.LNumber(n)
	}
	for i := 0; ; i++ {
		var v lua.LValue
		k, v = t.Next(k)
		if k == lua.LNil {
			return
		}
		w.bytes += sizeHashSlot
		w.push(k)
		w.push(v)
		if i&0xfff == 0 && w.bytes > w.limit {
			return
		}
	}
}

// The data stack of a state (gopher-lua's registry array) is not exported;
// it holds every frame's registers and varargs, which must be measured too.
// Its field is found once by reflection; if a gopher-lua version renames
// it, registryArray returns nil (and TestRegistryArray fails).
var regField, arrField = func() ([]int, []int) {
	rf, ok := reflect.TypeOf(lua.LState{}).FieldByName("reg")
	if !ok || rf.Type.Kind() != reflect.Pointer {
		return nil, nil
	}
	af, ok := rf.Type.Elem().FieldByName("array")
	if !ok || af.Type != reflect.TypeOf([]lua.LValue(nil)) {
		return nil, nil
	}
	return rf.Index, af.Index
}()

func registryArray(L *lua.LState) []lua.LValue {
	if regField == nil {
		return nil
	}
	reg := reflect.ValueOf(L).Elem().FieldByIndex(regField)
	if reg.IsNil() {
		return nil
	}
	arr := reg.Elem().FieldByIndex(arrField)
	return *(*[]lua.LValue)(unsafe.Pointer(arr.UnsafeAddr()))
}
