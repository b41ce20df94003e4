package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/equivalence/refute"
	"github.com/pgequiv/pgequiv/planner"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/exec"
)

// config is what one run of the suite does.
type config struct {
	PerOp      int           // mutants per query and operator
	MaxQueries int           // queries per corpus (0: all)
	EngineDBs  int           // databases per mutant the engine runs both on
	Budget     time.Duration // the judge's refute budget (0: its default)
	Seed       uint64
	// PGConn opens PostgreSQL engines (a keyword/value string naming
	// dbname=postgres); SQLite engines need nothing.
	PGConn string
}

// query is one corpus query with its schema.
type query struct {
	ID, DB, SQL string
	Dialect     catalog.Dialect
}

// record is the outcome of one mutant.
type record struct {
	Corpus    string `json:"corpus"`
	Query     string `json:"query"`
	DB        string `json:"db"`
	Op        string `json:"op"`
	Reference string `json:"reference"`
	Mutant    string `json:"mutant"`
	// Label is the judge's verdict; Replayed says its counterexample
	// showed the difference on the engine too.
	Label    string `json:"label"`
	Replayed bool   `json:"replayed,omitempty"`
	// Distinct says the engine showed the two different on a small
	// database (the counterexample or one of the engine's own);
	// Invalid that the engine refused the mutant.
	Distinct bool   `json:"distinct"`
	Invalid  bool   `json:"invalid,omitempty"`
	Limit    bool   `json:"limit,omitempty"` // the reference has a LIMIT: a shown difference may be ties
	Why      string `json:"why,omitempty"`   // the judge's difference or search summary
	Millis   int64  `json:"ms"`
}

// loadCorpus reads a pairs file (the shared format: id, db, reference,
// dialect) and returns its distinct reference queries with the schemas
// of schemas/ beside it.
func loadCorpus(file string, max int) ([]query, map[string]*catalog.Schema, map[string]string, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, nil, nil, err
	}
	defer f.Close()
	var qs []query
	seen := map[string]bool{}
	schemas := map[string]*catalog.Schema{}
	ddls := map[string]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for n := 1; sc.Scan(); n++ {
		var p struct{ ID, DB, Reference, Dialect string }
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			return nil, nil, nil, fmt.Errorf("%s:%d: %w", file, n, err)
		}
		d := catalog.Postgres
		if p.Dialect == "sqlite" {
			d = catalog.SQLite
		}
		if seen[p.DB+"\x00"+p.Reference] {
			continue
		}
		seen[p.DB+"\x00"+p.Reference] = true
		if _, ok := schemas[p.DB]; !ok {
			path := filepath.Join(filepath.Dir(file), "schemas", p.DB+".sql")
			ddl, err := os.ReadFile(path)
			if err != nil {
				schemas[p.DB] = nil // a database without a schema: its queries are left out
				continue
			}
			s, err := catalog.LoadDDL(string(ddl), d)
			if err != nil {
				return nil, nil, nil, fmt.Errorf("%s: %w", path, err)
			}
			schemas[p.DB], ddls[p.DB] = s, string(ddl)
		}
		if schemas[p.DB] == nil {
			continue
		}
		qs = append(qs, query{ID: p.ID, DB: p.DB, SQL: p.Reference, Dialect: d})
		if max > 0 && len(qs) >= max {
			break
		}
	}
	return qs, schemas, ddls, sc.Err()
}

// runCorpus mutates every query of file and judges each mutant, calling
// emit with each record.
func runCorpus(ctx context.Context, cfg config, file string, emit func(record)) error {
	corpus := strings.TrimSuffix(filepath.Base(file), ".jsonl")
	qs, schemas, ddls, err := loadCorpus(file, cfg.MaxQueries)
	if err != nil {
		return err
	}
	engines := map[string]engine{}
	defer func() {
		for _, e := range engines {
			e.close()
		}
	}()
	for _, q := range qs {
		e, ok := engines[q.DB]
		if !ok {
			if e, err = openEngine(ctx, cfg, q, ddls[q.DB]); err != nil {
				return err
			}
			engines[q.DB] = e
		}
		ref, mutants, err := Mutants(q.SQL, cfg.PerOp, cfg.Seed)
		if err != nil {
			continue // pg_query does not read it (SQLite syntax): no mutants
		}
		// A reference the engine refuses as deparsed is left out.
		if r, err := e.run(ctx, nil, ref); err != nil || r[0].err != nil {
			continue
		}
		for _, m := range mutants {
			rec := judgeMutant(ctx, cfg, schemas[q.DB], e, ref, m)
			rec.Corpus, rec.Query, rec.DB = corpus, q.ID, q.DB
			emit(rec)
		}
	}
	return nil
}

func openEngine(ctx context.Context, cfg config, q query, ddl string) (engine, error) {
	if q.Dialect == catalog.SQLite {
		return openSQLite(ctx, ddl)
	}
	if cfg.PGConn == "" {
		return nil, fmt.Errorf("%s: a PostgreSQL corpus needs a PostgreSQL cluster", q.DB)
	}
	return openPG(ctx, cfg.PGConn, q.DB, ddl)
}

// judgeMutant judges ref against the mutant, replays a counterexample on
// the engine, and runs both on databases of the refuter's generator (a
// seed other than the judge's) to tell whether a small database shows
// the two different on the engine at all.
func judgeMutant(ctx context.Context, cfg config, s *catalog.Schema, e engine, ref string, m Mutant) record {
	rec := record{Op: m.Op, Reference: ref, Mutant: m.SQL, Limit: strings.Contains(strings.ToUpper(ref), " LIMIT ")}
	// The mutant alone on an empty database: an error the engine raises
	// makes it no query to judge.
	if r, err := e.run(ctx, nil, m.SQL); err == nil && r[0].err != nil {
		rec.Invalid, rec.Label = true, "invalid"
		rec.Why = firstLine(r[0].err.Error())
		return rec
	}
	opts := equivalence.Options{}
	opts.Refute.Budget = cfg.Budget
	start := time.Now()
	v, err := equivalence.Judge(ctx, s, ref, m.SQL, opts)
	rec.Millis = time.Since(start).Milliseconds()
	rec.Label = string(v.Label)
	switch {
	case err != nil:
		rec.Label, rec.Why = "error", firstLine(err.Error())
	case v.Search != nil && v.Search.CannotExecute != "":
		// the cause of an unknown the suite groups by
		rec.Why = "not searched: " + v.Search.CannotExecute
	case len(v.Differences) > 0:
		d := v.Differences[0]
		rec.Why = fmt.Sprintf("%s: %s | %s", d.Component, d.Reference, d.Candidate)
	case v.Search != nil:
		rec.Why = v.Search.Strength()
		if len(v.Search.Unpopulated) > 0 {
			rec.Why += "; unpopulated " + strings.Join(v.Search.Unpopulated, ",")
		}
	}
	if c := v.Counterexample; c != nil && len(c.Params) == 0 {
		// A query cut by statement_timeout on a loaded machine (the
		// first of a fresh cluster, mostly) is run again, up to thrice.
		for try := 0; try < 3; try++ {
			r, err := e.run(ctx, c.Inserts, ref, m.SQL)
			if err != nil {
				rec.Why += "; replay: " + firstLine(err.Error())
				break
			}
			if r[0].err != nil || r[1].err != nil {
				rec.Why += "; replay: " + firstLine(errors.Join(r[0].err, r[1].err).Error())
				continue
			}
			// Rows in another order count where the reference orders
			// them (the judge compares lists there too).
			rec.Replayed = differ(r[0], r[1], c.RowOrderOnly || ordered(ref)) || c.ColumnOrderOnly
			break
		}
		rec.Distinct = rec.Replayed
	}
	if !rec.Distinct {
		rec.Distinct = engineShows(ctx, cfg, s, e, ref, m.SQL)
	}
	return rec
}

// engineShows runs both queries on the engine over cfg.EngineDBs
// databases of the refuter's generator under another seed than the
// judge's, and reports whether any tells them apart (as bags).
func engineShows(ctx context.Context, cfg config, s *catalog.Schema, e engine, ref, mut string) bool {
	a, err1 := planner.Plan(ctx, s, ref, planner.Options{})
	b, err2 := planner.Plan(ctx, s, mut, planner.Options{})
	if err1 != nil || err2 != nil {
		return false
	}
	var dbs [][]string
	keep := func(db exec.Database) bool {
		// written out now: the generator may recycle db's memory
		dbs = append(dbs, refute.Inserts(s, db, s.Dialect))
		return false // only collect: the engine runs them
	}
	opts := refute.Options{TrustForeignKeys: s.Dialect == catalog.Postgres, Dialect: s.Dialect, Seed: cfg.Seed + 7919}
	if _, err := refute.Agree(ctx, s, a, b, cfg.EngineDBs, opts, keep); err != nil {
		return false
	}
	for _, db := range dbs {
		// The reference twice: a query whose result changes from one
		// run to the next (random()) shows nothing by differing.
		r, err := e.run(ctx, db, ref, mut, ref)
		if err == nil && differ(r[0], r[1], false) && !differ(r[0], r[2], false) {
			return true
		}
	}
	return false
}

// ordered reports whether sql has a top-level ORDER BY.
func ordered(sql string) bool {
	tree, err := pg.Parse(sql)
	if err != nil || len(tree.Stmts) != 1 {
		return false
	}
	s := tree.Stmts[0].Stmt.GetSelectStmt()
	return s != nil && len(s.SortClause) > 0
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
