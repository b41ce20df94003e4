package judging

import (
	"context"
	"testing"
	"time"

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/proxy/tag"
)

// TestJudgeDirect: a database-free judgement is recorded as a relayed
// one is: a pgequiv.judge span, child of the statement's traceparent;
// the verdict counter and latency histogram with mode answer; the admin
// console's counters and SHOW VERDICTS.
func TestJudgeDirect(t *testing.T) {
	rec := newRecorder()
	j, err := NewJudging(JudgeSettings{Mode: ModeOff}, JudgingOptions{TracerProvider: rec, MeterProvider: recMeterProvider{r: rec}})
	if err != nil {
		t.Fatal(err)
	}
	const tid, sid = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	sql := "SELECT count(owner_id) FROM dogs /*pgequiv_ref='SELECT%20count(*)%20FROM%20dogs',traceparent='00-" + tid + "-" + sid + "-01'*/"
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	want := equivalence.Verdict{Label: equivalence.NotEquivalent, Score: 0.25}
	d := DirectJudgement{ConnID: 7, User: "u", Database: "d", Ref: tag.Reference{SQL: "SELECT count(*) FROM dogs", Source: tag.FromComment},
		Candidate: "SELECT count(owner_id) FROM dogs", SQL: sql}
	got, err := j.JudgeDirect(ctx, d, func(context.Context) (equivalence.Verdict, error) { return want, nil })
	if err != nil || got.Label != want.Label {
		t.Fatalf("JudgeDirect = %+v, %v", got, err)
	}
	j.Wait()
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.spans) != 1 {
		t.Fatalf("%d spans", len(rec.spans))
	}
	s := rec.spans[0]
	if s.name != "pgequiv.judge" || !s.ended || s.attrs["pgequiv.label"].AsString() != "not_equivalent" ||
		s.attrs["pgequiv.mode"].AsString() != "answer" || s.parent.TraceID().String() != tid || s.parent.SpanID().String() != sid {
		t.Errorf("span %s ended=%v parent %v attrs %v", s.name, s.ended, s.parent, s.attrs)
	}
	if rec.counts["pgequiv.verdicts not_equivalent"] != 1 || len(rec.observed["pgequiv.judge.duration"]) != 1 {
		t.Errorf("counters %v, latencies %v", rec.counts, rec.observed)
	}
	vs := j.RecentVerdicts()
	if len(vs) != 1 || vs[0].Action != "answered" || vs[0].Mode != "answer" || vs[0].ConnID != 7 || vs[0].Label != "not_equivalent" {
		t.Errorf("recent verdicts %+v", vs)
	}
	for _, st := range j.Stats() {
		if st.Name == "tagged" && st.Value != 1 || st.Name == "not_equivalent" && st.Value != 1 {
			t.Errorf("stat %s = %d", st.Name, st.Value)
		}
	}
}
