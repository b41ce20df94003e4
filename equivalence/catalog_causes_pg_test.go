package equivalence_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/internal/pgtest"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

// The regression tests of issue 18's catalog causes (2: ALTER TABLE, 5:
// domains and enums, 6: inheritance and partitions, 7: deferrable
// constraints). Each case is judged on the DDL as loaded, and its truth
// is checked on PostgreSQL: a proved pair must agree on every database
// of data, a pair that must not be proved must differ on one of them,
// and a counterexample must load (inside a transaction, as a deferred
// constraint allows) and tell the queries apart there.

type causeCase struct {
	name      string
	ref, cand string
	proved    bool     // must be proved equivalent; else must not be
	data      []string // legal databases (run inside a transaction)
	// same: the pair is equivalent on the engine but may be left
	// unknown (refused); it must not be refuted.
	same bool
}

func runCauseCases(t *testing.T, ddl string, cases []causeCase) {
	t.Helper()
	ctx := context.Background()
	s, err := catalog.LoadDDL(ddl, catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	pg := pgtest.New(t, pgtest.Options{})
	conn, err := pgx.Connect(ctx, pg.ConnString(pgtest.SuperUser, ""))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, ddl); err != nil {
		t.Fatalf("schema: %v", err)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v, err := equivalence.Judge(ctx, s, tc.ref, tc.cand, equivalence.Options{})
			if err != nil {
				t.Fatal(err)
			}
			proved := v.Label == equivalence.Equivalent || v.Label == equivalence.EquivalentUnderAssumptions
			switch {
			case tc.same && v.Label == equivalence.NotEquivalent:
				t.Errorf("label %s (%v): the engine agrees on them", v.Label, v.Counterexample)
			case !tc.same && proved != tc.proved:
				t.Errorf("label %s (%v), want proved %v", v.Label, v.Differences, tc.proved)
			}
			// The engine's truth over the given databases.
			differs := false
			for _, data := range tc.data {
				r, c, err := runInTx(ctx, conn, data, tc.ref, tc.cand)
				if err != nil {
					t.Fatalf("database %q: %v", data, err)
				}
				if !sameRows(r, c) {
					differs = true
				}
			}
			if tc.proved && differs {
				t.Errorf("proved pair differs on PostgreSQL")
			}
			if tc.same && differs {
				t.Errorf("the engine tells them apart")
			}
			if !tc.proved && !tc.same && !differs {
				t.Errorf("no database shows the engine telling them apart")
			}
			if ce := v.Counterexample; ce != nil {
				r, c, err := runInTx(ctx, conn, strings.Join(ce.Inserts, "\n"), tc.ref, tc.cand)
				if err != nil {
					t.Errorf("counterexample does not load: %v\n%s", err, strings.Join(ce.Inserts, "\n"))
				} else if sameRows(r, c) {
					t.Errorf("counterexample does not differ on PostgreSQL: %v vs %v\n%s", r, c, strings.Join(ce.Inserts, "\n"))
				}
			}
		})
	}
}

// runInTx loads data and runs both queries in one transaction, which it
// rolls back: a deferred constraint is checked only at commit, so what a
// query sees before it is what the engine allows a query to see.
func runInTx(ctx context.Context, conn *pgx.Conn, data, q1, q2 string) ([][]string, [][]string, error) {
	tx, err := conn.Begin(ctx)
	if err != nil {
		return nil, nil, err
	}
	defer tx.Rollback(ctx)
	if strings.TrimSpace(data) != "" {
		if _, err := tx.Exec(ctx, data); err != nil {
			return nil, nil, err
		}
	}
	var out [2][][]string
	for i, q := range []string{q1, q2} {
		rows, err := tx.Query(ctx, q, pgx.QueryExecModeSimpleProtocol)
		if err != nil {
			return nil, nil, err
		}
		for rows.Next() {
			var row []string
			for _, b := range rows.RawValues() {
				if b == nil {
					row = append(row, "NULL")
				} else {
					row = append(row, pgValue(string(b)))
				}
			}
			out[i] = append(out[i], row)
		}
		if err := rows.Err(); err != nil {
			return nil, nil, err
		}
	}
	return out[0], out[1], nil
}

// sameRows compares two results as multisets.
func sameRows(a, b [][]string) bool {
	key := func(rs [][]string) []string {
		var ks []string
		for _, r := range rs {
			ks = append(ks, strings.Join(r, "\x00"))
		}
		slices.Sort(ks)
		return ks
	}
	return slices.Equal(key(a), key(b))
}

// TestCause2AlterTableConstraints: keys, foreign keys and NOT NULL that
// pg_dump adds with ALTER TABLE hold; a dropped one does not.
func TestCause2AlterTableConstraints(t *testing.T) {
	ddl := `
CREATE TABLE public.t (id integer NOT NULL, v integer);
ALTER TABLE ONLY public.t ADD CONSTRAINT t_pkey PRIMARY KEY (id);
CREATE TABLE public.u (id integer, v integer);
CREATE TABLE public.w (id integer NOT NULL, t_id integer NOT NULL);
ALTER TABLE ONLY public.w ADD CONSTRAINT w_pkey PRIMARY KEY (id);
ALTER TABLE ONLY public.w ADD CONSTRAINT w_t_fkey FOREIGN KEY (t_id) REFERENCES public.t(id);
CREATE TABLE public.n (id integer, x integer);
ALTER TABLE ONLY public.n ALTER COLUMN x SET NOT NULL;
CREATE TABLE public.d (id integer, v integer);
ALTER TABLE public.d ADD CONSTRAINT d_pkey PRIMARY KEY (id);
ALTER TABLE public.d DROP CONSTRAINT d_pkey;
ALTER TABLE public.d ALTER COLUMN id DROP NOT NULL;`
	runCauseCases(t, ddl, []causeCase{
		{"pk added by ALTER TABLE", "SELECT DISTINCT id FROM t", "SELECT id FROM t", true,
			[]string{"INSERT INTO t VALUES (1, 1), (2, 1)", ""}, false},
		{"no key", "SELECT DISTINCT id FROM u", "SELECT id FROM u", false,
			[]string{"INSERT INTO u VALUES (1, 1), (1, 2)"}, false},
		{"dropped key", "SELECT DISTINCT id FROM d", "SELECT id FROM d", false,
			[]string{"INSERT INTO d VALUES (1, 1), (1, 2)"}, false},
		{"NOT NULL set by ALTER TABLE", "SELECT id FROM n WHERE x IS NOT NULL", "SELECT id FROM n", true,
			[]string{"INSERT INTO n VALUES (1, 1), (NULL, 2)"}, false},
		{"nullable", "SELECT id FROM u WHERE v IS NOT NULL", "SELECT id FROM u", false,
			[]string{"INSERT INTO u VALUES (1, NULL)"}, false},
		{"foreign key added by ALTER TABLE", "SELECT w.id FROM w JOIN t ON w.t_id = t.id", "SELECT id FROM w", true,
			[]string{"INSERT INTO t VALUES (1, 1), (2, 2); INSERT INTO w VALUES (1, 1), (2, 1)"}, false},
	})
}

// TestCause5DomainsAndEnums: a domain's NOT NULL holds for its columns
// (through a domain over a domain too); a domain without one does not
// make a column NOT NULL. The domain's CHECKs and an enum's labels are in
// the catalog (TestPgDumpCatalog compares them with the database). An
// enum orders by declaration, not as text: a query ordering enum values
// is refused, never refuted by text order.
func TestCause5DomainsAndEnums(t *testing.T) {
	ddl := `
CREATE DOMAIN nn AS integer NOT NULL;
CREATE DOMAIN nn2 AS nn CHECK (VALUE < 100);
CREATE DOMAIN maybe AS integer CHECK (VALUE > 0);
CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy');
CREATE TABLE dt (id integer PRIMARY KEY, x nn, y nn2, z maybe, m mood);`
	s, err := catalog.LoadDDL(ddl, catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	dt := s.Table("dt")
	if c := dt.Columns; !c[1].NotNull || !c[2].NotNull || c[3].NotNull || c[2].Domain != "nn2" || c[2].Type != catalog.Int {
		t.Errorf("domain columns: %+v", c)
	}
	if !slices.Equal(dt.Columns[4].Enum, []string{"sad", "ok", "happy"}) || dt.Columns[4].Type != catalog.Text {
		t.Errorf("enum column: %+v", dt.Columns[4])
	}
	var checks []string
	for _, c := range dt.Checks {
		checks = append(checks, c.Expr)
	}
	if !slices.Equal(checks, []string{"y < 100", "z > 0"}) {
		t.Errorf("domain checks %q", checks)
	}
	runCauseCases(t, ddl, []causeCase{
		{"domain NOT NULL", "SELECT id FROM dt WHERE x IS NOT NULL", "SELECT id FROM dt", true,
			[]string{"INSERT INTO dt VALUES (1, 1, 1, NULL, 'ok')"}, false},
		{"domain over a NOT NULL domain", "SELECT id FROM dt WHERE y IS NOT NULL", "SELECT id FROM dt", true,
			[]string{"INSERT INTO dt VALUES (1, 1, 1, NULL, 'ok')"}, false},
		{"domain without NOT NULL", "SELECT id FROM dt WHERE z IS NOT NULL", "SELECT id FROM dt", false,
			[]string{"INSERT INTO dt VALUES (1, 1, 1, NULL, 'ok')"}, false},
		{name: "enum order is the declaration's", ref: "SELECT id FROM dt WHERE m = 'sad'", cand: "SELECT id FROM dt WHERE m < 'ok'", same: true,
			data: []string{"INSERT INTO dt VALUES (1, 1, 1, NULL, 'sad'), (2, 1, 1, NULL, 'ok'), (3, 1, 1, NULL, 'happy')"}},
		{name: "enum equality", ref: "SELECT id FROM dt WHERE m = 'sad'", cand: "SELECT id FROM dt WHERE m = 'happy'",
			data: []string{"INSERT INTO dt VALUES (1, 1, 1, NULL, 'sad')"}},
	})
}

// TestCause6InheritanceAndPartitions: a scan of a parent reads its
// children's rows, FROM ONLY does not, and a key holds per table only.
func TestCause6InheritanceAndPartitions(t *testing.T) {
	ddl := `
CREATE TABLE vehicle (vid integer PRIMARY KEY, wheels integer NOT NULL);
CREATE TABLE car (seats integer) INHERITS (vehicle);
ALTER TABLE car ADD PRIMARY KEY (vid);
CREATE TABLE m (k integer NOT NULL, v integer) PARTITION BY RANGE (k);
CREATE TABLE m_all PARTITION OF m FOR VALUES FROM (MINVALUE) TO (MAXVALUE);
CREATE TABLE r (k integer NOT NULL, v integer) PARTITION BY RANGE (k);
CREATE TABLE r1 PARTITION OF r FOR VALUES FROM (0) TO (10);
CREATE TABLE r2 PARTITION OF r FOR VALUES FROM (10) TO (20);`
	data := []string{
		"INSERT INTO vehicle VALUES (1, 4); INSERT INTO car VALUES (1, 4, 5), (2, 4, 2)",
		"INSERT INTO m VALUES (1, 1), (2, 2); INSERT INTO r VALUES (1, 1), (15, 2)",
	}
	runCauseCases(t, ddl, []causeCase{
		{"parent vs ONLY parent", "SELECT count(*) FROM vehicle", "SELECT count(*) FROM ONLY vehicle", false, data, false},
		{"DISTINCT over a parent", "SELECT DISTINCT vid FROM vehicle", "SELECT vid FROM vehicle", false, data, false},
		{"DISTINCT over ONLY a parent", "SELECT DISTINCT vid FROM ONLY vehicle", "SELECT vid FROM ONLY vehicle", true, data, false},
		{"DISTINCT over a child", "SELECT DISTINCT vid FROM car", "SELECT vid FROM car", true, data, false},
		{"partitioned vs ONLY", "SELECT count(*) FROM m", "SELECT count(*) FROM ONLY m", false, data, false},
		{"partitioned is its partitions", "SELECT k, v FROM r", "SELECT k, v FROM r1 UNION ALL SELECT k, v FROM r2", true, data, false},
	})
}

// TestCause7DeferrableConstraints: a DEFERRABLE key or foreign key may be
// violated inside a transaction, so it is not used as a fact; the same
// constraint not deferrable is.
func TestCause7DeferrableConstraints(t *testing.T) {
	ddl := `
CREATE TABLE dk (id integer NOT NULL, v integer);
ALTER TABLE dk ADD CONSTRAINT dk_pkey PRIMARY KEY (id) DEFERRABLE INITIALLY DEFERRED;
CREATE TABLE du (id integer NOT NULL UNIQUE DEFERRABLE INITIALLY DEFERRED, v integer);
CREATE TABLE ik (id integer NOT NULL, v integer);
ALTER TABLE ik ADD PRIMARY KEY (id);
CREATE TABLE df (id integer PRIMARY KEY, kid integer NOT NULL REFERENCES ik (id) DEFERRABLE INITIALLY DEFERRED);
CREATE TABLE dn (id integer PRIMARY KEY, kid integer NOT NULL REFERENCES ik (id));`
	runCauseCases(t, ddl, []causeCase{
		{"deferrable primary key", "SELECT DISTINCT id FROM dk", "SELECT id FROM dk", false,
			[]string{"INSERT INTO dk VALUES (1, 1), (1, 2)"}, false},
		{"deferrable unique", "SELECT DISTINCT id FROM du", "SELECT id FROM du", false,
			[]string{"INSERT INTO du VALUES (1, 1), (1, 2)"}, false},
		{"immediate primary key", "SELECT DISTINCT id FROM ik", "SELECT id FROM ik", true,
			[]string{"INSERT INTO ik VALUES (1, 1), (2, 2)"}, false},
		{"deferrable foreign key", "SELECT df.id FROM df JOIN ik ON df.kid = ik.id", "SELECT id FROM df", false,
			[]string{"INSERT INTO df VALUES (1, 7)"}, false},
		{"immediate foreign key", "SELECT dn.id FROM dn JOIN ik ON dn.kid = ik.id", "SELECT id FROM dn", true,
			[]string{"INSERT INTO ik VALUES (7, 1); INSERT INTO dn VALUES (1, 7)"}, false},
	})
}

// TestUnmodelledTableNotJudged: a table with something the catalog does
// not model (here a row security policy, which PostgreSQL applies and
// which filters what a query sees) gets neither a proof nor a
// counterexample; a pair over another table still does.
func TestUnmodelledTableNotJudged(t *testing.T) {
	ddl := `
CREATE TABLE t (id integer PRIMARY KEY, owner text NOT NULL);
CREATE POLICY mine ON t USING (owner = current_user);
ALTER TABLE t ENABLE ROW LEVEL SECURITY;
CREATE TABLE u (id integer PRIMARY KEY, owner text NOT NULL);`
	s, err := catalog.LoadDDL(ddl, catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, tc := range []struct {
		ref, cand string
		want      equivalence.Label
	}{
		{"SELECT DISTINCT id FROM t", "SELECT id FROM t", equivalence.Unknown},
		{"SELECT id FROM t WHERE id > 1", "SELECT id FROM t", equivalence.Unknown},
		{"SELECT u.id FROM u JOIN t ON t.id = u.id", "SELECT u.id FROM u", equivalence.Unknown},
		{"SELECT DISTINCT id FROM u", "SELECT id FROM u", equivalence.Equivalent},
		{"SELECT id FROM u WHERE id > 1", "SELECT id FROM u", equivalence.NotEquivalent},
	} {
		v, err := equivalence.Judge(ctx, s, tc.ref, tc.cand, equivalence.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if v.Label != tc.want {
			t.Errorf("%s | %s: %s, want %s", tc.ref, tc.cand, v.Label, tc.want)
		}
		if tc.want == equivalence.Unknown && !slices.ContainsFunc(v.Differences, func(d equivalence.Difference) bool {
			return d.Component == equivalence.ComponentUnmodelled && strings.Contains(d.Reference, "CREATE POLICY mine (line 3)")
		}) {
			t.Errorf("%s | %s: the verdict does not say what is unmodelled: %+v", tc.ref, tc.cand, v.Differences)
		}
	}
	// The engine's side: the policy hides rows from a role it applies to.
	pg := pgtest.New(t, pgtest.Options{})
	conn, err := pgx.Connect(ctx, pg.ConnString(pgtest.SuperUser, ""))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, ddl+`
INSERT INTO t VALUES (1, 'reader'), (2, 'someone');
CREATE ROLE reader; GRANT SELECT ON t TO reader; SET ROLE reader;`); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM t").Scan(&n); err != nil || n != 1 {
		t.Errorf("the policy should leave 1 of 2 rows visible: %d %v", n, err)
	}
}
