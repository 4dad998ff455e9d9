package script

import (
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/ast"
)

// concatName is the global through which compiled chunks concatenate: the
// compiler's OP_CONCAT joins strings of any size in one instruction, out of
// reach of the memory limit, so Compile rewrites every a .. b .. c into
// ["(concat)"](3, a, b, c), a Go function that checks the result's size
// first.
// The name is not an identifier, so no script names it by accident; a
// script that replaces it only breaks its own concatenations.
const concatName = "(concat)"

// rewriteConcat replaces the concatenations of a chunk's syntax tree.
func rewriteConcat(stmts []ast.Stmt) {
	for _, s := range stmts {
		rwStmt(s)
	}
}

func rwStmt(s ast.Stmt) {
	switch st := s.(type) {
	case *ast.AssignStmt:
		rwExprs(st.Lhs)
		rwExprs(st.Rhs)
	case *ast.LocalAssignStmt:
		rwExprs(st.Exprs)
	case *ast.FuncCallStmt:
		st.Expr = rw(st.Expr)
	case *ast.DoBlockStmt:
		rewriteConcat(st.Stmts)
	case *ast.WhileStmt:
		st.Condition = rw(st.Condition)
		rewriteConcat(st.Stmts)
	case *ast.RepeatStmt:
		st.Condition = rw(st.Condition)
		rewriteConcat(st.Stmts)
	case *ast.IfStmt:
		st.Condition = rw(st.Condition)
		rewriteConcat(st.Then)
		rewriteConcat(st.Else)
	case *ast.NumberForStmt:
		st.Init, st.Limit = rw(st.Init), rw(st.Limit)
		if st.Step != nil {
			st.Step = rw(st.Step)
		}
		rewriteConcat(st.Stmts)
	case *ast.GenericForStmt:
		rwExprs(st.Exprs)
		rewriteConcat(st.Stmts)
	case *ast.FuncDefStmt:
		if st.Name != nil {
			st.Name.Func = rw(st.Name.Func)
			st.Name.Receiver = rw(st.Name.Receiver)
		}
		rewriteConcat(st.Func.Stmts)
	case *ast.ReturnStmt:
		rwExprs(st.Exprs)
	}
}

func rwExprs(es []ast.Expr) {
	for i, e := range es {
		es[i] = rw(e)
	}
}

// rw returns e with its concatenations replaced.
func rw(e ast.Expr) ast.Expr {
	switch x := e.(type) {
	case nil:
		return nil
	case *ast.StringConcatOpExpr:
		// a .. b .. c parses as a .. (b .. c); one call takes the whole
		// right-nested chain, as OP_CONCAT does.
		var args []ast.Expr
		cur := ast.Expr(x)
		for {
			c, ok := cur.(*ast.StringConcatOpExpr)
			if !ok {
				args = append(args, rw(cur))
				break
			}
			args = append(args, rw(c.Lhs))
			cur = c.Rhs
		}
		// The operand count comes first: a call or ... as the last operand
		// passes all its values, of which only the first is an operand.
		count := &ast.NumberExpr{Value: strconv.Itoa(len(args))}
		count.SetLine(x.Line())
		count.SetLastLine(x.Line())
		args = append([]ast.Expr{count}, args...)
		fn := &ast.IdentExpr{Value: concatName}
		fn.SetLine(x.Line())
		fn.SetLastLine(x.LastLine())
		// Not AdjustRet (a parenthesised call): gopher-lua 1.1.2 compiles
		// u = (f(u)) into code that loses u; (concat) returns one value
		// anyway.
		call := &ast.FuncCallExpr{Func: fn, Args: args}
		call.SetLine(x.Line())
		call.SetLastLine(x.LastLine())
		return call
	case *ast.AttrGetExpr:
		x.Object, x.Key = rw(x.Object), rw(x.Key)
	case *ast.TableExpr:
		for _, f := range x.Fields {
			f.Key, f.Value = rw(f.Key), rw(f.Value)
		}
	case *ast.FuncCallExpr:
		x.Func, x.Receiver = rw(x.Func), rw(x.Receiver)
		rwExprs(x.Args)
	case *ast.LogicalOpExpr:
		x.Lhs, x.Rhs = rw(x.Lhs), rw(x.Rhs)
	case *ast.RelationalOpExpr:
		x.Lhs, x.Rhs = rw(x.Lhs), rw(x.Rhs)
	case *ast.ArithmeticOpExpr:
		x.Lhs, x.Rhs = rw(x.Lhs), rw(x.Rhs)
	case *ast.UnaryMinusOpExpr:
		x.Expr = rw(x.Expr)
	case *ast.UnaryNotOpExpr:
		x.Expr = rw(x.Expr)
	case *ast.UnaryLenOpExpr:
		x.Expr = rw(x.Expr)
	case *ast.FunctionExpr:
		rewriteConcat(x.Stmts)
	}
	return e
}

// luaConcat is the checked concatenation: the operands of one chain, joined
// from the right as OP_CONCAT does (strings and numbers directly, __concat
// for anything else), each join's size checked against MaxStringBytes and
// the memory limit before it is built.
func luaConcat(L *lua.LState) int {
	n := L.CheckInt(1) + 1 // operands are 2..n
	rhs := L.Get(n)
	for i := n - 1; i >= 2; {
		lhs := L.Get(i)
		if !lua.LVCanConvToString(lhs) || !lua.LVCanConvToString(rhs) {
			op := L.GetMetaField(lhs, "__concat")
			if op == lua.LNil {
				op = L.GetMetaField(rhs, "__concat")
			}
			if op.Type() != lua.LTFunction {
				raise(L, "cannot perform concat operation between %s and %s", lhs.Type(), rhs.Type())
			}
			L.Push(op)
			L.Push(lhs)
			L.Push(rhs)
			L.Call(2, 1)
			rhs = L.Get(-1)
			L.Pop(1)
			i--
			continue
		}
		// The longest run of strings and numbers ending at i, joined at once.
		j := i
		for j > 2 && lua.LVCanConvToString(L.Get(j-1)) {
			j--
		}
		r := lua.LVAsString(rhs)
		total := int64(len(r))
		for k := j; k <= i; k++ {
			total += int64(len(lua.LVAsString(L.Get(k))))
		}
		reserveL(L, total, "concatenation")
		var b strings.Builder
		b.Grow(int(total))
		for k := j; k <= i; k++ {
			b.WriteString(lua.LVAsString(L.Get(k)))
		}
		b.WriteString(r)
		rhs = lua.LString(b.String())
		i = j - 1
	}
	L.Push(rhs)
	return 1
}
