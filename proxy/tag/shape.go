package tag

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/pgequiv/pgequiv/internal/sqltext"
)

// A tagged statement sent again and again with new constants (pgbench -S,
// an ORM's prepared text sent as a simple Query) is split, parsed and
// classified, and its constants lifted into parameters, each time: cgo
// calls into libpg_query that cost far more than the proof the proxy then
// finds in its cache. ReadShape reads such a text in one pass of the
// proxy's own lexer and gives it a key that abstracts only what changes
// between executions: the values of plain literals and the contents of the
// tag comment. Whatever the slow path made of one text with that key, it
// makes of every other, provided the caller checks (Aligned) that each
// literal abstracted was a constant pg_query's normalization replaced:
// the parse tree's shape then does not depend on the literals' values,
// since the lexer hands the grammar the same token kinds in the same
// places and the grammar's actions on such constants do not look at their
// values. FuzzShapeKey holds this against pg_query.

// Shape is a one-statement text read in one lexer pass.
type Shape struct {
	// Key is the text with the tag comment and each abstracted literal
	// replaced by a NUL and a letter for its kind (a text holding a NUL
	// has no Shape, so the replacement cannot be confused with the
	// text). Two texts with the same key differ only in those.
	Key string
	// Stmt is the statement as Split finds it but for Class and Why,
	// which the caller remembers per key: Start, End, Comment,
	// CommentErr and Judged.
	Stmt Statement
	// lits are the abstracted literals' offsets in the text; shift is
	// how much shorter Judged is after the tag comment (at cut).
	lits       [][2]int
	cut, shift int
}

// Marks of the key; see Shape.Key.
const (
	markComment = 'c' // the tag comment
	markInt     = 'i' // digits, an int4: ICONST
	markBig     = 'b' // digits too large for an int4: FCONST
	markDecimal = 'd' // digits.digits: FCONST
	markString  = 's' // a plain '...' string in one part: SCONST
)

// ReadShape reads sql, read with standard strings, as one statement and
// returns its Shape. ok is false where the slow path must decide: a text
// the lexer rejects, holding a NUL (pg_query reads C strings) or
// invalid UTF-8 (pg_query's parse tree then fails to decode, a literal's
// value deciding), or of more than one statement.
func ReadShape(sql string) (sh Shape, ok bool) {
	if strings.IndexByte(sql, 0) >= 0 || !utf8.ValidString(sql) {
		return sh, false
	}
	toks, err := sqltext.Lexer{Strings: sqltext.StandardStrings, Numbers: true}.Lex(sql)
	if err != nil {
		return sh, false
	}
	st := Statement{Start: 0, End: len(sql)}
	lineTag := -1
	for _, t := range toks {
		switch t.Kind {
		case sqltext.TokSemicolon:
			// One statement and its semicolon, nothing after but blanks.
			if strings.TrimLeft(sql[t.End:], " \t\r\n\f") != "" {
				return sh, false
			}
		case sqltext.TokBlockComment:
			// As assignComments: the last comment that reads as pairs.
			body := sql[t.Start+2 : t.End-2]
			pairs, perr := readPairs(body)
			if perr != nil {
				if strings.Contains(body, KeyRef) {
					st.CommentErr = fmt.Errorf("tag: %w at offset %d: %v", ErrMalformed, t.Start, perr)
				}
				continue
			}
			st.Comment, st.CommentErr = &Comment{Pairs: pairs, Start: t.Start, End: t.End}, nil
		case sqltext.TokLineComment:
			if lineTag < 0 && isLineTag(sql[t.Start:t.End]) {
				lineTag = t.Start
			}
		}
	}
	if lineTag >= 0 {
		// As assignLineTags: it wins over any block comment.
		st.CommentErr = lineTagError(lineTag)
	}
	var key strings.Builder
	key.Grow(len(sql))
	last := 0
	var lits [][2]int
	for _, t := range toks {
		var mark byte
		switch {
		case st.Comment != nil && t.Start == st.Comment.Start:
			mark = markComment
		case t.Kind == sqltext.TokString:
			mark = stringMark(sql, t)
		case t.Kind == sqltext.TokNumber:
			mark = numberMark(sql, t)
		}
		if mark == 0 {
			continue
		}
		key.WriteString(sql[last:t.Start])
		key.WriteByte(0)
		key.WriteByte(mark)
		last = t.End
		if mark != markComment {
			lits = append(lits, [2]int{t.Start, t.End})
		}
	}
	key.WriteString(sql[last:])
	sh = Shape{Key: key.String(), Stmt: st, lits: lits}
	sh.Stmt.Judged = sql
	if c := st.Comment; c != nil {
		sh.Stmt.Judged = sql[:c.Start] + " " + sql[c.End:]
		sh.cut, sh.shift = c.Start, c.End-c.Start-1 // replaced by one space
	}
	return sh, true
}

// stringMark is markString for a plain '...' in one part, whose value
// the grammar never looks at; 0 (kept in the key) for the rest: E'x',
// N'x', U&'x', B'1', X'1F' are read differently, and a string continued
// on another line is two parts whose joint the key must keep.
func stringMark(sql string, t sqltext.Token) byte {
	if !t.Bare || t.BareAt != t.Start {
		return 0
	}
	if end, _, err := sqltext.StringPartEnd(sql, t.Start+1, false, false); err != nil || end != t.End {
		return 0
	}
	return markString
}

// numberMark is the mark of a plain number, digits or digits.digits,
// that stands alone as a token: int4 or not decides ICONST or FCONST,
// which the grammar tells apart. Anything else (.5, 1e5, 0x1F, 1_000,
// trailing junk, a number glued to what follows) is kept in the key.
func numberMark(sql string, t sqltext.Token) byte {
	if t.Start > 0 && !strings.ContainsRune(" \t\r\n\f(),;[]:+-*/<>=~!@#%^&|`?", rune(sql[t.Start-1])) {
		return 0 // x.5 is x then .5; what glues on is kept
	}
	if t.End < len(sql) && !strings.ContainsRune(" \t\r\n\f(),;[]:+-*/<>=~!@#%^&|`?", rune(sql[t.End])) {
		return 0
	}
	s := sql[t.Start:t.End]
	dot := strings.IndexByte(s, '.')
	digits := func(s string) bool {
		if s == "" {
			return false
		}
		for i := 0; i < len(s); i++ {
			if s[i] < '0' || s[i] > '9' {
				return false
			}
		}
		return true
	}
	if dot >= 0 {
		if digits(s[:dot]) && digits(s[dot+1:]) {
			return markDecimal
		}
		return 0
	}
	if !digits(s) {
		return 0
	}
	s = strings.TrimLeft(s, "0")
	if len(s) < 10 || len(s) == 10 && s <= "2147483647" {
		return markInt
	}
	return markBig
}

// Holds reports whether what tag.Split made of the shape's text
// (stmts) holds for every text of its key, and returns the shape the
// proof cache knows the statement by: tag.Parameterize's SQL of its
// judged text, "" where it has none. It holds for one query that parsed
// and that Split read as ReadShape did, whose abstracted literals are all
// constants the normalization replaced (aligned): a literal the grammar
// reads otherwise (GROUP BY 1, a typmod, a UESCAPE string) may decide
// the parse tree's shape by its value.
func (sh *Shape) Holds(stmts []Statement) (param string, ok bool) {
	if len(stmts) != 1 {
		return "", false
	}
	s, r := &stmts[0], &sh.Stmt
	if s.ParseErr != nil || s.JudgedErr != nil || s.Class != ClassQuery || s.Judged != r.Judged ||
		s.Start != r.Start || s.End != r.End || (s.CommentErr == nil) != (r.CommentErr == nil) ||
		(s.Comment == nil) != (r.Comment == nil) || s.Comment != nil && (s.Comment.Start != r.Comment.Start || s.Comment.End != r.Comment.End) {
		return "", false
	}
	p, ok := Parameterize(s.Judged)
	switch {
	case ok && sh.aligned(p):
		return p.SQL, true
	case len(sh.lits) > 0:
		return "", false
	}
	return "", true // a text without literals: the key is the text
}

// aligned reports whether every literal the shape abstracts is a
// constant p (Parameterize of Stmt.Judged) replaced: the whole constant,
// or its number after a minus sign the grammar folded in (-5).
// Constants the key keeps verbatim may be replaced or not: they are the
// same in every text of the key.
func (sh *Shape) aligned(p Parameterized) bool {
	j := 0
	for _, l := range sh.lits {
		if l[0] > sh.cut {
			l[0], l[1] = l[0]-sh.shift, l[1]-sh.shift
		}
		for j < len(p.Spans) && p.Spans[j][1] < l[1] {
			j++
		}
		if j == len(p.Spans) || p.Spans[j][1] != l[1] {
			return false
		}
		s := p.Spans[j]
		if s[0] != l[0] && (s[0] > l[0] || sh.Stmt.Judged[s[0]] != '-') {
			return false
		}
	}
	return true
}
