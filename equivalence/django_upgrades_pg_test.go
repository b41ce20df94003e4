package equivalence_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

// djangoUpgradesProvedFloor is the number of corpus pairs the judge must
// prove; raise it as the prover learns more (issue 35 asks 90%).
const djangoUpgradesProvedFloor = 59

// upgradePair is one line of testdata/django_upgrades.jsonl.
type upgradePair struct {
	ID, Op, Change, Reference, Candidate string
	Ordered                              bool
}

// TestDjangoUpgrades (issue 35, acceptance 4): pairs of SQL Django 3.2
// emits for two formulations of one everyday operation on the application
// schema, the rewrites an ORM upgrade or a refactor makes, as
// scripts/ormcorpus/django_upgrades.py wrote them. First the corpus is
// checked: both sides of every pair return the same bag (the same list
// where both order by a key) on PostgreSQL over generated databases —
// empty tables, NULLs, duplicate values, boundary timestamps — so that a
// pair the engine tells apart fails here rather than stand as an
// "equivalent" pair. Then each pair is judged: none may be not_equivalent
// or fail to judge (a refusal is unknown with its reason), and at least
// djangoUpgradesProvedFloor must be proved.
func TestDjangoUpgrades(t *testing.T) {
	ddl, err := os.ReadFile("refute/testdata/app_schema.sql")
	if err != nil {
		t.Fatal(err)
	}
	s, err := catalog.LoadDDL(string(ddl), catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	pairs := readUpgradePairs(t, "testdata/django_upgrades.jsonl")
	if len(pairs) < 50 {
		t.Fatalf("%d pairs, want at least 50", len(pairs))
	}
	for _, p := range pairs {
		if p.Reference == p.Candidate {
			t.Errorf("%s: both sides are the same text", p.ID)
		}
	}

	conn := pgConnect(t)
	ctx := context.Background()
	if _, err := conn.Exec(ctx, "SET TimeZone = 'UTC';\n"+string(ddl)); err != nil {
		t.Fatalf("load schema: %v", err)
	}
	for seed := uint64(0); seed < 12; seed++ {
		fillApp(t, ctx, conn, seed)
		for _, p := range pairs {
			a, b := upgradeRows(t, ctx, conn, p.Reference), upgradeRows(t, ctx, conn, p.Candidate)
			if !sameResult(a, b, p.Ordered) {
				t.Errorf("%s (%s, %s): seed %d: PostgreSQL returns %v for the reference, %v for the candidate", p.ID, p.Op, p.Change, seed, a, b)
			}
		}
	}
	if t.Failed() {
		t.FailNow()
	}

	proved := 0
	for _, p := range pairs {
		v, err := equivalence.Judge(ctx, s, p.Reference, p.Candidate, equivalence.Options{})
		if err != nil {
			t.Errorf("%s (%s): judge error: %v", p.ID, p.Change, err)
			continue
		}
		switch {
		case v.Label == equivalence.NotEquivalent:
			t.Errorf("%s (%s): not_equivalent, but PostgreSQL agrees on every database: %s", p.ID, p.Change, v.Summary())
		case v.Label.Proved():
			proved++
			if v.Label != equivalence.Equivalent {
				// Every pair is equal on every database, empty tables
				// included: an assumption the proof names is one it does
				// not need (issue 35: ORDER BY … LIMIT 1 against MAX()).
				t.Errorf("%s (%s): %s, but needs no assumption", p.ID, p.Change, v.Summary())
			}
			// Issue 35: a pair proved with the columns in order came back
			// unknown with the column order ignored.
			w, err := equivalence.Judge(ctx, s, p.Reference, p.Candidate, equivalence.Options{ColumnOrder: "ignore"})
			if err != nil || !w.Label.Proved() {
				t.Errorf("%s (%s): proved under column_order=strict, not under ignore: %v %s", p.ID, p.Change, err, w.Summary())
			}
		case v.Label != equivalence.Unknown:
			t.Errorf("%s: label %q", p.ID, v.Label)
		case len(v.Differences) == 0 && v.LeansDifferent == "":
			t.Errorf("%s (%s): unknown with no reason: %s", p.ID, p.Change, v.Summary())
		default:
			t.Logf("%s (%s): %s", p.ID, p.Change, v.Summary())
		}
	}
	t.Logf("proved %d of %d Django upgrade pairs (%.0f%%)", proved, len(pairs), 100*float64(proved)/float64(len(pairs)))
	if proved < djangoUpgradesProvedFloor {
		t.Errorf("proved %d of %d, under the floor of %d", proved, len(pairs), djangoUpgradesProvedFloor)
	}
}

func readUpgradePairs(t *testing.T, path string) []upgradePair {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var pairs []upgradePair
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var p upgradePair
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			t.Fatal(err)
		}
		pairs = append(pairs, p)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return pairs
}

// upgradeRows runs q on conn and returns its rows as PostgreSQL prints them.
func upgradeRows(t *testing.T, ctx context.Context, conn *pgx.Conn, q string) [][]string {
	t.Helper()
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	return pgRaw(t, ctx, tx, q)
}

// appTimes are the timestamps the generator draws from: the bounds of
// 2024 and of the corpus's windows, each side of them by a microsecond
// (timestamptz's resolution), so a range written two ways is tested at
// its ends.
var appTimes = []string{
	"2023-12-31 23:59:59.999999+00", "2024-01-01 00:00:00+00", "2024-03-01 00:00:00+00",
	"2024-02-29 23:59:59.999999+00", "2024-06-01 00:00:00+00", "2024-06-01 00:00:00.000001+00",
	"2024-07-15 12:00:00+00", "2024-12-31 23:59:59.999999+00", "2025-01-01 00:00:00+00",
}

// appJSON are jsonb values: objects with and without the key, the key
// holding null, an array holding the key as a string, a scalar.
var appJSON = []string{`{}`, `{"kind": "x"}`, `{"kind": null}`, `["kind"]`, `"kind"`, `{"other": 1, "kind": ["x"]}`}

// fillApp empties the application tables and fills them from seed: seed 0
// leaves every table empty, seed 1 fills only the parents (users, tags),
// later seeds fill all of them with few rows, so that duplicates of the
// non-key values are common.
func fillApp(t *testing.T, ctx context.Context, conn *pgx.Conn, seed uint64) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 35))
	pick := func(xs []string) string { return xs[r.IntN(len(xs))] }
	tm := func() string { return "'" + pick(appTimes) + "'" }
	nullable := func(v string) string {
		if r.IntN(3) == 0 {
			return "NULL"
		}
		return v
	}
	var b strings.Builder
	b.WriteString("TRUNCATE post_tags, comments, orders, tags, posts, users;\n")
	if seed == 0 {
		upgradeExec(t, ctx, conn, b.String())
		return
	}
	nu := 1 + r.IntN(6)
	for i := 1; i <= nu; i++ {
		fmt.Fprintf(&b, "INSERT INTO users VALUES (%d, 'u%d', 'e%d@x', %t, %t, %s, %s, '%s', gen_random_uuid());\n",
			i*3, i, r.IntN(3), r.IntN(2) == 0, r.IntN(2) == 0, tm(), nullable(tm()), pick(appJSON))
	}
	tagNames := []string{"go", "rust", "sql"}
	nt := r.IntN(4)
	for i := 1; i <= nt; i++ {
		fmt.Fprintf(&b, "INSERT INTO tags VALUES (%d, '%s');\n", i, tagNames[i-1])
	}
	if seed > 1 {
		titles := []string{"SQL", "SQL tips", "sql", "SQ", "S_QL%", "Go", "", "SQLite"}
		slugs := []string{"go", "golang", "x-go", "rust", "ago"}
		statuses := []string{"draft", "published", "archived"}
		views := []int{0, 3, 5, 10, 11, 100, 101}
		np := r.IntN(9)
		for i := 1; i <= np; i++ {
			fmt.Fprintf(&b, "INSERT INTO posts VALUES (%d, %d, '%s', '%s-%d', 'b', '%s', %s, %s, '%s', '{}', %d);\n",
				i, 3*(1+r.IntN(nu)), pick(titles), pick(slugs), i, pick(statuses), tm(), nullable(tm()), pick(appJSON), views[r.IntN(len(views))])
		}
		if np > 0 {
			for i := 1; i <= r.IntN(12); i++ {
				author := "NULL"
				if r.IntN(3) > 0 {
					author = fmt.Sprint(3 * (1 + r.IntN(nu)))
				}
				fmt.Fprintf(&b, "INSERT INTO comments VALUES (%d, %d, %s, 'c', %t, %s, '{}');\n",
					i, 1+r.IntN(np), author, r.IntN(2) == 0, tm())
			}
			id := 0
			for p := 1; p <= np; p++ {
				for tg := 1; tg <= nt; tg++ {
					if r.IntN(2) == 0 {
						id++
						fmt.Fprintf(&b, "INSERT INTO post_tags VALUES (%d, %d, %d);\n", id, p, tg)
					}
				}
			}
		}
		states := []string{"new", "paid", "shipped", "cancelled"}
		totals := []int{0, 500, 1000, 1001, 5000}
		for i := 1; i <= r.IntN(8); i++ {
			fmt.Fprintf(&b, "INSERT INTO orders VALUES (%d, %d, '%s', %d, %s, '1 day', '{}');\n",
				i, 3*(1+r.IntN(nu)), pick(states), totals[r.IntN(len(totals))], tm())
		}
	}
	upgradeExec(t, ctx, conn, b.String())
}

func upgradeExec(t *testing.T, ctx context.Context, conn *pgx.Conn, sql string) {
	t.Helper()
	if _, err := conn.Exec(ctx, sql); err != nil {
		t.Fatalf("%v\n%s", err, sql)
	}
}

// TestOrderLimitMaxScalar (issue 35): a scalar subquery's ORDER BY x DESC
// LIMIT 1 is MAX(x) with no assumption (over no row both are NULL); at
// the top the LIMIT returns no row where MAX returns one NULL, so that
// proof stays under the non_empty assumption. Each is checked on
// PostgreSQL with the tables empty.
func TestOrderLimitMaxScalar(t *testing.T) {
	ddl, err := os.ReadFile("refute/testdata/app_schema.sql")
	if err != nil {
		t.Fatal(err)
	}
	s, err := catalog.LoadDDL(string(ddl), catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, a, b string
		want       equivalence.Label
		emptySame  bool
	}{
		{"scalar subquery", "SELECT p.id, (SELECT c.created_at FROM comments c WHERE c.post_id = p.id ORDER BY c.created_at DESC LIMIT 1) FROM posts p",
			"SELECT p.id, (SELECT MAX(c.created_at) FROM comments c WHERE c.post_id = p.id) FROM posts p", equivalence.Equivalent, true},
		{"uncorrelated scalar", "SELECT (SELECT o.total FROM orders o ORDER BY o.total LIMIT 1)",
			"SELECT (SELECT MIN(o.total) FROM orders o)", equivalence.Equivalent, true},
		{"top level", "SELECT o.total FROM orders o ORDER BY o.total DESC LIMIT 1",
			"SELECT MAX(o.total) FROM orders o", equivalence.EquivalentUnderAssumptions, false},
	}
	conn := pgConnect(t)
	ctx := context.Background()
	if _, err := conn.Exec(ctx, "SET TimeZone = 'UTC';\n"+string(ddl)); err != nil {
		t.Fatalf("load schema: %v", err)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, order := range []string{"strict", "ignore"} {
				v, err := equivalence.Judge(ctx, s, c.a, c.b, equivalence.Options{ColumnOrder: order})
				if err != nil {
					t.Fatal(err)
				}
				if v.Label != c.want {
					t.Errorf("column_order=%s: %s, want %s", order, v.Summary(), c.want)
				}
			}
			same := sameResult(upgradeRows(t, ctx, conn, c.a), upgradeRows(t, ctx, conn, c.b), false)
			if same != c.emptySame {
				t.Errorf("over empty tables PostgreSQL returns the same rows: %v, want %v", same, c.emptySame)
			}
		})
	}
}
