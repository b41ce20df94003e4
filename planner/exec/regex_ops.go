package exec

import (
	"strings"
	"unicode/utf8"

	"github.com/pgequiv/pgequiv/planner/plan"
)

// regexOp evaluates s ~ p, s ~* p and s SIMILAR TO p [ESCAPE e] (the
// planner writes !~, !~* and NOT SIMILAR TO as NOT of these). ok is false
// for any other operator.
func (x *executor) regexOp(ex *plan.Expr, e *env) (v Value, ok bool, err error) {
	switch {
	case (ex.Name == plan.OpRegex || ex.Name == plan.OpIRegex) && len(ex.Args) == 2:
	case ex.Name == plan.OpSimilar && (len(ex.Args) == 2 || len(ex.Args) == 3):
	default:
		return Null, false, nil
	}
	if x.lite {
		return Null, true, cannot("%s in SQLite", ex.Name)
	}
	args := make([]Value, len(ex.Args))
	for i, a := range ex.Args {
		v, err := x.eval(a, e)
		if err != nil {
			return Null, true, err
		}
		args[i] = v
	}
	for _, a := range args {
		if a.IsNull() {
			return Null, true, nil
		}
	}
	for _, a := range args {
		if a.K != KText {
			return Null, true, cannot("%s on %s", ex.Name, kindName(a.K))
		}
		if a.B {
			// bpchar's regex operators match the padded value and its
			// pattern's cast is not followed.
			return Null, true, cannot("%s on char(n)", ex.Name)
		}
		if a.Scale == collPGNondet {
			return Null, true, cannot("%s under a nondeterministic collation", ex.Name)
		}
	}
	pattern := args[1].S
	if ex.Name == plan.OpSimilar {
		esc, hasEsc := `\`, true
		if len(args) == 3 {
			esc = args[2].S
			hasEsc = esc != ""
		}
		if pattern, err = similarEscape(pattern, esc, hasEsc); err != nil {
			return Null, true, err
		}
	}
	m, err := areMatch(args[0].S, pattern, ex.Name == plan.OpIRegex)
	if err != nil {
		return Null, true, err
	}
	return Bool(m), true, nil
}

// areMatch reports whether pattern (an ARE) matches somewhere in s.
func areMatch(s, pattern string, icase bool) (bool, error) {
	info := compileARE(pattern, icase)
	if info.err != nil {
		return false, info.err
	}
	if err := info.localeFree(s); err != nil {
		return false, err
	}
	return info.re.MatchString(s), nil
}

// localeFree refuses a subject whose match the database's locale
// decides: non-ASCII text under a class or case folding.
func (info *areInfo) localeFree(s string) error {
	if info.classes && (info.nonASCII || !isASCII(s)) {
		return cannot("regular expression class or case folding on non-ASCII text")
	}
	return nil
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// similarEscape is PostgreSQL 15's similar_escape_internal (regexp.c):
// the ARE that SIMILAR TO matches with. It is a text rewrite, naive
// where PostgreSQL's is (a bracket ends at its first ]), and the ARE it
// writes is then read as any other.
func similarEscape(pat, esc string, hasEsc bool) (string, error) {
	var escRune rune
	if hasEsc {
		if utf8.RuneCountInString(esc) != 1 {
			return "", queryErr("invalid escape string")
		}
		escRune, _ = utf8.DecodeRuneInString(esc)
	}
	var b strings.Builder
	b.WriteString("^(?:")
	nquotes := 0
	afterEscape, inClass := false, false
	for _, c := range pat {
		switch {
		case afterEscape:
			if c == '"' && !inClass {
				switch nquotes {
				case 0:
					b.WriteString("){1,1}?(")
				case 1:
					b.WriteString("){1,1}(?:")
				default:
					return "", queryErr("SQL regular expression may not contain more than two escape-double-quote separators")
				}
				nquotes++
			} else {
				b.WriteByte('\\')
				b.WriteRune(c)
			}
			afterEscape = false
		case hasEsc && c == escRune:
			afterEscape = true
		case inClass:
			if c == '\\' {
				b.WriteByte('\\')
			}
			b.WriteRune(c)
			if c == ']' {
				inClass = false
			}
		case c == '[':
			b.WriteRune(c)
			inClass = true
		case c == '%':
			b.WriteString(".*")
		case c == '_':
			b.WriteByte('.')
		case c == '(':
			b.WriteString("(?:")
		case c == '\\' || c == '.' || c == '^' || c == '$':
			b.WriteByte('\\')
			b.WriteRune(c)
		default:
			b.WriteRune(c)
		}
	}
	if afterEscape {
		return "", cannot("SIMILAR TO pattern ending in its escape character")
	}
	b.WriteString(")$")
	return b.String(), nil
}
