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
	j, err := NewJudging(set, JudgingOptions{Logger: slog.New(slog.DiscardHandler), VerdictLog: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	defer j.Wait()
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
