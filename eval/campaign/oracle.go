package campaign

import (
	"context"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"time"

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/equivalence/refute"
	"github.com/pgequiv/pgequiv/planner"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/exec"
)

// judge runs the product's judgement of a pair as `pgequiv check` does
// (default options: refuter on with its default budget, foreign keys
// trusted in PostgreSQL only), within the per-pair budget.
// Like the CLI (judgeWithin), it returns at the deadline even if the
// judge has not: a judgement that overruns is an error, never a label.
func judge(ctx context.Context, tg *target, p Pair, seed uint64, budget time.Duration) (equivalence.Verdict, error) {
	ctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	opts := equivalence.Options{Refute: equivalence.RefuteOptions{Seed: seed}}
	type out struct {
		v   equivalence.Verdict
		err error
	}
	done := make(chan out, 1)
	go func() {
		v, err := equivalence.Judge(ctx, tg.schema, p.Reference, p.Candidate, opts)
		done <- out{v, err}
	}()
	select {
	case o := <-done:
		return o.v, o.err
	case <-ctx.Done():
		return equivalence.Verdict{}, fmt.Errorf("no verdict within %v: %w", budget, ctx.Err())
	}
}

// state is one database built on the engine: the statements that built
// it (each one the engine accepted) and where it came from.
type state struct {
	source  string // "refuter", "random", "random-deferred" or "counterexample"
	tz      string // the session time zone (PostgreSQL)
	inserts []string
}

// deferred says the state is one inside a transaction, before its commit.
func (s state) deferred() bool { return s.source == "random-deferred" }

// drawTZ picks a session time zone for a state.
func drawTZ(e engine, r *rand.Rand) string {
	if e.dialect() != catalog.Postgres {
		return ""
	}
	return pgTimeZones[r.IntN(len(pgTimeZones))]
}

// build starts a fresh state and runs the inserts; it returns the first
// statement the engine refused, with its error. Unless deferred, the
// state must then pass the deferred constraints too (it could commit).
func build(ctx context.Context, e engine, tz string, inserts []string, deferred bool) (string, error) {
	if err := e.begin(ctx, tz); err != nil {
		return "", fmt.Errorf("begin: %w", err)
	}
	for _, ins := range inserts {
		if err := e.exec(ctx, ins); err != nil {
			return ins, err
		}
	}
	if deferred {
		return "", nil
	}
	if err := e.commitCheck(ctx); err != nil {
		return "(commit: deferred constraints checked)", err
	}
	return "", nil
}

// runBoth runs both queries on the current state (and, under a LIMIT,
// the reference without it).
func runBoth(ctx context.Context, e engine, p Pair) (result, result) {
	ref := e.query(ctx, p.Reference, p.Volatile, p.Modifies)
	if p.Limit {
		if i := strings.LastIndex(p.Reference, " LIMIT "); i > 0 {
			full := e.query(ctx, p.Reference[:i], p.Volatile, false)
			ref.full = &full
		}
	}
	return ref, e.query(ctx, p.Candidate, p.Volatile, p.Modifies)
}

// refuterStates draws n databases from the product's own generator (the
// refuter's, through refute.Agree), written as a counterexample's INSERTs.
func refuterStates(ctx context.Context, tg *target, p Pair, n int, seed uint64, r *rand.Rand) []state {
	a, err1 := planner.Plan(ctx, tg.schema, p.Reference, planner.Options{})
	b, err2 := planner.Plan(ctx, tg.schema, p.Candidate, planner.Options{})
	if err1 != nil || err2 != nil {
		return nil
	}
	var dbs []exec.Database
	keep := func(db exec.Database) bool {
		dbs = append(dbs, db)
		return false // only collect: the real engine runs them
	}
	d := tg.eng.dialect()
	opts := refute.Options{TrustForeignKeys: d == catalog.Postgres, Dialect: d, Seed: seed}
	if _, err := refute.Agree(ctx, tg.schema, a, b, n, opts, keep); err != nil && ctx.Err() != nil {
		return nil
	}
	out := make([]state, 0, len(dbs))
	for _, db := range dbs {
		out = append(out, state{source: "refuter", tz: drawTZ(tg.eng, r), inserts: refute.Inserts(tg.schema, db, d)})
	}
	return out
}

// randomState fills a fresh state with the independent generator and
// returns the statements the engine accepted (the state stays open).
// Deferrable constraints are checked row by row, except in one state of
// four (deferred): that one is a state a query inside a transaction can
// see before its commit, which may violate them (issue 18 cause 7).
func randomState(ctx context.Context, tg *target, p Pair, r *rand.Rand) (state, error) {
	st := state{source: "random", tz: drawTZ(tg.eng, r)}
	if err := tg.eng.begin(ctx, st.tz); err != nil {
		return state{}, err
	}
	deferred := r.IntN(4) == 0 && tg.eng.dialect() == catalog.Postgres
	if !deferred {
		if err := tg.eng.commitCheck(ctx); err != nil {
			return state{}, err
		}
	}
	rec := &recorder{engine: tg.eng}
	if _, err := fillRandom(ctx, rec, tg.meta, r, p.Reference, p.Candidate); err != nil {
		return state{}, err
	}
	st.inserts = rec.took
	// A deferred state that meets its deferred constraints is an
	// ordinary one (and now checked as such).
	if deferred && tg.eng.commitCheck(ctx) != nil {
		st.source = "random-deferred"
	}
	return st, nil
}

// recorder keeps the statements the engine accepted.
type recorder struct {
	engine
	took []string
}

func (r *recorder) exec(ctx context.Context, stmt string) error {
	err := r.engine.exec(ctx, stmt)
	if err == nil {
		r.took = append(r.took, stmt)
	}
	return err
}

// minimize drops statements from inserts while the two queries still
// differ (outcome differ) on what remains and the state still meets
// holds (the proof's assumptions).
func minimize(ctx context.Context, e engine, p Pair, st state, holds func(result, result) bool) []string {
	inserts := st.inserts
	cur := append([]string(nil), inserts...)
	tries := 0
	for i := 0; i < len(cur) && tries < 80; {
		tries++
		next := append(append([]string(nil), cur[:i]...), cur[i+1:]...)
		if _, err := build(ctx, e, st.tz, next, st.deferred()); err == nil {
			rr, cr := runBoth(ctx, e, p)
			ok := holds(rr, cr)
			_ = e.rollback(ctx)
			if o, _ := compareResults(p, rr, cr); o == differ && ok {
				cur = next
				continue
			}
		} else {
			_ = e.rollback(ctx)
		}
		i++
	}
	return cur
}

// rejectedOnEmpty reports which query the engine refuses outright (on
// empty tables): such a query is invalid in the dialect, whatever the data.
func rejectedOnEmpty(ctx context.Context, e engine, p Pair) string {
	if err := e.begin(ctx, ""); err != nil {
		return ""
	}
	defer func() { _ = e.rollback(ctx) }()
	rr, cr := runBoth(ctx, e, p)
	switch {
	case rr.err != nil && cr.err == nil:
		return "the engine refuses the reference: " + firstLine(rr.err.Error())
	case cr.err != nil && rr.err == nil:
		return "the engine refuses the candidate: " + firstLine(cr.err.Error())
	}
	return ""
}

var liteUniqueRE = regexp.MustCompile(`UNIQUE constraint failed: ([\w., ]+?) \(`)

var notNullRE = regexp.MustCompile(`null value in column "([^"]+)" of relation "([^"]+)"`)

// classifyRejection names the cause of issue 18 behind a statement the
// engine refused (a generated database that is not legal).
func classifyRejection(m *meta, msg string) string {
	// a column a child table has from its parent (INHERITS, PARTITION OF)
	if sm := notNullRE.FindStringSubmatch(msg); sm != nil {
		if t := m.table(sm[2]); t != nil && t.parent != "" {
			if par := m.table(t.parent); par != nil && par.col(sm[1]) != nil {
				return "6"
			}
		}
	}
	if strings.Contains(msg, "partition constraint") {
		return "6"
	}
	// a key over a column whose collation is not identity ('a' and 'A'
	// collide under NOCASE)
	if sm := liteUniqueRE.FindStringSubmatch(msg); sm != nil {
		nondet := false
		for _, tc := range strings.Split(sm[1], ", ") {
			if tn, cn, ok := strings.Cut(tc, "."); ok {
				if t := m.table(tn); t != nil {
					if c := t.col(cn); c != nil && c.nondet {
						nondet = true
					}
				}
			}
		}
		if nondet {
			return "8"
		}
	}
	return classifyMessage(msg)
}

func classifyMessage(msg string) string {
	m := strings.ToLower(msg)
	switch {
	case strings.Contains(m, "commit: deferred"):
		return "7"
	case strings.Contains(m, "for domain") || strings.Contains(m, "domain ") && strings.Contains(m, "null"):
		return "5"
	case strings.Contains(m, "invalid input value for enum"):
		return "5"
	case strings.Contains(m, "check constraint"):
		return "1"
	case strings.Contains(m, "non-default value into column") || strings.Contains(m, "generated column"):
		return "4"
	case strings.Contains(m, "no partition of relation") || strings.Contains(m, "partition constraint"):
		return "6"
	case strings.Contains(m, "duplicate key") || strings.Contains(m, "unique constraint failed"):
		if strings.Contains(m, "_pkey") || strings.Contains(m, "_key\"") || !strings.Contains(m, "index") && strings.Contains(m, "constraint failed:") {
			return "2"
		}
		return "3"
	case strings.Contains(m, "foreign key"):
		return "2"
	case strings.Contains(m, "null value in column") || strings.Contains(m, "not null constraint"):
		return "2"
	case strings.Contains(m, "too long") || strings.Contains(m, "out of range") || strings.Contains(m, "invalid input syntax") || strings.Contains(m, "overflow"):
		return "9"
	}
	return "other"
}
