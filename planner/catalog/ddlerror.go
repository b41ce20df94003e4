package catalog

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/pganalyze/pg_query_go/v5/parser"
)

// SyntaxError is DDL that does not parse, with where it stops parsing.
type SyntaxError struct {
	// Msg is PostgreSQL's message (syntax error at or near ...).
	Msg string
	// Offset is the byte offset in the DDL text; Line and Column are
	// 1-based, the column counted in characters.
	Offset, Line, Column int
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Column, e.Msg)
}

// syntaxError places a parser error in text, whose offsets the parsed
// text shares; other errors are returned unchanged.
func syntaxError(text string, err error) error {
	var pe *parser.Error
	if !errors.As(err, &pe) || pe.Cursorpos <= 0 {
		return err
	}
	// PostgreSQL counts the position in characters, from 1.
	off, n := len(text), 0
	for i := range text {
		if n == pe.Cursorpos-1 {
			off = i
			break
		}
		n++
	}
	return Position(text, off, pe.Message)
}

// Position is a SyntaxError at byte offset off of text.
func Position(text string, off int, msg string) *SyntaxError {
	off = min(max(off, 0), len(text))
	before := text[:off]
	line := strings.Count(before, "\n") + 1
	col := utf8.RuneCountInString(before[strings.LastIndexByte(before, '\n')+1:]) + 1
	return &SyntaxError{Msg: msg, Offset: off, Line: line, Column: col}
}
