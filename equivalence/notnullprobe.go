package equivalence

import (
	"context"
	"slices"
	"strings"

	"github.com/pgequiv/pgequiv/equivalence/refute"
	"github.com/pgequiv/pgequiv/planner"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

// A pair the search refutes only with unusual data (a NULL in a nullable
// column, an empty table, an orphaned row) is not equivalent, and the
// verdict says so; but a user reads "differs only if cars.model is NULL;
// proved equal when it is not" differently from a plain difference. So
// for such a pair the judge tries a proof under the schema with the
// nullable columns the queries name made NOT NULL (the prover itself
// names the foreign keys and non-empty tables it relies on). A proof is
// reported as Verdict.ProvedUnder, the smallest set of columns it found
// that still proves it, beside the counterexample that breaks them; the
// unusual_data policy decides whether the label stays not_equivalent
// (the default: the counterexample is a database the engine accepts) or
// becomes equivalent_under_assumptions.

// Unusual-data policies (Options.UnusualData).
const (
	// UnusualDataDiffers keeps not_equivalent, with the proof under
	// assumptions in Verdict.ProvedUnder.
	UnusualDataDiffers = "differs"
	// UnusualDataAssumedAway labels such a pair
	// equivalent_under_assumptions, naming them; the counterexample that
	// breaks them stays in the verdict.
	UnusualDataAssumedAway = "assumed_away"
)

// notNullProbeTries bounds the proofs the probe tries while leaving
// columns out (each is a planning and a proof); where they run out, the
// columns still kept are all assumed: a set that suffices, if not the
// smallest.
const notNullProbeTries = 12

// weaklyRefuted reports whether v is a counterexample that needs only
// NULLs, empty tables or orphaned rows.
func weaklyRefuted(v Verdict) bool {
	ce := v.Counterexample
	if v.Label != NotEquivalent || ce == nil || ce.ColumnOrderOnly || len(ce.Needs) == 0 {
		return false
	}
	for _, n := range ce.Needs {
		switch n {
		case refute.NeedsNull, refute.NeedsEmptyTable, refute.NeedsOrphanedRow:
		default:
			return false
		}
	}
	return true
}

// proveUnderNotNull sets v.ProvedUnder when a proof holds under the
// columns named NOT NULL, and applies the unusual_data policy.
func proveUnderNotNull(ctx context.Context, s *catalog.Schema, reference, candidate string, opts Options, m memo, v *Verdict) {
	cols := nullableMentioned(ctx, s, reference, candidate)
	if len(cols) == 0 || ctx.Err() != nil {
		return
	}
	o := opts
	o.Refute.Off = true
	o.Adviser = nil
	o.pkProbe = nil
	o.proveOnly = true
	try := func(cols []columnRef) (Verdict, bool) {
		assumed := notNullSchema(s, cols)
		if assumed == nil || ctx.Err() != nil {
			return Verdict{}, false
		}
		p, err := judgeUnder(ctx, assumed, reference, candidate, o, m)
		return p, err == nil && p.Label.Proved()
	}
	proof, ok := try(cols)
	if !ok {
		return
	}
	// Leave out runs of columns, halving the run length, as delta
	// debugging does: a star query names every column, and a proof
	// usually needs one or two of them.
	tries := 0
	for size := max(len(cols)/2, 1); len(cols) > 1 && tries < notNullProbeTries; size = max(size/2, 1) {
		for i := 0; i < len(cols) && len(cols) > 1 && tries < notNullProbeTries; {
			end := min(i+size, len(cols))
			fewer := slices.Delete(slices.Clone(cols), i, end)
			tries++
			if p, ok := try(fewer); ok {
				cols, proof = fewer, p
				continue
			}
			i = end
		}
		if size == 1 {
			break
		}
	}
	under := slices.Clone(proof.Assumptions)
	for _, c := range cols {
		under = mergeAssumptions(under, []Assumption{{Kind: AssumeNotNull, Subject: c.table + "." + c.column}})
	}
	v.ProvedUnder = under
	v.Timings.Total += proof.Timings.Total
	if opts.UnusualData == UnusualDataAssumedAway {
		v.Label, v.Assumptions = EquivalentUnderAssumptions, under
		v.Rules = proof.Rules
		band(v, opts)
	}
}

// columnRef names a column of a table.
type columnRef struct{ table, column string }

// nullableMentioned lists the nullable columns of the tables either query
// reads that a query names (every column of such a table where a query
// has a star or a NATURAL join): the NOT NULL facts that can matter.
func nullableMentioned(ctx context.Context, s *catalog.Schema, queries ...string) []columnRef {
	texts := make([]string, len(queries))
	words := map[string]bool{}
	for i, q := range queries {
		texts[i] = strings.ToLower(q)
		addWords(words, texts[i])
	}
	all := words["natural"] || hasStar(texts)
	seen := map[string]bool{}
	var out []columnRef
	for _, q := range queries {
		p, err := planner.Plan(ctx, s, q, planner.Options{})
		if err != nil {
			return nil
		}
		for _, in := range p.Meta.Instances {
			t := in.Table
			if t == nil || t.IsView() || seen[t.Name] {
				continue
			}
			seen[t.Name] = true
			for _, c := range t.Columns {
				if !c.NotNull && (all || mentioned(strings.ToLower(c.Name), words, texts)) {
					out = append(out, columnRef{t.Name, c.Name})
				}
			}
		}
	}
	return out
}

// notNullSchema is s with cols NOT NULL (nil if the schema does not
// build).
func notNullSchema(s *catalog.Schema, cols []columnRef) *catalog.Schema {
	tables := make([]*catalog.Table, len(s.Tables))
	for i, t := range s.Tables {
		c := *t
		cloned := false
		for _, r := range cols {
			if r.table != t.Name {
				continue
			}
			if !cloned {
				c.Columns, cloned = slices.Clone(t.Columns), true
			}
			for k := range c.Columns {
				if c.Columns[k].Name == r.column {
					c.Columns[k].NotNull = true
				}
			}
		}
		tables[i] = &c
	}
	out, err := catalog.NewSchema(s.Dialect, tables)
	if err != nil {
		return nil
	}
	return out
}
