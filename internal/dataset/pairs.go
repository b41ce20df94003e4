package dataset

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Pair is one labelled (reference, candidate) query pair.
type Pair struct {
	ID        string
	DB        string // schema name; its DDL is schemas/<DB>.sql
	Reference string // the reference (gold) query
	Candidate string // the query to judge
	Label     int    // 1 when the candidate is equivalent to the reference, else 0
	Source    string // what produced the candidate; may be empty
	Dialect   string // SQL dialect of both queries, e.g. "sqlite"; may be empty
	Line      int    // 1-based line of the pair in its file
}

// rawPair has pointer fields so that absent and null fields can be told
// apart from empty ones. Fields it does not name are ignored, as the format
// allows extra fields.
type rawPair struct {
	ID        *string `json:"id"`
	DB        *string `json:"db"`
	Reference *string `json:"reference"`
	Candidate *string `json:"candidate"`
	Label     *int    `json:"label"`
	Source    *string `json:"source"`
	Dialect   *string `json:"dialect"`
}

// ReadPairs reads labelled pairs, one JSON object per line; blank lines are
// skipped. id, db, reference and candidate must be non-empty strings, label
// must be 0 or 1, and ids must be unique.
func ReadPairs(r io.Reader) ([]Pair, error) {
	br := bufio.NewReader(r)
	var pairs []Pair
	seen := make(map[string]int) // id → line
	for line := 1; ; line++ {
		// ReadBytes, not a Scanner: queries make lines of any length.
		b, err := br.ReadBytes('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		if len(bytes.TrimSpace(b)) > 0 {
			p, perr := parsePair(b, line)
			if perr != nil {
				return nil, perr
			}
			if first, dup := seen[p.ID]; dup {
				return nil, &Error{Line: line, Field: "id", Err: fmt.Errorf("%w %q, first on line %d", ErrDuplicateID, p.ID, first)}
			}
			seen[p.ID] = line
			pairs = append(pairs, p)
		}
		if err != nil { // io.EOF
			return pairs, nil
		}
	}
}

// ReadPairsFile reads labelled pairs from the file at path.
func ReadPairsFile(path string) ([]Pair, error) { return readFile(path, ReadPairs) }

func parsePair(b []byte, line int) (Pair, error) {
	var raw rawPair
	if err := json.Unmarshal(b, &raw); err != nil {
		if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
			return Pair{}, &Error{Line: line, Field: te.Field, Err: fmt.Errorf("%w: JSON %s, want %s", ErrInvalidValue, te.Value, te.Type)}
		}
		return Pair{}, &Error{Line: line, Err: err}
	}
	p := Pair{Line: line}
	for _, f := range []struct {
		name string
		src  *string
		dst  *string
	}{
		{"id", raw.ID, &p.ID},
		{"db", raw.DB, &p.DB},
		{"reference", raw.Reference, &p.Reference},
		{"candidate", raw.Candidate, &p.Candidate},
	} {
		if f.src == nil {
			return Pair{}, &Error{Line: line, Field: f.name, Err: ErrMissingField}
		}
		if *f.src == "" {
			return Pair{}, &Error{Line: line, Field: f.name, Err: fmt.Errorf("%w: empty string", ErrInvalidValue)}
		}
		*f.dst = *f.src
	}
	if raw.Label == nil {
		return Pair{}, &Error{Line: line, Field: "label", Err: ErrMissingField}
	}
	if *raw.Label != 0 && *raw.Label != 1 {
		return Pair{}, &Error{Line: line, Field: "label", Err: fmt.Errorf("%w %d, want 0 or 1", ErrInvalidValue, *raw.Label)}
	}
	p.Label = *raw.Label
	if raw.Source != nil {
		p.Source = *raw.Source
	}
	if raw.Dialect != nil {
		p.Dialect = *raw.Dialect
	}
	return p, nil
}
