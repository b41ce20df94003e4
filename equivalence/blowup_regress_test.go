package equivalence_test

// Regression tests for the reproducers of issue 9: inputs that crashed the
// whole process (stack overflow, out of memory) or took tens of seconds.
// Each case is judged in a child process (this test binary re-executed
// with blowupCaseEnv naming the case), so a fatal Go runtime error fails
// that case by name instead of killing the test run.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/internal/sqlgen"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

const blowupCaseEnv = "PGEQUIV_TEST_BLOWUP_CASE"

// blowupLimits: every case has the 2 s budget the issue's proxy used,
// must answer within it plus 10% + 20 ms, and may allocate at most 1 GB
// (the 100,000-item IN pair used to need about 360 GB).
// The child's own allocation total is logged, not bounded: a judgement
// may allocate and free far more than it holds. What is bounded is the
// child's peak resident memory, blowupMaxRSS, which the parent reads
// from the child's rusage.
var blowupLimits = sqlgen.Limits{Budget: 2 * time.Second, Hang: 6 * time.Second}

// blowupMaxRSS bounds the peak resident memory of a child judging one
// case, the test binary's own ~30 MB included.
const blowupMaxRSS = 512 << 20

// blowupChildMemory caps the child's address space so that a case that
// still allocates without bound dies quickly instead of taking the
// machine's memory; see blowup_rlimit_*_test.go.
const blowupChildMemory = 6 << 30

type blowupCase struct {
	name   string
	schema string // "example" (postgres) or a shared schema (sqlite)
	ref    string
	cand   string
	// notProved: the pair is not equivalent, so a proof is a soundness bug.
	notProved bool
	// notRefuted: the pair is equivalent, so not_equivalent is a bug.
	notRefuted bool
}

// blowupCases builds the reproducers; the large ones programmatically.
// "Fails today" marks the cases expected to FAIL until the planner and
// judge fixes of issue 9 merge (what they did on the unfixed code is
// noted); none is skipped.
func blowupCases() []blowupCase {
	list := func(n int, f func(i int) string) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = f(i)
		}
		return out
	}
	num := strconv.Itoa
	reversed := func(s []string) []string {
		out := make([]string, len(s))
		for i, v := range s {
			out[len(s)-1-i] = v
		}
		return out
	}
	in := func(n int) string {
		return "SELECT dog_id FROM dogs WHERE age IN (" + strings.Join(list(n, num), ", ") + ")"
	}
	or := func(items []string) string {
		return "SELECT dog_id FROM dogs WHERE " + strings.Join(items, " OR ")
	}
	orTerms := func(n int) []string { return list(n, func(i int) string { return "age = " + num(i) }) }
	rows := list(20000, func(i int) string { return "(" + num(i) + ", 'n" + num(i%97) + "')" })
	rowIn := func(rs []string) string {
		return "SELECT dog_id FROM dogs WHERE (age, name) IN (" + strings.Join(rs, ", ") + ")"
	}
	setops := func(op string, n, k int) string {
		return "SELECT dog_id FROM dogs " + strings.Join(list(n-1, func(i int) string {
			return op + " SELECT dog_id FROM dogs WHERE age = " + num((i+k)%n)
		}), " ")
	}
	nested := func(depth int, open func(i int) string, leaf string) string {
		var b strings.Builder
		b.WriteString("SELECT dog_id FROM dogs WHERE ")
		for i := 0; i < depth; i++ {
			b.WriteString(open(i))
		}
		b.WriteString(leaf)
		b.WriteString(strings.Repeat(")", depth))
		return b.String()
	}
	scalar := func(d, leaf int) string {
		return nested(d, func(int) string { return "age = (SELECT age FROM dogs WHERE " }, "age = "+num(leaf))
	}
	exists := func(d, leaf int) string {
		return nested(d, func(i int) string {
			return "EXISTS (SELECT 1 FROM dogs AS d" + num(i) + " WHERE d" + num(i) + ".age > " + num(i) + " AND "
		}, "TRUE AND dogs.age = "+num(leaf))
	}
	inChain := func(d, leaf int) string {
		return nested(d, func(int) string { return "age IN (SELECT age FROM dogs WHERE " }, "age = "+num(leaf))
	}
	distinct := func(d, first int) string {
		e := "age IS DISTINCT FROM " + num(first)
		for i := 1; i < d; i++ {
			e = "(" + e + ") IS DISTINCT FROM " + num(i%2)
		}
		return "SELECT dog_id FROM dogs WHERE " + e
	}
	cte := func(n int) string {
		var b strings.Builder
		b.WriteString("WITH c0 AS (SELECT dog_id AS x FROM dogs)")
		for i := 1; i < n; i++ {
			p := "c" + num(i-1)
			b.WriteString(", c" + num(i) + " AS (SELECT a.x FROM " + p + " a JOIN " + p + " b ON a.x = b.x)")
		}
		return b.String() + " SELECT x FROM c" + num(n-1)
	}
	return []blowupCase{
		// Item 1: orderLimitToMax made a cyclic column definition (stack overflow).
		// Fails today: stack overflow.
		{name: "order-limit-values", schema: "example", ref: "SELECT 1",
			cand: "SELECT x FROM (VALUES (1)) t(x) ORDER BY x LIMIT 1"},
		// Fails today: stack overflow.
		{name: "order-limit-union-desc-car1", schema: "car_1",
			ref:  "SELECT MAX(horsepower) FROM (SELECT horsepower, cylinders, weight FROM cars_data) AS t WHERE cylinders = 4 OR weight > 3000",
			cand: "SELECT horsepower FROM (SELECT horsepower FROM cars_data WHERE cylinders = 4 UNION SELECT horsepower FROM cars_data WHERE weight > 3000) AS t ORDER BY horsepower DESC LIMIT 1"},
		// Found by FuzzJudgeStructured in its first minute: an identical
		// pair over a NULL row. Fails today: stack overflow.
		{name: "order-limit-values-null", schema: "example",
			ref:  "SELECT a FROM (VALUES (NULL)) AS d(a) ORDER BY a LIMIT 1",
			cand: "SELECT a FROM (VALUES (NULL)) AS d(a) ORDER BY a LIMIT 1", notRefuted: true},
		// Passes today (the rewrite does not fire); kept as a guard.
		{name: "order-limit-union-desc-notnull", schema: "example", ref: "SELECT MAX(dog_id) FROM dogs",
			cand: "SELECT a FROM (SELECT dog_id AS a FROM dogs WHERE age > 3 UNION SELECT dog_id FROM dogs WHERE age <= 3) t ORDER BY a DESC LIMIT 1"},
		// Fails today: still running after 6 s.
		{name: "order-limit-union-nulls-last", schema: "example", ref: "SELECT MAX(age) FROM dogs",
			cand: "SELECT a FROM (SELECT age AS a FROM dogs UNION SELECT age FROM dogs WHERE weight > 1) t ORDER BY a DESC NULLS LAST LIMIT 1"},
		// Item 2: tree edit distance over n1·n2 cells (out of memory).
		// Fails today: 2.6 s, 488 MB, context deadline exceeded.
		{name: "in-list-100k-pair", schema: "example", ref: in(100000), cand: in(100001), notProved: true},
		// Item 4: formatter walks subqueries twice per level (2^depth).
		// All fail today: still running after 6 s.
		{name: "nested-scalar-16", schema: "example", ref: scalar(16, 1), cand: scalar(16, 2)},
		{name: "nested-exists-16", schema: "example", ref: exists(16, 1), cand: exists(16, 2)},
		{name: "nested-in-30", schema: "example", ref: inChain(30, 1), cand: inChain(30, 2)},
		// Item 5: expandIsDistinct copies its operand per level.
		// Both fail today: still running after 6 s with 1.2-1.8 GB allocated.
		{name: "is-distinct-18", schema: "example", ref: distinct(18, 0), cand: distinct(18, 1)},
		{name: "is-distinct-30", schema: "example", ref: distinct(30, 0), cand: distinct(30, 1)},
		// Item 6: CTE inlining bounded in depth but not breadth.
		// Fails today: still running after 6 s.
		{name: "cte-fanout-15", schema: "example", ref: cte(15), cand: "SELECT dog_id FROM dogs"},
		// Item 7: unmemoised derivation and per-node formatters.
		// All fail today: except-400, or-5000, in-list-5000, row-in-20000
		// still running after 6 s; union-2000 2.5 s and 1.2 GB; or-10000
		// out of memory (fatal).
		{name: "except-400", schema: "example", ref: setops("EXCEPT", 400, 0), cand: setops("EXCEPT", 400, 1)},
		{name: "union-2000", schema: "example", ref: setops("UNION", 2000, 0), cand: setops("UNION", 2000, 1)},
		{name: "or-5000", schema: "example", ref: or(orTerms(5000)), cand: or(reversed(orTerms(5000))), notRefuted: true},
		{name: "or-10000", schema: "example", ref: or(orTerms(10000)), cand: or(reversed(orTerms(10000))), notRefuted: true},
		{name: "in-list-5000", schema: "example", ref: in(5000), cand: in(5001), notProved: true},
		{name: "row-in-20000", schema: "example", ref: rowIn(rows), cand: rowIn(reversed(rows)), notRefuted: true},
		// Item 9: a NUL byte truncated the query, so junk after it was
		// ignored and the pair judged equivalent. Either role.
		// Both fail today: judged equivalent.
		{name: "nul-byte-candidate", schema: "example", ref: "SELECT dog_id FROM dogs",
			cand: "SELECT dog_id FROM dogs\x00 WHERE junk", notProved: true},
		{name: "nul-byte-reference", schema: "example", ref: "SELECT dog_id FROM dogs\x00 WHERE junk",
			cand: "SELECT dog_id FROM dogs", notProved: true},
	}
}

// TestIssue9Blowups judges each reproducer in its own child process and
// fails, naming the case, when the child crashes, overruns its budget by
// more than 10% + 20 ms, holds over 512 MB at its peak, or returns an
// unsound label.
func TestIssue9Blowups(t *testing.T) {
	if name := os.Getenv(blowupCaseEnv); name != "" {
		runBlowupCase(t, name)
		return
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range blowupCases() {
		t.Run(c.name, func(t *testing.T) {
			// The child gives up on a hung judgement after blowupLimits.Hang;
			// this only stops a child that cannot even do that.
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, exe, "-test.run=^TestIssue9Blowups$", "-test.v", "-test.count=1")
			cmd.Env = append(os.Environ(), blowupCaseEnv+"="+c.name)
			out, err := cmd.CombinedOutput()
			if err != nil {
				var ee *exec.ExitError
				if !errors.As(err, &ee) && ctx.Err() == nil {
					t.Fatalf("case %s: starting the child: %v", c.name, err)
				}
				t.Errorf("case %s: child failed (%v):\n%s", c.name, err, summarize(string(out)))
				return
			}
			if rss, ok := peakRSS(cmd.ProcessState); ok {
				t.Logf("case %s: peak RSS %d MB", c.name, rss>>20)
				if rss > blowupMaxRSS {
					t.Errorf("case %s: peak RSS %d MB, over %d MB", c.name, rss>>20, blowupMaxRSS>>20)
				}
			}
			if !strings.Contains(string(out), "blowup case "+c.name+":") {
				t.Errorf("case %s: child did not judge the case:\n%s", c.name, tail(string(out), 20))
			}
			t.Log(lineWith(string(out), "blowup case "+c.name+":"))
		})
	}
}

// runBlowupCase runs in the child: judge the named case once and check
// the limits and the label.
func runBlowupCase(t *testing.T, name string) {
	limitChildMemory(t, blowupChildMemory)
	// A runaway recursion then overflows in well under the budget instead
	// of growing a 1 GB stack; no sound judgement needs this much.
	debug.SetMaxStack(256 << 20)
	var c *blowupCase
	for _, bc := range blowupCases() {
		if bc.name == name {
			c = &bc
			break
		}
	}
	if c == nil {
		t.Fatalf("no blowup case %q", name)
	}
	s := blowupSchema(t, c.schema)
	var v equivalence.Verdict
	var jerr error
	u := blowupLimits.Measure(context.Background(), func(ctx context.Context) {
		v, jerr = equivalence.Judge(ctx, s, c.ref, c.cand, equivalence.Options{})
	})
	t.Logf("blowup case %s: wall %v, alloc %d MB, label %q, err %v", name, u.Wall.Round(time.Millisecond), u.Alloc>>20, v.Label, jerr)
	if err := blowupLimits.Check(u); err != nil {
		t.Fatalf("case %s: %v", name, err)
	}
	if jerr != nil {
		return
	}
	if c.notProved && v.Label.Proved() {
		t.Errorf("case %s: judged %s, but the queries differ", name, v.Label)
	}
	if c.notRefuted && v.Label == equivalence.NotEquivalent {
		t.Errorf("case %s: judged %s, but the queries are equivalent", name, v.Label)
	}
}

func blowupSchema(t testing.TB, name string) *catalog.Schema {
	t.Helper()
	if name == "example" {
		return exampleSchema(t, catalog.Postgres)
	}
	ddl, err := os.ReadFile(sharedDir + "/data/schemas/" + name + ".sql")
	if err != nil {
		t.Fatal(err)
	}
	s, err := catalog.LoadDDL(string(ddl), catalog.SQLite)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// summarize keeps what names a child's failure: the runtime's fatal
// error or panic line (a stack overflow prints thousands of frames after
// it) and the child's own log lines.
func summarize(out string) string {
	var keep []string
	for _, l := range strings.Split(out, "\n") {
		tl := strings.TrimSpace(l)
		if strings.HasPrefix(tl, "fatal error:") || strings.HasPrefix(tl, "runtime:") || strings.HasPrefix(tl, "panic:") ||
			strings.Contains(tl, "blowup_regress_test.go:") {
			keep = append(keep, l)
		}
		if len(keep) >= 12 {
			break
		}
	}
	if len(keep) == 0 {
		return tail(out, 20)
	}
	return strings.Join(keep, "\n")
}

func tail(s string, lines int) string {
	ls := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(ls) > lines {
		ls = ls[len(ls)-lines:]
	}
	return strings.Join(ls, "\n")
}

func lineWith(s, sub string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			return strings.TrimSpace(l)
		}
	}
	return ""
}

// BenchmarkJudgeIssue9 measures the large-list figures issue 9 sets
// targets for: the 100,000-item IN-list pair (under 1 s, under 200 MB)
// and the 10,000-term OR chain (under 200 ms). It runs in-process, so on
// code without the fixes it may exhaust memory.
func BenchmarkJudgeIssue9(b *testing.B) {
	cases := map[string]blowupCase{}
	for _, c := range blowupCases() {
		cases[c.name] = c
	}
	s := exampleSchema(b, catalog.Postgres)
	for _, name := range []string{"in-list-100k-pair", "or-10000", "row-in-20000", "in-list-5000"} {
		c := cases[name]
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := equivalence.Judge(context.Background(), s, c.ref, c.cand, equivalence.Options{}); err != nil {
					b.Fatal(fmt.Errorf("%s: %w", name, err))
				}
			}
		})
	}
}
