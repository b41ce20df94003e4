package prove_test

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pgequiv/pgequiv/equivalence/prove"
	"github.com/pgequiv/pgequiv/equivalence/refute"
	"github.com/pgequiv/pgequiv/internal/dataset"
	"github.com/pgequiv/pgequiv/internal/shareddata"
	"github.com/pgequiv/pgequiv/planner"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

// soundnessCorpus lists the datasets whose proved pairs must survive the
// refuter: the prover suites (PostgreSQL) and the Spider pairs (SQLite).
var soundnessCorpus = []struct {
	file, schemas string
	dialect       catalog.Dialect
}{
	{"provers/spark.jsonl", "provers/schemas", catalog.Postgres},
	{"provers/tpch.jsonl", "provers/schemas", catalog.Postgres},
	{"provers/tpcc.jsonl", "provers/schemas", catalog.Postgres},
	{"provers/spark_no_order_by.jsonl", "provers/schemas", catalog.Postgres},
	{"provers/tpch_no_order_by.jsonl", "provers/schemas", catalog.Postgres},
	{"provers/tpcc_no_order_by.jsonl", "provers/schemas", catalog.Postgres},
	{"provers/cockroach.jsonl", "provers/schemas", catalog.Postgres},
	{"spider_pair_dev.jsonl", "schemas", catalog.SQLite},
}

// TestProvedPairsSurviveRefuter runs every pair the prover proves on
// random databases with the executor: a counterexample is a wrong proof.
// PROVE_SOUND_INSTANCES (default 30) and PROVE_SOUND_BUDGET (default
// 100ms) scale it up outside CI (scripts/prove-soundness.sh).
func TestProvedPairsSurviveRefuter(t *testing.T) {
	instances := 30
	if v := os.Getenv("PROVE_SOUND_INSTANCES"); v != "" {
		instances, _ = strconv.Atoi(v)
	}
	budget := 100 * time.Millisecond
	if v := os.Getenv("PROVE_SOUND_BUDGET"); v != "" {
		budget, _ = time.ParseDuration(v)
	}
	only := os.Getenv("PROVE_SOUND_ONLY") // a substring of the suites' file names, to run fewer
	ctx := context.Background()
	for _, c := range soundnessCorpus {
		if only != "" && !strings.Contains(c.file, only) {
			continue
		}
		pairs := loadPairs(t, shareddata.Path(t, "data/"+c.file))
		schemas := schemaLoader(t, shareddata.Path(t, "data/"+c.schemas), c.dialect)
		proved, checked := 0, 0
		for _, p := range pairs {
			s := schemas(p.DB)
			a, err1 := planner.Plan(ctx, s, p.Reference, planner.Options{})
			b, err2 := planner.Plan(ctx, s, p.Candidate, planner.Options{})
			if err1 != nil || err2 != nil {
				continue
			}
			r, err := prove.Equivalent(ctx, a, b, prove.Options{TrustForeignKeys: c.dialect == catalog.Postgres, SQLite: c.dialect == catalog.SQLite})
			if err != nil {
				t.Fatal(err)
			}
			if !r.Proved {
				continue
			}
			proved++
			res, err := refute.Refute(ctx, s, a, b, refute.Options{MaxInstances: instances, Budget: budget, Seed: 7,
				TrustForeignKeys: c.dialect == catalog.Postgres || len(r.Assumptions) > 0, Dialect: c.dialect})
			if err != nil {
				t.Fatalf("%s: refute: %v", p.ID, err)
			}
			if res.Instances > 0 {
				checked++
			}
			if testing.Verbose() {
				t.Logf("%s: %d instances executed, %d with a reference row, %d skipped; %s", p.ID, res.Instances, res.NonEmpty, res.Skipped, res.Reason)
			}
			// The prover compares bags; a row order the candidate does not
			// promise is the judge's to weigh (likelyDifferent), not a
			// wrong proof.
			if res.Found && !res.Counterexample.RowOrderOnly {
				t.Errorf("%s (label %d) proved by %v but refuted:\n  %s\n  %s\n  inserts %v\n  ref %v\n  cand %v", p.ID, p.Label, r.Rules,
					p.Reference, p.Candidate, res.Counterexample.Inserts, res.Counterexample.Reference, res.Counterexample.Candidate)
			}
		}
		t.Logf("%s: %d proved, %d executed", c.file, proved, checked)
	}
}

// TestCrossPairsTerminate proves queries of one database against each
// other's neighbours, pairs no one wrote: the prover must end without
// error or panic, and any proof must survive the refuter.
func TestCrossPairsTerminate(t *testing.T) {
	ctx := context.Background()
	pairs := loadPairs(t, shareddata.Path(t, "data/spider_pair_dev.jsonl"))
	schemas := schemaLoader(t, shareddata.Path(t, "data/schemas"), catalog.SQLite)
	for i := 0; i+1 < len(pairs) && i < 600; i++ {
		p, q := pairs[i], pairs[i+1]
		if p.DB != q.DB {
			continue
		}
		s := schemas(p.DB)
		for _, pair := range [][2]string{{p.Reference, q.Candidate}, {p.Candidate, q.Reference}, {p.Reference, q.Reference}} {
			a, err1 := planner.Plan(ctx, s, pair[0], planner.Options{})
			b, err2 := planner.Plan(ctx, s, pair[1], planner.Options{})
			if err1 != nil || err2 != nil {
				continue
			}
			r, err := prove.Equivalent(ctx, a, b, prove.Options{SQLite: true})
			if err != nil {
				t.Fatalf("%s / %s: %v", p.ID, q.ID, err)
			}
			if !r.Proved {
				continue
			}
			res, err := refute.Refute(ctx, s, a, b, refute.Options{MaxInstances: 30, Budget: 50 * time.Millisecond, Seed: 3, Dialect: catalog.SQLite, TrustForeignKeys: len(r.Assumptions) > 0})
			if err != nil {
				t.Fatal(err)
			}
			if res.Found {
				t.Errorf("proved by %v but refuted:\n  %s\n  %s", r.Rules, pair[0], pair[1])
			}
		}
	}
}

// TestProvedCasesSurviveRefuter: the curated cases, both ways round. A
// case the prover proves must not be refuted, and none expected
// not_equivalent may be proved.
func TestProvedCasesSurviveRefuter(t *testing.T) {
	cf, s := loadCuratedCases(t)
	ctx := context.Background()
	proved := 0
	for _, c := range cf.Cases {
		if len(c.Policy) > 0 {
			continue // the prover compares under the default policies only
		}
		a, err1 := planner.Plan(ctx, s, c.Reference, planner.Options{})
		b, err2 := planner.Plan(ctx, s, c.Candidate, planner.Options{})
		if err1 != nil || err2 != nil {
			continue
		}
		r, err := prove.Equivalent(ctx, a, b, prove.Options{TrustForeignKeys: true})
		if err != nil {
			t.Fatal(err)
		}
		if !r.Proved {
			continue
		}
		proved++
		if c.Expect == dataset.NotEquivalent {
			t.Errorf("%s: expected not_equivalent, proved by %v", c.ID, r.Rules)
		}
		res, err := refute.Refute(ctx, s, a, b, refute.Options{MaxInstances: 200, Budget: 200 * time.Millisecond, Seed: 5, TrustForeignKeys: true})
		if err != nil {
			t.Fatal(err)
		}
		if res.Found {
			t.Errorf("%s proved by %v but refuted: %v", c.ID, r.Rules, res.Counterexample.Inserts)
		}
	}
	t.Logf("%d of %d cases proved", proved, len(cf.Cases))
}
