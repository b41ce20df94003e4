package tag

import (
	"strings"

	"github.com/pgequiv/pgequiv/internal/sqltext"
)

// UnreadCalls lists, as NameCall entries, the names sql calls as its
// words read to the relay's own lexer (sqltext.Lex, no pg_query call), for the
// statements the proxy answers unread (over max_query_size, or while it
// is busy): a name, or a dotted chain of them, followed by "(" (comments
// between count for nothing, as for the server), that is not a keyword
// taking a parenthesis. With schema files the proxy refuses such a
// statement when one is neither a read-only built-in nor declared
// IMMUTABLE or STABLE (issue 34, item 3), as it would have once parsed.
// It errs on the side of a call: an alias's column list (AS t(a, b)) or a
// CTE's (WITH w(a) AS ...) reads as a call of t or w. Text the lexer
// rejects gives nil (UnreadEffect refuses it).
func UnreadCalls(sql string, strs sqltext.Strings) []string {
	toks, err := sqltext.Lex(sql, strs)
	if err != nil {
		return nil
	}
	var (
		out   []string
		seen  = map[string]bool{}
		chain []string // the name parts read so far
		// dot: chain ends with a dot; quoted: its last part was quoted.
		dot, quoted bool
		// alias: the chain follows ")" or AS: one name there is an
		// alias, and a "(" after it its column list, never a call
		// (FROM (...) t(a), OVER (, FILTER (, AS MATERIALIZED ().
		alias bool
		// last is the previous word (unquoted), or ")".
		last string
	)
	reset := func() { chain, dot, quoted = chain[:0], false, false }
	part := func(p string, q bool) {
		if len(chain) > 0 && !dot {
			reset() // two names in a row: the first was no call
		}
		if len(chain) == 0 {
			alias = last == ")" || last == "as"
		}
		chain, dot, quoted = append(chain, p), false, q
		last = ""
		if !q {
			last = p
		}
	}
	open := func() {
		if len(chain) > 0 && !dot && !(alias && len(chain) == 1) && (quoted || len(chain) > 1 || !notCalls[chain[0]]) {
			k := NameCall + chainKey(chain)
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
		reset()
	}
	gap := func(g string) {
		for i := 0; i < len(g); {
			c := g[i]
			switch {
			case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
				i++
			case c >= '0' && c <= '9' || c == '$':
				// A number or a parameter, with any trailing letters.
				i++
				for i < len(g) && (sqltext.IsIdentCont(g[i]) || g[i] == '.' || g[i] == '$') {
					i++
				}
				reset()
				last = ""
			case sqltext.IsIdentStart(c):
				j := sqltext.IdentEnd(g, i)
				part(sqltext.FoldIdent(g[i:j]), false)
				i = j
			case c == '.' && len(chain) > 0 && !dot:
				dot = true
				i++
			case c == '(':
				open()
				last = ""
				i++
			default:
				reset()
				last = ""
				if c == ')' {
					last = ")"
				}
				i++
			}
		}
	}
	pos := 0
	for _, t := range toks {
		gap(sql[pos:t.Start])
		switch t.Kind {
		case sqltext.TokBlockComment, sqltext.TokLineComment:
		case sqltext.TokQuotedIdent:
			// U&"..." stays as written: it reads as an unknown call.
			part(sqltext.UnquoteIdent(sql[t.Start:t.End]), true)
		default:
			reset()
			last = ""
		}
		pos = t.End
	}
	gap(sql[pos:])
	return out
}

// chainKey spells a dotted name as CallKey does.
func chainKey(parts []string) string {
	name := quoteDot(parts[len(parts)-1])
	if len(parts) == 1 {
		return name
	}
	if schema := parts[len(parts)-2]; schema != "pg_catalog" {
		return quoteDot(schema) + "." + name
	}
	return name
}

// notCalls are PostgreSQL 15's reserved and column-name keywords
// (kwlist.h): unquoted, no function is named by one, so a "(" after one
// (IN (, CAST(, numeric(10, 2)) is no call of a function that may write.
// Unreserved and type-or-function-name keywords (OVER, FILTER, LEFT,
// RANGE) may name a user's function, and count as calls.
var notCalls = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(notCallWords) {
		m[w] = true
	}
	return m
}()

const notCallWords = `
all analyse analyze and any array as asc asymmetric between bigint bit boolean both case
cast char character check coalesce collate column constraint create current_catalog
current_date current_role current_time current_timestamp current_user dec decimal default
deferrable desc distinct do else end except exists extract false fetch float for foreign
from grant greatest group grouping having in initially inout int integer intersect
interval into json_array json_arrayagg json_object json_objectagg lateral leading least
limit localtime localtimestamp national nchar none normalize not null nullif numeric
offset on only or order out overlay placing position precision primary real references
returning row select session_user setof smallint some substring symmetric system_user
table then time timestamp to trailing treat trim true union unique user using values
varchar variadic when where window with xmlattributes xmlconcat xmlelement xmlexists
xmlforest xmlnamespaces xmlparse xmlpi xmlroot xmlserialize xmltable`
