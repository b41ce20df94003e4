package judging

import (
	"context"

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/equivalence/bind"
	"github.com/pgequiv/pgequiv/proxy/tag"
)

// JudgeFunc judges cand against ref (on a schema and with options the
// caller holds), typically through a judge pool (judgepool.Backend).
type JudgeFunc func(ctx context.Context, ref, cand string) (equivalence.Verdict, error)

// JudgeBound judges candidate against a reference that may use
// placeholders bound from the candidate's constants, with judge. It first
// judges the candidate's shape, its constants replaced by the same
// parameters: equivalent for every value of the parameters is equivalent
// for the candidate's values too. That text is the same whatever
// constants the application sends, so the judge's cache keeps serving
// it. Any other verdict is not conclusive for these constants (a value
// may make the two queries agree), so the reference is then judged with
// the candidate's constants bound in, against the candidate as sent.
func JudgeBound(ctx context.Context, ref, candidate string, judge JudgeFunc) (equivalence.Verdict, error) {
	return judgeBound(ctx, boundInput{ref: ref, candidate: candidate, refParams: tag.HasParams(ref)}, judge)
}

// boundInput is JudgeBound's pair with what may be known of it already
// (shapememo.go): whether ref has placeholders and, if shapeKnown,
// candidate's shape (tag.Parameterize's SQL; "" where it has none).
type boundInput struct {
	ref, candidate string
	refParams      bool
	shape          string
	shapeKnown     bool
}

func judgeBound(ctx context.Context, b boundInput, judge JudgeFunc) (equivalence.Verdict, error) {
	if !b.refParams {
		return judge(ctx, b.ref, b.candidate)
	}
	var p tag.Parameterized
	ok := false
	if b.shapeKnown {
		p.SQL, ok = b.shape, b.shape != ""
	} else {
		p, ok = tag.Parameterize(b.candidate)
	}
	if !ok {
		return judge(ctx, b.ref, b.candidate)
	}
	v, err := judge(ctx, b.ref, p.SQL)
	if err == nil && (v.Label == equivalence.Equivalent || v.Label == equivalence.EquivalentUnderAssumptions) || ctx.Err() != nil {
		return v, err
	}
	if b.shapeKnown {
		// The constants to bind were not kept with the shape: read them.
		if p, ok = tag.Parameterize(b.candidate); !ok {
			return v, err
		}
	}
	bound, ok := bind.Substitute(b.ref, p.Consts)
	if !ok {
		return v, err
	}
	return judge(ctx, bound, b.candidate)
}
