package tag

import (
	"fmt"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/pgequiv/pgequiv/internal/sqltext"
)

// blockComments lists the spans of the /* */ comments of sql as the
// session's lexer finds them: pg_query's scanner (PostgreSQL's own) for
// standard strings, sqltext.Lex for backslash strings, which pg_query cannot be
// told about.
func blockComments(sql string, strs sqltext.Strings) ([][2]int, error) {
	blocks, _, err := commentSpans(sql, strs)
	return blocks, err
}

// commentSpans lists the spans of sql's /* */ comments and of its --
// line comments that mention a pgequiv tag key (lineTags), as
// blockComments finds them.
func commentSpans(sql string, strs sqltext.Strings) (blocks, lineTags [][2]int, err error) {
	if strs == sqltext.StandardStrings {
		res, err := pg.Scan(sql)
		if err != nil {
			return nil, nil, fmt.Errorf("%w: %v", sqltext.ErrLex, err)
		}
		for _, t := range res.Tokens {
			switch t.Token {
			case pg.Token_C_COMMENT:
				if t.Start < 0 || int(t.End) > len(sql) || t.End-t.Start < 4 {
					return nil, nil, fmt.Errorf("%w: comment token %d..%d outside the text", sqltext.ErrLex, t.Start, t.End)
				}
				blocks = append(blocks, [2]int{int(t.Start), int(t.End)})
			case pg.Token_SQL_COMMENT:
				if t.Start < 0 || int(t.End) > len(sql) || t.Start > t.End {
					return nil, nil, fmt.Errorf("%w: comment token %d..%d outside the text", sqltext.ErrLex, t.Start, t.End)
				}
				if isLineTag(sql[t.Start:t.End]) {
					lineTags = append(lineTags, [2]int{int(t.Start), int(t.End)})
				}
			}
		}
		return blocks, lineTags, nil
	}
	toks, err := sqltext.Lex(sql, strs)
	if err != nil {
		return nil, nil, err
	}
	for _, t := range toks {
		switch {
		case t.Kind == sqltext.TokBlockComment:
			blocks = append(blocks, [2]int{t.Start, t.End})
		case t.Kind == sqltext.TokLineComment && isLineTag(sql[t.Start:t.End]):
			lineTags = append(lineTags, [2]int{t.Start, t.End})
		}
	}
	return blocks, lineTags, nil
}

// isLineTag reports whether a -- comment holds what looks like a pgequiv
// tag (pgequiv_ref or pgequiv_ref_id, any case). The server skips it as
// it skips any comment, and so does the proxy's tag reader: such a tag
// (an ORM appending a sqlcommenter comment after a -- comment of its
// own, or an attacker hiding one) is malformed, never absent, so that it
// cannot turn a tagged statement into an untagged one.
func isLineTag(comment string) bool {
	return sqltext.ContainsFold([]byte(comment), KeyRef)
}
