package campaign

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

// checkEquivalent runs both queries on databases from both generators;
// the first on which the engine tells them apart makes the label wrong.
func checkEquivalent(ctx context.Context, tg *target, p Pair, v equivalence.Verdict, base Finding, n int, seed uint64, r *rand.Rand, st *Stats) []Finding {
	e := tg.eng
	// A pair's check gets a bounded time: the databases it did not reach
	// are counted as not checked, never as agreeing.
	deadline := time.Now().Add(pairCheckBudget)
	var shown *Finding
	try := func(s state) *Finding {
		rr, cr := runBoth(ctx, e, p)
		if timedOut(rr.err) || timedOut(cr.err) {
			_ = e.rollback(ctx)
			deadline = time.Now() // a slow pair: stop here
			st.Slow++
			return nil
		}
		held := assumptionsHold(ctx, tg, v, rr, cr)
		_ = e.rollback(ctx)
		if !held {
			return nil
		}
		o, why := compareResults(p, rr, cr)
		if o == differ && spellingOnly(v, rr, cr) {
			// The proof assumed both queries spell values their
			// collation calls equal alike; on this database they do not.
			return nil
		}
		st.StatesChecked++
		switch o {
		case differ:
			f := base
			f.Kind, f.Source, f.TimeZone, f.Class = "wrong equivalent", s.source, s.tz, p.Class
			rej := rejectedOnEmpty(ctx, e, p)
			holds := func(rr, cr result) bool { return assumptionsHold(ctx, tg, v, rr, cr) }
			f.Database = minimize(ctx, e, p, s, holds)
			if _, err := build(ctx, e, s.tz, f.Database, s.deferred()); err == nil {
				rr, cr = runBoth(ctx, e, p)
				if o, w := compareResults(p, rr, cr); o == differ {
					why = w
				}
			}
			_ = e.rollback(ctx)
			f.Why = why
			switch {
			case rej != "":
				// a query the engine refuses on every database: issue
				// 18's dialect fidelity, unless the pair was written to
				// raise (issue 33 item 5)
				f.Why = rej
				if !strings.HasPrefix(p.Class, "33.") {
					f.Class = "18"
				}
			case s.deferred():
				f.Why += " (on a state before commit, deferred constraints violated)"
				switch p.Family {
				case "semijoin", "distinct-key", "selfjoin", "group":
					f.Class = "7"
				}
			}
			f.RefResult, f.CandResult = rr.String(), cr.String()
			return &f
		case display:
			if shown == nil {
				f := base
				f.Kind, f.Class, f.Why, f.Source, f.TimeZone, f.Database = "display-only", "10", why, s.source, s.tz, s.inserts
				if strings.HasPrefix(why, "the same text in columns of other types") {
					f.Class = "9"
				}
				f.RefResult, f.CandResult = rr.String(), cr.String()
				shown = &f
			}
		}
		return nil
	}
	for _, s := range refuterStates(ctx, tg, p, n, seed, r) {
		if time.Now().After(deadline) {
			break
		}
		bad, err := build(ctx, e, s.tz, s.inserts, false)
		if err != nil {
			_ = e.rollback(ctx)
			if bad != "" {
				c := classifyRejection(tg.meta, bad+": "+err.Error())
				st.Illegal[c]++
				if _, ok := st.IllegalExample[c]; !ok {
					st.IllegalExample[c] = fmt.Sprintf("%s [%s]: %s — %s", p.Schema, tg.loader, firstLine(err.Error()), bad)
				}
			}
			continue
		}
		if f := try(s); f != nil {
			return []Finding{*f}
		}
	}
	for k := 0; k < n && !time.Now().After(deadline); k++ {
		s, err := randomState(ctx, tg, p, r)
		if err != nil {
			_ = e.rollback(ctx)
			continue
		}
		if f := try(s); f != nil {
			return []Finding{*f}
		}
	}
	if shown != nil {
		return []Finding{*shown}
	}
	return nil
}

// pairCheckBudget bounds the databases one proved equivalence is checked on.
const pairCheckBudget = 10 * time.Second

// checkNotEquivalent loads the counterexample into the engine with the
// real DDL in force and runs both queries there, in every session time
// zone: a refused database, or no difference anywhere, makes it wrong.
func checkNotEquivalent(ctx context.Context, tg *target, p Pair, v equivalence.Verdict, base Finding, st *Stats) []Finding {
	ce := v.Counterexample
	if ce == nil {
		return checkNoEvidence(ctx, tg, p, base)
	}
	e := tg.eng
	st.CounterexChecked++
	f := base
	f.Database, f.Source = ce.Inserts, "counterexample"
	zones := []string{""}
	if e.dialect() == catalog.Postgres {
		zones = pgTimeZones
	}
	var rr, cr result
	bothFail := true
	for _, tz := range zones {
		bad, err := build(ctx, e, tz, ce.Inserts, false)
		if err != nil && bad == "" {
			st.OracleErrors = append(st.OracleErrors, err.Error())
			return nil
		}
		if err != nil {
			_ = e.rollback(ctx)
			f.Kind, f.Why = "illegal counterexample", "the engine refuses the database: "+firstLine(err.Error())+" — "+bad
			f.Class = classifyRejection(tg.meta, bad+": "+err.Error())
			return []Finding{f}
		}
		rr, cr = runBoth(ctx, e, p)
		_ = e.rollback(ctx)
		o, _ := compareResults(p, rr, cr)
		switch o {
		case differ, display:
			return nil
		case same:
			bothFail = false
		}
	}
	if bothFail {
		st.BothFail++
		return nil
	}
	f.Kind, f.Class, f.TimeZone = "wrong not_equivalent", p.Class, ""
	f.Why = fmt.Sprintf("the engine returns the same on the counterexample (the judge: %d vs %d rows)", ce.Reference.Count, ce.Candidate.Count)
	f.RefResult, f.CandResult = rr.String(), cr.String()
	return []Finding{f}
}

// assumptionsHold reports whether the state meets the assumptions the
// proof named (the state is still open).
func assumptionsHold(ctx context.Context, tg *target, v equivalence.Verdict, rr, cr result) bool {
	count := func(q string) int {
		r := tg.eng.query(ctx, q, false, false)
		if r.err != nil || len(r.rows) == 0 {
			return -1
		}
		var n int
		fmt.Sscanf(strings.Trim(r.rows[0][0].exact, "'"), "%d", &n)
		return n
	}
	for _, a := range v.Assumptions {
		switch a.Kind {
		case equivalence.AssumeNonEmpty:
			if t := tg.meta.table(a.Subject); t != nil {
				if count("SELECT count(*) FROM "+pgIdent(t.name)) <= 0 {
					return false
				}
			} else if emptyish(rr) || emptyish(cr) {
				return false
			}
		case equivalence.AssumeForeignKey:
			for _, t := range tg.meta.tables {
				for _, fk := range t.fks {
					if len(fk.cols) != 1 || fk.refCols[0] == "" {
						continue
					}
					q := "SELECT count(*) FROM " + pgIdent(t.name) + " AS c WHERE c." + pgIdent(fk.cols[0]) + " IS NOT NULL AND NOT EXISTS (SELECT 1 FROM " +
						pgIdent(fk.ref) + " AS p WHERE p." + pgIdent(fk.refCols[0]) + " = c." + pgIdent(fk.cols[0]) + ")"
					if count(q) != 0 {
						return false
					}
				}
			}
		case equivalence.AssumePrimaryKeyNotNull:
			for _, t := range tg.meta.tables {
				for _, c := range t.pk {
					if count("SELECT count(*) FROM "+pgIdent(t.name)+" WHERE "+pgIdent(c)+" IS NULL") != 0 {
						return false
					}
				}
			}
		}
	}
	return true
}

// spellingOnly reports whether the proof assumed both queries spell
// equal values alike (equivalence.AssumeSameSpelling) and the results
// differ only in spelling: in case and trailing blanks, as NOCASE, RTRIM
// and a case-insensitive ICU collation tell values apart.
func spellingOnly(v equivalence.Verdict, rr, cr result) bool {
	for _, a := range v.Assumptions {
		if a.Kind == equivalence.AssumeSameSpelling {
			fold := func(row []cell) string { return rowKey(row, tieValue) }
			return rr.err == nil && cr.err == nil && len(rr.rows) == len(cr.rows) && !bagsDiffer(rr.rows, cr.rows, fold)
		}
	}
	return false
}

// emptyish: no row, or one row of NULLs (an aggregate over nothing).
func emptyish(r result) bool {
	if r.err != nil || len(r.rows) == 0 {
		return true
	}
	if len(r.rows) > 1 {
		return false
	}
	for _, c := range r.rows[0] {
		if c.exact != "NULL" {
			return false
		}
	}
	return true
}
