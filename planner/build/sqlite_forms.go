package build

import "strings"

// SQLite forms the PostgreSQL parser does not read, rewritten or refused
// here (issue 33, item 13). rewriteSQLiteTokens calls isValueOperand;
// sqliteRejects calls sqliteRegexp.

// isValueOperand reports whether the IS at toks[i] compares with a value
// (x IS 20, x IS NOT 'US'), which SQLite reads as x IS [NOT] DISTINCT
// FROM v, and whether NOT follows it. IS NULL, IS TRUE, IS FALSE and IS
// [NOT] DISTINCT FROM stay as written.
//
// SQLite gives IS the precedence of = and reads a chain of such
// operators left to right; PostgreSQL binds IS DISTINCT FROM looser than
// =, IN, LIKE and BETWEEN. Where such an operator follows the operand
// (x IS 1 = y is (x IS 1) = y in SQLite), the rewrite would change the
// meaning, so IS is left alone and the parser refuses the query: the
// judge cannot read it, which is no wrong verdict.
func isValueOperand(toks []token, i int) (not, ok bool) {
	j := nextNonSpace(toks, i+1)
	if j < len(toks) && toks[j].isWord("not") {
		not = true
		j = nextNonSpace(toks, j+1)
	}
	if j >= len(toks) {
		return false, false
	}
	o := toks[j]
	if o.kind == tokWord {
		switch strings.ToLower(o.text) {
		case "null", "true", "false", "distinct", "unknown", "document", "normalized", "json", "of", "nfc", "nfd", "nfkc", "nfkd":
			return false, false
		}
	}
	if o.kind == tokPunct && o.text != "(" && o.text != "-" && o.text != "+" && o.text != "~" && o.text != "?" {
		return false, false
	}
	return not, !sameLevelFollows(toks, j)
}

// sameLevelFollows reports whether, in the expression that starts at
// toks[j], an operator of IS's level in SQLite (=, ==, <>, !=, IS, IN,
// LIKE, GLOB, MATCH, REGEXP, BETWEEN, NOT ..., ISNULL, NOTNULL) follows at
// the same depth before the expression ends.
func sameLevelFollows(toks []token, j int) bool {
	depth := 0
	for k := j; k < len(toks); k++ {
		t := toks[k]
		switch t.kind {
		case tokPunct:
			switch t.text {
			case "(":
				depth++
			case ")":
				if depth == 0 {
					return false
				}
				depth--
			case ",", ";":
				if depth == 0 {
					return false
				}
			case "==":
				if depth == 0 {
					return true
				}
			case "=":
				// <= and >= bind tighter than IS in both engines; = and
				// != do not.
				if depth == 0 && !(k > 0 && (toks[k-1].text == "<" || toks[k-1].text == ">")) {
					return true
				}
			case ">":
				if depth == 0 && k > 0 && toks[k-1].text == "<" && toks[k-1].pos+1 == t.pos {
					return true // <>
				}
			}
		case tokWord:
			w := strings.ToLower(t.text)
			switch w {
			case "case":
				depth++
				continue
			case "end":
				if depth == 0 {
					return false
				}
				depth--
				continue
			}
			if depth > 0 {
				continue
			}
			switch w {
			case "is", "in", "like", "glob", "match", "regexp", "between", "not", "isnull", "notnull", "escape":
				return true
			case "and", "or", "then", "when", "else", "as", "asc", "desc", "nulls":
				return false
			}
			if isClauseWord(t) && k > j {
				return false
			}
		}
	}
	return false
}

// sqliteISChain reports, as unsupported, an IS [NOT] DISTINCT FROM, or an
// IS with a value, at ts[i] (spaces and comments removed) whose right
// operand is followed by an operator of IS's level: SQLite reads x IS
// DISTINCT FROM y = z as (x IS DISTINCT FROM y) = z, PostgreSQL as x IS
// DISTINCT FROM (y = z).
func sqliteISChain(src string, ts []token, i int) error {
	if !ts[i].isWord("is") {
		return nil
	}
	j := i + 1
	if j < len(ts) && ts[j].isWord("not") {
		j++
	}
	switch {
	case j+1 < len(ts) && ts[j].isWord("distinct") && ts[j+1].isWord("from"):
		j += 2
	case j < len(ts) && ts[j].kind == tokWord && !ts[j].isWord("distinct"):
		switch strings.ToLower(ts[j].text) {
		case "null", "true", "false", "unknown", "document", "normalized", "json", "of", "nfc", "nfd", "nfkc", "nfkd":
			return nil
		}
	}
	if j >= len(ts) || !sameLevelFollows(ts, j) {
		return nil
	}
	return &Error{Msg: "IS followed by an operator of its precedence (=, <>, IN, LIKE, ...) is not supported: SQLite reads the chain left to right",
		Pos: runePos(src, ts[i].pos) + 1, Err: ErrUnsupported}
}

// sqliteRegexp reports the first REGEXP operator or regexp() call of ts
// (spaces and comments removed) as unsupported. SQLite parses x REGEXP y
// as regexp(y, x), a function it does not define: the library refuses
// the query ("no such function: REGEXP") unless the application adds
// one, and the sqlite3 shell adds its own. Which engine runs the query
// decides whether it is valid and what it returns, so the judge neither
// calls it invalid nor proves anything about it.
func sqliteRegexp(src string, ts []token, i int) error {
	t := ts[i]
	if !t.isWord("regexp") {
		return nil
	}
	var prev, next token
	if i > 0 {
		prev = ts[i-1]
	}
	if i+1 < len(ts) {
		next = ts[i+1]
	}
	operand := func(p token) bool {
		switch p.kind {
		case tokNumber, tokString, tokQuoted, tokBacktick:
			return true
		case tokPunct:
			return p.text == ")"
		case tokWord:
			return !isOperatorWord(p) && !isClauseWord(p) && !p.isWord("as")
		}
		return false
	}
	call := next.kind == tokPunct && next.text == "(" && !operand(prev)
	op := operand(prev) || prev.isWord("not") && i > 1 && operand(ts[i-2])
	if !call && !op {
		return nil // a name: a column or table called regexp
	}
	return &Error{Msg: "REGEXP is not supported: SQLite defines no regexp() function (the sqlite3 shell adds one, the library does not), so whether the query runs, and what it returns, is the application's",
		Pos: runePos(src, t.pos) + 1, Err: ErrUnsupported}
}
