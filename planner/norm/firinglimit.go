package norm

import "context"

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
