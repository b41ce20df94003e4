package norm

import (
	"errors"
	"math"
	"regexp"
	"slices"
	"strconv"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/exec"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Queries PostgreSQL answers with an error whatever the data (issue 33,
// item 5). It reads the query before it touches a row:
//
//   - parse analysis reads a quoted literal beside a typed operand with
//     the type's input function, wherever the comparison is (under OR,
//     in a subquery never run): n = 'abc' for an integer n, an enum
//     compared with a text that is not one of its labels, CAST('abc' AS
//     int). These fail on every database (RaisesAlways).
//   - the planner folds constant expressions: 1/0, an overflowing
//     constant, a cast of a constant the type rejects. Whether it reaches
//     one depends on where it stands (FALSE AND 1/0 = 1 is folded to
//     FALSE first, 1/0 = 1 AND FALSE is not; CASE drops branches it
//     decides): in a select-list item, a VALUES entry or a lone WHERE
//     predicate, reached through operators, functions and casts, it
//     fails every run (RaisesAlways); elsewhere it may.
//   - the executor rejects a negative LIMIT or OFFSET when the node
//     first runs, which a Limit inside a subquery may never do.
//
// The rules below would fold the failing part away (FALSE AND x ⇒
// FALSE, contradictory equalities ⇒ FALSE) and the prover read the plan
// as empty, though PostgreSQL returns an error, not an empty result. So
// a plan that may raise is not normalized: it keeps the parts that fail,
// carries the reason in Plan.Raises, the prover proves nothing about it
// and the executor answers with the error (RaisesAlways) or refuses.

// intLiteral is the text integer input accepts (int2in, int4in, int8in
// in PostgreSQL 15: no underscores, no fraction).
var intLiteral = regexp.MustCompile(`^\s*[+-]?\d+\s*$`)

// planRaises says why PostgreSQL may raise an error for p whatever the
// data ("" when nothing found), and whether it always does.
func planRaises(p *plan.Plan) (string, bool) {
	if p == nil || p.Root == nil || p.Meta == nil || p.Meta.Dialect != catalog.Postgres {
		return "", false
	}
	r := &raiseScan{meta: p.Meta}
	r.node(p.Root, true)
	if r.always != "" {
		return r.always, true
	}
	if r.may == "" {
		r.may = unreadDedupRaise(p.Root)
	}
	return r.may, false
}

type raiseScan struct {
	meta        *plan.Metadata
	always, may string
}

// node scans n and its inputs; planned says n is planned whatever the
// data (a node of the query's tree, not of a subquery expression, which
// is read under its operator).
func (r *raiseScan) node(n *plan.Node, planned bool) {
	if n == nil || r.always != "" {
		return
	}
	if n.Op == plan.OpLimit {
		for _, b := range []*plan.Expr{n.Limit, n.Offset} {
			if b == nil || !constantExpr(b) {
				continue
			}
			if v, err := exec.EvalConst(b); err == nil && v.K == exec.KInt && v.I < 0 && r.may == "" {
				r.may = "a negative constant LIMIT or OFFSET"
			}
		}
	}
	// The expressions PostgreSQL surely folds: a projection's items, a
	// VALUES row's entries, a filter's one predicate (of several, one
	// may be FALSE, and which the planner meets first decides).
	sure := map[*plan.Expr]bool{}
	if planned {
		for _, it := range n.Proj {
			sure[it.Expr] = true
		}
		for _, row := range n.Rows {
			for _, x := range row {
				sure[x] = true
			}
		}
		if n.Op == plan.OpFilter && len(n.Preds) == 1 {
			sure[n.Preds[0]] = true
		}
	}
	n.Exprs(func(slot **plan.Expr) { r.expr(*slot, sure[*slot]) })
	for _, in := range n.Inputs {
		r.node(in, planned)
	}
}

// expr scans e and the subqueries in it; it reports whether e reads no
// column, subquery or parameter (a constant PostgreSQL may fold). sure
// says PostgreSQL folds e whatever the data: a failing constant there
// fails every run.
func (r *raiseScan) expr(e *plan.Expr, sure bool) bool {
	if e == nil {
		return true
	}
	constant := true
	switch e.Kind {
	case plan.Const:
	case plan.Op, plan.Func, plan.Cast, plan.Case:
	default:
		constant = false
	}
	if e.Kind == plan.Subquery {
		r.node(e.Sub, false)
	}
	// Folding reaches every argument of an operator, function or cast,
	// but not past one that decides without the rest: AND and OR meet
	// FALSE or TRUE, CASE drops branches, COALESCE stops at a value.
	childSure := sure && (e.Kind == plan.Op && e.Name != plan.OpAnd && e.Name != plan.OpOr ||
		e.Kind == plan.Cast || e.Kind == plan.Func && !shortCircuits[e.Name])
	e.Children(func(s **plan.Expr) {
		if *s != nil && !r.expr(*s, childSure) {
			constant = false
		}
	})
	if r.always != "" {
		return constant
	}
	r.rejectedLiteral(e)
	if e.Kind == plan.Const && !e.Null && (e.Typ == catalog.Date || e.Typ == catalog.Timestamp) {
		// A date or timestamp literal with a field out of range
		// ('2020-13-01'): its input function fails while the query is
		// parsed.
		if _, err := exec.Parse(e.Typ, e.Value); errors.Is(err, exec.ErrQuery) {
			r.always = err.Error()
		}
	}
	if constant && e.Kind == plan.Op && (sure || r.may == "") {
		// The executor computes integers in 64 bits; PostgreSQL in the
		// operands' width: 2147483647 + 1 fails on int4 literals.
		if why := narrowOverflow(e); why != "" {
			if sure {
				r.always = why
			} else {
				r.may = "a constant expression fails: " + why
			}
		}
	}
	if constant && e.Kind != plan.Const && (sure || r.may == "") {
		if _, err := exec.EvalConst(e); errors.Is(err, exec.ErrQuery) {
			if sure {
				r.always = err.Error()
			} else {
				r.may = "a constant expression fails: " + err.Error()
			}
		}
	}
	return constant
}

// shortCircuits are the functions whose folding may stop before an
// argument.
var shortCircuits = map[string]bool{"coalesce": true, "ifnull": true, "nullif": true, "greatest": true, "least": true}

// rejectedLiteral records a quoted literal read by an input function
// that rejects it: beside an integer, date or timestamp operand (for
// these, only a field out of range: exec.Parse is sure of no other
// rejection), beside an enum column, or cast to an integer type.
func (r *raiseScan) rejectedLiteral(e *plan.Expr) {
	isLit := func(x *plan.Expr) bool { return x.Kind == plan.Const && !x.Null && x.Typ == catalog.Text }
	switch {
	case e.Kind == plan.Cast && e.Typ == catalog.Int && len(e.Args) == 1 && isLit(e.Args[0]):
		if !intLiteral.MatchString(e.Args[0].Value) {
			r.always = "invalid input syntax for type integer: '" + e.Args[0].Value + "'"
		}
	case e.Kind == plan.Op && len(e.Args) >= 2 && (flipped[e.Name] != "" && len(e.Args) == 2 || e.Name == "in" || e.Name == "not in"):
		operands := e.Args
		if e.Name == "in" || e.Name == "not in" {
			operands = e.Args[:1]
		}
		for _, x := range operands {
			if x.Kind == plan.Const {
				continue
			}
			labels := r.enumLabels(x)
			for _, c := range e.Args {
				if c == x || !isLit(c) {
					continue
				}
				switch {
				case labels != nil && !slices.Contains(labels, c.Value):
					r.always = "invalid input value for enum: '" + c.Value + "'"
				case labels == nil && x.Typ == catalog.Int && !intLiteral.MatchString(c.Value):
					r.always = "invalid input syntax for type integer: '" + c.Value + "'"
				case labels == nil && (x.Typ == catalog.Date || x.Typ == catalog.Timestamp):
					if _, err := exec.Parse(x.Typ, c.Value); errors.Is(err, exec.ErrQuery) {
						r.always = err.Error() // '2020-13-01': a field out of range
					}
				}
			}
		}
	}
}

// enumLabels are the labels of e's enum type when e is a table column
// of one, else nil.
func (r *raiseScan) enumLabels(e *plan.Expr) []string {
	if e.Kind != plan.ColRef {
		return nil
	}
	m := r.meta.Col(e.Col)
	if m.Instance < 0 || m.Instance >= len(r.meta.Instances) {
		return nil
	}
	t := r.meta.Instances[m.Instance].Table
	if t == nil || m.Ordinal < 0 || m.Ordinal >= len(t.Columns) {
		return nil
	}
	return t.Columns[m.Ordinal].Enum
}

// constantExpr says whether e reads no column, subquery or parameter.
func constantExpr(e *plan.Expr) bool {
	ok := true
	plan.Walk(e, func(x *plan.Expr) {
		switch x.Kind {
		case plan.Const, plan.Op, plan.Func, plan.Cast, plan.Case:
		default:
			ok = false
		}
	})
	return ok
}

// narrowOverflow reports the error PostgreSQL raises for constant
// integer arithmetic e whose operands are int2 or int4 (literals that fit
// in 32 bits, casts to those types) when its value leaves that width
// ("integer out of range"), or "".
func narrowOverflow(e *plan.Expr) string {
	switch e.Name {
	case plan.OpAdd, plan.OpSub, plan.OpMul, plan.OpDiv, plan.OpMod:
	default:
		return ""
	}
	if e.Typ != catalog.Int {
		return ""
	}
	w := constIntWidth(e)
	if w == 0 || w == 8 {
		return ""
	}
	v, err := exec.EvalConst(e)
	if err != nil || v.K != exec.KInt {
		return ""
	}
	switch {
	case w == 4 && (v.I < math.MinInt32 || v.I > math.MaxInt32):
		return "integer out of range"
	case w == 2 && (v.I < math.MinInt16 || v.I > math.MaxInt16):
		return "smallint out of range"
	}
	return ""
}

// constIntWidth is the byte width PostgreSQL gives constant integer
// expression e (2, 4 or 8), or 0 where it is not one: a literal is int4
// when it fits, else int8; a cast names its type; arithmetic takes its
// widest operand.
func constIntWidth(e *plan.Expr) int {
	switch e.Kind {
	case plan.Const:
		if e.Null || e.Typ != catalog.Int {
			return 0
		}
		i, err := strconv.ParseInt(e.Value, 10, 64)
		if err != nil {
			return 0
		}
		if i >= math.MinInt32 && i <= math.MaxInt32 {
			return 4
		}
		return 8
	case plan.Cast:
		if e.Typ != catalog.Int {
			return 0
		}
		switch e.Value {
		case "int2":
			return 2
		case "int4":
			return 4
		case "", "int8":
			return 8
		}
		return 0
	case plan.Op:
		switch e.Name {
		case plan.OpAdd, plan.OpSub, plan.OpMul, plan.OpDiv, plan.OpMod:
		default:
			return 0
		}
		w := 0
		for _, a := range e.Args {
			aw := constIntWidth(a)
			if aw == 0 {
				return 0
			}
			w = max(w, aw)
		}
		return w
	}
	return 0
}
