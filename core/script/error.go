package script

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"
)

// ErrMemoryLimit is the cause (errors.Is) of the error of a run or call
// whose scripts held more memory than Options.MemoryLimit.
var ErrMemoryLimit = errors.New("script memory limit exceeded")

// Error is a script error with its position: a syntax error, a runtime error
// raised while running a file or calling one of its functions, or a decoding or
// validation error for one key of a table the file returned.
type Error struct {
	File  string // path of the Lua file, as given to Compile
	Line  int    // 1-based line, 0 when unknown
	Key   string // key path such as "stop.max_depth", empty for plain script errors
	Msg   string // the message without position or key
	Trace string // Lua stack traceback when known (not part of Error())

	err error // underlying cause (context errors), for errors.Is
}

// Error formats the error as "file:line: key: msg"; the line is omitted when
// unknown and the key when empty.
func (e *Error) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		if e.Line > 0 {
			b.WriteByte(':')
			b.WriteString(strconv.Itoa(e.Line))
		}
		b.WriteString(": ")
	} else if e.Line > 0 {
		fmt.Fprintf(&b, "line %d: ", e.Line)
	}
	if e.Key != "" {
		b.WriteString(e.Key)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Unwrap returns the underlying cause, such as context.DeadlineExceeded for a
// script that ran out of time.
func (e *Error) Unwrap() error { return e.err }

// posRe matches the "source:line: " prefix gopher-lua puts on error messages.
var posRe = regexp.MustCompile(`(?s)^([^\n]+?):(\d+):\s?(.*)$`)

// traceRe matches one Lua frame of a stack traceback.
var traceRe = regexp.MustCompile(`(?m)^\s*([^\s\[][^\n]*?):(\d+):`)

// splitPos splits "file:12: msg" into its parts; ok is false when s carries no
// position.
func splitPos(s string) (file string, line int, msg string, ok bool) {
	m := posRe.FindStringSubmatch(s)
	if m == nil {
		return "", 0, s, false
	}
	n, err := strconv.Atoi(m[2])
	if err != nil {
		return "", 0, s, false
	}
	return m[1], n, m[3], true
}

// convertError turns whatever gopher-lua returned into a *Error. file is the
// chunk being run (used when the error has no position); ctx is the context of
// the run, whose error (timeout, cancellation) becomes the cause.
func convertError(ctx context.Context, err error, file string) error {
	return convertErrorT(ctx, nil, err, file, 0)
}

// convertErrorT is convertError for a run bounded by timeout: when run (the
// derived context) expired but parent did not, the message says so.
func convertErrorT(run, parent context.Context, err error, file string, timeout time.Duration) error {
	ctx := run
	if err == nil {
		return nil
	}
	var se *Error
	if errors.As(err, &se) {
		return se
	}
	e := &Error{File: file}
	var pe *parse.Error
	var ae *lua.ApiError
	var ce *lua.CompileError
	switch {
	case errors.As(err, &pe):
		e.File, e.Line, e.Msg = pe.Pos.Source, pe.Pos.Line, syntaxMsg(pe)
		if e.File == "" {
			e.File = file
		}
	case errors.As(err, &ce):
		e.Line, e.Msg = ce.Line, ce.Message
	case errors.As(err, &ae):
		if ae.Cause != nil {
			if c := convertError(context.Background(), ae.Cause, file); c != nil {
				if ce, ok := c.(*Error); ok {
					e = ce
				}
			}
			break
		}
		e.Trace = ae.StackTrace
		msg := valueMessage(ae.Object)
		if f, l, m, ok := splitPos(msg); ok {
			e.File, e.Line, e.Msg = f, l, m
		} else {
			e.Msg = msg
			if m := traceRe.FindStringSubmatch(ae.StackTrace); m != nil {
				e.File = m[1]
				e.Line, _ = strconv.Atoi(m[2])
			}
		}
	default:
		e.Msg = err.Error()
	}
	if ctx != nil && ctx.Err() != nil {
		e.err = ctx.Err()
		e.Msg = "script stopped: " + ctx.Err().Error()
		if parent != nil && parent.Err() == nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
			e.Msg = fmt.Sprintf("script timed out after %v", timeout)
		}
	}
	e.Msg = strings.TrimSpace(e.Msg)
	return e
}

// syntaxMsg renders a parse error without its position.
func syntaxMsg(pe *parse.Error) string {
	if pe.Token != "" {
		return fmt.Sprintf("%s near '%s'", pe.Message, pe.Token)
	}
	return pe.Message
}

// valueMessage renders an error object raised by Lua: strings as they are,
// tables with a message field by that field, anything else by tostring.
func valueMessage(v lua.LValue) string {
	switch x := v.(type) {
	case lua.LString:
		return string(x)
	case *lua.LTable:
		if m, ok := x.RawGetString("message").(lua.LString); ok {
			return string(m)
		}
		if m, ok := x.RawGetString("msg").(lua.LString); ok {
			return string(m)
		}
		return "error object " + luaTypeName(v)
	case nil:
		return "nil error"
	}
	return v.String()
}
