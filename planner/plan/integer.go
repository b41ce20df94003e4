package plan

import "github.com/pgequiv/pgequiv/planner/catalog"

// Integer-valued expressions. Rules that read an integer-typed value as a
// whole number (x > 5 is x >= 6; x = 5.5 is false; x BETWEEN 5 AND 6
// holds two values) need the value to be one. In PostgreSQL every
// integer-typed expression is. In SQLite the type is only an affinity:
// an INTEGER column of an ordinary table keeps 5.5 as REAL and 'abc' as
// TEXT, and arithmetic over it follows the stored value. There an
// expression is integer-valued only when the engine guarantees it: a
// STRICT table's INTEGER column or the rowid alias
// (catalog.Table.IntegerOnly), count(*), CAST(... AS INTEGER), and
// arithmetic, sums, minima and maxima of such values.

// IntegerChecker says whether an integer-typed expression of one plan
// takes only integer values (or NULL). The zero value is not usable; see
// NewIntegerChecker.
type IntegerChecker struct {
	sqlite bool
	meta   *Metadata
	root   *Node
	defs   map[ColumnID][]*Expr // computed columns' definitions (SQLite); nil until needed
	memo   map[ColumnID]int8    // 1 visiting, 2 yes, 3 no
	// rereads counts re-readings of the definitions: a column a rewrite
	// added after the last reading has none there.
	rereads int
}

// maxRereads bounds the re-readings of a plan's definitions.
const maxRereads = 4

// NewIntegerChecker judges p's expressions. For a SQLite plan it reads
// the plan's column definitions when a computed column is first asked
// about; for PostgreSQL it needs nothing.
func NewIntegerChecker(p *Plan) *IntegerChecker {
	c := &IntegerChecker{}
	if p == nil || p.Meta == nil || p.Meta.Dialect != catalog.SQLite {
		return c
	}
	c.sqlite, c.meta, c.root = true, p.Meta, p.Root
	return c
}

// readDefs records every computed column's definitions. A column found
// integer-valued stays so (rewrites keep values), and one being visited
// stays so; other answers are forgotten.
func (c *IntegerChecker) readDefs() {
	memo := map[ColumnID]int8{}
	for id, v := range c.memo {
		if v == 1 || v == 2 {
			memo[id] = v
		}
	}
	c.defs, c.memo = map[ColumnID][]*Expr{}, memo
	meta := c.meta
	var node func(n *Node)
	node = func(n *Node) {
		if n == nil {
			return
		}
		switch n.Op {
		case OpProject, OpWindow:
			for _, it := range n.Proj {
				if it.Expr.Kind == ColRef && it.Expr.Col == it.ID {
					continue // a column passed through: defined below
				}
				c.defs[it.ID] = append(c.defs[it.ID], it.Expr)
			}
		case OpAggregate:
			for _, it := range n.Aggs {
				c.defs[it.ID] = append(c.defs[it.ID], it.Expr)
			}
		case OpSetOp:
			for _, in := range n.SetCols {
				for j, id := range in {
					if j < len(n.Cols) {
						c.defs[n.Cols[j]] = append(c.defs[n.Cols[j]], NewCol(id, meta.Col(id).Type))
					}
				}
			}
		case OpValues:
			for _, row := range n.Rows {
				for j, e := range row {
					if j < len(n.Cols) {
						c.defs[n.Cols[j]] = append(c.defs[n.Cols[j]], e)
					}
				}
			}
		}
		n.Exprs(func(e **Expr) {
			Walk(*e, func(x *Expr) {
				if x.Kind == Subquery {
					node(x.Sub)
				}
			})
		})
		for _, in := range n.Inputs {
			node(in)
		}
	}
	node(c.root)
}

// Expr reports whether e is integer-typed and takes only integer values
// or NULL.
func (c *IntegerChecker) Expr(e *Expr) bool {
	if e == nil || e.Typ != catalog.Int {
		return false
	}
	if !c.sqlite {
		return true
	}
	return c.expr(e, c.Column)
}

// ExprWith is Expr with column references judged by col (a prover's
// naming of another plan's columns).
func (c *IntegerChecker) ExprWith(e *Expr, col func(ColumnID) bool) bool {
	if e == nil || e.Typ != catalog.Int {
		return false
	}
	if !c.sqlite {
		return true
	}
	return c.expr(e, col)
}

// SQLite reports whether the checker judges a SQLite plan.
func (c *IntegerChecker) SQLite() bool { return c.sqlite }

// Column reports whether column id of the plan holds only integers.
func (c *IntegerChecker) Column(id ColumnID) bool {
	if !c.sqlite {
		return true
	}
	if int(id) < 0 || int(id) >= len(c.meta.Columns) {
		return false
	}
	m := c.meta.Col(id)
	if m.Type != catalog.Int {
		return false
	}
	if m.Instance >= 0 {
		if m.Instance >= len(c.meta.Instances) || c.meta.Instances[m.Instance].Table == nil {
			return false
		}
		return c.meta.Instances[m.Instance].Table.IntegerOnly(catalog.SQLite, m.Ordinal)
	}
	if c.defs == nil {
		c.readDefs()
	}
	switch c.memo[id] {
	case 1, 3:
		return false
	case 2:
		return true
	}
	defs := c.defs[id]
	if len(defs) == 0 && c.rereads < maxRereads && c.memo[id] == 0 {
		c.rereads++
		c.readDefs()
		defs = c.defs[id]
	}
	c.memo[id] = 1
	ok := len(defs) > 0
	for _, d := range defs {
		if !(d.Typ == catalog.Int && c.expr(d, c.Column)) {
			ok = false
			break
		}
	}
	c.memo[id] = 3
	if ok {
		c.memo[id] = 2
	}
	return ok
}

// intFuncs return an integer (or NULL) whatever their arguments.
var intFuncs = map[string]bool{"length": true, "char_length": true, "octet_length": true, "instr": true, "unicode": true,
	"changes": true, "total_changes": true, "last_insert_rowid": true, "sign": true}

// intWin are window functions whose value is a count or a rank.
var intWin = map[string]bool{"row_number": true, "rank": true, "dense_rank": true, "ntile": true, "count": true}

// intOfArgs keep their arguments' values (or return NULL).
var intOfArgs = map[string]bool{"abs": true, "coalesce": true, "ifnull": true, "nullif": true, "min": true, "max": true, "iif": true}

func (c *IntegerChecker) expr(e *Expr, col func(ColumnID) bool) bool {
	if e.Typ != catalog.Int && e.Typ != catalog.Null {
		return false
	}
	switch e.Kind {
	case Const:
		return true
	case ColRef:
		return col(e.Col)
	case Cast:
		// CAST(x AS INTEGER) is always an INTEGER (or NULL): 5.5 gives 5,
		// 'abc' gives 0.
		return e.Typ == catalog.Int
	case Op:
		switch e.Name {
		case OpAdd, OpSub, OpMul, OpDiv, OpMod, OpNeg:
			return c.all(e.Args, col)
		}
	case Agg:
		switch e.Name {
		case "count", "grouping":
			return true
		case "sum", "min", "max":
			return c.all(e.Args, col)
		}
	case WinFunc:
		return intWin[e.Name]
	case Func:
		if intFuncs[e.Name] {
			return true
		}
		if intOfArgs[e.Name] {
			if e.Name == "nullif" && len(e.Args) > 0 {
				return c.expr(e.Args[0], col)
			}
			if e.Name == "iif" && len(e.Args) == 3 {
				return c.all(e.Args[1:], col)
			}
			return c.all(e.Args, col)
		}
	case Case:
		args := e.Args
		if e.CaseHasOperand && len(args) > 0 {
			args = args[1:]
		}
		n := len(args)
		if e.HasElse {
			if !c.expr(args[n-1], col) {
				return false
			}
			n--
		}
		for i := 1; i < n; i += 2 {
			if !c.expr(args[i], col) {
				return false
			}
		}
		return true
	case Subquery:
		if e.SubKind == SubScalar && e.Sub != nil {
			if out := e.Sub.OutCols(); len(out) == 1 {
				return col(out[0])
			}
		}
	}
	return false
}

func (c *IntegerChecker) all(es []*Expr, col func(ColumnID) bool) bool {
	for _, a := range es {
		if !c.expr(a, col) {
			return false
		}
	}
	return len(es) > 0
}
