package tag

import (
	"strings"

	"github.com/pgequiv/pgequiv/internal/sqltext"
)

// UnreadEffect names what may give sql side effects, found by the
// relay's own lexer alone (sqltext.Lex, no pg_query call), for the statements the
// proxy answers unread: over max_query_size, or while it is too busy to
// parse them. "" means none was found: every statement starts with
// SELECT, VALUES, TABLE or WITH (or a parenthesis) and no word outside
// literals, comments and quoted names is a keyword of a write (INSERT,
// UPDATE, DELETE, MERGE, INTO, FOR UPDATE/SHARE), of a statement that runs
// code or changes the schema, or the name of a function the judge refuses
// for its side effects (nextval, set_config, advisory locks, ...).
//
// It errs on the side of a side effect: a column named "call" or "share"
// counts, and so does text the lexer rejects (the server then runs none of
// it). It does not see what a function defined in the database does (no
// parse, no catalog): a SELECT of a VOLATILE function that writes is
// found by neither reading; with schema files, UnreadCalls lists the
// calls for the proxy to check.
func UnreadEffect(sql string, strs sqltext.Strings) string {
	toks, err := sqltext.Lex(sql, strs)
	if err != nil {
		return "text the proxy's lexer rejects"
	}
	start := true // at the start of a statement
	pos := 0
	for k := 0; k <= len(toks); k++ {
		end := len(sql)
		if k < len(toks) {
			end = toks[k].Start
		}
		if why := gapEffect(sql[pos:end], &start); why != "" {
			return why
		}
		if k == len(toks) {
			break
		}
		switch toks[k].Kind {
		case sqltext.TokSemicolon:
			start = true
		case sqltext.TokBlockComment, sqltext.TokLineComment:
		default:
			// A literal or a quoted name: no statement begins so (the
			// server rejects it); after one, no word starts one.
			start = false
		}
		pos = toks[k].End
	}
	return ""
}

// queryStarts are the words a read-only statement can begin with.
var queryStarts = map[string]bool{"select": true, "values": true, "table": true, "with": true}

// effectWords are keywords that only statements with side effects hold
// (FOR UPDATE and FOR SHARE lock rows; INTO is SELECT INTO or INSERT).
var effectWords = map[string]bool{
	"insert": true, "update": true, "delete": true, "merge": true, "into": true, "share": true,
	"copy": true, "call": true, "do": true, "execute": true, "truncate": true, "create": true,
	"alter": true, "drop": true, "grant": true, "revoke": true, "lock": true, "notify": true,
	"refresh": true, "vacuum": true, "cluster": true, "reindex": true, "import": true,
}

// gapEffect scans a stretch of sql between literals and comments for
// words; start says whether the next word begins a statement.
func gapEffect(gap string, start *bool) string {
	for i := 0; i < len(gap); {
		c := gap[i]
		switch {
		case c >= '0' && c <= '9':
			// A number, with any trailing letters (1e5, 12abc): no word.
			for i < len(gap) && (sqltext.IsIdentCont(gap[i]) || gap[i] == '.') {
				i++
			}
			*start = false
		case sqltext.IsIdentStart(c):
			j := sqltext.IdentEnd(gap, i)
			w := strings.ToLower(gap[i:j])
			i = j
			if *start {
				*start = false
				if !queryStarts[w] {
					return strings.ToUpper(w)
				}
				continue
			}
			if effectWords[w] {
				return strings.ToUpper(w)
			}
			if sqltext.SideEffectFuncs[w] || strings.HasPrefix(w, "pg_advisory") || strings.HasPrefix(w, "pg_try_advisory") {
				return "a call of " + w
			}
		case c == '(' || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			i++
		default:
			i++
			*start = false
		}
	}
	return ""
}
