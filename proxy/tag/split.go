package tag

import (
	"errors"
	"fmt"
	"strings"

	"github.com/pgequiv/pgequiv/internal/sqltext"
)

// Statement is one statement of a (possibly multi-statement) Query, as
// PostgreSQL splits it.
type Statement struct {
	// Start and End delimit the statement in the Query text (End
	// exclusive, without its semicolon). A Query of one statement spans
	// the whole text.
	Start, End int
	// Comment is the statement's sqlcommenter comment, with offsets into
	// the whole Query text; nil if it has none. CommentErr is set for a
	// pgequiv comment that could not be read.
	Comment    *Comment
	CommentErr error
	// Class says what the statement does; Why names its side effect.
	Class Class
	Why   string
	// Judged is the text to judge: the statement byte for byte, its tag
	// comment replaced by one space. With backslash strings, each '...'
	// holding a backslash gets an E prefix, so that the judge (which reads
	// standard strings) reads the literal the server reads. JudgedErr
	// says why no such text exists.
	Judged    string
	JudgedErr error
	// ParseErr is set when the Query did not parse: it is then one
	// statement spanning the whole text, of ClassUnknown.
	ParseErr error
	// Names, for a query, are the functions, operators and relations it
	// names (calledNames), to be checked for VOLATILE functions.
	Names []string
	// Prepare is set for PREPARE name AS query, Execute for EXECUTE
	// name(args) (prepared.go).
	Prepare *Prepared
	Execute *Execution
}

// ErrAmbiguousStrings marks a text whose meaning depends on
// standard_conforming_strings while the proxy cannot tell its value.
var ErrAmbiguousStrings = errors.New("the text reads differently with standard_conforming_strings on and off, and a statement that may change it is still running")

// Split splits a Query text into its statements as PostgreSQL does
// (pg_query's statement locations), assigns each sqlcommenter comment to
// the statement it lies in (a comment after a statement's semicolon,
// before the next statement's first word, belongs to the next statement;
// one after the last statement to the last), and classifies each. A text
// the lexer rejects is an ErrLex error: the server runs none of it.
func Split(sql string, strs sqltext.Strings) ([]Statement, error) {
	sp, err := sqltext.Split(sql, strs)
	if err != nil {
		if errors.Is(err, sqltext.ErrLex) {
			return nil, err
		}
		return nil, fmt.Errorf("tag: %w", err)
	}
	comments, lineTags, err := commentSpans(sql, strs)
	if err != nil {
		return nil, err
	}
	stmts := make([]Statement, len(sp.Stmts))
	for i, s := range sp.Stmts {
		stmts[i] = Statement{Start: s.Start, End: s.End, ParseErr: sp.ParseErr}
		if s.Node != nil {
			stmts[i].Class, stmts[i].Why = Classify(s.Node)
		}
	}
	assignComments(sql, stmts, comments)
	assignLineTags(stmts, lineTags)
	for i := range stmts {
		stmts[i].Judged, stmts[i].JudgedErr = judgedText(sql, &stmts[i], sp.Tokens)
		if n := sp.Stmts[i].Node; n != nil {
			if stmts[i].Class == ClassQuery {
				stmts[i].Names = calledNames(n)
			}
			unwrap(&stmts[i], n)
		}
	}
	return stmts, nil
}

// SplitUncertain splits sql when the session's standard_conforming_strings
// is not known for sure (a statement that may change it has not finished):
// if both settings give the same statements, comments and judged texts,
// that is the answer; otherwise ErrAmbiguousStrings.
func SplitUncertain(sql string, likely sqltext.Strings) ([]Statement, error) {
	a, errA := Split(sql, likely)
	if strings.IndexByte(sql, '\\') < 0 {
		return a, errA // backslashes are the only difference
	}
	b, errB := Split(sql, 1-likely)
	if errA != nil || errB != nil {
		if (errA == nil) != (errB == nil) {
			return nil, fmt.Errorf("tag: %w", ErrAmbiguousStrings)
		}
		return a, errA
	}
	if len(a) != len(b) {
		return nil, fmt.Errorf("tag: %w", ErrAmbiguousStrings)
	}
	for i := range a {
		x, y := a[i], b[i]
		if x.Start != y.Start || x.End != y.End || x.Judged != y.Judged || (x.Comment == nil) != (y.Comment == nil) ||
			x.Comment != nil && (x.Comment.Start != y.Comment.Start || x.Comment.End != y.Comment.End) {
			return nil, fmt.Errorf("tag: %w", ErrAmbiguousStrings)
		}
	}
	return a, nil
}

// assignComments gives each statement the last sqlcommenter comment that
// belongs to it.
func assignComments(sql string, stmts []Statement, comments [][2]int) {
	for _, span := range comments {
		k := -1
		for i := range stmts {
			if stmts[i].Start <= span[0] {
				k = i
			}
		}
		if k < 0 {
			k = 0
		}
		body := sql[span[0]+2 : span[1]-2]
		pairs, perr := readPairs(body)
		st := &stmts[k]
		if perr != nil {
			if sqltext.ContainsFold([]byte(body), "pgequiv") {
				st.CommentErr = fmt.Errorf("tag: %w at offset %d: %v", ErrMalformed, span[0], perr)
			}
			continue
		}
		st.Comment, st.CommentErr = &Comment{Pairs: pairs, Start: span[0], End: span[1]}, nil
	}
}

// assignLineTags marks each statement that holds a pgequiv tag inside a
// -- comment (see isLineTag) with a CommentErr, whatever block comment
// it also has, as assignComments places comments.
func assignLineTags(stmts []Statement, lineTags [][2]int) {
	for _, span := range lineTags {
		k := 0
		for i := range stmts {
			if stmts[i].Start <= span[0] {
				k = i
			}
		}
		stmts[k].CommentErr = lineTagError(span[0])
	}
}

// lineTagError is the error of a pgequiv tag found in a -- comment at
// offset at.
func lineTagError(at int) error {
	return fmt.Errorf("tag: %w at offset %d: %w", ErrMalformed, at, ErrLineComment)
}

// judgedText is the statement's text for the judge: see
// Statement.Judged. toks are the text's tokens with backslash strings
// (nil with standard strings, which need no E prefix).
func judgedText(sql string, st *Statement, toks []sqltext.Token) (string, error) {
	prefixes, err := sqltext.EPrefixes(sql, toks, st.Start, st.End)
	if err != nil {
		return "", fmt.Errorf("tag: %w", err)
	}
	c := st.Comment
	var b strings.Builder
	last := st.Start
	for _, at := range prefixes {
		if c != nil && c.Start >= last && c.Start < at {
			b.WriteString(sql[last:c.Start])
			b.WriteByte(' ')
			last = c.End
			c = nil
		}
		b.WriteString(sql[last:at])
		b.WriteString("E")
		last = at
	}
	if c != nil && c.Start >= last && c.End <= st.End {
		b.WriteString(sql[last:c.Start])
		b.WriteByte(' ')
		last = c.End
	}
	b.WriteString(sql[last:st.End])
	return b.String(), nil
}
