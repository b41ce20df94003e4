package equivalence

import (
	"context"
	"time"

	"github.com/pgequiv/pgequiv/planner/catalog"
)

// Judge decides whether candidate means the same as reference under s.
// An error means the reference itself could not be planned or ctx ended;
// a candidate that cannot be planned yields an unknown verdict saying why.
// Judge keeps nothing between calls; a Judger caches prepared references.
func Judge(ctx context.Context, s *catalog.Schema, reference, candidate string, opts Options) (Verdict, error) {
	return judge(ctx, s, reference, candidate, opts, noMemo{})
}

// judge is Judge reusing what m remembers. A SQLite pair whose queries
// read tables with nullable primary keys is judged twice over, under the
// declared schema and under one with those keys NOT NULL (pknotnull.go).
//
// A pair refuted only with unusual data gets a proof tried under named
// NOT NULL assumptions as well (notnullprobe.go).
func judge(ctx context.Context, s *catalog.Schema, reference, candidate string, opts Options, m memo) (Verdict, error) {
	var v Verdict
	var err error
	if probe := newPKProbe(ctx, s, reference, candidate, opts, m); probe != nil {
		v, err = judgeSQLiteKeys(ctx, s, reference, candidate, opts, m, probe)
	} else {
		v, err = judgeUnder(ctx, s, reference, candidate, opts, m)
	}
	if err == nil && weaklyRefuted(v) {
		proveUnderNotNull(ctx, s, reference, candidate, opts, m, &v)
	}
	return v, err
}

// judgement is one pair on its way to a verdict: what each stage found,
// for the stages after it.
type judgement struct {
	ctx                  context.Context
	s                    *catalog.Schema
	reference, candidate string
	opts                 Options
	memo                 memo
	start                time.Time

	ref, cand *prepared
	cmp       comparison
	// unmodelled names what the catalog misses about the tables read:
	// then neither a proof nor a counterexample can be trusted.
	unmodelled []string
	// open says the prove stage left the pair to the refute stage.
	open bool
	// different memoizes structurallyDifferent.
	different *bool

	v Verdict
}

// judgeUnder makes a verdict under s, in stages. Read top to bottom, it is
// how a verdict is made:
//
//  1. plan: each query is planned and normalized (package planner);
//  2. rewrite: the ESM+ rules rewrite it towards a canonical form
//     (package rewrite), and the order and column policies apply; the
//     reference comes first, as a candidate is prepared against its row
//     order. A memo may hold either query prepared already;
//  3. compare: the queries' components, side by side, give the
//     differences a verdict reports;
//  4. prove: equal plans, or the prover (package prove), make the pair
//     equivalent, perhaps under assumptions;
//  5. refute: a structural difference, or a database the search
//     generates (package refute), makes it not equivalent;
//  6. score: graded similarity places the verdict within its label's
//     band, and an unsettled one leans likely equivalent or likely
//     different (package score);
//  7. advise: an adviser's opinion moves an unsettled score.
func judgeUnder(ctx context.Context, s *catalog.Schema, reference, candidate string, opts Options, m memo) (Verdict, error) {
	j := &judgement{ctx: ctx, s: s, reference: reference, candidate: candidate, opts: opts, memo: m, start: time.Now()}
	if d, ok := tooLargeInput(reference, candidate, opts); ok {
		return finishTooLarge(d, j.start), nil
	}
	// 1, 2: plan and rewrite.
	if done, err := j.prepareReference(); done || err != nil {
		return j.v, err
	}
	if done, err := j.prepareCandidate(); done || err != nil {
		return j.v, err
	}
	t := time.Now()
	// 3: compare.
	j.compare()
	// 4: prove.
	if err := j.prove(); err != nil {
		return j.v, stopped(err)
	}
	j.assumeSpellings()
	j.unproveRowChoices()
	j.refuteByStructure()
	j.v.Timings.Compare = time.Since(t)
	// 5: refute.
	if err := j.refuteBySearch(); err != nil {
		return j.v, stopped(err)
	}
	if opts.pkProbe.settled() || opts.proveOnly && !j.v.Label.Proved() {
		return j.v, nil // the caller discards this verdict: no scores needed
	}
	// 6: score.
	if err := j.score(); err != nil {
		return j.v, stopped(err)
	}
	// 7: advise.
	advise(ctx, s, reference, candidate, &j.v, opts)
	return j.v, nil
}
