package exec

import (
	"regexp/syntax"
	"strings"
)

// The regular expression functions: regexp_replace, regexp_like and
// substring(s FROM pattern) / substring(s SIMILAR p ESCAPE e). Where a
// function returns the text a match covers, PostgreSQL picks the
// leftmost match and, for a pattern whose quantifiers are all greedy,
// the longest there: Go's leftmost-longest mode. A non-greedy quantifier
// makes PostgreSQL's choice its own (the pattern's "greediness"), so such
// a pattern cannot execute here; so can a parenthesized subexpression
// whose extent the match does not fix (PostgreSQL's rules for
// subexpressions are not Go's).

// reFlags reads a flags argument: only g (when allowed), i and c.
func reFlags(name, flags string, global bool) (icase, g bool, err error) {
	for _, c := range flags {
		switch {
		case c == 'i':
			icase = true
		case c == 'c':
			icase = false
		case c == 'g' && global:
			g = true
		default:
			return false, false, cannot("%s flag %q", name, c)
		}
	}
	return icase, g, nil
}

func textArgs(name string, a []Value, min, max int) error {
	if len(a) < min || len(a) > max {
		return cannot("%s of %d arguments", name, len(a))
	}
	for _, v := range a {
		if v.K != KText || v.B {
			return cannot("%s of %s", name, kindName(v.K))
		}
		if v.Scale == collPGNondet {
			return cannot("%s under a nondeterministic collation", name)
		}
	}
	return nil
}

// extentInfo compiles pattern for a function that returns what a match
// covers.
func extentInfo(name, s, pattern string, icase bool) (*areInfo, error) {
	info := compileARE(pattern, icase)
	if info.err != nil {
		return nil, info.err
	}
	if err := info.localeFree(s); err != nil {
		return nil, err
	}
	if info.lazy {
		return nil, cannot("%s with a non-greedy quantifier", name)
	}
	return info, nil
}

// pgRegexpReplace is regexp_replace(source, pattern, replacement [,
// flags]). The replacement may use \& (the match) and \\ (a backslash);
// \1 to \9 name subexpressions, not modelled.
func pgRegexpReplace(a []Value) (Value, error) {
	if err := textArgs("regexp_replace", a, 3, 4); err != nil {
		return Null, err
	}
	icase, global := false, false
	if len(a) == 4 {
		var err error
		if icase, global, err = reFlags("regexp_replace", a[3].S, true); err != nil {
			return Null, err
		}
	}
	s := a[0].S
	info, err := extentInfo("regexp_replace", s, a[1].S, icase)
	if err != nil {
		return Null, err
	}
	repl, err := replacementParts(a[2].S)
	if err != nil {
		return Null, err
	}
	var locs [][]int
	if global {
		if info.nullable {
			// PostgreSQL retries right after an empty match, Go does
			// not: where they meet, they differ.
			return Null, cannot("regexp_replace 'g' with a pattern that matches an empty string")
		}
		locs = info.longest.FindAllStringIndex(s, -1)
	} else if loc := info.longest.FindStringIndex(s); loc != nil {
		locs = [][]int{loc}
	}
	var b strings.Builder
	prev := 0
	for _, loc := range locs {
		b.WriteString(s[prev:loc[0]])
		for _, part := range repl {
			if part == nil {
				b.WriteString(s[loc[0]:loc[1]])
			} else {
				b.WriteString(*part)
			}
		}
		prev = loc[1]
	}
	b.WriteString(s[prev:])
	return Text(b.String()), nil
}

// replacementParts splits a replacement into literal texts and nils for
// \& (the whole match).
func replacementParts(r string) ([]*string, error) {
	var parts []*string
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			s := lit.String()
			parts = append(parts, &s)
			lit.Reset()
		}
	}
	for i := 0; i < len(r); i++ {
		if r[i] != '\\' {
			lit.WriteByte(r[i])
			continue
		}
		if i+1 == len(r) {
			return nil, cannot("regexp_replace replacement ending in a backslash")
		}
		i++
		switch r[i] {
		case '\\':
			lit.WriteByte('\\')
		case '&':
			flush()
			parts = append(parts, nil)
		default:
			return nil, cannot("regexp_replace replacement escape \\%c", r[i])
		}
	}
	flush()
	return parts, nil
}

// pgRegexpLike is regexp_like(string, pattern [, flags]).
func pgRegexpLike(a []Value) (Value, error) {
	if err := textArgs("regexp_like", a, 2, 3); err != nil {
		return Null, err
	}
	icase := false
	if len(a) == 3 {
		var err error
		if icase, _, err = reFlags("regexp_like", a[2].S, false); err != nil {
			return Null, err
		}
	}
	m, err := areMatch(a[0].S, a[1].S, icase)
	if err != nil {
		return Null, err
	}
	return Bool(m), nil
}

// pgRegexSubstring is substring(s FROM pattern) (two arguments) and
// substring(s SIMILAR pattern ESCAPE e) (three): the text of the first
// parenthesized subexpression if the pattern has one, else of the whole
// match; NULL when nothing matches.
func pgRegexSubstring(a []Value) (Value, error) {
	if err := textArgs("substring", a, 2, 3); err != nil {
		return Null, err
	}
	pattern := a[1].S
	if len(a) == 3 {
		var err error
		if pattern, err = similarEscape(pattern, a[2].S, a[2].S != ""); err != nil {
			return Null, err
		}
	}
	s := a[0].S
	info, err := extentInfo("substring", s, pattern, false)
	if err != nil {
		return Null, err
	}
	switch {
	case info.groups == 0:
		loc := info.longest.FindStringIndex(s)
		if loc == nil {
			return Null, nil
		}
		return Text(s[loc[0]:loc[1]]), nil
	case info.groups == 1 && groupFixed(info.syn):
		m := info.longest.FindStringSubmatchIndex(s)
		if m == nil || m[2] < 0 {
			return Null, nil
		}
		return Text(s[m[2]:m[3]]), nil
	}
	return Null, cannot("substring with a subexpression the match does not fix")
}

// groupFixed reports whether re is its one capture between parts that
// each match strings of one length only: the match's extent then fixes
// the capture's.
func groupFixed(re *syntax.Regexp) bool {
	subs := []*syntax.Regexp{re}
	if re.Op == syntax.OpConcat {
		subs = re.Sub
	}
	found := false
	for _, s := range subs {
		if s.Op == syntax.OpCapture && !found {
			found = true
			continue
		}
		if _, ok := fixedLen(s); !ok {
			return false
		}
	}
	return found
}

// fixedLen is the one length (in characters) of the strings re matches;
// ok is false when they vary or re holds a capture.
func fixedLen(re *syntax.Regexp) (int, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		return len(re.Rune), true
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return 1, true
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return 0, true
	case syntax.OpConcat:
		n := 0
		for _, s := range re.Sub {
			k, ok := fixedLen(s)
			if !ok {
				return 0, false
			}
			n += k
		}
		return n, true
	case syntax.OpAlternate:
		n := -1
		for _, s := range re.Sub {
			k, ok := fixedLen(s)
			if !ok || n >= 0 && k != n {
				return 0, false
			}
			n = k
		}
		return n, n >= 0
	case syntax.OpRepeat:
		k, ok := fixedLen(re.Sub[0])
		if !ok || re.Min != re.Max {
			return 0, false
		}
		return k * re.Min, true
	}
	return 0, false
}
