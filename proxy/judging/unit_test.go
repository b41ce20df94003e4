package judging

import (
	"context"
	"log/slog"
	"strconv"
	"testing"

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/internal/sqltext"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/proxy"
	"github.com/pgequiv/pgequiv/proxy/judgepool"
	"github.com/pgequiv/pgequiv/proxy/tag"
)

func TestRedactLiterals(t *testing.T) {
	for in, want := range map[string]string{
		"SELECT name FROM dogs WHERE name = 'Rex' AND age > 5":        "SELECT name FROM dogs WHERE name = ? AND age > ?",
		"SELECT 1.5, E'a\\'b', x'ff', $$dollar$$ /*pgequiv_ref='x'*/": "SELECT ?, ?, ?, ?",
		"where: (dogs.age >= 6) vs (dogs.age >= 7)":                   "where: (dogs.age >= ?) vs (dogs.age >= ?)",
		"SELECT a -- note 'x'\nFROM t":                                "SELECT a\nFROM t",
		"SELECT $1 FROM t":                                            "SELECT $1 FROM t",
	} {
		if got := redactLiterals(in); got != want {
			t.Errorf("redactLiterals(%q) = %q, want %q", in, got, want)
		}
	}
	if got := redactLiterals("SELECT 'unterminated"); got != "<redacted>" {
		t.Errorf("unscannable text: %q", got)
	}
}

func TestStatementClassifiers(t *testing.T) {
	for _, tc := range []struct {
		sql        string
		ddl, query bool
	}{
		{"CREATE TABLE t (a int)", true, false},
		{"  /* c */ -- x\n alter table t add b int", true, false},
		{"DROP VIEW v", true, false},
		{"created_at", false, false},
		{"SELECT 1", false, true},
		{"with x as (select 1) select * from x", false, true},
		{"(SELECT 1) UNION (SELECT 2)", false, true},
		{"insert into t values (1)", false, true},
		{"BEGIN", false, false},
		{"selective", false, false},
		{"", false, false},
	} {
		if got := isDDL([]byte(tc.sql)); got != tc.ddl {
			t.Errorf("isDDL(%q) = %v", tc.sql, got)
		}
		if got := isQuery([]byte(tc.sql)); got != tc.query {
			t.Errorf("isQuery(%q) = %v", tc.sql, got)
		}
	}
	if !sqltext.ContainsFold([]byte("SET PGEQUIV.reference"), "pgequiv") || sqltext.ContainsFold([]byte("pgequi"), "pgequiv") {
		t.Error("containsFold")
	}
}

func TestVerdictRing(t *testing.T) {
	var r verdictRing
	r.resize(3)
	for i := range 5 {
		r.add(proxy.VerdictRecord{ConnID: uint64(i)})
	}
	ids := func() string {
		r.mu.Lock()
		defer r.mu.Unlock()
		s := ""
		for _, v := range r.recentLocked() {
			s += strconv.FormatUint(v.ConnID, 10)
		}
		return s
	}
	if got := ids(); got != "432" {
		t.Fatalf("newest first: %q", got)
	}
	r.resize(2) // keeps the newest
	if got := ids(); got != "43" {
		t.Fatalf("after shrinking: %q", got)
	}
	r.resize(4)
	r.add(proxy.VerdictRecord{ConnID: 5})
	if got := ids(); got != "543" {
		t.Fatalf("after growing: %q", got)
	}
}

// TestJudgingUntaggedAllocs: an untagged query costs the observer no
// allocation, with telemetry off (the no-op providers) and on (the SDK's).
func TestJudgingUntaggedAllocs(t *testing.T) {
	s, err := catalog.LoadDDL(catalog.ExampleDDL(), catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	tp, spans, mp, _ := sdkProviders(t)
	for _, c := range []struct {
		name string
		o    JudgingOptions
	}{
		{"telemetry off", JudgingOptions{}},
		{"telemetry on", JudgingOptions{TracerProvider: tp, MeterProvider: mp}},
	} {
		t.Run(c.name, func(t *testing.T) {
			j, err := NewJudging(JudgeSettings{Mode: ModeAnnotate, Schemas: SchemaSettings{Default: s}}, c.o)
			if err != nil {
				t.Fatal(err)
			}
			ev := &proxy.QueryEvent{Kind: proxy.KindQuery, SQL: []byte("SELECT name FROM dogs WHERE age > 5 /* app='x' */"), Session: &proxy.Session{Database: "d"}}
			ctx := context.Background()
			j.ObserveQuery(ctx, ev)
			if n := testing.AllocsPerRun(100, func() {
				if v := j.ObserveQuery(ctx, ev); v.Notice != nil || v.Later != nil || v.Refuse != nil || v.Answer != nil {
					t.Fatal("untagged query got a verdict")
				}
			}); n != 0 {
				t.Fatalf("%v allocations per untagged query", n)
			}
			if n := len(spans.Started()); n != 0 {
				t.Fatalf("%d spans for untagged queries", n)
			}
		})
	}
}

// TestJudgingContainsPanics: a judge that panics on a background
// goroutine does not end the process; the outcome is an error.
func TestJudgingContainsPanics(t *testing.T) {
	s, err := catalog.LoadDDL(catalog.ExampleDDL(), catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []JudgeMode{ModeLog, ModeAnnotate, ModeEnforce} {
		backend := localBackend(t, 0, func(context.Context, *catalog.Schema, string, string, equivalence.Options) (equivalence.Verdict, error) {
			panic("boom")
		})
		j, err := NewJudging(JudgeSettings{Mode: mode, EnforceUnknown: true, Schemas: SchemaSettings{Default: s}},
			JudgingOptions{Logger: slog.New(slog.DiscardHandler), VerdictLog: slog.New(slog.DiscardHandler), Judger: backend})
		if err != nil {
			t.Fatal(err)
		}
		ev := &proxy.QueryEvent{Kind: proxy.KindQuery, SQL: []byte("SELECT 1 /*pgequiv_ref='SELECT%201'*/"), Session: &proxy.Session{}}
		v := j.ObserveQuery(context.Background(), ev)
		j.Wait()
		if mode == ModeEnforce && (v.Refuse == nil || v.Refuse.Code != SQLStateUnverified) {
			t.Errorf("enforce: %+v", v)
		}
		if got := statMap(j); got["errors"] != 1 || got["judge_panics"] != 1 {
			t.Errorf("%s: %d errors, %d panics", mode, got["errors"], got["judge_panics"])
		}
	}
}

// localBackend is an in-process judge pool of n slots (0: the default)
// whose judge is judge, under the pool's panic guard and bound.
func localBackend(t *testing.T, n int, judge judgepool.JudgeFunc) judgepool.Backend {
	t.Helper()
	l, err := judgepool.NewLocal(judgepool.LocalOptions{MaxConcurrent: n, Judge: judge, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// FuzzJudgingObserve: any statement text, tagged or not, gets an answer
// without a panic (enforce mode judges on the calling goroutine).
func FuzzJudgingObserve(f *testing.F) {
	s, err := catalog.LoadDDL(catalog.ExampleDDL(), catalog.Postgres)
	if err != nil {
		f.Fatal(err)
	}
	cat, err := tag.ParseCatalog([]byte("references:\n  - id: a\n    match: SELECT name FROM dogs WHERE age > 1\n    reference: SELECT name FROM dogs WHERE 1 < age\n"))
	if err != nil {
		f.Fatal(err)
	}
	j, err := NewJudging(JudgeSettings{Mode: ModeEnforce, EnforceUnknown: true, Catalog: cat, Schemas: SchemaSettings{Default: s}},
		JudgingOptions{Logger: slog.New(slog.DiscardHandler), VerdictLog: slog.New(slog.DiscardHandler)})
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{
		"SELECT name FROM dogs WHERE age > 3",
		"SELECT count(owner_id) FROM dogs /*pgequiv_ref='SELECT%20count(*)%20FROM%20dogs'*/",
		"SET pgequiv.reference = 'SELECT 1'", "RESET ALL", "DISCARD ALL", "SELECT 1; SELECT 2",
		"SELECT 1 /*pgequiv_ref_id='a'*/", "/*pgequiv_ref='%zz'*/ SELECT", "CREATE TABLE x (a int)",
	} {
		f.Add(seed, false)
		f.Add(seed, true)
	}
	f.Fuzz(func(t *testing.T, sql string, parse bool) {
		kind := proxy.KindQuery
		if parse {
			kind = proxy.KindParse
		}
		sess := &proxy.Session{Database: "d"}
		for range 2 { // the second sees the first's session settings
			j.ObserveQuery(context.Background(), &proxy.QueryEvent{Kind: kind, SQL: []byte(sql), Session: sess})
		}
		_ = redactLiterals(sql)
	})
}

// TestJudgingNeedsObservation: the filter the fast relay uses says a
// statement needs no observation only when ObserveQuery would return the
// zero Action and leave the session's judging state as it was.
func TestJudgingNeedsObservation(t *testing.T) {
	s, err := catalog.LoadDDL(catalog.ExampleDDL(), catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	cat, err := tag.ParseCatalog([]byte("references:\n  - id: a\n    match: SELECT name FROM dogs WHERE age > 1\n    reference: SELECT name FROM dogs WHERE 1 < age\n"))
	if err != nil {
		t.Fatal(err)
	}
	type step struct {
		sql  string
		want bool
	}
	for _, tc := range []struct {
		name    string
		mode    JudgeMode
		catalog *tag.Catalog
		steps   []step
	}{
		{"judging off", ModeOff, cat, []step{{"SELECT 1 /*pgequiv_ref='SELECT%201'*/", false}, {"CREATE TABLE x (a int)", false}}},
		{"untagged", ModeLog, nil, []step{{"SELECT name FROM dogs", false}, {"select 2", false}}},
		{"tagged", ModeLog, nil, []step{{"SELECT 1 /*pgequiv_ref='SELECT%201'*/", true}, {"SELECT 2", false}}},
		{"mention in any case", ModeLog, nil, []step{{"select 1 -- PgEquiv", true}}},
		{"DDL and the statement after", ModeLog, nil, []step{{"CREATE TABLE x (a int)", true}, {"SELECT 1", true}, {"SELECT 2", false}}},
		{"session setting until reset", ModeLog, nil, []step{
			{"SET pgequiv.reference = 'SELECT 1'", true}, {"SELECT 1", true}, {"RESET ALL", true}, {"SELECT 1", false}}},
		{"catalog matches by fingerprint", ModeLog, cat, []step{{"SELECT 1", true}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j, err := NewJudging(JudgeSettings{Mode: tc.mode, Catalog: tc.catalog, Schemas: SchemaSettings{Default: s}},
				JudgingOptions{Logger: slog.New(slog.DiscardHandler), VerdictLog: slog.New(slog.DiscardHandler)})
			if err != nil {
				t.Fatal(err)
			}
			defer j.Wait()
			sess := &proxy.Session{Database: "d"}
			for _, st := range tc.steps {
				sql := []byte(st.sql)
				if got := j.NeedsObservation(sess, proxy.KindQuery, sql); got != st.want {
					t.Fatalf("NeedsObservation(%q) = %v, want %v", st.sql, got, st.want)
				}
				var before judgeConnState
				if cs, ok := sess.State.(*judgeSession); ok {
					before = cs.judge
				}
				v := j.ObserveQuery(context.Background(), &proxy.QueryEvent{Kind: proxy.KindQuery, SQL: sql, Session: sess})
				if st.want {
					continue
				}
				if v.Notice != nil || v.Later != nil || v.Refuse != nil || v.Answer != nil {
					t.Fatalf("%q: filtered out, but ObserveQuery returned %+v", st.sql, v)
				}
				// The prepared statements' holder is made with the session:
				// what it holds counts, not the pointer.
				if cs, ok := sess.State.(*judgeSession); ok && (cs.judge.ddl != before.ddl || cs.judge.bound != before.bound ||
					cs.judge.prepared.has() != before.prepared.has()) {
					t.Fatalf("%q: filtered out, but ObserveQuery changed the session from %+v to %+v", st.sql, before, cs.judge)
				}
			}
		})
	}
}
