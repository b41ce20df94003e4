package exec_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/big"
	"math/rand"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/pgequiv/pgequiv/internal/shareddata"
	"github.com/pgequiv/pgequiv/internal/sqlitetest"

	_ "modernc.org/sqlite" // the real engine the executor is checked against

	"github.com/pgequiv/pgequiv/internal/dataset"
	"github.com/pgequiv/pgequiv/planner"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/exec"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// TestDifferentialSQLite runs every Spider query of the shared pairs on
// small random databases in both the executor (SQLite mode) and a real
// SQLite, and requires the same result bags (same order where the query
// orders) for at least 99.5% of the (query, instance) results. Every
// disagreement class is logged. EXEC_SQLITE_INSTANCES raises the number
// of instances per schema (default 2).
func TestDifferentialSQLite(t *testing.T) {
	instances := 2
	if testing.Short() {
		instances = 1
	}
	if s := os.Getenv("EXEC_SQLITE_INSTANCES"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("EXEC_SQLITE_INSTANCES: %v", err)
		}
		instances = n
	}
	shared := shareddata.Path(t, "data") + "/"
	pairs, err := dataset.ReadPairsFile(shared + "spider_pair_dev.jsonl")
	if err != nil {
		t.Fatalf("shared pairs: %v", err)
	}
	byDB := map[string][]string{}
	var dbs []string
	for _, p := range pairs {
		if _, ok := byDB[p.DB]; !ok {
			dbs = append(dbs, p.DB)
		}
		byDB[p.DB] = append(byDB[p.DB], p.Reference, p.Candidate)
	}
	sort.Strings(dbs)
	var st liteStats
	st.classes = map[string][]string{}
	for _, name := range dbs {
		ddl, err := os.ReadFile(shared + "schemas/" + name + ".sql")
		if err != nil {
			t.Fatalf("schema %s: %v", name, err)
		}
		liteDifferential(t, &st, name, string(ddl), byDB[name], instances)
	}
	cf, err := dataset.ReadCasesFile(shareddata.Path(t, "equivalence/cases.yaml"))
	if err != nil {
		t.Fatalf("shared cases: %v", err)
	}
	c := liteStats{classes: st.classes}
	liteDifferential(t, &c, "constructs", cf.Schema, liteConstructQueries, instances)
	t.Logf("constructs: queries=%d (of %d distinct) compared=%d agree=%d cannot-execute=%d nondeterministic=%d non-empty=%d",
		c.planned, c.distinct, c.total, c.agree, c.cannot, c.nondet, c.nonEmpty)
	st.distinct, st.planned, st.total, st.agree = st.distinct+c.distinct, st.planned+c.planned, st.total+c.total, st.agree+c.agree
	st.cannot, st.nondet, st.nonEmpty = st.cannot+c.cannot, st.nondet+c.nondet, st.nonEmpty+c.nonEmpty
	t.Logf("queries=%d (of %d distinct, %d not planned) instances/schema=%d compared=%d agree=%d (%.2f%%) cannot-execute=%d nondeterministic=%d non-empty=%d",
		st.planned, st.distinct, st.distinct-st.planned, instances, st.total, st.agree, 100*float64(st.agree)/float64(max(st.total, 1)), st.cannot, st.nondet, st.nonEmpty)
	keys := make([]string, 0, len(st.classes))
	for k := range st.classes {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return len(st.classes[keys[i]]) > len(st.classes[keys[j]]) })
	for _, k := range keys {
		t.Logf("class %q: %d, e.g. %s", k, len(st.classes[k]), st.classes[k][0])
	}
	if st.total == 0 {
		t.Fatal("no query was compared")
	}
	if rate := float64(st.agree) / float64(st.total); rate < 0.995 {
		t.Errorf("agreement %.2f%% is below 99.5%%", 100*rate)
	}
}

type liteStats struct {
	distinct, planned                      int
	total, agree, cannot, nondet, nonEmpty int
	classes                                map[string][]string
}

func (st *liteStats) add(class, example string) {
	st.classes[class] = append(st.classes[class], example)
}

func liteDifferential(t *testing.T, st *liteStats, name, ddl string, sqls []string, instances int) {
	ctx := context.Background()
	schema, err := catalog.LoadDDL(ddl, catalog.SQLite)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1) // one connection: one in-memory database
	if _, err := db.ExecContext(ctx, sqlitetest.DDL(ddl)); err != nil {
		t.Fatalf("%s: create tables: %v", name, err)
	}
	type query struct {
		sql  string
		plan *plan.Plan
	}
	var queries []query
	seen := map[string]bool{}
	for _, q := range sqls {
		if seen[q] {
			continue
		}
		seen[q] = true
		st.distinct++
		p, err := planner.Plan(ctx, schema, q, planner.Options{})
		if err != nil {
			continue
		}
		queries = append(queries, query{q, p})
	}
	st.planned += len(queries)
	var lits []*plan.Expr
	for _, q := range queries {
		q.plan.Root.WalkExprs(func(e *plan.Expr) {
			plan.WalkDeep(e, func(c *plan.Expr) {
				if c.Kind == plan.Const && !c.Null {
					lits = append(lits, c)
				}
			})
		})
	}
	rng := rand.New(rand.NewSource(int64(len(name))))
	opts := exec.Options{Dialect: catalog.SQLite}
	for inst := 0; inst < instances; inst++ {
		// Odd instances also draw values from a few of the queries'
		// literals, so that selective predicates hold for some rows.
		var extra map[catalog.Type][]string
		if inst%2 == 1 && len(lits) > 0 {
			extra = map[catalog.Type][]string{}
			for range 12 {
				c := lits[rng.Intn(len(lits))]
				v := strings.Trim(c.Value, "%_")
				switch c.Typ {
				case catalog.Int, catalog.Numeric, catalog.Float:
					extra[catalog.Numeric] = append(extra[catalog.Numeric], v)
				case catalog.Text, catalog.Unknown:
					extra[catalog.Text] = append(extra[catalog.Text], v)
					if _, err := exec.Numeric(v); err == nil {
						extra[catalog.Numeric] = append(extra[catalog.Numeric], v)
					}
				}
			}
		}
		mem := generateWith(rng, schema, inst, extra)
		if err := liteLoad(ctx, db); err != nil {
			t.Fatalf("%s: load instance %d: %v", name, inst, err)
		}
		for _, q := range queries {
			where := fmt.Sprintf("%s [%s instance %d]", q.sql, name, inst)
			got, gerr := exec.ExecuteWith(ctx, q.plan, mem, opts)
			if errors.Is(gerr, exec.ErrCannotExecute) {
				st.cannot++
				st.add("cannot execute: "+firstLine(gerr.Error()), where)
				continue
			}
			if gerr == nil && got.Nondeterministic {
				st.nondet++
				continue
			}
			st.total++
			want, werr := liteRows(ctx, db, q.sql)
			switch {
			case gerr != nil && werr != nil:
				st.agree++
			case gerr != nil || werr != nil:
				st.add(fmt.Sprintf("error mismatch exec=%v sqlite=%v", gerr, werr), where)
			default:
				if len(want) > 0 {
					st.nonEmpty++
				}
				if diff := liteCompareResults(got, want); diff == "" {
					st.agree++
				} else {
					st.add(diff, fmt.Sprintf("%s\n  exec:   %v\n  sqlite: %v", where, liteGot(got), want))
				}
			}
		}
	}
}

// liteLoad replaces the tables' contents with the last generated
// instance, inserting every value as a string literal so that each
// column's affinity converts it as it would convert loaded data.
func liteLoad(ctx context.Context, db *sql.DB) error {
	inst := lastInstance
	var b strings.Builder
	for _, t := range inst.order {
		if internalTable(t.Name) {
			continue
		}
		fmt.Fprintf(&b, "DELETE FROM %s;\n", quoteIdent(t.Name))
	}
	for _, t := range inst.order {
		if internalTable(t.Name) {
			continue
		}
		for _, row := range inst.text[t.Name] {
			vals := make([]string, len(row))
			for i, v := range row {
				if v == nil {
					vals[i] = "NULL"
				} else {
					vals[i] = "'" + strings.ReplaceAll(*v, "'", "''") + "'"
				}
			}
			fmt.Fprintf(&b, "INSERT INTO %s VALUES (%s);\n", quoteIdent(t.Name), strings.Join(vals, ", "))
		}
	}
	_, err := db.ExecContext(ctx, b.String())
	return err
}

// liteRows runs q and returns its rows, values canonicalized by
// sqlitetest.Canon and joined by "|".
func liteRows(ctx context.Context, db *sql.DB, q string) ([]string, error) {
	rows, err := sqlitetest.Query(ctx, db, q)
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = strings.Join(r, "|")
	}
	return out, err
}

func execCanon(v exec.Value) any {
	switch v.K {
	case exec.KNull:
		return nil
	case exec.KInt:
		return v.I
	case exec.KFloat:
		return v.F
	case exec.KBool:
		return v.B
	case exec.KNumeric:
		if v.R.IsInt() && v.R.Num().IsInt64() {
			return v.R.Num().Int64()
		}
		f, _ := new(big.Rat).Set(v.R).Float64()
		return f
	}
	return v.String()
}

func liteGot(got *exec.Result) []string {
	g := make([]string, len(got.Rows))
	for i, row := range got.Rows {
		parts := make([]string, len(row))
		for j, v := range row {
			parts[j] = sqlitetest.Canon(execCanon(v))
		}
		g[i] = strings.Join(parts, "|")
	}
	return g
}

func liteCompareResults(got *exec.Result, want []string) string {
	g := liteGot(got)
	if len(g) != len(want) {
		return "row count differs"
	}
	if got.Ordered {
		for i := 0; i < len(g); {
			j := i
			for j < len(g) && got.Ties[j] == got.Ties[i] {
				j++
			}
			if !sameBag(g[i:j], want[i:j]) {
				if sameBag(g, want) {
					return "order differs"
				}
				return "values differ (ordered)"
			}
			i = j
		}
		return ""
	}
	if !sameBag(g, want) {
		return "values differ"
	}
	return ""
}

func internalTable(name string) bool { return strings.HasPrefix(strings.ToLower(name), "sqlite_") }
