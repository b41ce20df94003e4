package judging

import "context"

// judgingKnobs holds Judging hooks that only tests set.
type judgingKnobs struct {
	// beforeJudge runs at the start of each judgement, within its
	// deadline (ctx).
	beforeJudge func(ctx context.Context)
}
