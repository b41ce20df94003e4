package build

import (
	"strings"
)

// rewriteSQLite turns SQLite-only surface syntax into PostgreSQL syntax
// that pg_query can parse, keeping meaning:
//
//   - `ident` (backtick identifiers) becomes "ident";
//   - LIMIT a, b becomes LIMIT b OFFSET a;
//   - JOIN t without ON/USING becomes CROSS JOIN t, and LEFT/RIGHT/FULL
//     JOIN t without one becomes LEFT/RIGHT/FULL JOIN t ON true;
//   - == becomes =;
//   - [name] becomes "name";
//   - x IS v and x IS NOT v, v a value, become x IS [NOT] DISTINCT FROM
//     v (isValueOperand);
//   - a 'string' where only a name can stand (a table after FROM or
//     JOIN, an alias after AS or after such a table) becomes "string",
//     as SQLite reads it (stringNamesIdent).
//
// It returns the new text and, for each byte of it, the offset of the
// source byte it came from, so errors can name positions in what the user
// wrote. Double-quoted strings are left alone here: whether "x" is a
// column or a string is decided during name resolution.
func rewriteSQLite(src string) (string, []int32) { return rewriteSQLiteTokens(src, lexSQL(src)) }

// rewriteSQLiteTokens is rewriteSQLite of src lexed into toks.
func rewriteSQLiteTokens(src string, toks []token) (string, []int32) {
	var b strings.Builder
	pos := make([]int32, 0, len(src)+16)
	emit := func(s string, from int) {
		b.WriteString(s)
		for i := 0; i < len(s); i++ {
			pos = append(pos, int32(from))
		}
	}
	onAt := -1 // token before which an outer join's missing ON goes
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if i == onAt {
			emit(" ON true ", t.pos)
		}
		switch {
		case t.kind == tokBacktick:
			inner := strings.ReplaceAll(t.text[1:len(t.text)-1], `"`, `""`)
			emit(`"`+inner+`"`, t.pos)
			continue
		case t.isWord("is"):
			if not, ok := isValueOperand(toks, i); ok {
				// x IS v, x IS NOT v: SQLite's IS compares values as
				// IS [NOT] DISTINCT FROM does (negated).
				if not {
					emit("IS DISTINCT FROM", t.pos)
					i = nextNonSpace(toks, i+1) // the NOT
				} else {
					emit("IS NOT DISTINCT FROM", t.pos)
				}
				continue
			}
		case t.kind == tokString && stringNamesIdent(toks, i):
			emit(stringAsIdent(t.text), t.pos)
			continue
		case t.kind == tokPunct && t.text == "==":
			emit("=", t.pos)
			continue
		case t.isWord("limit"):
			// LIMIT <a> , <b>  →  LIMIT <b> OFFSET <a>
			j := nextNonSpace(toks, i+1)
			k := nextNonSpace(toks, j+1)
			l := nextNonSpace(toks, k+1)
			if l < len(toks) && toks[k].text == "," && toks[j].kind == tokNumber && toks[l].kind == tokNumber {
				emit("LIMIT "+toks[l].text+" OFFSET "+toks[j].text, t.pos)
				i = l
				continue
			}
		case t.isWord("join"):
			end, lacks := joinLacksCondition(toks, i)
			if !lacks {
				break
			}
			if p := prevNonSpace(toks, i-1); p >= 0 && (toks[p].isWord("left") || toks[p].isWord("right") || toks[p].isWord("full") || toks[p].isWord("outer")) {
				// SQLite joins every pair, keeping the outer join's
				// null-extension: ON true. OUTER CROSS JOIN is not SQL.
				onAt = end
				break
			}
			// A preceding INNER must go too: INNER CROSS JOIN is not SQL.
			out := b.String()
			trimmed := strings.TrimRight(out, " \t\r\n")
			if cut := len(trimmed) - len("inner"); cut >= 0 && strings.EqualFold(trimmed[cut:], "inner") && (cut == 0 || !isWordByte(trimmed[cut-1])) {
				b.Reset()
				b.WriteString(out[:cut])
				pos = pos[:cut]
			}
			emit("CROSS JOIN", t.pos)
			continue
		}
		emit(t.text, t.pos)
	}
	if onAt == len(toks) && len(src) > 0 {
		emit(" ON true", len(src)-1)
	}
	return b.String(), pos
}

// stringNamesIdent reports whether the string token toks[i] stands where
// SQLite reads a string as a name, because no literal may stand there: a
// table right after FROM or JOIN (not IS [NOT] DISTINCT FROM 'x', where
// it is a value), an alias after AS, and an alias right after such a
// table (FROM 'flights' 'f', FROM flights 'f').
func stringNamesIdent(toks []token, i int) bool {
	if t := toks[i].text; len(t) < 2 || t[0] != '\'' || t[len(t)-1] != '\'' {
		return false // unterminated, or prefixed (X'..'): leave it to the parser
	}
	p := prevNonSpace(toks, i-1)
	if p < 0 {
		return false
	}
	tableAfter := func(k int) bool { // toks[k] is FROM or JOIN opening a table
		if toks[k].isWord("join") {
			return true
		}
		if !toks[k].isWord("from") {
			return false
		}
		q := prevNonSpace(toks, k-1)
		return q < 0 || !toks[q].isWord("distinct")
	}
	switch {
	case toks[p].isWord("as"), tableAfter(p):
		return true
	case toks[p].text == "," && toks[p].kind == tokPunct:
		return inFromList(toks, p)
	case toks[p].kind == tokWord && !isClauseWord(toks[p]), toks[p].kind == tokQuoted, toks[p].kind == tokBacktick, toks[p].kind == tokString:
		q := prevNonSpace(toks, p-1)
		return q >= 0 && (tableAfter(q) || toks[q].text == "," && toks[q].kind == tokPunct && inFromList(toks, q)) &&
			(toks[p].kind != tokString || stringNamesIdent(toks, p))
	}
	return false
}

// inFromList reports whether the comma toks[c] separates the items of a
// FROM clause: walking back at its parenthesis depth, FROM comes before
// any other clause (ON and JOIN, inside the clause, are passed over).
func inFromList(toks []token, c int) bool {
	depth := 0
	for k := c - 1; k >= 0; k-- {
		t := toks[k]
		switch {
		case t.kind == tokPunct && t.text == ")":
			depth++
		case t.kind == tokPunct && t.text == "(":
			if depth == 0 {
				return false // an argument list or a subquery's start
			}
			depth--
		case depth > 0 || t.kind != tokWord:
		case t.isWord("from"):
			q := prevNonSpace(toks, k-1)
			return q < 0 || !toks[q].isWord("distinct")
		case t.isWord("on") || t.isWord("join") || t.isWord("as") || t.isWord("inner") || t.isWord("left") ||
			t.isWord("cross") || t.isWord("natural") || t.isWord("outer") || t.isWord("and") || t.isWord("or") || t.isWord("not"):
		case isClauseWord(t) || t.isWord("select") || t.isWord("set") || t.isWord("values") || t.isWord("by"):
			return false
		}
	}
	return false
}

// stringAsIdent turns a SQL string into the name it spells: doubled
// single quotes are one, double quotes are doubled.
func stringAsIdent(s string) string {
	body := strings.ReplaceAll(s[1:len(s)-1], "''", "'")
	return `"` + strings.ReplaceAll(body, `"`, `""`) + `"`
}

func prevNonSpace(toks []token, i int) int {
	for i >= 0 && (toks[i].kind == tokSpace || toks[i].kind == tokComment) {
		i--
	}
	return i
}

// isWordByte reports whether c can continue an identifier.
func isWordByte(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

func nextNonSpace(toks []token, i int) int {
	for i < len(toks) && (toks[i].kind == tokSpace || toks[i].kind == tokComment) {
		i++
	}
	return i
}

// joinLacksCondition reports whether the JOIN at toks[i] joins a plain
// table reference (with optional alias) that is not followed by ON or
// USING, and returns the index of the token after that reference. Natural
// and cross joins need no condition.
func joinLacksCondition(toks []token, i int) (int, bool) {
	for j := i - 1; j >= 0; j-- {
		if toks[j].kind == tokSpace || toks[j].kind == tokComment {
			continue
		}
		if toks[j].isWord("cross") || toks[j].isWord("natural") {
			return 0, false
		}
		if toks[j].isWord("left") || toks[j].isWord("right") || toks[j].isWord("full") || toks[j].isWord("outer") || toks[j].isWord("inner") {
			continue // NATURAL LEFT [OUTER] JOIN: look past the join type
		}
		break
	}
	j := nextNonSpace(toks, i+1)
	if j >= len(toks) || toks[j].kind == tokPunct {
		return 0, false // a parenthesized join or subquery: leave it to the parser
	}
	j = nextNonSpace(toks, j+1)
	if j < len(toks) && toks[j].text == "." { // schema.table
		j = nextNonSpace(toks, nextNonSpace(toks, j+1)+1)
	}
	if j < len(toks) && toks[j].isWord("as") {
		j = nextNonSpace(toks, j+1)
	}
	if j < len(toks) && (toks[j].kind == tokWord || toks[j].kind == tokQuoted || toks[j].kind == tokBacktick) && !isClauseWord(toks[j]) {
		j = nextNonSpace(toks, j+1)
	}
	if j >= len(toks) {
		return j, true
	}
	return j, !(toks[j].isWord("on") || toks[j].isWord("using"))
}

var clauseWords = map[string]bool{
	"where": true, "group": true, "order": true, "limit": true, "having": true, "join": true, "inner": true,
	"left": true, "right": true, "full": true, "cross": true, "natural": true, "on": true, "using": true,
	"union": true, "intersect": true, "except": true, "offset": true, "window": true,
}

func isClauseWord(t token) bool { return t.kind == tokWord && clauseWords[strings.ToLower(t.text)] }

type tokKind uint8

const (
	tokSpace tokKind = iota
	tokComment
	tokWord
	tokNumber
	tokString
	tokQuoted
	tokBacktick
	tokPunct
)

type token struct {
	kind tokKind
	text string
	pos  int
}

func (t token) isWord(w string) bool { return t.kind == tokWord && strings.EqualFold(t.text, w) }

// lexSQL splits SQL into coarse tokens. It only needs to be exact about
// strings, quoted names and comments, so that rewrites never touch their
// insides; an unterminated one runs to the end of input and the parser
// reports it.
func lexSQL(s string) []token {
	var toks []token
	i := 0
	for i < len(s) {
		start := i
		c := s[i]
		var k tokKind
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r' || s[i] == '\f') {
				i++
			}
			k = tokSpace
		case c == '-' && i+1 < len(s) && s[i+1] == '-':
			for i < len(s) && s[i] != '\n' {
				i++
			}
			k = tokComment
		case c == '/' && i+1 < len(s) && s[i+1] == '*':
			end := strings.Index(s[i+2:], "*/")
			if end < 0 {
				i = len(s)
			} else {
				i += end + 4
			}
			k = tokComment
		case c == '[':
			// SQLite's [name]: no escapes, the first ] ends it.
			end := strings.IndexByte(s[i+1:], ']')
			if end < 0 {
				i++
				k = tokPunct // unterminated: leave as is for the parser to reject
				break
			}
			i += end + 2
			k = tokBacktick // a quoted name whose body is text[1:len-1]
		case c == '\'' || c == '"' || c == '`':
			i = scanQuoted(s, i, c)
			k = map[byte]tokKind{'\'': tokString, '"': tokQuoted, '`': tokBacktick}[c]
			if k == tokBacktick && (i-start < 2 || s[i-1] != '`') {
				k = tokPunct // unterminated: leave as is for the parser to reject
			}
		case c >= '0' && c <= '9' || (c == '.' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9'):
			for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.' || s[i] == 'e' || s[i] == 'E') {
				i++
			}
			k = tokNumber
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80:
			for i < len(s) && (s[i] == '_' || s[i] == '$' || s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z' || s[i] >= '0' && s[i] <= '9' || s[i] >= 0x80) {
				i++
			}
			k = tokWord
		case c == '=' && i+1 < len(s) && s[i+1] == '=':
			i += 2
			k = tokPunct
		default:
			i++
			k = tokPunct
		}
		toks = append(toks, token{kind: k, text: s[start:i], pos: start})
	}
	return toks
}

func scanQuoted(s string, i int, q byte) int {
	i++
	for i < len(s) {
		if s[i] == q {
			if i+1 < len(s) && s[i+1] == q {
				i += 2
				continue
			}
			return i + 1
		}
		i++
	}
	return i
}
