package norm

import (
	"context"
	"errors"
)

// WithFiringLimit returns a context under which NormalizeContext stops
// right after the limit-th rule firing (limit 0: no stop), and a function
// reporting how many rules fired and the last one. The soundness net
// (internal/soundness's tests) steps through a normalization with it; it
// is exported for that net, which runs plans through the refuter and so
// sits above the planner.
func WithFiringLimit(ctx context.Context, limit int) (context.Context, func() (int, string)) {
	p := &firingProbe{limit: limit}
	return context.WithValue(ctx, firingProbeKey{}, p), func() (int, string) { return p.fired, p.last }
}

// firingProbe lets the soundness tests (WithFiringLimit) normalize a plan
// one rule firing at a time: with limit n > 0, normalization ends right
// after the n-th firing, leaving the plan as the firings so far made it,
// so the plans before and after each firing can be run on the same
// databases. Every firing is counted, repeats of a rule included.
type firingProbe struct {
	limit int
	fired int
	last  string // the rule of the last firing
}

type firingProbeKey struct{}

// errFiringLimit stops normalization when a probe's limit is reached.
var errFiringLimit = errors.New("rule firing limit reached")
