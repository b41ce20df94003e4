package sqltext

import (
	"fmt"

	pg "github.com/pganalyze/pg_query_go/v5"
)

// Stmt is one statement of a (possibly multi-statement) Query text, as
// PostgreSQL splits it.
type Stmt struct {
	// Start and End delimit the statement in the text (End exclusive,
	// without its semicolon). A text of one statement spans it whole.
	Start, End int
	// Node is the statement's parse tree; nil when the text did not
	// parse, or holds no statement.
	Node *pg.Node
}

// Statements is a Query text split into its statements.
type Statements struct {
	Stmts []Stmt
	// Tokens are the text's tokens (Lex) when it is read with backslash
	// strings, which pg_query cannot be told about; nil with standard
	// strings, where pg_query's scanner is PostgreSQL's own.
	Tokens []Token
	// ParseErr is set when the text did not parse: it is then one
	// statement spanning the whole text.
	ParseErr error
}

// Split splits a Query text into its statements as PostgreSQL does
// (pg_query's statement locations). With backslash strings, pg_query
// parses the text with every bare string's body neutralized, so that it
// splits and parses it as the server reads the original. A text the
// lexer rejects is an ErrLex error: the server runs none of it; a
// statement location outside the text, an error of pg_query's.
func Split(sql string, strs Strings) (Statements, error) {
	var out Statements
	parseText := sql
	if strs == BackslashStrings {
		toks, err := Lex(sql, strs)
		if err != nil {
			return out, err
		}
		out.Tokens, parseText = toks, neutralize(sql, toks)
	}
	tree, perr := pg.Parse(parseText)
	switch {
	case perr != nil:
		out.Stmts, out.ParseErr = []Stmt{{Start: 0, End: len(sql)}}, perr
	case len(tree.Stmts) <= 1:
		st := Stmt{Start: 0, End: len(sql)}
		if len(tree.Stmts) == 1 {
			st.Node = tree.Stmts[0].Stmt
		}
		out.Stmts = []Stmt{st}
	default:
		for _, raw := range tree.Stmts {
			st := Stmt{Start: int(raw.StmtLocation), End: int(raw.StmtLocation + raw.StmtLen), Node: raw.Stmt}
			if raw.StmtLen == 0 {
				st.End = len(sql)
			}
			if st.Start < 0 || st.End > len(sql) || st.Start > st.End {
				return out, fmt.Errorf("statement location %d+%d outside the text", raw.StmtLocation, raw.StmtLen)
			}
			out.Stmts = append(out.Stmts, st)
		}
	}
	return out, nil
}

// neutralize returns sql with the body of every bare string replaced by
// x's, byte for byte: pg_query (which reads standard strings) then splits
// and parses it as the server reads the original with backslash strings.
func neutralize(sql string, toks []Token) string {
	b := []byte(sql)
	for _, t := range toks {
		if t.Kind != TokString || !t.Bare {
			continue
		}
		for k := t.BareAt + 1; k < t.End-1; k++ {
			b[k] = 'x'
		}
	}
	return string(b)
}

// PrefixError reports a string that no E prefix can make read the same
// with standard strings: what comes before its quote would glue onto
// the prefix (x'...' would become xE'...').
type PrefixError struct {
	// Offset is where the string's token starts.
	Offset int
}

func (e *PrefixError) Error() string {
	return fmt.Sprintf("the string at offset %d cannot be rewritten for the judge (standard_conforming_strings off)", e.Offset)
}

// EPrefixes lists, for the text sql lexed with backslash strings (toks),
// the offsets between start and end where an E must be inserted so that
// the text reads the same with standard strings: before the quote of
// each bare string that holds a backslash. A string that cannot take one
// is a *PrefixError.
func EPrefixes(sql string, toks []Token, start, end int) ([]int, error) {
	var at []int
	for _, t := range toks {
		if t.Kind != TokString || !t.Bare || !t.Backslash || t.Start < start || t.Start >= end {
			continue
		}
		if t.BareAt > 0 && (IsIdentCont(sql[t.BareAt-1]) || sql[t.BareAt-1] == '$') {
			return nil, &PrefixError{Offset: t.Start}
		}
		at = append(at, t.BareAt)
	}
	return at, nil
}
