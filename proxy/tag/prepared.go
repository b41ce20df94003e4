package tag

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/pgequiv/pgequiv/equivalence/bind"
)

// A tagged `PREPARE q(int) AS SELECT ... $1; EXECUTE q(5)` was judged as
// EXECUTE, which the judge does not read: "cannot judge", forwarded under
// enforce_unknown: false, or refused as code it cannot see (issue 34,
// item 10). The proxy keeps what a session prepared and judges an
// EXECUTE as the query it runs: the prepared body with each $n replaced
// by its argument cast to the declared type, which is what PostgreSQL
// evaluates.

// Prepared is a PREPARE statement: its name and query.
type Prepared struct {
	Name string
	// Body is the prepared query as the judge reads it, with its $n.
	Body string
	// Comment and CommentErr are the PREPARE's tag (Statement.Comment),
	// which each EXECUTE of it carries: the PREPARE runs nothing.
	Comment    *Comment
	CommentErr error
	types      []*pg.Node // TypeName nodes
}

// Execution is an EXECUTE statement: the name it runs and its
// arguments' parse trees.
type Execution struct {
	Name string
	args []*pg.Node
}

func newExecution(e *pg.ExecuteStmt) *Execution {
	return &Execution{Name: e.Name, args: e.Params}
}

// Bind returns the query e runs when p is the statement it names: p's
// body with each $n replaced by argument n, cast to p's declared type
// for it. ok is false where that text cannot be written (an argument or
// a type that does not deparse, a count that does not fit).
func (e *Execution) Bind(p *Prepared) (string, bool) {
	if len(e.args) < len(p.types) {
		return "", false
	}
	vals := make(map[int]string, len(e.args))
	for i, a := range e.args {
		expr := a
		if i < len(p.types) {
			tn := p.types[i].GetTypeName()
			if tn == nil {
				return "", false
			}
			expr = &pg.Node{Node: &pg.Node_TypeCast{TypeCast: &pg.TypeCast{Arg: a, TypeName: tn, Location: -1}}}
		}
		sel := &pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: &pg.SelectStmt{
			TargetList:  []*pg.Node{{Node: &pg.Node_ResTarget{ResTarget: &pg.ResTarget{Val: expr, Location: -1}}}},
			LimitOption: pg.LimitOption_LIMIT_OPTION_DEFAULT, Op: pg.SetOperation_SETOP_NONE,
		}}}
		text, err := deparseNode(sel)
		if err != nil || !strings.HasPrefix(text, "SELECT ") {
			return "", false
		}
		vals[i+1] = "(" + strings.TrimPrefix(text, "SELECT ") + ")"
	}
	return bind.Substitute(p.Body, vals)
}
