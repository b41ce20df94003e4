package judging

import (
	"context"

	"github.com/pgequiv/pgequiv/equivalence"
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
	if !tag.HasParams(ref) {
		return judge(ctx, ref, candidate)
	}
	p, ok := tag.Parameterize(candidate)
	if !ok {
		return judge(ctx, ref, candidate)
	}
	v, err := judge(ctx, ref, p.SQL)
	if err == nil && (v.Label == equivalence.Equivalent || v.Label == equivalence.EquivalentUnderAssumptions) || ctx.Err() != nil {
		return v, err
	}
	bound, ok := tag.BindParams(ref, p.Consts)
	if !ok {
		return v, err
	}
	return judge(ctx, bound, candidate)
}
