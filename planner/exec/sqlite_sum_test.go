package exec

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// TestLiteSumVersions: liteReduce sums REALs as SQLite 3.40 does (the
// sqlite3 shell), one by one; 3.43 and later (the Go driver, 3.54)
// compensate (Kahan-Babuska-Neumaier), so sum(0.1, 0.2, 0.3) is
// 0.6000000000000001 against 0.6. liteSumVaries must say so exactly
// where the two engines' sum(), avg() or total() differ.
func TestLiteSumVersions(t *testing.T) {
	shell40, db := twoSQLites(t)
	pool := []string{"0.1", "0.2", "0.3", "1e16", "-1e16", "1", "3", "2.5", "1e-3", "7.7", "9007199254740993", "-0.7"}
	sets := [][]string{{"0.1", "0.2", "0.3"}, {"1e16", "1", "-1e16"}, {"1", "2"}, {"1", "0.5"}}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 300 {
		n := 1 + rng.IntN(6)
		var set []string
		for range n {
			set = append(set, pool[rng.IntN(len(pool))])
		}
		sets = append(sets, set)
	}
	var script strings.Builder
	script.WriteString("CREATE TABLE v (s INTEGER, i INTEGER, x);\n")
	for k, set := range sets {
		for i, x := range set {
			fmt.Fprintf(&script, "INSERT INTO v VALUES (%d, %d, %s);\n", k, i, x)
		}
	}
	query := "SELECT printf('%%!.17g|%%!.17g|%%!.17g', sum(x), avg(x), total(x)) FROM (SELECT x FROM v WHERE s = %d ORDER BY i);\n"
	var queries strings.Builder
	for k := range sets {
		fmt.Fprintf(&queries, query, k)
	}
	shell := shell40(script.String() + queries.String())
	if len(shell) != len(sets) {
		t.Fatalf("the shell answered %d lines for %d sets", len(shell), len(sets))
	}
	if _, err := db.Exec(script.String()); err != nil {
		t.Fatal(err)
	}
	varies := 0
	for k, set := range sets {
		vals := make([]Value, len(set))
		for i, x := range set {
			if n, err := strconv.ParseInt(x, 10, 64); err == nil {
				vals[i] = Int(n)
			} else {
				f, _ := strconv.ParseFloat(x, 64)
				vals[i] = Float(f)
			}
		}
		var s54, a54, t54 float64
		if err := db.QueryRow("SELECT sum(x), avg(x), total(x) FROM (SELECT x FROM v WHERE s = ? ORDER BY i)", k).Scan(&s54, &a54, &t54); err != nil {
			t.Fatal(err)
		}
		parts := strings.Split(shell[k], "|")
		for j, name := range []string{"sum", "avg", "total"} {
			v40, err := liteReduce(name, vals)
			if err != nil {
				t.Fatal(err)
			}
			f40, _ := v40.float()
			sh, err := strconv.ParseFloat(parts[j], 64)
			if err != nil {
				t.Fatalf("shell answer %q: %v", shell[k], err)
			}
			if f40 != sh {
				t.Errorf("%s(%v): liteReduce %v, SQLite 3.40 %v", name, set, f40, sh)
			}
			v54 := []float64{s54, a54, t54}[j]
			if got := liteSumVaries(name, vals); got != (f40 != v54) {
				t.Errorf("%s(%v): liteSumVaries %v, but 3.40 gives %v and 3.54 %v", name, set, got, f40, v54)
			}
			if f40 != v54 {
				varies++
			}
		}
	}
	if varies == 0 {
		t.Error("no set the versions sum apart: the test shows nothing")
	}
	t.Logf("%d of %d sums differ between the versions", varies, 3*len(sets))
}
