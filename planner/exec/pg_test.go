package exec_test

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"math/rand"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgequiv/pgequiv/internal/dataset"
	"github.com/pgequiv/pgequiv/internal/shareddata"
	"github.com/pgequiv/pgequiv/planner"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/exec"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// TestDifferentialPostgres runs every query of the curated cases on small
// random databases in both the executor and a real PostgreSQL, and
// requires the same result bags (same order where the query orders).
// EXEC_PG_INSTANCES raises the instance count (default 5).
func TestDifferentialPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	instances := 5
	if s := os.Getenv("EXEC_PG_INSTANCES"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("EXEC_PG_INSTANCES: %v", err)
		}
		instances = n
	}
	shared := shareddata.Path(t, ".") + "/"
	cf, err := dataset.ReadCasesFile(shared + "equivalence/cases.yaml")
	if err != nil {
		t.Fatalf("shared cases: %v", err)
	}
	type suite struct {
		name, ddl string
		sqls      []string
		extra     map[catalog.Type][]string
	}
	suites := []suite{{name: "cases", ddl: cf.Schema}, {name: "constructs", ddl: cf.Schema, sqls: constructQueries}}
	for _, c := range cf.Cases {
		suites[0].sqls = append(suites[0].sqls, c.Reference, c.Candidate)
	}
	for _, name := range []string{"spark", "tpcc", "tpch"} {
		pairs, err := dataset.ReadPairsFile(shared + "data/provers/" + name + ".jsonl")
		if err != nil || len(pairs) == 0 {
			t.Logf("prover suite %s: %v", name, err)
			continue
		}
		ddl, err := os.ReadFile(shared + "data/provers/schemas/" + pairs[0].DB + ".sql")
		if err != nil {
			t.Logf("prover suite %s: %v", name, err)
			continue
		}
		su := suite{name: name, ddl: string(ddl)}
		for _, p := range pairs {
			su.sqls = append(su.sqls, p.Reference, p.Candidate)
		}
		su.extra = map[catalog.Type][]string{catalog.Date: datesAround(su.sqls), catalog.Text: stringLiterals(su.sqls)}
		suites = append(suites, su)
	}

	ctx := context.Background()
	conn := pgConn(t, ctx, "")
	for _, su := range suites {
		t.Run(su.name, func(t *testing.T) {
			if _, err := conn.Exec(ctx, fmt.Sprintf("CREATE SCHEMA %s; SET search_path TO %s", su.name, su.name)); err != nil {
				t.Fatal(err)
			}
			if _, err := conn.Exec(ctx, su.ddl); err != nil {
				t.Fatalf("create schema: %v", err)
			}
			differentialWith(t, conn, su.ddl, su.sqls, instances, su.extra)
		})
	}
}

func differential(t *testing.T, conn *pgx.Conn, ddl string, sqls []string, instances int) {
	differentialWith(t, conn, ddl, sqls, instances, nil)
}

// differentialWith is differential drawing half of the values from
// extra where it has values for a column's type.
func differentialWith(t *testing.T, conn *pgx.Conn, ddl string, sqls []string, instances int, extra map[catalog.Type][]string) {
	ctx := context.Background()
	readTypmods(ddl)
	schema, err := catalog.LoadDDL(ddl, catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	type query struct {
		sql  string
		plan *plan.Plan
	}
	var queries []query
	seen := map[string]bool{}
	for _, sql := range sqls {
		if seen[sql] {
			continue
		}
		seen[sql] = true
		p, err := planner.Plan(ctx, schema, sql, planner.Options{})
		if err != nil {
			t.Logf("not planned: %v", err)
			continue
		}
		queries = append(queries, query{sql, p})
	}

	var total, agree, cannot, nondet, nonEmpty int
	classes := map[string][]string{}
	rng := rand.New(rand.NewSource(1))
	for inst := 0; inst < instances; inst++ {
		db := generateWith(rng, schema, inst, extra)
		if err := load(ctx, conn, schema, db); err != nil {
			t.Fatalf("load instance %d: %v", inst, err)
		}
		for _, q := range queries {
			got, gerr := exec.Execute(ctx, q.plan, db)
			if errors.Is(gerr, exec.ErrCannotExecute) {
				cannot++
				k := "cannot execute: " + firstLine(gerr.Error())
				classes[k] = append(classes[k], q.sql)
				continue
			}
			if gerr == nil && got.Nondeterministic {
				nondet++
				continue
			}
			total++
			want, werr := pgRows(ctx, conn, q.sql)
			switch {
			case gerr != nil && werr != nil:
				agree++
			case gerr != nil || werr != nil:
				k := fmt.Sprintf("error mismatch exec=%v pg=%v", gerr, werr)
				classes[k] = append(classes[k], q.sql)
			default:
				if len(want) > 0 {
					nonEmpty++
				}
				if diff := compare(q.plan, got, want); diff == "" {
					agree++
				} else {
					classes[diff] = append(classes[diff], fmt.Sprintf("%s [instance %d]", q.sql, inst))
					if os.Getenv("EXEC_PG_DEBUG") != "" {
						t.Logf("exec %v\npg %v", got.Rows, deref(want))
					}
				}
			}
		}
	}
	t.Logf("queries=%d (of %d distinct) instances=%d compared=%d agree=%d (%.2f%%) cannot-execute=%d nondeterministic=%d non-empty=%d",
		len(queries), len(seen), instances, total, agree, 100*float64(agree)/float64(max(total, 1)), cannot, nondet, nonEmpty)
	keys := make([]string, 0, len(classes))
	for k := range classes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Logf("class %q: %d, e.g. %s", k, len(classes[k]), classes[k][0])
		if !strings.HasPrefix(k, "cannot execute") {
			t.Errorf("disagreement %q on %s", k, classes[k][0])
		}
	}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// pgRows runs sql and returns each value in PostgreSQL's text form, with
// nil for NULL.
func pgRows(ctx context.Context, conn *pgx.Conn, sql string) ([][]*string, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	rows, err := conn.Query(ctx, sql, pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out [][]*string
	for rows.Next() {
		raw := rows.RawValues()
		row := make([]*string, len(raw))
		for i, b := range raw {
			if b != nil {
				s := string(b)
				row[i] = &s
			}
		}
		out = append(out, row)
	}
	return out, rows.Err()
}

// canon reduces a value's text to a form that compares equal exactly when
// the values are equal: numbers as exact rationals, floats to 12
// significant digits (summation order may differ), booleans spelled out.
func canon(s *string) string {
	if s == nil {
		return "NULL"
	}
	v := *s
	switch v {
	case "t", "true":
		return "b:true"
	case "f", "false":
		return "b:false"
	}
	if strings.ContainsAny(v, "eE") || strings.Count(v, ".") == 1 || isInt(v) {
		if r, ok := new(big.Rat).SetString(v); ok && !strings.ContainsAny(v, "eE") {
			return "n:" + r.RatString()
		}
		if f, err := strconv.ParseFloat(v, 64); err == nil {
			return "n:" + strconv.FormatFloat(f, 'g', 12, 64)
		}
	}
	return "s:" + v
}

func isInt(s string) bool {
	_, err := strconv.ParseInt(s, 10, 64)
	return err == nil
}

func compare(p *plan.Plan, got *exec.Result, want [][]*string) string {
	g := make([]string, len(got.Rows))
	for i, row := range got.Rows {
		parts := make([]string, len(row))
		for j, v := range row {
			if v.IsNull() {
				parts[j] = "NULL"
				continue
			}
			s := v.String()
			parts[j] = canon(&s)
		}
		g[i] = strings.Join(parts, "|")
	}
	w := make([]string, len(want))
	for i, row := range want {
		parts := make([]string, len(row))
		for j, v := range row {
			parts[j] = canon(v)
		}
		w[i] = strings.Join(parts, "|")
	}
	if len(g) != len(w) {
		return "row count differs"
	}
	if got.Ordered {
		// Rows with equal sort keys may come in any order: compare each
		// peer group as a bag.
		for i := 0; i < len(g); {
			j := i
			for j < len(g) && got.Ties[j] == got.Ties[i] {
				j++
			}
			if !sameBag(g[i:j], w[i:j]) {
				return "order differs"
			}
			i = j
		}
		return ""
	}
	if !sameBag(g, w) {
		return "bag differs"
	}
	return ""
}

func sameBag(a, b []string) bool {
	a, b = append([]string(nil), a...), append([]string(nil), b...)
	sort.Strings(a)
	sort.Strings(b)
	return strings.Join(a, "\n") == strings.Join(b, "\n")
}

func deref(rows [][]*string) [][]string {
	out := make([][]string, len(rows))
	for i, r := range rows {
		for _, v := range r {
			out[i] = append(out[i], canon(v))
		}
	}
	return out
}

var isoDate = regexp.MustCompile(`\d{4}-\d{2}-\d{2}`)

// datesAround lists the days at the boundaries of the date predicates
// of sqls: each date literal, the day after a month, three months or a
// year (what date + interval folds to), and the days either side.
func datesAround(sqls []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, q := range sqls {
		for _, lit := range isoDate.FindAllString(q, -1) {
			d, err := time.Parse("2006-01-02", lit)
			if err != nil {
				continue
			}
			for _, b := range []time.Time{d, d.AddDate(0, 1, 0), d.AddDate(0, 3, 0), d.AddDate(1, 0, 0)} {
				for _, x := range []time.Time{b.AddDate(0, 0, -1), b, b.AddDate(0, 0, 1)} {
					if s := x.Format("2006-01-02"); !seen[s] {
						seen[s] = true
						out = append(out, s)
					}
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

var quoted = regexp.MustCompile(`'([^']*)'`)

// stringLiterals are the queries' quoted strings: values that make their
// predicates true ('INDIA' in a char(25) column), as the refuter's
// generator draws them.
func stringLiterals(sqls []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, q := range sqls {
		for _, m := range quoted.FindAllStringSubmatch(q, -1) {
			if !seen[m[1]] && !isoDate.MatchString(m[1]) {
				seen[m[1]] = true
				out = append(out, m[1])
			}
		}
	}
	sort.Strings(out)
	return out
}
