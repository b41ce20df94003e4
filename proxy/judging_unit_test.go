package proxy

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/pgequiv/pgequiv/planner/catalog"
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
	if !multiStatement("SELECT 1; SELECT 2") || multiStatement("SELECT ';'; ") || multiStatement("SELECT 1;") {
		t.Error("multiStatement")
	}
	if !containsFold([]byte("SET PGEQUIV.reference"), "pgequiv") || containsFold([]byte("pgequi"), "pgequiv") {
		t.Error("containsFold")
	}
}

func TestVerdictRing(t *testing.T) {
	var r verdictRing
	r.resize(3)
	for i := range 5 {
		r.add(VerdictRecord{ConnID: uint64(i)})
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
	r.add(VerdictRecord{ConnID: 5})
	if got := ids(); got != "543" {
		t.Fatalf("after growing: %q", got)
	}
}

func TestDeferred(t *testing.T) {
	stop := make(chan struct{})
	d := NewDeferred(time.Now().Add(time.Minute))
	n := &pgproto3.NoticeResponse{Message: "m"}
	if !d.Deliver(n) || d.Deliver(n) {
		t.Fatal("first Deliver must succeed, the second fail")
	}
	if got := d.wait(stop); got != n {
		t.Fatalf("wait = %v", got)
	}
	d = NewDeferred(time.Now()) // already past its deadline
	if got := d.wait(stop); got != nil {
		t.Fatalf("expired wait = %v", got)
	}
	if d.Deliver(n) {
		t.Fatal("Deliver after the proxy gave up must report false")
	}
	d = NewDeferred(time.Now().Add(time.Minute))
	close(stop)
	if got := d.wait(stop); got != nil || d.Deliver(n) {
		t.Fatal("a stopped wait abandons the notice")
	}
	var q injector
	d = NewDeferred(time.Now().Add(time.Minute))
	q.add(injection{seq: 1, deferred: d})
	q.close()
	if d.Deliver(n) {
		t.Fatal("closing the connection abandons queued notices")
	}
}

// TestJudgingUntaggedAllocs: an untagged query costs the observer no
// allocation.
func TestJudgingUntaggedAllocs(t *testing.T) {
	s, err := catalog.LoadDDL(catalog.ExampleDDL(), catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	j, err := NewJudging(JudgeSettings{Mode: ModeAnnotate, Schemas: SchemaSettings{Default: s}}, JudgingOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ev := &QueryEvent{Kind: KindQuery, SQL: []byte("SELECT name FROM dogs WHERE age > 5 /* app='x' */"), Session: &Session{Database: "d"}}
	ctx := context.Background()
	j.ObserveQuery(ctx, ev)
	if n := testing.AllocsPerRun(100, func() {
		if v := j.ObserveQuery(ctx, ev); v.Notice != nil || v.Later != nil || v.Refuse != nil || v.Answer != nil {
			t.Fatal("untagged query got a verdict")
		}
	}); n != 0 {
		t.Fatalf("%v allocations per untagged query", n)
	}
}
