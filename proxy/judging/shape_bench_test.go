package judging

import (
	"context"
	"log/slog"
	"strconv"
	"testing"
	"time"

	"github.com/pgequiv/pgequiv/proxy"
)

// BenchmarkTaggedShape is one tagged statement through the observer, its
// reference bound from its constant, the constant new each time (as
// pgbench -S sends): after the first, the shape's proof is kept, and
// this measures what a tagged statement costs the relay beyond that.
// Enforce mode judges inline, so the loop waits for each verdict.
func BenchmarkTaggedShape(b *testing.B) {
	set := annotateSettings(b)
	set.Mode = ModeEnforce
	j := benchJudging(b, set)
	sess := &proxy.Session{Database: kennelDB}
	const ref = "SELECT d.name FROM dogs d WHERE d.age > $1"
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		sql := withComment("SELECT name FROM dogs WHERE "+strconv.Itoa(i)+" < age", ref)
		if a := j.ObserveQuery(ctx, &proxy.QueryEvent{Kind: proxy.KindQuery, SQL: []byte(sql), Session: sess}); a.Refuse != nil {
			b.Fatalf("refused: %s", a.Refuse.Message)
		}
	}
	b.ReportMetric(float64(time.Since(start).Microseconds())/float64(b.N), "µs/stmt")
}

// BenchmarkQuickAnnotate is a tagged statement of a proved shape answered
// on the event loop in annotate mode (ObserveQuick), with everything the
// fast relay then does for it: the notice worked out (Finish) and the
// verdict recorded (After). Its constant is new each time, as pgbench -S
// sends it.
func BenchmarkQuickAnnotate(b *testing.B) {
	j := benchJudging(b, annotateSettings(b))
	sess := &proxy.Session{Database: kennelDB}
	const ref = "SELECT d.name FROM dogs d WHERE d.age > $1"
	ctx := context.Background()
	sqls := make([][]byte, 1024)
	for i := range sqls {
		sqls[i] = []byte(withComment("SELECT name FROM dogs WHERE "+strconv.Itoa(i)+" < age", ref))
	}
	// The first statement is judged (ObserveQuery); its shape's proof
	// answers the rest.
	j.ObserveQuery(ctx, &proxy.QueryEvent{Kind: proxy.KindQuery, SQL: sqls[0], Session: sess})
	j.Wait()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		a, ok := j.ObserveQuick(ctx, &proxy.QueryEvent{Kind: proxy.KindQuery, SQL: sqls[i%len(sqls)], Session: sess})
		if !ok {
			b.Fatal("not answered on the loop")
		}
		after := a.After
		if a.Finish != nil {
			if a.Notice, after = a.Finish(); a.Notice == nil {
				b.Fatal("no notice")
			}
		}
		if after != nil {
			after()
		}
	}
}

// benchJudging is a Judging for a benchmark, its logs discarded; it is
// waited for when the benchmark ends.
func benchJudging(b *testing.B, set JudgeSettings) *Judging {
	b.Helper()
	j, err := NewJudging(set, JudgingOptions{Logger: slog.New(slog.DiscardHandler), VerdictLog: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(j.Wait)
	return j
}
