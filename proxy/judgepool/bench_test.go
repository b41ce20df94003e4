package judgepool

// (Internal test file: BenchmarkCodec measures the unexported wire types.)

import (
	"bytes"
	"encoding/json"
	"io"
	"testing"
	"time"

	"github.com/pgequiv/pgequiv/equivalence"
)

// BenchmarkCodec compares the frame codec (gob, persistent encoder and
// decoder) with JSON for a typical request and its verdict, the per-call
// cost of crossing the process boundary besides the pipe itself:
//
//	go test -run '^$' -bench Codec ./proxy/judgepool
func BenchmarkCodec(b *testing.B) {
	req := request{ID: 1, SchemaKey: "0123456789abcdef", Reference: "SELECT count(*) FROM dogs WHERE age > 5",
		Candidate: "SELECT count(owner_id) FROM dogs WHERE age > 5", Timeout: 2 * time.Second,
		Options: wireOptions{AcceptAssumptions: []equivalence.AssumptionKind{equivalence.AssumeNonEmpty}}}
	resp := response{ID: 1, Verdict: equivalence.Verdict{Label: equivalence.Equivalent, Score: 0.97,
		Rules: []string{"count-star-not-null"}, ReferenceFingerprint: "abc", CandidateFingerprint: "abc",
		Scores: equivalence.Scores{ESM: 1, RelPM: 1, ASTTE: 1, Combined: 0.97}}}
	b.Run("gob", func(b *testing.B) {
		var pipe bytes.Buffer
		enc, dec := newEncoder(&pipe), newDecoder(&pipe)
		for b.Loop() {
			var r request
			var s response
			if err := enc.send(req); err != nil {
				b.Fatal(err)
			}
			if err := dec.recv(&r); err != nil {
				b.Fatal(err)
			}
			if err := enc.send(resp); err != nil {
				b.Fatal(err)
			}
			if err := dec.recv(&s); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("json", func(b *testing.B) {
		var pipe bytes.Buffer
		for b.Loop() {
			var r request
			var s response
			for _, m := range []struct{ in, out any }{{req, &r}, {resp, &s}} {
				data, err := json.Marshal(m.in)
				if err != nil {
					b.Fatal(err)
				}
				pipe.Write(data)
				if err := json.NewDecoder(io.LimitReader(&pipe, int64(len(data)))).Decode(m.out); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
