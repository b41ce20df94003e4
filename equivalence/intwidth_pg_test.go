package equivalence_test

import (
	"context"
	"strings"
	"testing"

	"github.com/pgequiv/pgequiv/planner/catalog"
)

// TestIntegerWidthsPostgres: the planner's Int family folds int2, int4
// and int8 together, but PostgreSQL computes in the operands' width. Its
// sum of an int8 (a bigint column, a COUNT) is a numeric, which divides
// exactly (SUM(bonus) / 2 is 1.5 where CAST(SUM(bonus) AS bigint) / 2 is
// 1), and int4 arithmetic on literals fails past 2^31 (2147483647 + 1 is
// "integer out of range", not 2147483648). Both pairs were proved
// equivalent; each case's truth is shown on PostgreSQL first.
func TestIntegerWidthsPostgres(t *testing.T) {
	const ddl = `CREATE TABLE emp (id int PRIMARY KEY, bonus bigint, n int);`
	s, err := catalog.LoadDDL(ddl, catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	conn := pgConnect(t)
	ctx := context.Background()
	rows := "INSERT INTO emp VALUES (1, 3, 3);"
	cases := []struct {
		name   string
		a, b   string
		prove  bool
		raises bool // the reference fails on PostgreSQL
	}{
		{name: "sum of bigint divides exactly", a: "SELECT SUM(bonus) / 2 FROM emp", b: "SELECT CAST(SUM(bonus) AS bigint) / 2 FROM emp"},
		{name: "sum of count divides exactly", a: "SELECT SUM(c) / 2 FROM (SELECT count(*) AS c FROM emp) x", b: "SELECT CAST(SUM(c) AS bigint) / 2 FROM (SELECT count(*) AS c FROM emp) x"},
		{name: "sum of int is a bigint", a: "SELECT SUM(n) / 2 FROM emp", b: "SELECT CAST(SUM(n) AS bigint) / 2 FROM emp", prove: true},
		{name: "int4 literals overflow", a: "SELECT 2147483647 + 1 FROM emp", b: "SELECT CAST(2147483648 AS bigint) FROM emp", raises: true},
		{name: "int8 literal does not", a: "SELECT 2147483648 + 1 FROM emp", b: "SELECT CAST(2147483649 AS bigint) FROM emp", prove: true},
		{name: "int4 stays in range", a: "SELECT 2147483646 + 1 FROM emp", b: "SELECT 2147483647 FROM emp", prove: true},
		// A smallint constant computes in int2: folded into the family's
		// constant it computed in int4 and was proved equal to 32768.
		{name: "int2 literals overflow", a: "SELECT 32767::int2 + 1::int2 FROM emp", b: "SELECT 32768 FROM emp", raises: true},
		{name: "int2 literal compared", a: "SELECT id FROM emp WHERE 32767::int2 + 1::int2 > 0", b: "SELECT id FROM emp", raises: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			func() {
				tx, err := conn.Begin(ctx)
				if err != nil {
					t.Fatal(err)
				}
				defer tx.Rollback(ctx)
				if _, err := tx.Exec(ctx, ddl+rows); err != nil {
					t.Fatal(err)
				}
				_, qerr := tx.Exec(ctx, "SAVEPOINT s; "+c.a)
				if (qerr != nil) != c.raises {
					t.Fatalf("engine: %s raises %v, the case expects %v", c.a, qerr, c.raises)
				}
				if !c.raises {
					ra, rb := pgRaw(t, ctx, tx, c.a), pgRaw(t, ctx, tx, c.b)
					if same := sameBagText(ra, rb); same != c.prove {
						t.Fatalf("engine: %v vs %v; the case expects same = %v", ra, rb, c.prove)
					}
				}
			}()
			v := judgeIdentity(t, s, c.a, c.b)
			if proved(v) != c.prove {
				t.Fatalf("judged %s (%s), want proved = %v", v.Label, v.Summary(), c.prove)
			}
			if ce := v.Counterexample; ce != nil && !c.raises && !pgDiffer(t, conn, ddl, strings.Join(ce.Inserts, "\n"), c.a, c.b) {
				t.Fatalf("counterexample does not replay on PostgreSQL: %v", ce.Inserts)
			}
		})
	}
}
