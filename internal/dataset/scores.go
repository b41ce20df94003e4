package dataset

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
)

// Score is one row of scores.jsonl: the judge's output for one pair.
type Score struct {
	ID      string  `json:"id"`
	Label   int     `json:"label"`   // the pair's label, 0 or 1
	Score   float64 `json:"score"`   // higher means more likely equivalent
	Verdict string  `json:"verdict"` // the judge's verdict
	// Refuted is set when the refuter found a counterexample; Needs is
	// then what it relies on beyond typical data (empty: ordinary data)
	// and ColumnOrderOnly whether the results differ only in column
	// order. They let an audit of refuted pairs start from the file.
	Refuted         bool     `json:"refuted,omitempty"`
	Needs           []string `json:"needs,omitempty"`
	ColumnOrderOnly bool     `json:"column_order_only,omitempty"`
	// ProvedUnder names the assumptions under which a pair refuted only
	// with unusual data is proved equivalent (Verdict.ProvedUnder).
	ProvedUnder []string `json:"proved_under,omitempty"`
	// Params counts the candidate's literals replaced by parameters
	// (eval --parameterize-candidate), so that its pairs can be told
	// apart from those without literals.
	Params int `json:"params,omitempty"`
}

// ScoreWriter writes Score rows as JSON lines. Writes are buffered: call
// Flush when done. It is not safe for concurrent use.
type ScoreWriter struct {
	bw  *bufio.Writer
	enc *json.Encoder
}

// NewScoreWriter returns a ScoreWriter writing to w.
func NewScoreWriter(w io.Writer) *ScoreWriter {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false) // ids and verdicts stay readable
	return &ScoreWriter{bw: bw, enc: enc}
}

// Write appends one row. A row with an empty id, a label other than 0 or 1,
// or a score that is NaN or infinite (JSON has no such numbers) is rejected
// and nothing is written.
func (s *ScoreWriter) Write(sc Score) error {
	switch {
	case sc.ID == "":
		return fmt.Errorf("score row: field \"id\": %w: empty string", ErrInvalidValue)
	case sc.Label != 0 && sc.Label != 1:
		return fmt.Errorf("score row %q: field \"label\": %w %d, want 0 or 1", sc.ID, ErrInvalidValue, sc.Label)
	case math.IsNaN(sc.Score) || math.IsInf(sc.Score, 0):
		return fmt.Errorf("score row %q: field \"score\": %w %v", sc.ID, ErrInvalidValue, sc.Score)
	}
	if err := s.enc.Encode(sc); err != nil {
		return fmt.Errorf("score row %q: %w", sc.ID, err)
	}
	return nil
}

// Flush writes any buffered rows to the underlying writer.
func (s *ScoreWriter) Flush() error {
	if err := s.bw.Flush(); err != nil {
		return fmt.Errorf("flushing scores: %w", err)
	}
	return nil
}
