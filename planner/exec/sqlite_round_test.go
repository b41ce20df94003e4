package exec

import (
	"database/sql"
	"fmt"
	"math/big"
	"math/rand/v2"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	_ "modernc.org/sqlite" // SQLite 3.54, the version that rounds the binary value
)

// twoSQLites returns the two SQLite versions the executor's version
// marks are checked against: shell40 runs a script in a fresh database
// of the sqlite3 shell (3.40 on Debian; scripts/install-test-deps.sh
// installs it) and returns its output lines, db is the Go driver's 3.54,
// one connection, closed with the test.
func twoSQLites(t *testing.T) (shell40 func(script string) []string, db *sql.DB) {
	t.Helper()
	cli, err := exec.LookPath("sqlite3")
	if err != nil {
		t.Fatal("the sqlite3 shell is not installed (scripts/install-test-deps.sh installs it)")
	}
	db, err = sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	db.SetMaxOpenConns(1)
	shell40 = func(script string) []string {
		t.Helper()
		cmd := exec.Command(cli, "-bail", ":memory:")
		cmd.Stdin = strings.NewReader(script)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("sqlite3 shell: %v: %s", err, out)
		}
		return strings.Split(strings.TrimSpace(string(out)), "\n")
	}
	return shell40, db
}

// TestLiteRoundVersions: liteRound is SQLite 3.40's round() (the sqlite3
// shell of scripts/install-test-deps.sh), which rounds a REAL's 15-digit
// text, so round(2.675, 2) is 2.68; 3.43 and later (the Go driver, 3.54)
// round the binary value, 2.67499999..., to 2.67. liteRoundVaries must
// say so exactly where the two engines answer differently, which makes
// such a result the version's choice (funcs.go).
func TestLiteRoundVersions(t *testing.T) {
	shell40, db := twoSQLites(t)
	type arg struct {
		f float64
		n int64
	}
	args := []arg{{2.675, 2}, {1.005, 2}, {0.125, 2}, {2.5, 0}, {-2.5, 0}, {0.3, 1}, {1e15 + 0.5, 0}, {-1e15 - 0.5, 0}, {4.5e15 + 1, 0}, {-1.005, 2}}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 400 {
		args = append(args, arg{float64(rng.IntN(100000))/1000 + 0.005, int64(rng.IntN(3))}, arg{rng.NormFloat64() * 1000, int64(rng.IntN(4))})
	}
	var script strings.Builder
	for _, a := range args {
		fmt.Fprintf(&script, "SELECT round(%s, %d);\n", strconv.FormatFloat(a.f, 'g', 17, 64), a.n)
	}
	lines := shell40(script.String())
	if len(lines) != len(args) {
		t.Fatalf("the shell answered %d lines for %d queries", len(lines), len(args))
	}
	varies := 0
	for i, a := range args {
		in := []Value{Float(a.f), Int(a.n)}
		v40, err := liteRound(in)
		if err != nil {
			t.Fatal(err)
		}
		shell, err := strconv.ParseFloat(lines[i], 64)
		if err != nil {
			t.Fatalf("shell answer %q: %v", lines[i], err)
		}
		// The shell prints 15 significant digits: compare at that.
		if liteFloatText(v40.F) != liteFloatText(shell) {
			t.Errorf("round(%v, %d): liteRound %v, SQLite 3.40 %v", a.f, a.n, v40.F, shell)
		}
		var v54 float64
		if err := db.QueryRow("SELECT round(?, ?)", a.f, a.n).Scan(&v54); err != nil {
			t.Fatal(err)
		}
		exact, _ := roundRat(new(big.Rat).SetFloat64(a.f), int32(a.n)).Float64()
		if exact != v54 {
			t.Errorf("round(%v, %d): the binary rounding gives %v, SQLite 3.54 %v", a.f, a.n, exact, v54)
		}
		if got := liteRoundVaries(in); got != (v40.F != v54) {
			t.Errorf("round(%v, %d): liteRoundVaries %v, but 3.40 gives %v and 3.54 %v", a.f, a.n, got, v40.F, v54)
		}
		if v40.F != v54 {
			varies++
		}
	}
	if varies == 0 {
		t.Error("no argument the versions round apart: the test shows nothing")
	}
	t.Logf("%d of %d arguments rounded apart", varies, len(args))
}
