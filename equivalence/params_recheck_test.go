package equivalence_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/equivalence/bind"
	"github.com/pgequiv/pgequiv/internal/dataset"
	"github.com/pgequiv/pgequiv/internal/pgtest"
	"github.com/pgequiv/pgequiv/internal/shareddata"
	"github.com/pgequiv/pgequiv/internal/sqlitetest"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

// Counterexamples to pairs with parameters are re-run on the real engines
// with their values bound as a client binds them: PREPARE/EXECUTE on
// PostgreSQL (the server infers the parameters' types itself), bound
// arguments on SQLite. Both queries must differ as the judge says.

// paramNumbers returns the numbers of sql's parameters, as PostgreSQL's
// scanner finds them, and the highest.
func paramNumbers(t testing.TB, sql string) (map[int]bool, int) {
	t.Helper()
	res, err := pg.Scan(sql)
	if err != nil {
		t.Fatalf("scan %s: %v", sql, err)
	}
	used, most := map[int]bool{}, 0
	for _, tk := range res.Tokens {
		if tk.Token == pg.Token_PARAM {
			n, err := strconv.Atoi(sql[tk.Start+1 : tk.End])
			if err != nil {
				t.Fatalf("placeholder in %s: %v", sql, err)
			}
			used[n], most = true, max(most, n)
		}
	}
	return used, most
}

// bindLiterals writes sql with each parameter replaced by its value's
// literal, for the executor's sort-key groups.
func bindLiterals(t testing.TB, sql string, params []equivalence.Param) string {
	t.Helper()
	vals := make(map[int]string, len(params))
	for _, p := range params {
		n, err := strconv.Atoi(strings.TrimPrefix(p.Name, "$"))
		if err != nil {
			t.Fatalf("parameter %q: %v", p.Name, err)
		}
		vals[n] = "(" + p.Literal() + ")"
	}
	out, ok := bind.Substitute(sql, vals)
	if !ok {
		t.Fatalf("scan %s", sql)
	}
	return out
}

// pgExecute prepares q without declaring its parameters' types (as a
// driver's unnamed statement does) and executes it with the values'
// untyped literals. A parameter q does not use is declared text, as the
// server cannot type it.
func pgExecute(ctx context.Context, conn *pgx.Conn, name, q string, params []equivalence.Param, t testing.TB) engineRun {
	used, most := paramNumbers(t, q)
	types, args := make([]string, most), make([]string, most)
	for i := range most {
		types[i], args[i] = "unknown", "NULL"
		if !used[i+1] {
			types[i] = "text"
		}
	}
	for _, p := range params {
		if n, err := strconv.Atoi(strings.TrimPrefix(p.Name, "$")); err == nil && n <= most {
			args[n-1] = "NULL"
			if !p.Null {
				args[n-1] = "'" + strings.ReplaceAll(p.Value, "'", "''") + "'"
			}
		}
	}
	decl, call := "", ""
	if most > 0 {
		decl, call = " ("+strings.Join(types, ", ")+")", "("+strings.Join(args, ", ")+")"
	}
	if _, err := conn.Exec(ctx, "DEALLOCATE ALL; PREPARE "+name+decl+" AS "+q, pgx.QueryExecModeSimpleProtocol); err != nil {
		return engineRun{err: err}
	}
	return pgQuery(ctx, conn, "EXECUTE "+name+call)
}

func TestRecheckParamCounterexamplesPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	type pair struct{ id, ref, cand string }
	var pairs []pair
	for _, p := range paramPairs {
		pairs = append(pairs, pair{p.name, p.ref, p.cand})
	}
	cf, err := dataset.ReadCasesFile(shareddata.Path(t, "equivalence/cases.yaml"))
	if err != nil {
		t.Fatalf("shared cases: %v", err)
	}
	if cf.Schema != catalog.ExampleDDL() {
		t.Log("shared cases use a schema of their own")
	}
	s, err := catalog.LoadDDL(cf.Schema, catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cf.Cases {
		if cand, n := dataset.ParameterizeLiterals(c.Candidate); n > 0 {
			pairs = append(pairs, pair{c.ID + "/params", c.Reference, cand})
		}
	}
	ctx := context.Background()
	cl := pgtest.New(t, pgtest.Options{})
	conn, err := pgx.Connect(ctx, cl.ConnString(pgtest.SuperUser, ""))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, cf.Schema); err != nil {
		t.Fatalf("create tables: %v", err)
	}
	var tables []string
	for _, tb := range s.Tables {
		if !tb.IsView() {
			tables = append(tables, pgIdent(tb.Name))
		}
	}
	truncate := "TRUNCATE " + strings.Join(tables, ", ") + " CASCADE"
	opts := equivalence.Options{Refute: equivalence.RefuteOptions{Budget: recheckBudget()}}
	var tally recheckTally
	withParams := 0
	for _, p := range pairs {
		v, err := equivalence.Judge(ctx, s, p.ref, p.cand, opts)
		if err != nil || v.Counterexample == nil {
			continue
		}
		ce := v.Counterexample
		if len(ce.Params) > 0 {
			withParams++
		}
		if _, err := conn.Exec(ctx, truncate); err != nil {
			t.Fatal(err)
		}
		if len(ce.Inserts) > 0 {
			if _, err := conn.Exec(ctx, strings.Join(ce.Inserts, "\n")); err != nil {
				tally.add(recheckOutcome{false, "counterexample does not load"}, fmt.Sprintf("[%s] %v", p.id, err))
				continue
			}
		}
		r := pgExecute(ctx, conn, "r", p.ref, ce.Params, t)
		c := pgExecute(ctx, conn, "c", p.cand, ce.Params, t)
		ties := func() ([]int, []int, error) {
			mem, err := pgReadBack(ctx, conn, s)
			if err != nil {
				return nil, nil, err
			}
			return execTies(ctx, s, bindLiterals(t, p.ref, ce.Params), bindLiterals(t, p.cand, ce.Params), mem, catalog.Postgres)
		}
		o := recheck(ce, r, c, bothOrder(ctx, s, p.ref, p.cand), ties)
		tally.add(o, describe(p.id, p.ref, p.cand, v, r, c)+fmt.Sprintf("\n  parameters: %v", ce.Params))
	}
	tally.report(t, "postgres")
	if withParams < len(paramPairs)/2 {
		t.Errorf("only %d counterexamples bind parameters", withParams)
	}
}

// TestRecheckSpiderParamCounterexamplesSQLite judges the shared Spider
// pairs with every literal of the candidate replaced by a parameter (as
// `pgequiv eval --parameterize-candidate`) and re-runs every
// counterexample in SQLite with its values bound.
func TestRecheckSpiderParamCounterexamplesSQLite(t *testing.T) {
	if testing.Short() {
		t.Skip("judges every Spider pair")
	}
	shared := shareddata.Path(t, "data")
	pairs, err := dataset.ReadPairsFile(filepath.Join(shared, "spider_pair_dev.jsonl"))
	if err != nil {
		t.Fatalf("shared pairs: %v", err)
	}
	kept := pairs[:0]
	for _, p := range pairs {
		var n int
		if p.Candidate, n = dataset.ParameterizeLiterals(p.Candidate); n > 0 {
			kept = append(kept, p)
		}
	}
	ctx := context.Background()
	schemas := &dataset.SchemaDir{Dir: filepath.Join(shared, "schemas")}
	opts := equivalence.Options{Refute: equivalence.RefuteOptions{Budget: recheckBudget()}}
	results, err := judgePairs(ctx, kept, schemas, opts, 2)
	if err != nil {
		t.Fatal(err)
	}
	var tally recheckTally
	for _, r := range results {
		ce := r.verdict.Counterexample
		if r.err != nil || ce == nil {
			continue
		}
		p := r.pair
		ddl, err := os.ReadFile(filepath.Join(shared, "schemas", p.DB+".sql"))
		if err != nil {
			t.Fatal(err)
		}
		s, err := schemas.Get(p.DB, catalog.SQLite)
		if err != nil {
			t.Fatal(err)
		}
		ref, cand, done, err := liteParamRun(ctx, string(ddl), ce, p.Reference, p.Candidate, t)
		if err != nil {
			tally.add(recheckOutcome{false, "counterexample does not load: " + firstLine(err.Error())}, fmt.Sprintf("[%s] %v", p.ID, err))
			continue
		}
		ties := func() ([]int, []int, error) {
			return nil, nil, fmt.Errorf("sort-key groups of parameterized queries are not read back")
		}
		o := recheck(ce, ref, cand, bothOrder(ctx, s, p.Reference, p.Candidate), ties)
		done()
		tally.add(o, describe(p.ID, p.Reference, p.Candidate, r.verdict, ref, cand)+fmt.Sprintf("\n  parameters: %v", ce.Params))
	}
	tally.report(t, "sqlite")
	if tally.checked == 0 {
		t.Fatal("no counterexample to re-check")
	}
}

// liteParamRun loads ce into a fresh in-memory SQLite and runs both
// queries with ce's values bound: an integer, a real, text or NULL, as
// the value's literal would be.
func liteParamRun(ctx context.Context, ddl string, ce *equivalence.Counterexample, ref, cand string, t testing.TB) (r, c engineRun, done func(), err error) {
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		return r, c, nil, err
	}
	db.SetMaxOpenConns(1)
	if _, err := db.ExecContext(ctx, sqlitetest.DDL(ddl)); err != nil {
		db.Close()
		return r, c, nil, fmt.Errorf("create tables: %w", err)
	}
	if len(ce.Inserts) > 0 {
		if _, err := db.ExecContext(ctx, strings.Join(ce.Inserts, "\n")); err != nil {
			db.Close()
			return r, c, nil, fmt.Errorf("insert: %w", err)
		}
	}
	run := func(q string) engineRun {
		// $n binds the n-th argument (modernc.org/sqlite matches $NNN
		// with the argument of ordinal NNN).
		_, most := paramNumbers(t, q)
		args := make([]any, most)
		for _, p := range ce.Params {
			n, _ := strconv.Atoi(strings.TrimPrefix(p.Name, "$"))
			if n < 1 || n > most {
				continue
			}
			var v any
			switch lit := p.Literal(); {
			case p.Null:
			case !strings.HasPrefix(lit, "'"):
				if i, err := strconv.ParseInt(lit, 10, 64); err == nil {
					v = i
				} else if f, err := strconv.ParseFloat(lit, 64); err == nil {
					v = f
				}
			default:
				v = p.Value
			}
			args[n-1] = v
		}
		var e engineRun
		e.rows, e.err = sqlitetest.QueryArgs(ctx, db, q, args...)
		return e
	}
	return run(ref), run(cand), func() { db.Close() }, nil
}
