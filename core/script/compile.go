package script

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/ast"
	"github.com/yuin/gopher-lua/parse"
)

// Chunk is a Lua file parsed and compiled once; its proto is run in any
// number of states. It also remembers, from the syntax tree, on which line
// each key of the table the file returns was written, so errors about that
// table point at the key rather than at the whole file.
type Chunk struct {
	Path  string             // file path, used in every error position
	Proto *lua.FunctionProto // compiled code, shared read-only by all states

	lines *lineMap
}

// CompileFile reads and compiles a Lua file; path is kept for error positions.
func CompileFile(path string) (*Chunk, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read script: %w", err)
	}
	return Compile(path, src)
}

// Compile parses and compiles src under the name path. Syntax errors are
// returned as *Error with the line of the offending token (the last line for
// an unexpected end of file).
func Compile(path string, src []byte) (*Chunk, error) {
	stmts, err := parse.Parse(bytes.NewReader(src), path)
	if err != nil {
		var pe *parse.Error
		if errors.As(err, &pe) && pe.Pos.Line == parse.EOF {
			pe.Pos.Line = lastLine(src)
			pe.Message, pe.Token = pe.Message+" at end of file", ""
		}
		return nil, convertError(context.Background(), err, path)
	}
	lines := buildLineMap(stmts)
	rewriteConcat(stmts)
	proto, err := lua.Compile(stmts, path)
	if err != nil {
		return nil, convertError(context.Background(), err, path)
	}
	c := &Chunk{Path: path, Proto: proto, lines: lines}
	registerLines(path, c.lines)
	return c, nil
}

// lastLine is the number of the last non-empty line of src (at least 1).
func lastLine(src []byte) int {
	src = bytes.TrimRight(src, " \t\r\n")
	return bytes.Count(src, []byte("\n")) + 1
}

// KeyLine returns the line where key (a path such as "stop.max_depth" or
// "seeds[2]") was written in the table the file returns. When the key itself
// can't be located it falls back to its closest written parent, then to the
// line of the returned table constructor, then 0.
func (c *Chunk) KeyLine(key string) int {
	if c == nil {
		return 0
	}
	return c.lines.line(key)
}

// Errorf builds a *Error for key of the table the file returned, positioned
// at the key's line.
func (c *Chunk) Errorf(key, format string, args ...any) *Error {
	return &Error{File: c.Path, Line: c.KeyLine(key), Key: key, Msg: fmt.Sprintf(format, args...)}
}

// Decode maps v (normally the value the chunk returned) onto out like the
// package-level Decode, with key positions from this chunk.
func (c *Chunk) Decode(v lua.LValue, out any) error {
	return decodeRoot(v, out, c.Path, c.lines, 0)
}

// lineMap maps key paths of a file's returned table to source lines.
type lineMap struct {
	root int
	keys map[string]int
}

func (m *lineMap) line(key string) int {
	if m == nil {
		return 0
	}
	for key != "" {
		if l, ok := m.keys[key]; ok {
			return l
		}
		key = parentPath(key)
	}
	return m.root
}

// parentPath drops the last segment of a key path: "a.b[2]" -> "a.b" -> "a".
func parentPath(key string) string {
	if strings.HasSuffix(key, "]") {
		if i := strings.LastIndexByte(key, '['); i >= 0 {
			return key[:i]
		}
	}
	if i := strings.LastIndexByte(key, '.'); i >= 0 {
		return key[:i]
	}
	return ""
}

// The latest line map of every compiled path, so that Decode(v, out, file)
// can position errors without a *Chunk at hand.
var (
	linesMu sync.Mutex
	linesBy = map[string]*lineMap{}
)

func registerLines(path string, m *lineMap) {
	linesMu.Lock()
	linesBy[path] = m
	linesMu.Unlock()
}

func linesFor(path string) *lineMap {
	linesMu.Lock()
	defer linesMu.Unlock()
	return linesBy[path]
}

// buildLineMap finds the table a chunk returns — `return {...}`,
// `return dw.domain{...}`, `local p = {...} ... return p` (with later
// `p.key = value` assignments), or a top-level `dw.domain{...}` call when
// nothing is returned — and records the line of each key path in it.
func buildLineMap(stmts []ast.Stmt) *lineMap {
	m := &lineMap{keys: map[string]int{}}
	var ret, call ast.Expr
	for _, s := range stmts {
		switch st := s.(type) {
		case *ast.ReturnStmt:
			if len(st.Exprs) > 0 {
				ret = st.Exprs[0]
			}
		case *ast.FuncCallStmt:
			if tableArg(st.Expr) != nil {
				call = st.Expr
			}
		}
	}
	root := ret
	if root == nil {
		root = call
	}
	if root == nil {
		return m
	}
	if id, ok := root.(*ast.IdentExpr); ok {
		m.fromLocal(stmts, id.Value)
		return m
	}
	if t := tableOf(root); t != nil {
		m.root = t.Line()
		m.walk("", t)
	}
	return m
}

// fromLocal handles `local name = {...}` followed by `name.key = value`.
func (m *lineMap) fromLocal(stmts []ast.Stmt, name string) {
	for _, s := range stmts {
		switch st := s.(type) {
		case *ast.LocalAssignStmt:
			for i, n := range st.Names {
				if n == name && i < len(st.Exprs) {
					if t := tableOf(st.Exprs[i]); t != nil {
						m.root = t.Line()
						m.walk("", t)
					}
				}
			}
		case *ast.AssignStmt:
			for i, lhs := range st.Lhs {
				if i >= len(st.Rhs) {
					break
				}
				if key, ok := assignPath(lhs, name); ok {
					if key == "" {
						if t := tableOf(st.Rhs[i]); t != nil {
							m.root = t.Line()
							m.walk("", t)
						}
						continue
					}
					m.keys[key] = lhs.Line()
					if t := tableOf(st.Rhs[i]); t != nil {
						m.walk(key, t)
					}
				}
			}
		}
	}
}

// assignPath renders the left side `name.a.b` / `name["a"]` as the key path
// "a.b" relative to name.
func assignPath(e ast.Expr, name string) (string, bool) {
	switch x := e.(type) {
	case *ast.IdentExpr:
		return "", x.Value == name
	case *ast.AttrGetExpr:
		parent, ok := assignPath(x.Object, name)
		if !ok {
			return "", false
		}
		switch k := x.Key.(type) {
		case *ast.StringExpr:
			return joinKey(parent, k.Value), true
		case *ast.NumberExpr:
			return parent + "[" + k.Value + "]", true
		}
	}
	return "", false
}

// tableOf returns the table constructor of e: e itself, or the single table
// argument of a call such as dw.domain{...}.
func tableOf(e ast.Expr) *ast.TableExpr {
	if t, ok := e.(*ast.TableExpr); ok {
		return t
	}
	return tableArg(e)
}

func tableArg(e ast.Expr) *ast.TableExpr {
	if c, ok := e.(*ast.FuncCallExpr); ok && len(c.Args) == 1 {
		if t, ok := c.Args[0].(*ast.TableExpr); ok {
			return t
		}
	}
	return nil
}

// walk records every key of a table constructor, recursively.
func (m *lineMap) walk(prefix string, t *ast.TableExpr) {
	n := 0
	for _, f := range t.Fields {
		var key string
		line := f.Value.Line()
		switch k := f.Key.(type) {
		case nil:
			n++
			key = fmt.Sprintf("%s[%d]", prefix, n)
		case *ast.StringExpr:
			key, line = joinKey(prefix, k.Value), k.Line()
		case *ast.NumberExpr:
			key, line = prefix+"["+k.Value+"]", k.Line()
		default:
			continue
		}
		if _, seen := m.keys[key]; !seen {
			m.keys[key] = line
		}
		if sub := tableOf(f.Value); sub != nil {
			m.walk(key, sub)
		}
	}
}
