package sqlgen

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sort"
	"strings"
	"sync"
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
	// MaxHeapGrowth bounds how far the heap grows during the call: the
	// peak of the bytes in heap objects (live or not yet collected), sampled
	// every millisecond, over their amount when the call started. This is
	// the memory a call makes the process hold, which MaxAlloc overstates
	// for a call that allocates and frees much more than it keeps.
	MaxHeapGrowth uint64
	// Hang is how long to wait for a call that has overrun its budget
	// before giving up on it; 0 means 10 s.
	Hang time.Duration
}

// FuzzLimits are the limits of the structure-aware fuzz targets: a 200 ms
// budget and 256 MB of heap growth; a call still running after 2 s is
// reported as hung.
var FuzzLimits = Limits{Budget: 200 * time.Millisecond, MaxHeapGrowth: 256 << 20, Hang: 2 * time.Second}

// Slack is the time a call may take: its budget plus 10% plus 20 ms,
// the tolerance issue 9 sets for a budget that holds.
func (l Limits) Slack() time.Duration { return l.Budget + l.Budget/10 + 20*time.Millisecond }

// Usage is what one call took.
type Usage struct {
	Wall  time.Duration
	Alloc uint64
	// HeapGrowth is the peak heap growth during the call (see
	// Limits.MaxHeapGrowth).
	HeapGrowth uint64
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
	peak := watchHeap()
	defer peak.stop()
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
		return Usage{Wall: wall, Alloc: after.TotalAlloc - before.TotalAlloc, HeapGrowth: peak.stop()}
	case <-timer.C:
		runtime.ReadMemStats(&after)
		return Usage{Wall: time.Since(start), Alloc: after.TotalAlloc - before.TotalAlloc, HeapGrowth: peak.stop(), Hung: true}
	}
}

// heapWatch samples the bytes in heap objects every millisecond and keeps
// the peak's growth over the first sample.
type heapWatch struct {
	done   chan struct{}
	result chan uint64
	once   sync.Once
	growth uint64
}

const heapObjects = "/memory/classes/heap/objects:bytes"

func readHeap() uint64 {
	s := []metrics.Sample{{Name: heapObjects}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

func watchHeap() *heapWatch {
	w := &heapWatch{done: make(chan struct{}), result: make(chan uint64, 1)}
	base := readHeap()
	go func() {
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		var peak uint64
		sample := func() {
			if h := readHeap(); h > base && h-base > peak {
				peak = h - base
			}
		}
		for {
			select {
			case <-t.C:
				sample()
			case <-w.done:
				sample()
				w.result <- peak
				return
			}
		}
	}()
	return w
}

// stop ends the sampling and returns the peak growth; later calls return
// the same value.
func (w *heapWatch) stop() uint64 {
	w.once.Do(func() {
		close(w.done)
		w.growth = <-w.result
	})
	return w.growth
}

// MeasureSettled is Measure, repeated once when the call only overran
// its budget's slack: on a loaded machine the goroutine that should see
// the deadline may not run for a while, and that does not repeat, while
// a judgement that ignores its deadline overruns every time. Memory
// bounds are checked against the larger of the two calls.
func (l Limits) MeasureSettled(ctx context.Context, f func(ctx context.Context)) Usage {
	u := l.Measure(ctx, f)
	if u.Hung || u.Wall <= l.Slack() {
		return u
	}
	again := l.Measure(ctx, f)
	again.Alloc, again.HeapGrowth = max(u.Alloc, again.Alloc), max(u.HeapGrowth, again.HeapGrowth)
	return again
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
	if l.MaxHeapGrowth > 0 && u.HeapGrowth > l.MaxHeapGrowth {
		errs = append(errs, fmt.Sprintf("heap grew by %d MB, over %d MB", u.HeapGrowth>>20, l.MaxHeapGrowth>>20))
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

// Clip shortens a generated query for a failure message; the fuzz engine
// keeps the whole input.
func Clip(s string) string {
	if len(s) > 600 {
		return s[:600] + " ..."
	}
	return s
}
