package sqlgen

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"time"

	"github.com/pgequiv/pgequiv/planner/catalog"
)

// Limits is what one call under test may use. The fuzz targets and the
// issue 9 regression tests share it so that "within budget" means one
// thing everywhere.
type Limits struct {
	// Budget is the deadline given to the call's context.
	Budget time.Duration
	// MaxAlloc bounds the bytes allocated during the call, read as the
	// growth of runtime.MemStats.TotalAlloc. That counts every allocation,
	// freed or not, so it is stricter than a bound on heap growth, and it
	// does not depend on when the collector runs, so it is reproducible.
	// It also counts what other goroutines of the process allocate
	// meanwhile; the fuzz engine runs one input at a time per process.
	MaxAlloc uint64
	// Hang is how long to wait for a call that has overrun its budget
	// before giving up on it; 0 means 10 s.
	Hang time.Duration
}

// FuzzLimits are the limits of the structure-aware fuzz targets: a 200 ms
// budget and 256 MB of allocation; a call still running after 2 s is
// reported as hung.
var FuzzLimits = Limits{Budget: 200 * time.Millisecond, MaxAlloc: 256 << 20, Hang: 2 * time.Second}

// Slack is the time a call may take: its budget plus 10% plus 20 ms,
// the tolerance issue 9 sets for a budget that holds.
func (l Limits) Slack() time.Duration { return l.Budget + l.Budget/10 + 20*time.Millisecond }

// Usage is what one call took.
type Usage struct {
	Wall  time.Duration
	Alloc uint64
	// Hung is set when the call had not returned after Limits.Hang; Wall
	// is then the time waited.
	Hung bool
}

// Measure runs f under a context with deadline l.Budget and reports its
// wall time and allocation. A call that has not returned after l.Hang is
// abandoned (its goroutine keeps running) and reported as hung, so that
// a caller can fail with a message rather than block forever; a panic in
// f is re-raised on the caller's goroutine so the test fails on it.
func (l Limits) Measure(ctx context.Context, f func(ctx context.Context)) Usage {
	hang := l.Hang
	if hang <= 0 {
		hang = 10 * time.Second
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	// The clock starts with the deadline, so Wall and Budget compare.
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, l.Budget)
	defer cancel()
	done := make(chan any, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				// The stack is lost once the panic crosses goroutines.
				done <- fmt.Sprintf("%v\n%s", p, debug.Stack())
				return
			}
			done <- nil
		}()
		f(ctx)
	}()
	timer := time.NewTimer(hang)
	defer timer.Stop()
	select {
	case p := <-done:
		wall := time.Since(start)
		if p != nil {
			panic(p)
		}
		runtime.ReadMemStats(&after)
		return Usage{Wall: wall, Alloc: after.TotalAlloc - before.TotalAlloc}
	case <-timer.C:
		runtime.ReadMemStats(&after)
		return Usage{Wall: time.Since(start), Alloc: after.TotalAlloc - before.TotalAlloc, Hung: true}
	}
}

// Check returns an error describing how u broke l, or nil.
func (l Limits) Check(u Usage) error {
	var errs []string
	switch {
	case u.Hung:
		errs = append(errs, fmt.Sprintf("still running after %v (budget %v)", u.Wall.Round(time.Millisecond), l.Budget))
	case u.Wall > l.Slack():
		errs = append(errs, fmt.Sprintf("took %v, over budget %v + 10%% + 20ms", u.Wall.Round(time.Millisecond), l.Budget))
	}
	if l.MaxAlloc > 0 && u.Alloc > l.MaxAlloc {
		errs = append(errs, fmt.Sprintf("allocated %d MB, over %d MB", u.Alloc>>20, l.MaxAlloc>>20))
	}
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("%s", strings.Join(errs, "; "))
}

// NamedSchema is a schema with the name a failure report gives it.
type NamedSchema struct {
	Name   string
	Schema *catalog.Schema
}

// LoadSchemas returns the bundled example schema (postgres dialect)
// followed by every dir/*.sql in name order (sqlite dialect, as the
// shared Spider schemas are written). A missing dir yields the example
// only, so targets still run outside a full checkout.
func LoadSchemas(dir string) ([]NamedSchema, error) {
	ex, err := catalog.LoadDDL(catalog.ExampleDDL(), catalog.Postgres)
	if err != nil {
		return nil, fmt.Errorf("sqlgen: example schema: %w", err)
	}
	out := []NamedSchema{{"example", ex}}
	files, err := filepath.Glob(filepath.Join(dir, "*.sql"))
	if err != nil {
		return nil, fmt.Errorf("sqlgen: schemas in %s: %w", dir, err)
	}
	sort.Strings(files)
	for _, f := range files {
		ddl, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("sqlgen: %w", err)
		}
		s, err := catalog.LoadDDL(string(ddl), catalog.SQLite)
		if err != nil {
			return nil, fmt.Errorf("sqlgen: schema %s: %w", f, err)
		}
		out = append(out, NamedSchema{strings.TrimSuffix(filepath.Base(f), ".sql"), s})
	}
	return out, nil
}
