package judging

import (
	"context"
	"log/slog"
	"testing"

	"github.com/pgequiv/pgequiv/proxy"
)

// TestShapeMemoSameVerdicts: enforce mode passes and refuses the same
// statements, with the same errors, whether a statement is read from
// the shape memo or not; executions of a known shape with other
// constants are read from it.
func TestShapeMemoSameVerdicts(t *testing.T) {
	const ref = "SELECT d.name FROM dogs d WHERE d.age > $1"
	seq := []string{
		"SELECT name FROM dogs WHERE 5 < age",
		"SELECT name FROM dogs WHERE 7 < age",
		"SELECT name FROM dogs WHERE 7 <= age",
		"SELECT name FROM dogs WHERE 8 <= age",
		"SELECT name FROM dogs WHERE age > -3",
		"SELECT name FROM dogs WHERE age > -4",
		"SELECT name FROM dogs WHERE age > 2147483648",
		"SELECT name FROM dogs WHERE age > 2147483649",
		"SELECT name FROM dogs WHERE age > 2.5",
		"SELECT name FROM dogs WHERE age > 3.5",
		"SELECT name FROM dogs WHERE age > '4'",
		"SELECT name FROM dogs WHERE age > '5'",
		"SELECT name FROM dogs WHERE age > '5'::int",
		"SELECT name FROM dogs WHERE age > 5 GROUP BY 1",
		"SELECT name FROM dogs WHERE age > 6 GROUP BY 1",
		"SELECT name FROM dogs WHERE age > 6 ORDER BY 1",
		"SELECT name FROM dogs WHERE age > $1",
		"DELETE FROM dogs WHERE age > 5",
		"DELETE FROM dogs WHERE age > 6",
		"SELECT name FROM dogs WHERE age > 5;",
		"SELECT name FROM dogs WHERE age > 6;",
		"SELECT name FROM dogs WHERE age > 5; SELECT 1",
		"SELECT name FROM dogs WHERE age > 'x",
	}
	run := func(memo bool) ([]string, *Judging) {
		set := annotateSettings(t)
		set.Mode, set.EnforceUnknown = ModeEnforce, true
		j, err := NewJudging(set, JudgingOptions{Logger: slog.New(slog.DiscardHandler), VerdictLog: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		defer j.Wait()
		if !memo {
			j.shapes = nil
		}
		sess := &proxy.Session{Database: kennelDB}
		var got []string
		for _, sql := range seq {
			a := j.ObserveQuery(context.Background(), &proxy.QueryEvent{Kind: proxy.KindQuery, SQL: []byte(withComment(sql, ref)), Session: sess})
			if a.Refuse == nil {
				got = append(got, "forwarded")
				continue
			}
			got = append(got, a.Refuse.Code+" "+a.Refuse.Message)
		}
		return got, j
	}
	slow, _ := run(false)
	t.Logf("verdicts: %q", slow)
	fast, j := run(true)
	for i := range seq {
		if slow[i] != fast[i] {
			t.Errorf("%q: %s with the shape memo, %s without", seq[i], fast[i], slow[i])
		}
	}
	if slow[0] != "forwarded" || slow[len(slow)-5] == "forwarded" {
		t.Errorf("verdicts: %q", slow)
	}
	if n := j.shapes.shapes.Len(); n == 0 {
		t.Errorf("no shape kept")
	}
	if st := j.shapes.shapes.Stats(); st.Hits == 0 {
		t.Errorf("shape memo: %+v; want hits", st)
	}
	stats := map[string]uint64{}
	for _, s := range j.Stats() {
		stats[s.Name] = s.Value
	}
	if st := j.shapes.shapes.Stats(); stats["shape_memo_hits"] != st.Hits || stats["shape_memo_misses"] != st.Misses || stats["shape_memo_entries"] != uint64(st.Entries) {
		t.Errorf("SHOW STATS shape_memo_*: %d/%d/%d, memo %+v", stats["shape_memo_hits"], stats["shape_memo_misses"], stats["shape_memo_entries"], st)
	}
}
