package sqltext

import (
	"errors"
	"fmt"
	"strings"
)

// Strings says how a session's lexer reads a bare '...' string: the
// standard way (standard_conforming_strings = on, the default) or with
// backslash escapes, as E'...' (standard_conforming_strings = off).
type Strings uint8

const (
	// StandardStrings: backslashes are ordinary characters in '...'.
	StandardStrings Strings = iota
	// BackslashStrings: '...' is read as E'...'; \' does not end it.
	BackslashStrings
)

func (s Strings) String() string {
	if s == BackslashStrings {
		return "off"
	}
	return "on"
}

// TokenKind is the kind of a lexed token the relay cares about.
type TokenKind uint8

// Token kinds. Keywords, identifiers, numbers and operators are not
// reported: only what decides where comments, literals and statements
// begin and end.
const (
	// TokBlockComment is /* ... */, nested comments included.
	TokBlockComment TokenKind = iota + 1
	// TokLineComment is -- up to the end of the line.
	TokLineComment
	// TokString is a quoted literal: '...', E'...', B'...', X'...',
	// N'...', U&'...', with its continuations on later lines.
	TokString
	// TokDollar is a dollar-quoted string, $tag$...$tag$.
	TokDollar
	// TokQuotedIdent is "..." or U&"...".
	TokQuotedIdent
	// TokSemicolon separates statements.
	TokSemicolon
	// TokNumber is a number with any trailing junk (1, 1.5, 0x1F, 1e5,
	// 12abc): reported only with Lexer.Numbers.
	TokNumber
)

// Token is one lexed token; Start and End are byte offsets, End
// exclusive.
type Token struct {
	Kind       TokenKind
	Start, End int
	// Bare marks a string that begins with a quote the session's setting
	// decides about ('...' or the quote of N'...'); BareAt is that
	// quote's offset. Backslash marks a string read with backslash
	// escapes that holds a backslash.
	Bare      bool
	BareAt    int
	Backslash bool
}

// ErrLex marks text PostgreSQL's lexer rejects (an unterminated literal or
// comment, a Unicode string with standard_conforming_strings off): the
// server runs none of a Query that holds it.
var ErrLex = errors.New("text the lexer rejects")

// Lex splits sql as PostgreSQL's lexer (scan.l) does, reporting comments,
// literals, quoted identifiers and semicolons. It is written after the
// lexer of PostgreSQL 15 and is checked against pg_query's scanner (fuzz
// tests) and against a real server with standard_conforming_strings off
// (the relay's bypass tests): comments are whitespace to PostgreSQL, so
// what the relay strips or reads as a tag must be exactly what the server
// skips.
func Lex(sql string, strs Strings) ([]Token, error) {
	return Lexer{Strings: strs, DashContinuation: true}.Lex(sql)
}

// Lexer holds the settings of a lexing that is not the server's own.
// DashContinuation: a -- comment may sit between the parts of a
// continued string, as PostgreSQL's server lexer allows ('a' -- note,
// newline, 'b' is 'ab'); pg_query's scanner does not, and the tests
// compare with it without. Numbers: report numbers too (TokNumber), for
// the relay's statement shapes.
type Lexer struct {
	Strings          Strings
	DashContinuation bool
	Numbers          bool
}

// Lex lexes sql as Lex does, with lx's settings.
func (lx Lexer) Lex(sql string) ([]Token, error) {
	strs := lx.Strings
	var out []Token
	n := len(sql)
	for i := 0; i < n; {
		c := sql[i]
		switch {
		case c == '-' && i+1 < n && sql[i+1] == '-':
			j := i + 2
			for j < n && sql[j] != '\n' && sql[j] != '\r' {
				j++
			}
			out = append(out, Token{Kind: TokLineComment, Start: i, End: j})
			i = j
		case c == '/' && i+1 < n && sql[i+1] == '*':
			j, err := blockCommentEnd(sql, i)
			if err != nil {
				return out, err
			}
			out = append(out, Token{Kind: TokBlockComment, Start: i, End: j})
			i = j
		case c == '\'':
			t, err := lx.lexString(sql, i, i, strs == BackslashStrings, true, false)
			if err != nil {
				return out, err
			}
			out = append(out, t)
			i = t.End
		case c == '"':
			j, err := quotedEnd(sql, i+1, '"')
			if err != nil {
				return out, err
			}
			out = append(out, Token{Kind: TokQuotedIdent, Start: i, End: j})
			i = j
		case c == '$':
			j, err := lexDollar(sql, i, &out)
			if err != nil {
				return out, err
			}
			i = j
		case c == ';':
			out = append(out, Token{Kind: TokSemicolon, Start: i, End: i + 1})
			i++
		case c >= '0' && c <= '9':
			// A number; letters right after it are "trailing junk" the
			// lexer takes into the same (rejected) token, so that 1e'x'
			// holds no E'' string.
			j := i
			for j < n && (sql[j] >= '0' && sql[j] <= '9' || sql[j] == '_' || sql[j] == '.') {
				j++
			}
			if j+2 < n && sql[j]|0x20 == 'e' && (sql[j+1] == '-' || sql[j+1] == '+') && sql[j+2] >= '0' && sql[j+2] <= '9' {
				// 1e-5 is one number: its 5 is no number of its own.
				j += 2
				for j < n && (sql[j] >= '0' && sql[j] <= '9' || sql[j] == '_') {
					j++
				}
			}
			if j < n && IsIdentStart(sql[j]) {
				j = IdentEnd(sql, j)
			}
			if lx.Numbers {
				out = append(out, Token{Kind: TokNumber, Start: i, End: j})
			}
			i = j
		case IsIdentStart(c):
			t, j, err := lx.lexWord(sql, i)
			if err != nil {
				return out, err
			}
			if t.Kind != 0 {
				out = append(out, t)
			}
			i = j
		default:
			i++
		}
	}
	return out, nil
}

// lexWord reads an identifier or keyword at i, or the literal it prefixes:
// E”, B”, X”, N”, U&” and U&"". A prefix counts only at the start of
// a token, which is where lexWord is called.
func (lx Lexer) lexWord(sql string, i int) (Token, int, error) {
	n, strs := len(sql), lx.Strings
	c := sql[i] | 0x20
	if i+1 < n && sql[i+1] == '\'' {
		switch c {
		case 'e':
			t, err := lx.lexString(sql, i, i+1, true, false, false)
			return t, t.End, err
		case 'b', 'x':
			t, err := lx.lexString(sql, i, i+1, false, false, true)
			return t, t.End, err
		case 'n':
			// NCHAR followed by an ordinary string, read as the
			// session's setting says.
			t, err := lx.lexString(sql, i, i+1, strs == BackslashStrings, true, false)
			return t, t.End, err
		}
	}
	if c == 'u' && i+2 < n && sql[i+1] == '&' && (sql[i+2] == '\'' || sql[i+2] == '"') {
		if sql[i+2] == '"' {
			j, err := quotedEnd(sql, i+3, '"')
			return Token{Kind: TokQuotedIdent, Start: i, End: j}, j, err
		}
		if strs == BackslashStrings {
			return Token{}, i, fmt.Errorf("%w: Unicode escape string at offset %d with standard_conforming_strings off", ErrLex, i)
		}
		t, err := lx.lexString(sql, i, i+2, false, false, false)
		return t, t.End, err
	}
	return Token{}, IdentEnd(sql, i), nil
}

// lexString reads a quoted literal whose opening quote is at q (the token
// starts at start, before any prefix). escapes: backslash escapes apply;
// bare: the quote is one the session's setting decides about; bits: a
// B” or X” string, where ” does not stand for a quote.
func (lx Lexer) lexString(sql string, start, q int, escapes, bare, bits bool) (Token, error) {
	t := Token{Kind: TokString, Start: start, Bare: bare, BareAt: q}
	i := q + 1
	for {
		j, bs, err := StringPartEnd(sql, i, escapes, bits)
		if err != nil {
			return t, fmt.Errorf("%w at offset %d", err, start)
		}
		t.Backslash = t.Backslash || bs
		// A quote, whitespace holding a newline, and another quote
		// continue the literal, in the same state (scan.l's xqs).
		k, ok := continuation(sql, j, lx.DashContinuation)
		if !ok {
			t.End = j
			return t, nil
		}
		i = k + 1
	}
}

// StringPartEnd returns the offset just past the closing quote of one
// part of a literal whose body starts at i, and whether a backslash
// escape was read. escapes: backslash escapes apply; bits: a bit string
// (B or X prefix), where a doubled quote stands for no quote.
func StringPartEnd(sql string, i int, escapes, bits bool) (int, bool, error) {
	bs := false
	for n := len(sql); i < n; i++ {
		switch sql[i] {
		case '\\':
			if escapes {
				bs = true
				i++ // the escaped byte, whatever it is
			}
		case '\'':
			if !bits && i+1 < n && sql[i+1] == '\'' {
				i++
				continue
			}
			return i + 1, bs, nil
		}
	}
	return 0, bs, fmt.Errorf("%w: unterminated quoted string", ErrLex)
}

// continuation matches scan.l's quotecontinue at i: horizontal blanks or
// -- comments, a newline, then blanks or whole -- comment lines, then a
// quote. It returns the offset of that quote.
func continuation(sql string, i int, dashes bool) (int, bool) {
	n := len(sql)
	for i < n {
		if c := sql[i]; c == ' ' || c == '\t' || c == '\f' {
			i++
		} else if dashes && c == '-' && i+1 < n && sql[i+1] == '-' {
			i = lineEnd(sql, i)
		} else {
			break
		}
	}
	if i >= n || sql[i] != '\n' && sql[i] != '\r' {
		return 0, false
	}
	i++
	for i < n {
		if c := sql[i]; c == ' ' || c == '\t' || c == '\f' || c == '\n' || c == '\r' {
			i++
		} else if dashes && c == '-' && i+1 < n && sql[i+1] == '-' {
			j := lineEnd(sql, i)
			if j >= n {
				return 0, false
			}
			i = j + 1
		} else {
			break
		}
	}
	if i < n && sql[i] == '\'' {
		return i, true
	}
	return 0, false
}

func lineEnd(sql string, i int) int {
	for i < len(sql) && sql[i] != '\n' && sql[i] != '\r' {
		i++
	}
	return i
}

// quotedEnd returns the offset past the closing quote q of a quoted
// identifier whose body starts at i ("" stands for ").
func quotedEnd(sql string, i int, q byte) (int, error) {
	for n := len(sql); i < n; i++ {
		if sql[i] == q {
			if i+1 < n && sql[i+1] == q {
				i++
				continue
			}
			return i + 1, nil
		}
	}
	return 0, fmt.Errorf("%w: unterminated quoted identifier", ErrLex)
}

// blockCommentEnd returns the offset past the */ that closes the comment
// opened at i. Comments nest: each /* inside needs its own */.
func blockCommentEnd(sql string, i int) (int, error) {
	depth, j, n := 1, i+2, len(sql)
	for j < n {
		switch {
		case sql[j] == '/' && j+1 < n && sql[j+1] == '*':
			depth++
			j += 2
		case sql[j] == '*' && j+1 < n && sql[j+1] == '/':
			depth--
			j += 2
			if depth == 0 {
				return j, nil
			}
		default:
			j++
		}
	}
	return 0, fmt.Errorf("%w: unterminated /* comment at offset %d", ErrLex, i)
}

// lexDollar reads what starts with $ at i (not inside a word): a
// parameter $n, a dollar-quoted string, or a lone $.
func lexDollar(sql string, i int, out *[]Token) (int, error) {
	n := len(sql)
	j := i + 1
	if j < n && sql[j] >= '0' && sql[j] <= '9' {
		for j < n && sql[j] >= '0' && sql[j] <= '9' {
			j++
		}
		if j < n && IsIdentStart(sql[j]) {
			j = IdentEnd(sql, j) // trailing junk, rejected by the lexer
		}
		return j, nil
	}
	if j < n && IsIdentStart(sql[j]) {
		j++
		for j < n && IsIdentCont(sql[j]) {
			j++
		}
	}
	if j >= n || sql[j] != '$' {
		// Not a delimiter: the lexer takes the $ alone and reads what
		// follows afresh, so $e'x' holds an E'' string.
		return i + 1, nil
	}
	delim := sql[i : j+1]
	end := strings.Index(sql[j+1:], delim)
	if end < 0 {
		return 0, fmt.Errorf("%w: unterminated dollar-quoted string at offset %d", ErrLex, i)
	}
	k := j + 1 + end + len(delim)
	*out = append(*out, Token{Kind: TokDollar, Start: i, End: k})
	return k, nil
}

// IsIdentStart reports whether c starts an identifier or keyword: a
// letter, _, or any byte of a multibyte character.
func IsIdentStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// IsIdentCont reports whether c continues a dollar quote's tag: letters,
// digits and _, but not $ (an identifier also goes on with $: IdentEnd).
func IsIdentCont(c byte) bool { return IsIdentStart(c) || c >= '0' && c <= '9' }

// IdentEnd returns the end of the word starting at i: identifiers go on
// with letters, digits, _ and $ (a$b is one name, not a dollar quote).
func IdentEnd(sql string, i int) int {
	for i < len(sql) && (IsIdentCont(sql[i]) || sql[i] == '$') {
		i++
	}
	return i
}
