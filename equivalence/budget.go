package equivalence

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/pgequiv/pgequiv/planner"
	"time"

	"github.com/pgequiv/pgequiv/planner/plan"
)

// DefaultMaxQueryBytes is the longest query judged when
// Options.MaxQueryBytes is 0.
const DefaultMaxQueryBytes = 1 << 20

// ComponentTooLarge is the Difference component of a verdict given
// without judging because a query is over a size limit.
const ComponentTooLarge = "too large to judge"

// gmnMaxPlanSize bounds the plan nodes and expressions a query may have
// for the GMN to score it: the network's cost grows faster than the
// product of the two graphs' sizes (measured: 300 nodes and expressions a
// side about 0.2 s, 900 about 0.5 s), and it is not interrupted once
// started, so the bound keeps a pair within tens of milliseconds. Spider
// plans have at most 50 (p99 34).
const gmnMaxPlanSize = 200

// tooLargeInput checks both queries against opts.MaxQueryBytes and
// returns the difference to report for the first one over it.
func tooLargeInput(reference, candidate string, opts Options) (Difference, bool) {
	limit := opts.MaxQueryBytes
	if limit == 0 {
		limit = DefaultMaxQueryBytes
	}
	if limit < 0 {
		return Difference{}, false
	}
	d := Difference{Component: ComponentTooLarge}
	over := func(what, q string) string {
		return fmt.Sprintf("%s query is %d bytes, over the limit of %d", what, len(q), limit)
	}
	if len(reference) > limit {
		d.Reference = over("reference", reference)
	}
	if len(candidate) > limit {
		d.Candidate = over("candidate", candidate)
	}
	return d, d.Reference != "" || d.Candidate != ""
}

// finishTooLarge is the verdict for a pair not judged because of d.
func finishTooLarge(d Difference, start time.Time) Verdict {
	v := UnknownVerdict(d)
	v.Timings.Total = time.Since(start)
	return v
}

// UnknownVerdict is the verdict for a pair not judged, d saying why (a
// query too large, a proxy too busy to read it): unknown, scored as the
// judge scores a pair it has no evidence on, and leaning neither way. The
// proxy gives it where it does not call the judge, so that its verdicts
// read as the judge's own.
func UnknownVerdict(d Difference) Verdict {
	v := Verdict{Label: Unknown, Differences: []Difference{d}}
	band(&v, Options{})
	v.Likely = ""
	return v
}

// isTooLarge reports whether a planning error says the query is over one
// of the planner's size bounds: such a query gets an unknown verdict, not
// an error.
func isTooLarge(err error) bool {
	return errors.Is(err, planner.ErrTooLarge)
}

// stopped wraps the error that ended a judgement; callers test
// errors.Is(err, context.DeadlineExceeded) or context.Canceled.
func stopped(err error) error {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return fmt.Errorf("equivalence: judgement stopped: %w", err)
	}
	return err
}

// fingerprint hashes a plan's canonical text as plan.Plan.Fingerprint
// does; the judge keeps the text, which likelyDifferent reads, and hashes
// it once.
func fingerprint(canonical string) string {
	sum := sha256.Sum256([]byte(canonical))
	return hex.EncodeToString(sum[:8])
}

// planSize counts n's nodes and expression nodes, subqueries included,
// stopping once the count passes limit.
func planSize(n *plan.Node, limit int) int {
	size := 0
	var visit func(n *plan.Node)
	visit = func(n *plan.Node) {
		if size > limit {
			return
		}
		size++
		n.Exprs(func(s **plan.Expr) {
			plan.Walk(*s, func(x *plan.Expr) {
				size++
				if x.Kind == plan.Subquery && size <= limit {
					visit(x.Sub)
				}
			})
		})
		for _, in := range n.Inputs {
			visit(in)
		}
	}
	visit(n)
	return size
}
