package exec_test

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/pgequiv/pgequiv/internal/dataset"
	"github.com/pgequiv/pgequiv/internal/shareddata"
	"github.com/pgequiv/pgequiv/planner"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

// TestLateralPairsSameOnPostgres runs both queries of the CockroachDB
// pairs whose plans lateral_push.go and pgarray.go now build on random
// databases in a real PostgreSQL, and requires the same bags: they plan,
// and what the prover may prove of them PostgreSQL agrees with.
func TestLateralPairsSameOnPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	shared := shareddata.Path(t, ".") + "/"
	pairs, err := dataset.ReadPairsFile(shared + "data/provers/cockroach.jsonl")
	if err != nil {
		t.Skipf("shared data: %v", err)
	}
	ids := []string{"crdb-norm-318", "crdb-norm-319", "crdb-norm-324", "crdb-norm-327", "crdb-norm-328",
		"crdb-norm-331", "crdb-norm-332", "crdb-norm-200", "crdb-norm-201", "crdb-xform-9"}
	ctx := context.Background()
	conn := pgConn(t, ctx, "")
	nonEmpty := 0
	for k, p := range pairs {
		if !slices.Contains(ids, p.ID) {
			continue
		}
		ddl, err := os.ReadFile(shared + "data/provers/schemas/" + p.DB + ".sql")
		if err != nil {
			t.Fatal(err)
		}
		schema, err := catalog.LoadDDL(string(ddl), catalog.Postgres)
		if err != nil {
			t.Fatal(err)
		}
		for _, sql := range []string{p.Reference, p.Candidate} {
			if _, err := planner.Plan(ctx, schema, sql, planner.Options{}); err != nil {
				t.Errorf("%s: %v", p.ID, err)
			}
		}
		name := fmt.Sprintf("p%d", k)
		if _, err := conn.Exec(ctx, fmt.Sprintf("CREATE SCHEMA %s; SET search_path TO %s", name, name)); err != nil {
			t.Fatal(err)
		}
		if _, err := conn.Exec(ctx, string(ddl)); err != nil {
			t.Fatal(err)
		}
		readTypmods(string(ddl))
		rng := rand.New(rand.NewSource(int64(k)))
		for inst := 0; inst < 20; inst++ {
			db := generateWith(rng, schema, inst, nil)
			if err := load(ctx, conn, schema, db); err != nil {
				t.Fatalf("%s: load: %v", p.ID, err)
			}
			ref, rerr := pgRows(ctx, conn, p.Reference)
			cand, cerr := pgRows(ctx, conn, p.Candidate)
			if rerr != nil || cerr != nil {
				t.Errorf("%s: %v / %v", p.ID, rerr, cerr)
				break
			}
			if len(ref) > 0 {
				nonEmpty++
			}
			if a, b := bag(ref), bag(cand); a != b {
				t.Errorf("%s instance %d: reference %s, candidate %s", p.ID, inst, a, b)
				break
			}
		}
	}
	t.Logf("%d non-empty results", nonEmpty)
	if nonEmpty == 0 {
		t.Error("every result empty: the databases test nothing")
	}
}

func bag(rows [][]*string) string {
	out := make([]string, len(rows))
	for i, r := range rows {
		parts := make([]string, len(r))
		for j, v := range r {
			parts[j] = "NULL"
			if v != nil {
				parts[j] = *v
			}
		}
		out[i] = strings.Join(parts, "|")
	}
	slices.Sort(out)
	return strings.Join(out, "; ")
}
