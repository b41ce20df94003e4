package spidereval

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"
	"time"

	_ "modernc.org/sqlite" // writes the test's database files
)

// TestResultEq: the official result_eq, case by case, its quick_rej
// artefact included.
func TestResultEq(t *testing.T) {
	r := func(rows ...[]any) [][]any { return rows }
	for _, tc := range []struct {
		name        string
		gold, pred  [][]any
		ordered, eq bool
	}{
		{"both empty", r(), r(), false, true},
		{"size", r([]any{int64(1)}), r(), false, false},
		{"int equals float", r([]any{int64(1)}), r([]any{1.0}), false, true},
		{"text is not a number", r([]any{"1"}), r([]any{int64(1)}), false, false},
		{"columns permuted", r([]any{int64(1), "a"}, []any{int64(2), "b"}), r([]any{"b", int64(2)}, []any{"a", int64(1)}), false, true},
		{"rows reordered, unordered gold", r([]any{int64(1)}, []any{int64(2)}), r([]any{int64(2)}, []any{int64(1)}), false, true},
		{"rows reordered, ordered gold", r([]any{int64(1)}, []any{int64(2)}), r([]any{int64(2)}, []any{int64(1)}), true, false},
		{"multiplicities", r([]any{int64(1)}, []any{int64(1)}, []any{int64(2)}), r([]any{int64(1)}, []any{int64(2)}, []any{int64(2)}), false, false},
		{"width", r([]any{int64(1), int64(1)}), r([]any{int64(1)}), false, false},
		{"NULL", r([]any{nil}), r([]any{nil}), false, true},
		// (1, 1.5) sorts 1.5 first ("1.5<class 'float'>" < "1<class
		// 'int'>"), (1.0, 1.5) sorts 1.0 first: quick_rej rejects.
		{"quick_rej artefact", r([]any{int64(1), 1.5}), r([]any{1.0, 1.5}), false, false},
	} {
		if got := resultEq(tc.gold, tc.pred, tc.ordered); got != tc.eq {
			t.Errorf("%s: result_eq %v, want %v", tc.name, got, tc.eq)
		}
	}
	if !resultEqWith([][]any{{int64(1), 1.5}}, [][]any{{1.0, 1.5}}, false, false) {
		t.Error("without quick_rej, (1, 1.5) and (1.0, 1.5) are equal")
	}
}

// TestPyFloatRepr: Python's repr(float), which quick_rej sorts by.
func TestPyFloatRepr(t *testing.T) {
	for f, want := range map[float64]string{
		1: "1.0", 1.5: "1.5", 0.1: "0.1", 1e16: "1e+16", 1234567890123456: "1234567890123456.0",
		0.0001: "0.0001", 0.00001: "1e-05", -2.5e-7: "-2.5e-07", 1e100: "1e+100", 123.456: "123.456",
	} {
		if got := pyFloatRepr(f); got != want {
			t.Errorf("repr(%v) = %s, want %s", f, got, want)
		}
	}
}

// TestExecuteTestSuiteFiles: with several .sqlite files in a database's
// directory (test-suite-sql-eval's layout), EX reads the main one and
// test-suite EX all: a prediction right on the main file and wrong on
// another is EX-right, test-suite-wrong. The files are not written.
func TestExecuteTestSuiteFiles(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, rows := range map[string]string{"d.sqlite": "(1, 5), (2, 7)", "d_1.sqlite": "(1, 5), (2, 5)"} {
		db, err := sql.Open("sqlite", filepath.Join(dir, "d", name))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec("CREATE TABLE t (id INTEGER PRIMARY KEY, a INTEGER); INSERT INTO t VALUES " + rows); err != nil {
			t.Fatal(err)
		}
		db.Close()
	}
	st, err := os.Stat(filepath.Join(dir, "d", "d.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	items := []Item{
		{DB: "d", Gold: "SELECT a FROM t", Pred: "SELECT DISTINCT a FROM t"},     // right on d, wrong on d_1
		{DB: "d", Gold: "SELECT a FROM t", Pred: "SELECT a FROM t WHERE id > 1"}, // wrong on d
		{DB: "d", Gold: "SELECT id, a FROM t", Pred: "SELECT a, id FROM t"},      // right on both
		{DB: "d", Gold: "SELECT a FROM t", Pred: "SELEC a FROM t"},               // a syntax error
		{DB: "d", Gold: "SELECT a FROM t", Pred: "DELETE FROM t"},                // refused: read-only
	}
	execs, err := Execute(context.Background(), items, ExecOptions{DBDir: dir, KeepDistinct: true})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ ex, ts bool }{{true, false}, {false, false}, {true, true}, {false, false}, {false, false}}
	for i, w := range want {
		if e := execs[i]; e.EX != w.ex || e.TestSuite != w.ts || e.Files != 2 {
			t.Errorf("item %d: %+v, want EX %v, test-suite %v on 2 files", i, e, w.ex, w.ts)
		}
	}
	if execs[3].PredError == "" || execs[4].PredError == "" {
		t.Errorf("failing predictions carry no error: %+v %+v", execs[3], execs[4])
	}
	if after, err := os.Stat(filepath.Join(dir, "d", "d.sqlite")); err != nil || !after.ModTime().Equal(st.ModTime()) || after.Size() != st.Size() {
		t.Errorf("the database file changed: %v", err)
	}
	execs, err = Execute(context.Background(), items[:1], ExecOptions{DBDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if !execs[0].EX || !execs[0].TestSuite {
		t.Errorf("DISTINCT removed (the official default): %+v, want right on both files", execs[0])
	}
}

// TestExecuteTimeout: a query past the per-query timeout is interrupted,
// and the item counted wrong and marked timed out; a quick one in the
// same run is not.
func TestExecuteTimeout(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", filepath.Join(dir, "d", "d.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE t (a INTEGER); INSERT INTO t VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	forever := "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"
	items := []Item{{DB: "d", Gold: "SELECT 1", Pred: forever}, {DB: "d", Gold: "SELECT 1", Pred: "SELECT a FROM t"}}
	execs, err := Execute(context.Background(), items, ExecOptions{DBDir: dir, Timeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if e := execs[0]; e.EX || !e.TimedOut {
		t.Errorf("endless prediction: %+v, want wrong and timed out", e)
	}
	if e := execs[1]; !e.EX || e.TimedOut {
		t.Errorf("quick prediction: %+v, want right", e)
	}
}
