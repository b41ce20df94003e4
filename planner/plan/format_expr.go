package plan

import (
	"strings"

	"github.com/pgequiv/pgequiv/planner/catalog"
)

// Expr renders an expression.
func (f *Formatter) Expr(e *Expr) string {
	var b strings.Builder
	f.expr(&b, e)
	return b.String()
}

// expr writes e to b in the canonical form.
func (f *Formatter) expr(b *strings.Builder, e *Expr) {
	if e == nil {
		b.WriteString("<nil>")
		return
	}
	switch e.Kind {
	case ColRef:
		b.WriteString(f.Col(e.Col))
	case Const:
		writeConst(b, e)
	case Param:
		b.WriteString(e.Value)
	case Op:
		f.op(b, e)
	case Func, Agg, WinFunc:
		f.call(b, e)
	case Case:
		f.caseExpr(b, e)
	case Cast:
		b.WriteString("cast(")
		f.expr(b, e.Args[0])
		t := e.Typ.String()
		if e.Value != "" {
			t = e.Value // the type with its modifier: numeric(10,2)
		}
		b.WriteString(" as " + t + ")")
	case Tuple:
		b.WriteByte('(')
		f.list(b, e.Args)
		b.WriteByte(')')
	case Subquery:
		f.subquery(b, e)
	}
}

// op writes an operator: AND/OR chains and binary operators infix and
// parenthesized, NOT and minus as prefixes, IS NULL and the like as
// postfixes, and other arities as calls.
func (f *Formatter) op(b *strings.Builder, e *Expr) {
	switch {
	case e.Name == OpAnd || e.Name == OpOr:
		b.WriteByte('(')
		for i, a := range e.Args {
			if i > 0 {
				b.WriteString(" " + e.Name + " ")
			}
			f.expr(b, a)
		}
		b.WriteByte(')')
	case e.Name == OpNot || e.Name == OpNeg || e.Name == OpBitNot && len(e.Args) == 1:
		b.WriteString(map[string]string{OpNot: "not ", OpNeg: "-", OpBitNot: "~"}[e.Name])
		f.expr(b, e.Args[0])
	case len(e.Args) == 1:
		b.WriteByte('(')
		f.expr(b, e.Args[0])
		b.WriteString(" " + e.Name + ")")
	case len(e.Args) == 2:
		b.WriteByte('(')
		f.expr(b, e.Args[0])
		b.WriteString(" " + e.Name + " ")
		f.expr(b, e.Args[1])
		b.WriteByte(')')
	default:
		b.WriteString(e.Name + "(")
		f.list(b, e.Args)
		b.WriteByte(')')
	}
}

// call writes a function, aggregate or window call with its DISTINCT,
// FILTER and OVER clauses.
func (f *Formatter) call(b *strings.Builder, e *Expr) {
	b.WriteString(e.Name)
	b.WriteByte('(')
	if e.Distinct {
		b.WriteString("distinct ")
	}
	if e.Star {
		b.WriteByte('*')
	}
	f.list(b, e.Args)
	b.WriteByte(')')
	if e.Filter != nil {
		b.WriteString(" filter (where ")
		f.expr(b, e.Filter)
		b.WriteByte(')')
	}
	if e.Kind == WinFunc {
		b.WriteString(" over (")
		if len(e.Partition) > 0 {
			b.WriteString("partition by ")
			f.list(b, e.Partition)
		}
		if len(e.Order) > 0 {
			b.WriteString(" order by ")
			f.keys(b, e.Order)
		}
		if e.Value != "" {
			b.WriteString(" " + e.Value)
		}
		b.WriteByte(')')
	}
}

// caseExpr writes CASE [operand] WHEN ... THEN ... [ELSE ...] END.
func (f *Formatter) caseExpr(b *strings.Builder, e *Expr) {
	b.WriteString("case")
	args := e.Args
	if e.CaseHasOperand {
		b.WriteByte(' ')
		f.expr(b, args[0])
		args = args[1:]
	}
	n := len(args)
	if e.HasElse {
		n--
	}
	for i := 0; i+1 < n; i += 2 {
		b.WriteString(" when ")
		f.expr(b, args[i])
		b.WriteString(" then ")
		f.expr(b, args[i+1])
	}
	if e.HasElse {
		b.WriteString(" else ")
		f.expr(b, args[len(args)-1])
	}
	b.WriteString(" end")
}

// subquery writes a subquery's kind (and compared operands) followed by
// its plan in braces.
func (f *Formatter) subquery(b *strings.Builder, e *Expr) {
	switch e.SubKind {
	case SubExists:
		b.WriteString("exists")
	case SubScalar:
		b.WriteString("scalar")
	case SubAny, SubAll:
		b.WriteByte('(')
		f.list(b, e.Args)
		b.WriteString(") " + e.SubOp)
		if e.SubKind == SubAny {
			b.WriteString(" any")
		} else {
			b.WriteString(" all")
		}
	}
	b.WriteString("{")
	f.node(b, e.Sub, -1)
	b.WriteString("}")
}

func (f *Formatter) list(b *strings.Builder, es []*Expr) {
	for i, a := range es {
		if i > 0 {
			b.WriteString(", ")
		}
		f.expr(b, a)
	}
}

func (f *Formatter) keys(b *strings.Builder, ks []SortKey) {
	for i, k := range ks {
		if i > 0 {
			b.WriteString(", ")
		}
		f.expr(b, k.Expr)
		if k.Desc {
			b.WriteString(" desc")
		}
		// Only say NULLS when it differs from PostgreSQL's default.
		if k.NullsFirst != k.Desc {
			if k.NullsFirst {
				b.WriteString(" nulls first")
			} else {
				b.WriteString(" nulls last")
			}
		}
	}
}

func writeConst(b *strings.Builder, e *Expr) {
	if e.Null {
		b.WriteString("null")
		if e.Typ != Null && e.Typ != catalog.Unknown {
			b.WriteString("::" + e.Typ.String())
		}
		return
	}
	switch e.Typ {
	case catalog.Int, catalog.Bool:
		b.WriteString(e.Value)
	case catalog.Numeric:
		b.WriteString(e.Value)
		if !strings.ContainsAny(e.Value, ".eE") {
			b.WriteString("::numeric")
		}
	case catalog.Text:
		b.WriteString("'" + strings.ReplaceAll(e.Value, "'", "''") + "'")
	default:
		b.WriteString("'" + strings.ReplaceAll(e.Value, "'", "''") + "'::" + e.Typ.String())
	}
}

// Null aliases catalog.Null for brevity inside this package.
const Null = catalog.Null
