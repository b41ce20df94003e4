package spidereval

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pgequiv/pgequiv/internal/shareddata"
)

// TestExecuteMatchesSQLiteShell: EX on the shared gold/prediction pairs
// (cmd/pgequiv/testdata/spider) over the shared real Spider databases
// equals what the sqlite3 shell's results give under the official rules,
// computed here independently: the texts postprocessed (and DISTINCT
// removed unless kept), results equal as multisets of rows under some
// permutation of columns, in order when the gold text says ORDER BY, a
// failing prediction wrong. Both outcomes must occur.
func TestExecuteMatchesSQLiteShell(t *testing.T) {
	if _, err := exec.LookPath("sqlite3"); err != nil {
		t.Fatalf("the sqlite3 shell is the independent reference: %v", err)
	}
	dbDir := shareddata.Path(t, "data/spider_db")
	items, err := ReadFiles("../../cmd/pgequiv/testdata/spider/gold.sql", "../../cmd/pgequiv/testdata/spider/pred.sql")
	if err != nil {
		t.Fatal(err)
	}
	for _, keep := range []bool{true, false} {
		execs, err := Execute(context.Background(), items, ExecOptions{DBDir: dbDir, KeepDistinct: keep, Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		right := 0
		for i, it := range items {
			file := filepath.Join(dbDir, it.DB, it.DB+".sqlite")
			want := shellEX(t, file, it.Gold, it.Pred, keep)
			e := execs[i]
			if e.GoldError != "" {
				t.Errorf("item %d: gold fails: %s", i, e.GoldError)
				continue
			}
			if e.EX != want || e.TestSuite != want {
				t.Errorf("keep_distinct=%v item %d (%s): EX %v, test-suite %v; the sqlite3 shell says %v\n  gold %s\n  pred %s", keep, i, it.DB, e.EX, e.TestSuite, want, it.Gold, it.Pred)
			}
			if want {
				right++
			}
		}
		if right == 0 || right == len(items) {
			t.Errorf("keep_distinct=%v: %d of %d right: the pairs must exercise both outcomes", keep, right, len(items))
		}
	}
}

var distinctWord = regexp.MustCompile(`(?i)\bdistinct\b`)

func shellEX(t *testing.T, file, gold, pred string, keep bool) bool {
	t.Helper()
	fix := func(q string) string {
		q = strings.NewReplacer("> =", ">=", "< =", "<=", "! =", "!=").Replace(q)
		if !keep {
			q = distinctWord.ReplaceAllString(q, " ")
		}
		return q
	}
	gold, pred = fix(gold), fix(pred)
	g, err := shellRows(file, gold)
	if err != nil {
		t.Fatalf("gold %s: %v", gold, err)
	}
	p, err := shellRows(file, pred)
	if err != nil {
		return false
	}
	if len(g) == 0 && len(p) == 0 {
		return true
	}
	if len(g) != len(p) || len(g[0]) != len(p[0]) {
		return false
	}
	ordered := strings.Contains(strings.ToLower(gold), "order by")
	key := func(rows [][]string, perm []int) []string {
		out := make([]string, len(rows))
		for i, r := range rows {
			vals := make([]string, len(perm))
			for k, j := range perm {
				vals[k] = r[j]
			}
			out[i] = strings.Join(vals, "\x00")
		}
		if !ordered {
			slices.Sort(out)
		}
		return out
	}
	n := len(g[0])
	id := make([]int, n)
	for i := range id {
		id[i] = i
	}
	want := key(g, id)
	found := false
	var perms func(k int)
	perms = func(k int) {
		if found {
			return
		}
		if k == n {
			found = slices.Equal(want, key(p, id))
			return
		}
		for i := k; i < n; i++ {
			id[k], id[i] = id[i], id[k]
			perms(k + 1)
			id[k], id[i] = id[i], id[k]
		}
	}
	perms(0)
	return found
}

// shellRows runs q in the sqlite3 shell in quote mode and reads its rows:
// numbers by value (an integer and an equal real alike), text quoted,
// NULL as NULL.
func shellRows(file, q string) ([][]string, error) {
	cmd := exec.Command("sqlite3", "-readonly", "-quote", "-bail", file, q)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil || stderr.Len() > 0 {
		return nil, &shellError{stderr.String()}
	}
	var rows [][]string
	var row []string
	s := out.String()
	for len(s) > 0 {
		var v string
		if s[0] == '\'' {
			i := 1
			for ; i < len(s); i++ {
				if s[i] == '\'' {
					if i+1 < len(s) && s[i+1] == '\'' {
						i++
						continue
					}
					break
				}
			}
			v, s = "t"+s[:i+1], s[i+1:]
		} else {
			end := strings.IndexAny(s, ",\n")
			if end < 0 {
				end = len(s)
			}
			v, s = s[:end], s[end:]
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				v = "n" + strconv.FormatFloat(f, 'g', -1, 64)
			}
		}
		row = append(row, v)
		if len(s) > 0 && s[0] == ',' {
			s = s[1:]
			continue
		}
		rows = append(rows, row)
		row = nil
		if len(s) > 0 {
			s = s[1:] // '\n'
		}
	}
	return rows, nil
}

type shellError struct{ msg string }

func (e *shellError) Error() string { return "sqlite3: " + strings.TrimSpace(e.msg) }
