package refute

import (
	"context"
	"errors"

	"github.com/pgequiv/pgequiv/planner/exec"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// maxPickRuns bounds the executions one plan gets to enumerate the rows
// its SQLite scalar subqueries may take (exec.Pick): past it, the result
// stays nondeterministic and the database is skipped, as before.
const maxPickRuns = 16

// everyResult returns every result p may return on db when r's only
// nondeterminism is its Picks: one execution per combination of choices.
// nil means the choices cannot be enumerated (another nondeterminism, too
// many combinations, or a query error under some choice).
func (c *comparer) everyResult(ctx context.Context, p *plan.Plan, db exec.Database, r *exec.Result) ([]*exec.Result, error) {
	if r == nil || !r.OnlyPicks {
		return nil, nil
	}
	runs := 1
	for _, pk := range r.Picks {
		runs *= pk.Rows
		if runs > maxPickRuns {
			return nil, nil
		}
	}
	out := make([]*exec.Result, 0, runs)
	choice := make([]int, len(r.Picks))
	for {
		opts := c.engine
		opts.Picks = make(map[*plan.Node]int, len(choice))
		for i, pk := range r.Picks {
			opts.Picks[pk.Sub] = choice[i]
		}
		res, err := exec.ExecuteWith(ctx, p, db, opts)
		switch {
		case errors.Is(err, exec.ErrQuery):
			return nil, nil
		case err != nil:
			return nil, err
		case res.Nondeterministic && !res.OnlyPicks:
			return nil, nil
		}
		out = append(out, res)
		// The next combination, as an odometer.
		i := 0
		for ; i < len(choice); i++ {
			if choice[i]++; choice[i] < r.Picks[i].Rows {
				break
			}
			choice[i] = 0
		}
		if i == len(choice) {
			return out, nil
		}
	}
}

// classifyChoices compares two plans' possible results: they differ only
// if every result of one differs from every result of the other (whatever
// rows the engine picks, it shows a difference), and are the same only
// if all are the same; otherwise the database is skipped. The outcome
// shows the first results.
func classifyChoices(rs1, rs2 []*exec.Result, ignoreColumnOrder bool) outcome {
	kind, first := same, true
	settled := func(r *exec.Result) *exec.Result {
		// Each result is one the engine may return: compared as such.
		d := *r
		d.Nondeterministic = false
		return &d
	}
	for _, a := range rs1 {
		for _, b := range rs2 {
			k := classify(settled(a), nil, settled(b), nil, ignoreColumnOrder).kind
			if first {
				kind, first = k, false
			} else if k != kind {
				return outcome{kind: skip, ref: rs1[0], cand: rs2[0]}
			}
		}
	}
	return outcome{kind: kind, ref: rs1[0], cand: rs2[0]}
}

// compareChoices compares r1 and r2, one or both of which depend on
// the rows SQLite's scalar subqueries pick, over every such choice.
func (c *comparer) compareChoices(ctx context.Context, db exec.Database, r1, r2 *exec.Result) (outcome, error) {
	rs := [2][]*exec.Result{{r1}, {r2}}
	for i, pr := range []struct {
		p *plan.Plan
		r *exec.Result
	}{{c.ref, r1}, {c.cand, r2}} {
		if !pr.r.Nondeterministic {
			continue
		}
		all, err := c.everyResult(ctx, pr.p, db, pr.r)
		if err != nil || all == nil {
			return outcome{kind: skip, ref: r1, cand: r2}, err
		}
		rs[i] = all
	}
	return classifyChoices(rs[0], rs[1], c.opts.IgnoreColumnOrder), nil
}

// countFixed reports whether r's size is determined: a deterministic
// result, or one whose only freedom is which rows a top-level LIMIT
// keeps (exec.Result.CountFixed).
func countFixed(r *exec.Result) bool { return !r.Nondeterministic || r.CountFixed }
