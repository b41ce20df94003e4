package tag

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// A statement that wraps a query runs it: DECLARE ... CURSOR FOR q (at
// each FETCH), EXPLAIN ANALYZE q, COPY (q) TO STDOUT, and PREPARE p AS q
// (at each EXECUTE). Judged, matched against a catalog and checked for
// side effects as their whole text, they were a way around a reference
// (issue 34, items 2 and 6): the judge reads no DECLARE, and a catalog
// fingerprint of the wrapper is not its query's. unwrap judges each on
// the query it runs.

// maxWrapTokens bounds how far into a wrapper its query is looked for:
// the wrappers' own words (EXPLAIN's option list, DECLARE's cursor
// options) are a few tokens.
const maxWrapTokens = 64

// unwrap sets st's class, and its judged text to the query it wraps,
// for a statement n that wraps one; other statements are left as they
// are. A wrapper whose query cannot be found in its text is ClassRun:
// never judged, refused under any reference.
func unwrap(st *Statement, n *pg.Node) {
	var inner *pg.Node
	var what string
	switch {
	case n.GetDeclareCursorStmt() != nil:
		inner, what = n.GetDeclareCursorStmt().Query, "DECLARE CURSOR"
	case n.GetExplainStmt() != nil:
		if !explainAnalyze(n.GetExplainStmt()) {
			return // plain EXPLAIN runs nothing
		}
		inner, what = n.GetExplainStmt().Query, "EXPLAIN ANALYZE"
	case n.GetExecuteStmt() != nil:
		st.Execute = newExecution(n.GetExecuteStmt())
		return
	case n.GetPrepareStmt() != nil:
		inner, what = n.GetPrepareStmt().Query, "PREPARE"
	case n.GetCopyStmt() != nil:
		c := n.GetCopyStmt()
		if c.Query == nil || c.IsFrom || c.IsProgram || c.Filename != "" {
			return // COPY of a table, from the client, or to a file or program: ClassRun
		}
		inner, what = c.Query, "COPY"
	default:
		return
	}
	c, why := Classify(inner)
	q, found := "", false
	if st.JudgedErr == nil {
		q, found = innerQuery(st.Judged, inner)
	}
	switch {
	case c.HasSideEffects() && what == "PREPARE":
		// Nothing runs yet, but EXECUTE will run it under no reference.
		st.Class, st.Why = ClassWrite, "PREPARE of "+why
	case c.HasSideEffects():
		st.Class, st.Why = ClassRun, what+" of "+why
	case !found:
		st.Class, st.Why = ClassRun, what+" (its query could not be read)"
	case what == "PREPARE":
		// Judged (tag, catalog match) on its query; EXECUTE runs it
		// with its arguments (prepared.go).
		st.Judged = q
		st.Prepare = &Prepared{Name: n.GetPrepareStmt().Name, Body: q, types: n.GetPrepareStmt().Argtypes}
	default:
		st.Class, st.Why, st.Judged = c, "", q
	}
	if st.Class == ClassQuery {
		st.Names = calledNames(inner)
	}
}

func explainAnalyze(e *pg.ExplainStmt) bool {
	for _, o := range e.GetOptions() {
		if d := o.GetDefElem(); d != nil && strings.EqualFold(d.Defname, "analyze") && !isFalse(d.Arg) {
			return true
		}
	}
	return false
}

// innerQuery returns the text of judged that is the query inner: a
// suffix from one of its first tokens, or the inside of a parenthesis
// one of them opens, whose parse tree deparses as inner's does.
func innerQuery(judged string, inner *pg.Node) (string, bool) {
	want, err := deparseNode(inner)
	if err != nil {
		return "", false
	}
	sr, err := pg.Scan(judged)
	if err != nil {
		return "", false
	}
	toks := sr.Tokens
	try := func(text string) bool {
		tree, err := pg.Parse(text)
		if err != nil || len(tree.Stmts) != 1 {
			return false
		}
		got, err := deparseNode(tree.Stmts[0].Stmt)
		return err == nil && got == want
	}
	for k := 1; k < len(toks) && k < maxWrapTokens; k++ {
		t := toks[k]
		if t.Token == pg.Token_SQL_COMMENT || t.Token == pg.Token_C_COMMENT {
			continue
		}
		if judged[t.Start:t.End] == "(" {
			if end, ok := closing(judged, toks, k); ok && try(judged[t.End:end]) {
				return strings.TrimSpace(judged[t.End:end]), true
			}
		}
		if rest := judged[t.Start:]; try(rest) {
			return strings.TrimRight(strings.TrimSpace(rest), ";"), true
		}
	}
	return "", false
}

// closing returns the offset of the ')' that closes the '(' at toks[k].
func closing(text string, toks []*pg.ScanToken, k int) (int, bool) {
	depth := 0
	for _, t := range toks[k:] {
		switch text[t.Start:t.End] {
		case "(":
			depth++
		case ")":
			depth--
			if depth == 0 {
				return int(t.Start), true
			}
		}
	}
	return 0, false
}

func deparseNode(n *pg.Node) (string, error) {
	return pg.Deparse(&pg.ParseResult{Stmts: []*pg.RawStmt{{Stmt: n}}})
}

// walkSelects calls f with each SELECT (VALUES, set operation) nested in
// m, outermost first, until f reports true; the top statement itself
// (top) is not passed.
func walkSelects(m protoreflect.Message, top bool, f func(*pg.Node) bool) bool {
	if s, ok := m.Interface().(*pg.SelectStmt); ok && !top {
		if f(&pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: s}}) {
			return true
		}
	}
	_, wrapper := m.Interface().(*pg.Node) // a Node only wraps its one field: still the top
	done := false
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd.Message() == nil || fd.IsMap() {
			return true
		}
		if fd.IsList() {
			l := v.List()
			for i := 0; i < l.Len() && !done; i++ {
				done = walkSelects(l.Get(i).Message(), false, f)
			}
		} else {
			done = walkSelects(v.Message(), top && wrapper, f)
		}
		return !done
	})
	return done
}
