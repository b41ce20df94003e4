package dataset

import (
	"bytes"
	"errors"
	"math"
	"testing"
)

func TestScoreWriter(t *testing.T) {
	var buf bytes.Buffer
	w := NewScoreWriter(&buf)
	rows := []Score{
		{ID: "spider_pair_dev-0", Label: 0, Score: 0.125, Verdict: "not_equivalent"},
		{ID: "a<b>&c", Label: 1, Score: 1, Verdict: "equivalent"},
		{ID: "z", Label: 1, Score: -0.5, Verdict: ""},
	}
	for _, r := range rows {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if buf.Len() != 0 {
		t.Errorf("%d bytes reached the writer before Flush", buf.Len())
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	want := `{"id":"spider_pair_dev-0","label":0,"score":0.125,"verdict":"not_equivalent"}
{"id":"a<b>&c","label":1,"score":1,"verdict":"equivalent"}
{"id":"z","label":1,"score":-0.5,"verdict":""}
`
	if got := buf.String(); got != want {
		t.Errorf("wrote\n%s\nwant\n%s", got, want)
	}
}

func TestScoreWriterRejects(t *testing.T) {
	tests := []struct {
		name string
		row  Score
	}{
		{"empty id", Score{Label: 1, Score: 0.5}},
		{"label 2", Score{ID: "x", Label: 2, Score: 0.5}},
		{"NaN score", Score{ID: "x", Score: math.NaN()}},
		{"infinite score", Score{ID: "x", Score: math.Inf(-1)}},
	}
	for _, tt := range tests {
		var buf bytes.Buffer
		w := NewScoreWriter(&buf)
		if err := w.Write(tt.row); !errors.Is(err, ErrInvalidValue) {
			t.Errorf("%s: error = %v, want ErrInvalidValue", tt.name, err)
		}
		if err := w.Flush(); err != nil || buf.Len() != 0 {
			t.Errorf("%s: after a rejected row, Flush wrote %q (error %v), want nothing", tt.name, buf.String(), err)
		}
	}
}

var errDiskFull = errors.New("disk full")

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errDiskFull }

func TestScoreWriterReportsWriteErrors(t *testing.T) {
	w := NewScoreWriter(failingWriter{})
	if err := w.Write(Score{ID: "x", Score: 1}); err != nil {
		t.Fatalf("buffered Write failed early: %v", err)
	}
	if err := w.Flush(); !errors.Is(err, errDiskFull) {
		t.Errorf("Flush error = %v, want %v", err, errDiskFull)
	}
}
