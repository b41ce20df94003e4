package exec_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/pgequiv/pgequiv/planner"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/exec"
)

const unitDDL = `
CREATE TABLE t (id integer PRIMARY KEY, a integer, n numeric, s text, d date);
CREATE TABLE u (id integer PRIMARY KEY, t_id integer REFERENCES t (id), b integer);
`

// unitDB: t has a NULL in every nullable column somewhere and a
// duplicate a; u references t, with one dangling-free NULL reference.
func unitDB(t *testing.T) exec.Database {
	t.Helper()
	num := func(s string) exec.Value {
		v, err := exec.Numeric(s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	date := func(s string) exec.Value {
		v, err := exec.ParseDate(s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	return exec.Database{
		"t": {
			{exec.Int(1), exec.Int(10), num("1.50"), exec.Text("apple"), date("2020-01-01")},
			{exec.Int(2), exec.Int(20), num("2"), exec.Text("Banana"), exec.Null},
			{exec.Int(3), exec.Null, exec.Null, exec.Text("b%c"), date("2019-12-31")},
			{exec.Int(4), exec.Int(10), num("3"), exec.Null, date("2021-06-15")},
		},
		"u": {
			{exec.Int(1), exec.Int(1), exec.Int(5)},
			{exec.Int(2), exec.Int(1), exec.Null},
			{exec.Int(3), exec.Int(2), exec.Int(7)},
			{exec.Int(4), exec.Null, exec.Int(9)},
		},
	}
}

func run(t *testing.T, db exec.Database, sql string) (string, error) {
	t.Helper()
	s, err := catalog.LoadDDL(unitDDL, catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	p, err := planner.Plan(context.Background(), s, sql, planner.Options{})
	if err != nil {
		t.Fatalf("plan %q: %v", sql, err)
	}
	res, err := exec.Execute(context.Background(), p, db)
	if err != nil {
		return "", err
	}
	rows := make([]string, len(res.Rows))
	for i, r := range res.Rows {
		vals := make([]string, len(r))
		for j, v := range r {
			vals[j] = v.String()
		}
		rows[i] = strings.Join(vals, ",")
	}
	return strings.Join(rows, ";"), nil
}

// TestOperators checks each operator and the SQL rules the executor must
// follow; results are in the executor's deterministic output order.
func TestOperators(t *testing.T) {
	db := unitDB(t)
	cases := []struct{ name, sql, want string }{
		{"scan", "SELECT id FROM t", "1;2;3;4"},
		{"filter keeps only TRUE", "SELECT id FROM t WHERE a = 10", "1;4"},
		{"NULL comparison is not TRUE", "SELECT id FROM t WHERE a <> 10", "2"},
		{"NOT of NULL stays NULL", "SELECT id FROM t WHERE NOT (a = 10)", "2"},
		{"OR with TRUE despite NULL", "SELECT id FROM t WHERE a = 10 OR id = 3", "1;3;4"},
		{"IS NULL", "SELECT id FROM t WHERE a IS NULL", "3"},
		{"IS DISTINCT FROM", "SELECT id FROM t WHERE a IS DISTINCT FROM 10", "2;3"},
		{"NOT IN with NULL in list", "SELECT id FROM t WHERE a NOT IN (20, NULL)", ""},
		{"project arithmetic", "SELECT a + 1, a / 3, a % 3 FROM t WHERE id = 2", "21,6,2"},
		{"numeric keeps scale", "SELECT n * 2 FROM t WHERE id = 1", "3.00"},
		{"numeric division scale", "SELECT n / 3 FROM t WHERE id = 2", "0.66666666666666666667"},
		{"integer division truncates", "SELECT -7 / 2", "-3"},
		{"avg of integers", "SELECT avg(a) FROM t", "13.3333333333333333"},
		{"sum, count, min, max", "SELECT sum(a), count(a), count(*), min(s), max(d) FROM t", "40,3,4,Banana,2021-06-15"},
		{"empty scalar aggregate", "SELECT count(*), sum(a) FROM t WHERE id > 9", "0,NULL"},
		{"empty grouped aggregate", "SELECT a, count(*) FROM t WHERE id > 9 GROUP BY a", ""},
		{"group with NULL key", "SELECT a, count(*) FROM t GROUP BY a ORDER BY a", "10,2;20,1;NULL,1"},
		{"count distinct", "SELECT count(DISTINCT a) FROM t", "2"},
		{"aggregate filter", "SELECT count(*) FILTER (WHERE a > 10) FROM t", "1"},
		{"having", "SELECT a FROM t GROUP BY a HAVING count(*) > 1", "10"},
		{"distinct", "SELECT DISTINCT a FROM t ORDER BY a", "10;20;NULL"},
		{"ASC puts NULLs last", "SELECT id FROM t ORDER BY a, id", "1;4;2;3"},
		{"DESC puts NULLs first", "SELECT id FROM t ORDER BY a DESC, id", "3;2;1;4"},
		{"NULLS FIRST", "SELECT id FROM t ORDER BY a NULLS FIRST, id", "3;1;4;2"},
		{"C collation", "SELECT s FROM t WHERE s IS NOT NULL ORDER BY s", "Banana;apple;b%c"},
		{"limit offset", "SELECT id FROM t ORDER BY id LIMIT 2 OFFSET 1", "2;3"},
		{"inner join", "SELECT t.id, u.id FROM t JOIN u ON t.id = u.t_id ORDER BY u.id", "1,1;1,2;2,3"},
		{"left join", "SELECT t.id, u.id FROM t LEFT JOIN u ON t.id = u.t_id ORDER BY t.id, u.id", "1,1;1,2;2,3;3,NULL;4,NULL"},
		{"right join", "SELECT t.id, u.id FROM t RIGHT JOIN u ON t.id = u.t_id ORDER BY u.id", "1,1;1,2;2,3;NULL,4"},
		{"full join", "SELECT t.id, u.id FROM t FULL JOIN u ON t.id = u.t_id AND u.b > 6 ORDER BY t.id, u.id", "1,NULL;2,3;3,NULL;4,NULL;NULL,1;NULL,2;NULL,4"},
		{"semi join", "SELECT id FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.t_id = t.id)", "1;2"},
		{"anti join", "SELECT id FROM t WHERE NOT EXISTS (SELECT 1 FROM u WHERE u.t_id = t.id)", "3;4"},
		{"NOT IN over a NULL", "SELECT id FROM t WHERE id NOT IN (SELECT t_id FROM u)", ""},
		{"correlated scalar subquery", "SELECT id, (SELECT sum(b) FROM u WHERE u.t_id = t.id) FROM t ORDER BY id", "1,5;2,7;3,NULL;4,NULL"},
		{"ALL", "SELECT id FROM t WHERE a >= ALL (SELECT a FROM t WHERE a IS NOT NULL)", "2"},
		{"ANY with NULL", "SELECT id FROM t WHERE (6 = ANY (SELECT b FROM u)) IS NULL", "1;2;3;4"},
		{"union", "SELECT a FROM t UNION SELECT b FROM u ORDER BY 1", "5;7;9;10;20;NULL"},
		{"union all", "SELECT a FROM t WHERE a = 10 UNION ALL SELECT a FROM t WHERE a = 10", "10;10;10;10"},
		{"intersect all", "SELECT a FROM t INTERSECT ALL SELECT 10", "10"},
		{"except", "SELECT a FROM t EXCEPT SELECT 20", "10;NULL"},
		{"except all", "SELECT a FROM t EXCEPT ALL SELECT 10", "20;NULL;10"},
		{"case", "SELECT CASE WHEN a > 15 THEN 'big' WHEN a IS NULL THEN 'none' ELSE 'small' END FROM t", "small;big;none;small"},
		{"like", "SELECT id FROM t WHERE s LIKE 'b\\%%'", "3"},
		{"ilike", "SELECT id FROM t WHERE s ILIKE 'b%'", "2;3"},
		{"coalesce and nullif", "SELECT coalesce(a, -1), nullif(a, 10) FROM t", "10,NULL;20,20;-1,NULL;10,NULL"},
		{"date arithmetic", "SELECT d + 1 FROM t WHERE id = 3", "2020-01-01"},
		{"cast numeric to int rounds", "SELECT CAST(n AS integer) FROM t WHERE id = 1", "2"},
		{"window row_number and rank", "SELECT id, rank() OVER (ORDER BY a), sum(a) OVER (ORDER BY a) FROM t ORDER BY id", "1,1,20;2,3,40;3,4,40;4,1,20"},
		{"values without FROM", "SELECT 1 + 2", "3"},
		{"rollup with grouping", "SELECT a, count(*), grouping(a) FROM t GROUP BY ROLLUP(a) ORDER BY grouping(a), a", "10,2,0;20,1,0;NULL,1,0;NULL,4,1"},
		{"cube of two", "SELECT a, s IS NULL, count(*) FROM t GROUP BY CUBE(a, s IS NULL) ORDER BY 1, 2, 3", "10,false,1;10,true,1;10,NULL,2;20,false,1;20,NULL,1;NULL,false,1;NULL,false,3;NULL,true,1;NULL,NULL,1;NULL,NULL,4"},
		{"empty grouping set over no rows", "SELECT a, count(*) FROM t WHERE id > 9 GROUP BY GROUPING SETS ((a), ())", "NULL,0"},
		{"bit and bool aggregates", "SELECT bit_and(a), bit_or(a), bit_xor(a), bool_and(a > 10), bool_or(a > 10) FROM t", "0,30,20,false,true"},
		{"lag and lead", "SELECT id, lag(a) OVER (ORDER BY id), lead(a, 2, -1) OVER (ORDER BY id) FROM t ORDER BY id", "1,NULL,NULL;2,10,10;3,20,-1;4,NULL,-1"},
		{"rows frame", "SELECT id, sum(id) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) FROM t ORDER BY id", "1,3;2,6;3,9;4,7"},
		{"nth_value beyond the frame", "SELECT id, nth_value(id, 2) OVER (ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM t ORDER BY id", "1,NULL;2,2;3,2;4,2"},
		{"string_agg of one value per group", "SELECT a, string_agg(s, '-') FROM t WHERE id < 4 GROUP BY a ORDER BY a", "10,apple;20,Banana;NULL,b%c"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := run(t, db, c.sql)
			if err != nil {
				t.Fatalf("%s: %v", c.sql, err)
			}
			if got != c.want {
				t.Errorf("%s\n got %q\nwant %q", c.sql, got, c.want)
			}
		})
	}
}

// TestErrors: errors the database raises are ErrQuery; constructs the
// executor does not model are ErrCannotExecute, never a guessed value.
func TestErrors(t *testing.T) {
	db := unitDB(t)
	cases := []struct {
		sql  string
		want error
	}{
		{"SELECT 9223372036854775807 + a FROM t", exec.ErrQuery},
		{"SELECT a / 0 FROM t", exec.ErrQuery},
		{"SELECT (SELECT id FROM t)", exec.ErrQuery},
		{"SELECT string_agg(DISTINCT s, s) FROM t", exec.ErrCannotExecute},
		{"SELECT corr(a, id) FROM t", exec.ErrCannotExecute},
		{"SELECT sum(a) OVER (ORDER BY id GROUPS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM t", exec.ErrCannotExecute},
		{"SELECT sum(a) OVER (ORDER BY id RANGE BETWEEN 1 PRECEDING AND CURRENT ROW) FROM t", exec.ErrCannotExecute},
		{"SELECT ntile(0) OVER (ORDER BY id) FROM t", exec.ErrQuery},
		{"SELECT upper(s) || now() FROM t", exec.ErrCannotExecute},
	}
	for _, c := range cases {
		_, err := run(t, db, c.sql)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: got %v, want %v", c.sql, err, c.want)
		}
	}
}

func TestNondeterministicLimit(t *testing.T) {
	s, _ := catalog.LoadDDL(unitDDL, catalog.Postgres)
	p, err := planner.Plan(context.Background(), s, "SELECT id FROM t ORDER BY a LIMIT 1", planner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := exec.Execute(context.Background(), p, unitDB(t))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Nondeterministic {
		t.Error("LIMIT 1 over two rows with a = 10 should be nondeterministic")
	}
}

func TestCancelled(t *testing.T) {
	s, _ := catalog.LoadDDL(unitDDL, catalog.Postgres)
	p, err := planner.Plan(context.Background(), s, "SELECT id FROM t", planner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := exec.Execute(ctx, p, unitDB(t)); !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
}

func TestCompareAndKey(t *testing.T) {
	a, _ := exec.Numeric("1.50")
	b, _ := exec.Numeric("1.5")
	if c, err := exec.Compare(a, b); err != nil || c != 0 {
		t.Errorf("1.50 vs 1.5: %d %v", c, err)
	}
	if a.Key() != b.Key() || exec.Int(2).Key() != exec.Float(2).Key() {
		t.Error("equal numbers must share a grouping key")
	}
	if c, _ := exec.Compare(exec.Text("Z"), exec.Text("a")); c >= 0 {
		t.Error("C collation orders upper case first")
	}
	if _, err := exec.Compare(exec.Text("1"), exec.Int(1)); !errors.Is(err, exec.ErrCannotExecute) {
		t.Errorf("text vs int: %v", err)
	}
}

// TestWindowPeersDeterminism: a ROWS frame or row_number over peers is
// nondeterministic when the peers are different rows, and determined
// when they are the same row twice (any order of them gives one bag).
func TestWindowPeersDeterminism(t *testing.T) {
	s, err := catalog.LoadDDL(`CREATE TABLE w (k integer NOT NULL, x integer NOT NULL);`, catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	same := exec.Database{"w": {{exec.Int(1), exec.Int(5)}, {exec.Int(1), exec.Int(5)}}}
	apart := exec.Database{"w": {{exec.Int(1), exec.Int(5)}, {exec.Int(1), exec.Int(6)}}}
	for _, c := range []struct {
		sql    string
		db     exec.Database
		nondet bool
	}{
		{"SELECT k, sum(x) OVER (ORDER BY k ROWS UNBOUNDED PRECEDING) FROM w", same, false},
		{"SELECT k, sum(x) OVER (ORDER BY k ROWS UNBOUNDED PRECEDING) FROM w", apart, true},
		{"SELECT k, row_number() OVER (ORDER BY k) FROM w", same, false},
		{"SELECT k, row_number() OVER (ORDER BY k) FROM w", apart, true},
		{"SELECT k, sum(x) OVER (ORDER BY k) FROM w", apart, false},
	} {
		p, err := planner.Plan(context.Background(), s, c.sql, planner.Options{})
		if err != nil {
			t.Fatal(err)
		}
		res, err := exec.Execute(context.Background(), p, c.db)
		if err != nil {
			t.Fatal(err)
		}
		if res.Nondeterministic != c.nondet {
			t.Errorf("%s on %v: nondeterministic %v, want %v", c.sql, c.db["w"], res.Nondeterministic, c.nondet)
		}
	}
}
