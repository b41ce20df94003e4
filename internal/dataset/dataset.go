// Package dataset reads and writes the files the judge is evaluated with:
// labelled query pairs (JSONL, see shared/data/README.md), curated
// equivalence cases (YAML, see shared/equivalence/cases.yaml) and the
// per-pair scores an evaluation run produces (JSONL).
//
// Readers validate strictly and report the first problem as an *Error
// naming the line and the field, wrapping one of the sentinel errors below.
//
// It sits in internal/, at the planner's layer, rather than in eval/: the
// evaluation tooling reads these files, but so do the tests of the
// planner, the refuter, the prover and the judge, which must not import
// anything above them.
package dataset

import (
	"errors"
	"fmt"
	"io"
	"os"
)

var (
	// ErrMissingField reports a required field that is absent or null.
	ErrMissingField = errors.New("missing required field")
	// ErrInvalidValue reports a field whose value is of the wrong type or
	// out of range.
	ErrInvalidValue = errors.New("invalid value")
	// ErrUnknownKey reports a key the case format does not define.
	ErrUnknownKey = errors.New("unknown key")
	// ErrDuplicateID reports an id used twice in one file.
	ErrDuplicateID = errors.New("duplicate id")
	// ErrDuplicateKey reports a key given twice in one YAML mapping.
	ErrDuplicateKey = errors.New("duplicate key")
)

// Error locates a problem in an input file.
type Error struct {
	Line  int    // 1-based line number
	Field string // the field or key at fault; empty when it is the whole line
	Err   error
}

func (e *Error) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("line %d: %v", e.Line, e.Err)
	}
	return fmt.Sprintf("line %d: field %q: %v", e.Line, e.Field, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// readFile applies read to the file at path, naming the path in errors.
func readFile[T any](path string, read func(io.Reader) (T, error)) (T, error) {
	f, err := os.Open(path)
	if err != nil {
		var zero T
		return zero, err // *fs.PathError already names path
	}
	defer f.Close()
	v, err := read(f)
	if err != nil {
		return v, fmt.Errorf("%s: %w", path, err)
	}
	return v, nil
}
