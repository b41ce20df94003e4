package exec

import (
	"github.com/pgequiv/pgequiv/planner/plan"
)

// likeOp evaluates [NOT] LIKE and [NOT] ILIKE in either dialect.
func (x *executor) likeOp(ex *plan.Expr, e *env) (Value, error) {
	a, b, err := x.operands(ex.Args[0], ex.Args[1], e)
	if err != nil {
		return Null, err
	}
	if a.IsNull() || b.IsNull() {
		return Null, nil
	}
	if x.lite {
		// SQLite's LIKE matches the operands' text and has no
		// escape character unless ESCAPE is given.
		a, b = Text(x.liteTextOf(a)), Text(x.liteTextOf(b))
		s, p := a.S, b.S
		if ex.Name == plan.OpILike || ex.Name == plan.OpNotILike {
			s, p = asciiLower(s), asciiLower(p)
		}
		m, err := likeEsc(s, p, false)
		if err != nil {
			return Null, err
		}
		return Bool(m == (ex.Name == plan.OpLike || ex.Name == plan.OpILike)), nil
	}
	if a.K != KText || b.K != KText {
		return Null, cannot("LIKE on %s", kindName(a.K))
	}
	if a.Scale == collPGNondet || b.Scale == collPGNondet {
		// PostgreSQL 15 rejects LIKE under a nondeterministic
		// collation.
		return Null, cannot("LIKE under a nondeterministic collation")
	}
	// bpchar's LIKE matches the padded value; a bpchar pattern is
	// cast to text.
	s, p := a.S, textOf(b)
	if ex.Name == plan.OpILike || ex.Name == plan.OpNotILike {
		s, p = asciiLower(s), asciiLower(p)
	}
	m, err := like(s, p)
	if err != nil {
		return Null, err
	}
	return Bool(m == (ex.Name == plan.OpLike || ex.Name == plan.OpILike)), nil
}

// asciiLower folds ASCII letters only: ILIKE here, like SQLite's LIKE,
// leaves other letters' case alone.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// like matches s against a LIKE pattern: % any run, _ one character,
// backslash escapes the next character (PostgreSQL's default escape).
func like(s, p string) (bool, error) { return likeEsc(s, p, true) }

// likeEsc matches s against pattern p; esc makes backslash the escape
// character.
func likeEsc(s, p string, esc bool) (bool, error) {
	sr, pr := []rune(s), []rune(p)
	type tok struct {
		r    rune
		kind byte // 'c' literal, '%' any run, '_' one
	}
	var toks []tok
	for i := 0; i < len(pr); i++ {
		switch pr[i] {
		case '\\':
			if !esc {
				toks = append(toks, tok{pr[i], 'c'})
				continue
			}
			if i+1 == len(pr) {
				return false, queryErr("LIKE pattern must not end with escape character")
			}
			i++
			toks = append(toks, tok{pr[i], 'c'})
		case '%':
			toks = append(toks, tok{kind: '%'})
		case '_':
			toks = append(toks, tok{kind: '_'})
		default:
			toks = append(toks, tok{pr[i], 'c'})
		}
	}
	// m[j] reports whether the first j tokens match the prefix of s read
	// so far; quadratic, never exponential.
	m := make([]bool, len(toks)+1)
	m[0] = true
	for j := 1; j <= len(toks) && toks[j-1].kind == '%'; j++ {
		m[j] = true
	}
	for _, c := range sr {
		next := make([]bool, len(toks)+1)
		for j := 1; j <= len(toks); j++ {
			t := toks[j-1]
			switch t.kind {
			case '%':
				next[j] = next[j-1] || m[j]
			case '_':
				next[j] = m[j-1]
			default:
				next[j] = m[j-1] && t.r == c
			}
		}
		m = next
	}
	return m[len(toks)], nil
}
