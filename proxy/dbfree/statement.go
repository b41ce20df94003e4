package dbfree

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/pgequiv/pgequiv/proxy/tag"
)

// stmtKind is what a statement asks of the database-free endpoint.
type stmtKind int

const (
	// kindEmpty: no statement (an empty query or only comments).
	kindEmpty stmtKind = iota
	// kindCheck: SELECT ... FROM pgequiv.check(ref, cand).
	kindCheck
	// kindSession: SET/RESET of a pgequiv setting.
	kindSession
	// kindShow: SHOW of a pgequiv setting.
	kindShow
	// kindLocal: answered from the connection and the schema (see
	// local.go).
	kindLocal
	// kindOther: anything else; answered with the verdict row if it is
	// tagged (comment, session setting or catalog) when it runs, otherwise
	// refused.
	kindOther
)

// arg is one argument of pgequiv.check: a literal or a parameter.
type arg struct {
	literal string
	param   int // 1-based parameter number; 0 for a literal
}

// statement is one analysed SQL statement.
type statement struct {
	kind    stmtKind
	sql     string
	cols    []int // output columns (indices into columns)
	ref     arg
	cand    arg
	session tag.SessionCommand
	show    string // kindShow: the setting's name
	local   *localQuery
	// query: a query or data change (SELECT, INSERT, ...), which a
	// session's pgequiv.reference applies to.
	query   bool
	nParams int  // highest $n in the text
	multi   bool // more than one statement
	// parseErr is pg_query's complaint for a statement that does not
	// parse; it is reported only if the statement turns out untagged.
	parseErr error
}

// analyze classifies one statement. err is a *pgError for a malformed
// pgequiv.check call.
func analyze(sql string) (*statement, *pgError) {
	st := &statement{kind: kindOther, sql: sql, nParams: maxParam(sql)}
	if cmd, ok := tag.ParseSessionCommand(sql); ok && !cmd.All {
		st.kind, st.session = kindSession, cmd
		return st, nil
	}
	if name, ok := tag.ParseShow(sql); ok {
		st.kind, st.show = kindShow, name
		return st, nil
	}
	tree, err := pg.Parse(sql)
	if err != nil {
		st.parseErr = err
		return st, nil
	}
	if len(tree.Stmts) == 0 {
		st.kind = kindEmpty
		return st, nil
	}
	if len(tree.Stmts) != 1 {
		st.multi = true
		return st, nil
	}
	n := tree.Stmts[0].Stmt
	st.query = n.GetSelectStmt() != nil || n.GetInsertStmt() != nil || n.GetUpdateStmt() != nil ||
		n.GetDeleteStmt() != nil || n.GetMergeStmt() != nil
	call, sel := checkCall(n)
	if call == nil {
		if lq := analyzeLocal(sql, n); lq != nil {
			st.kind, st.local = kindLocal, lq
		}
		return st, nil
	}
	if len(call.Args) != 2 || call.AggStar || call.AggDistinct || call.FuncVariadic || len(call.AggOrder) > 0 || call.AggFilter != nil || call.Over != nil {
		return nil, errorf(codeUndefinedFunction, "pgequiv.check takes exactly two arguments: (reference text, candidate text)")
	}
	for i, dst := range []*arg{&st.ref, &st.cand} {
		a, ok := argOf(call.Args[i])
		if !ok {
			return nil, errorf(codeInvalidParameter, "pgequiv.check: argument %d must be a string literal or a parameter ($n)", i+1)
		}
		*dst = a
	}
	cols, perr := targetColumns(sel)
	if perr != nil {
		return nil, perr
	}
	st.kind, st.cols = kindCheck, cols
	return st, nil
}

// checkCall returns the pgequiv.check call of "SELECT ... FROM
// pgequiv.check(...)" with nothing else in the statement.
func checkCall(n *pg.Node) (*pg.FuncCall, *pg.SelectStmt) {
	sel := n.GetSelectStmt()
	if sel == nil || len(sel.FromClause) != 1 || sel.WhereClause != nil || len(sel.GroupClause) > 0 ||
		sel.HavingClause != nil || len(sel.SortClause) > 0 || sel.LimitCount != nil || sel.LimitOffset != nil ||
		len(sel.DistinctClause) > 0 || sel.Op != pg.SetOperation_SETOP_NONE || sel.WithClause != nil || sel.IntoClause != nil {
		return nil, nil
	}
	rf := sel.FromClause[0].GetRangeFunction()
	if rf == nil || len(rf.Functions) != 1 || rf.Lateral || rf.Ordinality || rf.IsRowsfrom {
		return nil, nil
	}
	items := rf.Functions[0].GetList().GetItems()
	if len(items) == 0 {
		return nil, nil
	}
	fc := items[0].GetFuncCall()
	if fc == nil || len(fc.Funcname) != 2 ||
		!strings.EqualFold(fc.Funcname[0].GetString_().GetSval(), "pgequiv") ||
		!strings.EqualFold(fc.Funcname[1].GetString_().GetSval(), "check") {
		return nil, nil
	}
	return fc, sel
}

// argOf reads a string literal or $n, possibly cast (to text).
func argOf(n *pg.Node) (arg, bool) {
	if tc := n.GetTypeCast(); tc != nil {
		n = tc.Arg
	}
	if c := n.GetAConst(); c != nil {
		if s, ok := c.Val.(*pg.A_Const_Sval); ok {
			return arg{literal: s.Sval.Sval}, true
		}
		return arg{}, false
	}
	if p := n.GetParamRef(); p != nil && p.Number > 0 {
		return arg{param: int(p.Number)}, true
	}
	return arg{}, false
}

// targetColumns maps the target list (* or column names) to columns.
func targetColumns(sel *pg.SelectStmt) ([]int, *pgError) {
	var cols []int
	for _, t := range sel.TargetList {
		rt := t.GetResTarget()
		cr := rt.GetVal().GetColumnRef()
		if cr == nil || len(cr.Fields) == 0 {
			return nil, errorf(codeFeatureNotSupported, "pgequiv.check: select * or column names (%s)", columnNames())
		}
		last := cr.Fields[len(cr.Fields)-1]
		if last.GetAStar() != nil {
			for i := range columns {
				cols = append(cols, i)
			}
			continue
		}
		name := last.GetString_().GetSval()
		i := columnIndex(name)
		if i < 0 {
			return nil, errorf(codeUndefinedColumn, "column %q does not exist (pgequiv.check returns %s)", name, columnNames())
		}
		cols = append(cols, i)
	}
	return cols, nil
}

// splitStatements splits a simple Query into its statements. A text that
// does not parse is one statement.
func splitStatements(sql string) []string {
	tree, err := pg.Parse(sql)
	if err != nil || len(tree.Stmts) <= 1 {
		return []string{sql}
	}
	out := make([]string, 0, len(tree.Stmts))
	for i, s := range tree.Stmts {
		start, end := int(s.StmtLocation), int(s.StmtLocation+s.StmtLen)
		if s.StmtLen == 0 || i == len(tree.Stmts)-1 {
			end = len(sql) // the last statement runs to the end, trailing comments included
		}
		out = append(out, sql[start:end])
	}
	return out
}

// maxParams is the most parameters a Bind can carry (int16 count).
const maxParams = 65535

// maxParam returns the highest $n parameter in sql (0 if none), at most
// maxParams+1.
func maxParam(sql string) int {
	if !strings.Contains(sql, "$") {
		return 0
	}
	res, err := pg.Scan(sql)
	if err != nil {
		return 0
	}
	n := 0
	for _, t := range res.Tokens {
		if t.Token != pg.Token_PARAM {
			continue
		}
		v := 0
		for _, ch := range sql[t.Start+1 : t.End] {
			v = min(10*v+int(ch-'0'), maxParams+1) // no overflow; Bind then fails
		}
		n = max(n, v)
	}
	return n
}
