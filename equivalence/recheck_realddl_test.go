package equivalence_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/equivalence/refute"
	"github.com/pgequiv/pgequiv/internal/dataset"
	"github.com/pgequiv/pgequiv/internal/shareddata"
	"github.com/pgequiv/pgequiv/internal/sqlitetest"
	"github.com/pgequiv/pgequiv/planner"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/catalog/sqlitefile"
)

// TestRecheckSpiderRealDDL judges the shared Spider pairs under the real
// Spider databases' own DDL (composite keys, NOT NULL, UNIQUE, foreign
// keys, declared types: what spider_db/<db>/<db>.sqlite declares, as
// `eval --db-dir` reads it) and checks both kinds of proved label against
// the real engine:
//   - every counterexample, loaded into an empty copy of the real
//     database's schema (its DDL, constraints in force as SQLite enforces
//     them), reproduces;
//   - no pair proved equivalent returns different results on the real
//     database itself. A pair proved only under assumptions may: the
//     real data can break an assumption (an orphaned row under an
//     unenforced foreign key); those are listed with the assumption.
func TestRecheckSpiderRealDDL(t *testing.T) {
	if testing.Short() {
		t.Skip("judges every Spider pair")
	}
	shared := shareddata.Path(t, "data")
	all, err := dataset.ReadPairsFile(filepath.Join(shared, "spider_pair_dev.jsonl"))
	if err != nil {
		t.Fatalf("shared pairs: %v", err)
	}
	ctx := context.Background()
	real := &realSpider{dir: filepath.Join(shared, "spider_db")}
	var pairs []dataset.Pair
	missing := map[string]bool{}
	for _, p := range all {
		if _, err := os.Stat(real.file(p.DB)); errors.Is(err, fs.ErrNotExist) {
			missing[p.DB] = true
			continue
		}
		pairs = append(pairs, p)
	}
	// spider_db holds 19 of the 20 dev databases (wta_1 is not shared).
	if len(missing) > 1 {
		t.Fatalf("databases missing from spider_db: %v", missing)
	}
	opts := equivalence.Options{Refute: equivalence.RefuteOptions{Budget: recheckBudget()}}
	start := time.Now()
	results, err := judgePairs(ctx, pairs, real, opts, 2)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("judged %d pairs (skipped dbs %v) in %v", len(results), missing, time.Since(start).Round(time.Millisecond))
	var tally recheckTally
	var proved, underAssumptions, contradicted, provedUnder int
	for _, r := range results {
		if r.err != nil {
			continue
		}
		p, v := r.pair, r.verdict
		if v.Label.Proved() {
			proved++
			differ, detail, err := real.differOnRealData(ctx, p)
			if err != nil {
				t.Errorf("[%s] run on the real database: %v", p.ID, err)
				continue
			}
			if !differ {
				continue
			}
			if v.Label == equivalence.EquivalentUnderAssumptions {
				underAssumptions++
				t.Logf("[%s] proved under %v, differs on the real data (an assumption it breaks): %s", p.ID, v.Assumptions, detail)
				continue
			}
			contradicted++
			t.Errorf("[%s] proved equivalent, differs on the real database:\n  reference: %s\n  candidate: %s\n  %s", p.ID, p.Reference, p.Candidate, detail)
			continue
		}
		ce := v.Counterexample
		if ce == nil {
			continue
		}
		s, _ := real.Get(p.DB, catalog.SQLite)
		if len(v.ProvedUnder) > 0 {
			provedUnder++
			if err := searchUnderAssumptions(ctx, s, p, v.ProvedUnder); err != nil {
				t.Errorf("[%s] proved under %v: %v", p.ID, v.ProvedUnder, err)
			}
		}
		ddl, err := real.ddl(ctx, p.DB)
		if err != nil {
			t.Fatal(err)
		}
		ref, cand, ties, done, err := liteRecheckRun(ctx, s, ddl, ce.Inserts, p.Reference, p.Candidate)
		if err != nil {
			tally.add(recheckOutcome{false, "counterexample does not load: " + firstLine(err.Error())}, fmt.Sprintf("[%s] %v\n%s", p.ID, err, strings.Join(ce.Inserts, "\n")))
			continue
		}
		o := recheck(ce, ref, cand, bothOrder(ctx, s, p.Reference, p.Candidate), ties)
		done()
		tally.add(o, describe(p.ID, p.Reference, p.Candidate, v, ref, cand))
	}
	t.Logf("proved %d pairs: %d differ on the real data, all under an assumption the data breaks; %d contradicted", proved, underAssumptions, contradicted)
	t.Logf("refuted only with unusual data and proved under named assumptions: %d pairs, each searched under its assumptions", provedUnder)
	if provedUnder == 0 {
		t.Error("no pair proved under assumptions: the not-NULL probe did not run")
	}
	tally.report(t, "sqlite (real DDL)")
	if tally.checked == 0 || proved == 0 {
		t.Fatalf("nothing checked: %d counterexamples, %d proofs", tally.checked, proved)
	}
}

// realSpider serves the real Spider databases: their schemas (as eval
// --db-dir loads them), their DDL text, and queries on their data.
type realSpider struct {
	dir string

	mu      sync.Mutex
	schemas map[string]*catalog.Schema
	ddls    map[string]string
}

func (r *realSpider) file(db string) string { return filepath.Join(r.dir, db, db+".sqlite") }

// Get loads db's schema from its file once.
func (r *realSpider) Get(db string, _ catalog.Dialect) (*catalog.Schema, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if s, ok := r.schemas[db]; ok {
		return s, nil
	}
	f, err := sqlitefile.Load(context.Background(), r.file(db))
	if err != nil {
		return nil, err
	}
	if r.schemas == nil {
		r.schemas = map[string]*catalog.Schema{}
	}
	r.schemas[db] = f.Schema
	return f.Schema, nil
}

// ddl is db's own DDL as sqlite_master keeps it: tables, then indexes,
// then views, SQLite's internal tables left out.
func (r *realSpider) ddl(ctx context.Context, db string) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if d, ok := r.ddls[db]; ok {
		return d, nil
	}
	conn, err := sql.Open("sqlite", "file:"+r.file(db)+"?mode=ro")
	if err != nil {
		return "", err
	}
	defer conn.Close()
	rows, err := sqlitetest.Query(ctx, conn, `SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite\_%' ESCAPE '\'
		ORDER BY CASE type WHEN 'table' THEN 0 WHEN 'index' THEN 1 ELSE 2 END, rowid`)
	if err != nil {
		return "", fmt.Errorf("ddl of %s: %w", db, err)
	}
	var stmts []string
	for _, row := range rows {
		stmts = append(stmts, strings.TrimSuffix(unquoteCanon(row[0]), ";"))
	}
	if r.ddls == nil {
		r.ddls = map[string]string{}
	}
	r.ddls[db] = strings.Join(stmts, ";\n") + ";"
	return r.ddls[db], nil
}

// unquoteCanon undoes sqlitetest.Canon's writing of a text value.
func unquoteCanon(s string) string { return strings.TrimPrefix(s, "s:") }

// differOnRealData runs both queries of p on the real database and
// compares their results as bags of rows.
func (r *realSpider) differOnRealData(ctx context.Context, p dataset.Pair) (bool, string, error) {
	conn, err := sql.Open("sqlite", "file:"+r.file(p.DB)+"?mode=ro")
	if err != nil {
		return false, "", err
	}
	defer conn.Close()
	ref, err := sqlitetest.Query(ctx, conn, p.Reference)
	if err != nil {
		return false, "", fmt.Errorf("reference: %w", err)
	}
	cand, err := sqlitetest.Query(ctx, conn, p.Candidate)
	if err != nil {
		return false, "", fmt.Errorf("candidate: %w", err)
	}
	a, b := sortedRows(ref), sortedRows(cand)
	if slices.Equal(a, b) {
		return false, "", nil
	}
	return true, fmt.Sprintf("reference %d rows %v, candidate %d rows %v", len(ref), head(a), len(cand), head(b)), nil
}

// sortedRows writes rows as sorted lines. The driver reads text in a
// DATETIME-declared column as a time.Time where it parses as one, which a
// computed column of the same value is not: both are written as SQLite's
// text form so that they compare.
func sortedRows(rows [][]string) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		vals := slices.Clone(r)
		for k, v := range vals {
			if rest, ok := strings.CutPrefix(v, "?time.Time:"); ok {
				if tm, err := time.Parse("2006-01-02 15:04:05 -0700 MST", rest); err == nil {
					vals[k] = "s:" + tm.Format("2006-01-02 15:04:05")
				}
			}
		}
		out[i] = strings.Join(vals, "|")
	}
	slices.Sort(out)
	return out
}

func head(s []string) []string { return s[:min(len(s), 5)] }

// searchUnderAssumptions is the soundness net of a proof under
// assumptions (Verdict.ProvedUnder): the counterexample search, run on
// databases that meet them (the named columns NOT NULL; foreign keys
// holding and no empty table, where named), must find no difference.
func searchUnderAssumptions(ctx context.Context, s *catalog.Schema, p dataset.Pair, under []equivalence.Assumption) error {
	notNull := map[string]bool{}
	var trustFK, nonEmpty bool
	for _, a := range under {
		switch a.Kind {
		case equivalence.AssumeNotNull:
			notNull[a.Subject] = true
		case equivalence.AssumeForeignKey:
			trustFK = true
		case equivalence.AssumeNonEmpty:
			nonEmpty = true
		case equivalence.AssumePrimaryKeyNotNull:
			if t := s.Table(a.Subject); t != nil {
				for _, o := range t.PrimaryKey {
					notNull[t.Name+"."+t.Columns[o].Name] = true
				}
			}
		default:
			return fmt.Errorf("assumption %v: the net does not model it", a)
		}
	}
	tables := make([]*catalog.Table, len(s.Tables))
	for i, t := range s.Tables {
		c := *t
		c.Columns = slices.Clone(t.Columns)
		for k := range c.Columns {
			if notNull[t.Name+"."+c.Columns[k].Name] {
				c.Columns[k].NotNull = true
			}
		}
		tables[i] = &c
	}
	assumed, err := catalog.NewSchema(s.Dialect, tables)
	if err != nil {
		return err
	}
	ref, err := planner.Plan(ctx, assumed, p.Reference, planner.Options{})
	if err != nil {
		return err
	}
	cand, err := planner.Plan(ctx, assumed, p.Candidate, planner.Options{})
	if err != nil {
		return err
	}
	res, err := refute.Refute(ctx, assumed, ref, cand, refute.Options{Budget: 2 * time.Second, MaxInstances: 1000,
		TrustForeignKeys: trustFK, NonEmpty: nonEmpty, Dialect: catalog.SQLite, IgnoreColumnOrder: false})
	if err != nil {
		return err
	}
	if res.Found {
		return fmt.Errorf("a database meeting the assumptions tells them apart:\n%s", strings.Join(res.Counterexample.Inserts, "\n"))
	}
	return nil
}
