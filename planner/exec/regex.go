package exec

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// PostgreSQL's regular expressions (ARE, "advanced" REs, the flavour of
// ~, ~*, SIMILAR TO, regexp_replace and substring) are not Go's (RE2):
// \b is a backspace there and a word boundary here, . matches a newline
// there, \s includes \v there, classes are the database's locale there
// and Unicode here, and PostgreSQL has backreferences and lookahead,
// which RE2 lacks. So a pattern is never handed to Go as written: the
// parser below reads it as PostgreSQL's regc_parse.c does, for the part
// of the language it knows, and writes an RE2 pattern with the same
// meaning (every literal escaped, every class spelled out). Anything
// else is ErrCannotExecute, never a guess: backreferences, lookaround,
// the word constraints \m \M \y \Y, numeric, \x, \u and \c escapes,
// collating elements, embedded options, and the errors PostgreSQL raises
// for malformed patterns but not verified here.
//
// Classes (\d, \w, [[:alpha:]], ...) and case folding follow the C
// locale (ASCII only, what the executor's text model assumes); on a
// subject or pattern with non-ASCII characters, where the database's
// locale would decide, the match cannot execute.

// areInfo is what the translation found out about a pattern.
type areInfo struct {
	re *regexp.Regexp
	// longest is re choosing leftmost-longest matches: PostgreSQL's
	// choice for a pattern with no non-greedy quantifier.
	longest *regexp.Regexp
	// syn is re's syntax tree, simplified.
	syn *syntax.Regexp
	// classes: the pattern uses a character class or case folding, which
	// the locale decides for non-ASCII characters.
	classes bool
	// lazy: a non-greedy quantifier, which makes PostgreSQL's choice of
	// match (not whether there is one) differ from leftmost-longest.
	lazy bool
	// groups counts the capturing parentheses.
	groups int
	// nullable: the pattern can match the empty string somewhere.
	nullable bool
	nonASCII bool
	err      error // a query error (a pattern PostgreSQL rejects) or cannot
}

// areCache holds translated patterns: a refutation runs the same
// constant pattern on hundreds of databases.
var areCache sync.Map // areKey → *areInfo

var areCacheSize struct {
	sync.Mutex
	n int
}

const areCacheMax = 4096

type areKey struct {
	pattern string
	icase   bool
}

// compileARE translates a PostgreSQL ARE (icase for ~* and the 'i'
// flag) into a Go regexp with the same meaning.
func compileARE(pattern string, icase bool) *areInfo {
	k := areKey{pattern, icase}
	if v, ok := areCache.Load(k); ok {
		return v.(*areInfo)
	}
	info := translateARE(pattern, icase)
	areCacheSize.Lock()
	if areCacheSize.n < areCacheMax {
		areCacheSize.n++
		areCache.Store(k, info)
	}
	areCacheSize.Unlock()
	return info
}

func translateARE(pattern string, icase bool) *areInfo {
	p := &areParser{src: []rune(pattern), icase: icase}
	p.info.classes = icase
	for _, r := range pattern {
		if r >= utf8.RuneSelf {
			p.info.nonASCII = true
		}
	}
	var out strings.Builder
	out.WriteString("(?s)")
	if err := p.re(&out, 0); err != nil {
		return &areInfo{err: err}
	}
	if p.pos < len(p.src) {
		// A ) with no (.
		return &areInfo{err: queryErr("invalid regular expression: parentheses () not balanced")}
	}
	re, err := regexp.Compile(out.String())
	if err != nil {
		return &areInfo{err: cannot("regular expression %q: %v", pattern, err)}
	}
	parsed, err := syntax.Parse(out.String(), syntax.Perl)
	if err != nil {
		return &areInfo{err: cannot("regular expression %q: %v", pattern, err)}
	}
	if prog, err := syntax.Compile(parsed.Simplify()); err != nil || len(prog.Inst) > maxAREInsts {
		// PostgreSQL rejects large automata ("regular expression is
		// too complex") by a measure of its own.
		return &areInfo{err: cannot("regular expression %q is large", pattern)}
	}
	info := p.info
	info.re = re
	info.longest = regexp.MustCompile(re.String())
	info.longest.Longest()
	info.syn = parsed.Simplify()
	info.nullable = nullable(parsed)
	return &info
}

// maxAREInsts bounds the patterns run: far below where PostgreSQL
// finds a pattern too complex.
const maxAREInsts = 5000

var (
	errQuantifier = queryErr("invalid regular expression: quantifier operand invalid")
	errRange      = queryErr("invalid regular expression: invalid character range")
)

type areParser struct {
	src   []rune
	pos   int
	icase bool
	info  areInfo
}

func (p *areParser) more() bool { return p.pos < len(p.src) }
func (p *areParser) peek() rune { return p.src[p.pos] }

// re reads branches separated by | up to an unmatched ) or the end.
func (p *areParser) re(out *strings.Builder, depth int) error {
	if depth > 100 {
		return cannot("regular expression nested too deeply")
	}
	for {
		if err := p.branch(out, depth); err != nil {
			return err
		}
		if !p.more() || p.peek() != '|' {
			return nil
		}
		p.pos++
		out.WriteByte('|')
	}
}

func (p *areParser) branch(out *strings.Builder, depth int) error {
	for p.more() {
		c := p.peek()
		if c == '|' || c == ')' {
			return nil
		}
		quantifiable, err := p.atom(out, depth)
		if err != nil {
			return err
		}
		if err := p.quantifier(out, quantifiable); err != nil {
			return err
		}
	}
	return nil
}

// atom writes one atom or constraint; quantifiable is false for a
// constraint (^, $, \A, \Z), which PostgreSQL does not let a quantifier
// follow.
func (p *areParser) atom(out *strings.Builder, depth int) (quantifiable bool, err error) {
	c := p.peek()
	p.pos++
	switch c {
	case '(':
		capture := true
		if p.more() && p.peek() == '?' {
			if p.pos+1 < len(p.src) && p.src[p.pos+1] == ':' {
				p.pos += 2
				capture = false
			} else {
				return false, cannot("regular expression (? form (lookaround or embedded options)")
			}
		}
		if capture {
			p.info.groups++
			out.WriteByte('(')
		} else {
			out.WriteString("(?:")
		}
		if err := p.re(out, depth+1); err != nil {
			return false, err
		}
		if !p.more() {
			return false, queryErr("invalid regular expression: parentheses () not balanced")
		}
		p.pos++ // )
		out.WriteByte(')')
		return true, nil
	case '[':
		return true, p.bracket(out)
	case '.':
		out.WriteByte('.')
		return true, nil
	case '^':
		out.WriteByte('^')
		return false, nil
	case '$':
		out.WriteByte('$')
		return false, nil
	case '\\':
		return p.escape(out)
	case '*', '+', '?':
		return false, errQuantifier
	case '{':
		if p.more() && isDigit(p.peek()) {
			return false, errQuantifier
		}
	}
	p.literal(out, c)
	return true, nil
}

// literal writes the character c (and, under icase, its other case).
func (p *areParser) literal(out *strings.Builder, c rune) {
	if p.icase && isASCIILetter(c) {
		out.WriteString("[" + quoteRune(c) + quoteRune(otherCase(c)) + "]")
		return
	}
	out.WriteString(quoteRune(c))
}

// escape reads the escape after a backslash outside a bracket.
func (p *areParser) escape(out *strings.Builder) (bool, error) {
	if !p.more() {
		return false, queryErr("invalid regular expression: invalid escape \\ sequence")
	}
	c := p.peek()
	p.pos++
	if cls, ok := classEscapes[c]; ok {
		p.info.classes = true
		out.WriteString(cls)
		return true, nil
	}
	if r, ok := charEscapes[c]; ok {
		p.literal(out, r)
		return true, nil
	}
	switch c {
	case 'A':
		out.WriteString(`\A`)
		return false, nil
	case 'Z':
		out.WriteString(`\z`)
		return false, nil
	}
	if isASCIILetter(c) || isDigit(c) {
		// Backreferences, octal, \x, \u, \U, \c, the word constraints
		// \m \M \y \Y, and the letters PostgreSQL rejects.
		return false, cannot("regular expression escape \\%c", c)
	}
	p.literal(out, c)
	return true, nil
}

// quantifier reads an optional quantifier after an atom.
func (p *areParser) quantifier(out *strings.Builder, quantifiable bool) error {
	if !p.more() {
		return nil
	}
	var q string
	switch c := p.peek(); c {
	case '*', '+', '?':
		p.pos++
		q = string(c)
	case '{':
		if p.pos+1 >= len(p.src) || !isDigit(p.src[p.pos+1]) {
			return nil // a literal {, the next atom
		}
		end := p.pos + 1
		for end < len(p.src) && p.src[end] != '}' {
			end++
		}
		if end == len(p.src) {
			return queryErr("invalid regular expression: braces {} not balanced")
		}
		b, ok := parseBound(string(p.src[p.pos+1 : end]))
		if !ok {
			return queryErr("invalid regular expression: invalid repetition count(s)")
		}
		p.pos = end + 1
		q = b
	default:
		return nil
	}
	if !quantifiable {
		return errQuantifier
	}
	if p.more() && p.peek() == '?' {
		p.pos++
		q += "?"
		p.info.lazy = true
	}
	if p.more() {
		switch p.peek() {
		case '*', '+', '?':
			return errQuantifier
		case '{':
			if p.pos+1 < len(p.src) && isDigit(p.src[p.pos+1]) {
				return errQuantifier
			}
		}
	}
	out.WriteString(q)
	return nil
}

// parseBound reads m, m, or m,n (at most 255, PostgreSQL's DUPMAX) and
// writes it back in RE2's syntax.
func parseBound(s string) (string, bool) {
	a, b, comma := strings.Cut(s, ",")
	m, err := strconv.Atoi(a)
	if err != nil || m > 255 || a == "" || a[0] == '+' || a[0] == '-' {
		return "", false
	}
	switch {
	case !comma:
		return "{" + strconv.Itoa(m) + "}", true
	case b == "":
		return "{" + strconv.Itoa(m) + ",}", true
	}
	n, err := strconv.Atoi(b)
	if err != nil || n > 255 || n < m || b[0] == '+' || b[0] == '-' {
		return "", false
	}
	return "{" + strconv.Itoa(m) + "," + strconv.Itoa(n) + "}", true
}

// runeSet is a set of characters as ranges, with its negation.
type runeSet struct {
	ranges [][2]rune
	negate bool
}

func (s *runeSet) add(lo, hi rune) { s.ranges = append(s.ranges, [2]rune{lo, hi}) }

// bracket reads a bracket expression after its [.
func (p *areParser) bracket(out *strings.Builder) error {
	var set runeSet
	if p.more() && p.peek() == '^' {
		set.negate = true
		p.pos++
	}
	first := true
	for {
		if !p.more() {
			return queryErr("invalid regular expression: brackets [] not balanced")
		}
		c := p.peek()
		if c == ']' && !first {
			p.pos++
			break
		}
		if c == '-' && !first && p.pos+1 < len(p.src) && p.src[p.pos+1] != ']' {
			// A - that neither starts nor ends the list nor a range.
			return errRange
		}
		first = false
		lo, isChar, err := p.bracketElem(&set)
		if err != nil {
			return err
		}
		if !isChar {
			continue
		}
		if p.pos+1 < len(p.src) && p.peek() == '-' && p.src[p.pos+1] != ']' {
			p.pos++
			hi, hiChar, err := p.bracketElem(&set)
			if err != nil {
				return err
			}
			if !hiChar || hi < lo {
				return errRange
			}
			set.add(lo, hi)
			continue
		}
		set.add(lo, lo)
	}
	if p.icase {
		// PostgreSQL adds both cases of each character before
		// negating (regc_locale.c's range and allcases).
		for _, r := range set.ranges {
			for c := max(r[0], 'A'); c <= min(r[1], 'z'); c++ {
				if isASCIILetter(c) {
					o := otherCase(c)
					set.add(o, o)
				}
			}
		}
	}
	out.WriteString(set.String())
	return nil
}

// bracketElem reads one element of a bracket expression: a character
// (returned, isChar) or a class (added to set).
func (p *areParser) bracketElem(set *runeSet) (r rune, isChar bool, err error) {
	c := p.peek()
	p.pos++
	switch {
	case c == '[' && p.more() && (p.peek() == '.' || p.peek() == '='):
		return 0, false, cannot("regular expression collating element or equivalence class")
	case c == '[' && p.more() && p.peek() == ':':
		end := strings.Index(string(p.src[p.pos+1:]), ":]")
		if end < 0 {
			return 0, false, cannot("regular expression unclosed [:")
		}
		name := string(p.src[p.pos+1:])[:end]
		p.pos += 1 + utf8.RuneCountInString(name) + 2
		ranges, ok := posixClasses[name]
		if !ok {
			return 0, false, queryErr("invalid regular expression: invalid character class")
		}
		p.info.classes = true
		set.ranges = append(set.ranges, ranges...)
		return 0, false, nil
	case c == '\\':
		if !p.more() {
			return 0, false, queryErr("invalid regular expression: invalid escape \\ sequence")
		}
		e := p.peek()
		p.pos++
		switch e {
		case 'd':
			p.info.classes = true
			set.ranges = append(set.ranges, posixClasses["digit"]...)
			return 0, false, nil
		case 's':
			p.info.classes = true
			set.ranges = append(set.ranges, posixClasses["space"]...)
			return 0, false, nil
		case 'w':
			p.info.classes = true
			set.ranges = append(set.ranges, posixClasses["word"]...)
			return 0, false, nil
		}
		if r, ok := charEscapes[e]; ok {
			return r, true, nil
		}
		if isASCIILetter(e) || isDigit(e) {
			return 0, false, cannot("regular expression escape \\%c in brackets", e)
		}
		return e, true, nil
	}
	return c, true, nil
}

// String writes the set as an RE2 class, every member escaped.
func (s runeSet) String() string {
	var b strings.Builder
	b.WriteByte('[')
	if s.negate {
		b.WriteByte('^')
	}
	if len(s.ranges) == 0 {
		// Only ^ (or nothing) in the brackets cannot happen: ] first
		// is a member. Kept safe anyway.
		b.WriteString(`\x{0}-\x{10FFFF}`)
		s.negate = !s.negate
	}
	for _, r := range s.ranges {
		b.WriteString(quoteRune(r[0]))
		if r[1] != r[0] {
			b.WriteByte('-')
			b.WriteString(quoteRune(r[1]))
		}
	}
	b.WriteByte(']')
	return b.String()
}

func quoteRune(r rune) string { return fmt.Sprintf(`\x{%x}`, r) }

func isDigit(c rune) bool       { return '0' <= c && c <= '9' }
func isASCIILetter(c rune) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func otherCase(c rune) rune {
	if 'a' <= c && c <= 'z' {
		return c - 'a' + 'A'
	}
	return c - 'A' + 'a'
}

// posixClasses are PostgreSQL's classes in the C locale: ASCII only.
var posixClasses = map[string][][2]rune{
	"alnum":  {{'0', '9'}, {'A', 'Z'}, {'a', 'z'}},
	"alpha":  {{'A', 'Z'}, {'a', 'z'}},
	"ascii":  {{0, 0x7f}},
	"blank":  {{' ', ' '}, {'\t', '\t'}},
	"cntrl":  {{0, 0x1f}, {0x7f, 0x7f}},
	"digit":  {{'0', '9'}},
	"graph":  {{0x21, 0x7e}},
	"lower":  {{'a', 'z'}},
	"print":  {{0x20, 0x7e}},
	"punct":  {{'!', '/'}, {':', '@'}, {'[', '`'}, {'{', '~'}},
	"space":  {{'\t', '\r'}, {' ', ' '}},
	"upper":  {{'A', 'Z'}},
	"xdigit": {{'0', '9'}, {'A', 'F'}, {'a', 'f'}},
	"word":   {{'0', '9'}, {'A', 'Z'}, {'a', 'z'}, {'_', '_'}},
}

// classEscapes are \d \s \w and their complements outside brackets.
var classEscapes = map[rune]string{
	'd': runeSet{ranges: posixClasses["digit"]}.String(),
	's': runeSet{ranges: posixClasses["space"]}.String(),
	'w': runeSet{ranges: posixClasses["word"]}.String(),
	'D': runeSet{ranges: posixClasses["digit"], negate: true}.String(),
	'S': runeSet{ranges: posixClasses["space"], negate: true}.String(),
	'W': runeSet{ranges: posixClasses["word"], negate: true}.String(),
}

// charEscapes are the ARE escapes for single characters (\B is a
// backslash, \b a backspace).
var charEscapes = map[rune]rune{
	'a': 0x07, 'b': 0x08, 'B': '\\', 'e': 0x1b, 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t', 'v': '\v',
}

// nullable reports whether re can match the empty string somewhere.
func nullable(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpLiteral:
		return len(re.Rune) == 0
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL, syntax.OpNoMatch:
		return false
	case syntax.OpStar, syntax.OpQuest:
		return true
	case syntax.OpRepeat:
		return re.Min == 0 || nullable(re.Sub[0])
	case syntax.OpPlus, syntax.OpCapture:
		return nullable(re.Sub[0])
	case syntax.OpConcat:
		for _, s := range re.Sub {
			if !nullable(s) {
				return false
			}
		}
		return true
	case syntax.OpAlternate:
		for _, s := range re.Sub {
			if nullable(s) {
				return true
			}
		}
		return false
	}
	return true // empty match, anchors, word boundaries
}
