package norm

import "context"

// WithFiringLimit returns a context under which NormalizeContext stops
// right after the limit-th rule firing (limit 0: no stop), and a function
// reporting how many rules fired and the last one.
func WithFiringLimit(ctx context.Context, limit int) (context.Context, func() (int, string)) {
	p := &firingProbe{limit: limit}
	return context.WithValue(ctx, firingProbeKey{}, p), func() (int, string) { return p.fired, p.last }
}
