package campaign

import (
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pgequiv/pgequiv/internal/pgtest"
)

// The campaign's flags: go test ./eval/campaign -run TestCampaign
// -campaign.duration=10m -campaign.engine=postgres (scripts/
// soundness-campaign.sh). Without them the test is the short pass CI
// runs: a few dozen pairs per engine.
var (
	flagDuration = flag.Duration("campaign.duration", 0, "run the campaign this long per engine (0: the short pass)")
	flagPairs    = flag.Int("campaign.pairs", 40, "pairs per engine in the short pass")
	flagEngine   = flag.String("campaign.engine", "all", "postgres, sqlite or all")
	flagSeed     = flag.Uint64("campaign.seed", 1, "seed of the pairs and databases")
	flagOut      = flag.String("campaign.out", "", "directory for findings-<engine>.jsonl (repros of wrong labels)")
	flagFamilies = flag.String("campaign.families", "", "a regular expression: draw only the families it matches")
	flagStates   = flag.Int("campaign.states", 0, "databases per generator per proved equivalence (0: 12, short pass 6)")
	flagDump     = flag.Bool("campaign.dump", false, "rewrite testdata/pg from testdata/pgsrc with pg_dump --schema-only")
)

// TestCampaign is the soundness campaign: every proved label on the
// corpus's pairs must hold on the real engine. It fails on any wrong
// label and prints each with its repro.
func TestCampaign(t *testing.T) {
	for _, eng := range []string{"postgres", "sqlite"} {
		if *flagEngine != "all" && *flagEngine != eng {
			continue
		}
		t.Run(eng, func(t *testing.T) {
			opts := Options{Engine: eng, Seed: *flagSeed, OutDir: *flagOut, States: *flagStates, Families: *flagFamilies, Logf: t.Logf}
			if *flagDuration > 0 {
				opts.Duration = *flagDuration
			} else {
				opts.MaxPairs = *flagPairs
				if opts.States == 0 {
					opts.States = 6
				}
			}
			switch eng {
			case "postgres":
				opts.PGConn = pgConnString(t)
			case "sqlite":
				opts.WorkDir = t.TempDir()
			}
			st, err := Run(context.Background(), opts)
			if err != nil {
				t.Fatal(err)
			}
			t.Log("\n" + st.Report())
			if st.Pairs == 0 || st.Equivalent+st.UnderAssumptions+st.NotEquivalent == 0 {
				t.Fatalf("the campaign proved no label in %d pairs", st.Pairs)
			}
			if len(st.OracleErrors) > 0 {
				t.Errorf("the oracle failed %d times, first: %s", len(st.OracleErrors), st.OracleErrors[0])
			}
			// every wrong label is in the report and the findings file;
			// the test names up to three per cause
			perClass := map[string]int{}
			for _, f := range st.Wrong {
				if perClass[f.Class]++; perClass[f.Class] > 3 {
					continue
				}
				t.Errorf("wrong %s label (cause %s, %s): %s\n  schema %s (%s), %s\n  reference: %s\n  candidate: %s\n  database (%s): %s\n  results: %s vs %s",
					strings.TrimPrefix(f.Kind, "wrong "), f.Class, classTitles[f.Class], f.Why, f.Pair.Schema, f.Loader, f.Pair.Mutation,
					f.Pair.Reference, f.Pair.Candidate, f.Source, strings.Join(f.Database, " "), f.RefResult, f.CandResult)
			}
			if len(st.Wrong) > 0 {
				t.Errorf("%d wrong proved labels in %d pairs, by cause: %v", len(st.Wrong), st.Pairs, st.WrongByClass())
			}
		})
	}
}

// TestDumpSchemas rewrites testdata/pg/NAME.sql as pg_dump --schema-only
// writes the database that testdata/pgsrc/NAME.sql creates; it runs only
// with -campaign.dump (every other test loads the dumped schemas into
// PostgreSQL, so a stale dump fails there).
func TestDumpSchemas(t *testing.T) {
	if !*flagDump {
		t.Skip("run with -campaign.dump to rewrite testdata/pg")
	}
	srcs, _ := filepath.Glob("testdata/pgsrc/*.sql")
	sort.Strings(srcs)
	pg := pgtest.New(t, pgtest.Options{})
	dump, err := pg.ClientBin("pg_dump")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, pg.ConnString(pgtest.SuperUser, ""))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	for _, src := range srcs {
		name := strings.TrimSuffix(filepath.Base(src), ".sql")
		ddl, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		db := "dump_" + name
		if _, err := admin.Exec(ctx, "CREATE DATABASE "+db); err != nil {
			t.Fatal(err)
		}
		conn, err := pgx.Connect(ctx, strings.Replace(pg.ConnString(pgtest.SuperUser, ""), "dbname=postgres", "dbname="+db, 1))
		if err != nil {
			t.Fatal(err)
		}
		_, err = conn.Exec(ctx, string(ddl))
		conn.Close(ctx)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		out, err := exec.Command(dump, "--schema-only", "-h", pg.Host, "-p", strconv.Itoa(pg.Port), "-U", pgtest.SuperUser, db).Output()
		if err != nil {
			t.Fatalf("pg_dump %s: %v", db, err)
		}
		dst := filepath.Join("testdata", "pg", name+".sql")
		if err := os.WriteFile(dst, out, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s (%d bytes)", dst, len(out))
	}
}
