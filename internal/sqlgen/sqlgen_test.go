package sqlgen_test

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/pgequiv/pgequiv/internal/shareddata"
	"github.com/pgequiv/pgequiv/internal/sqlgen"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

// schemas returns the bundled example (postgres) and every shared schema
// (sqlite), by name.
func schemas(t testing.TB) map[string]*catalog.Schema {
	t.Helper()
	schemaDir := shareddata.Path(t, "data/schemas")
	list, err := sqlgen.LoadSchemas(schemaDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) < 2 {
		t.Fatalf("no schemas under %s", schemaDir)
	}
	out := map[string]*catalog.Schema{}
	for _, ns := range list {
		out[ns.Name] = ns.Schema
	}
	return out
}

// TestGeneratedSQLParses: at least 95% of generated queries, for every
// schema and both the default and the fuzz configuration, are accepted by
// PostgreSQL's own parser.
func TestGeneratedSQLParses(t *testing.T) {
	// The fuzz configuration writes lists of thousands of items, so it
	// gets fewer seeds to keep the test quick.
	for _, cfg := range []struct {
		name  string
		cfg   sqlgen.Config
		seeds uint64
	}{{"default", sqlgen.Config{}, 150}, {"fuzz", sqlgen.FuzzConfig, 40}} {
		seeds := cfg.seeds
		for name, s := range schemas(t) {
			t.Run(cfg.name+"/"+name, func(t *testing.T) {
				bad := 0
				var first string
				for seed := uint64(0); seed < seeds; seed++ {
					g := sqlgen.New(s, sqlgen.NewRandSource(seed), cfg.cfg)
					p := g.Pair()
					for _, q := range []string{p.Reference, p.Candidate} {
						if _, err := pg.Parse(q); err != nil {
							bad++
							if first == "" {
								first = err.Error() + ": " + trunc(q)
							}
						}
					}
				}
				if rate := float64(bad) / float64(2*seeds); rate > 0.05 {
					t.Errorf("%d of %d generated queries do not parse (%.1f%%); first: %s", bad, 2*seeds, 100*rate, first)
				}
			})
		}
	}
}

func trunc(s string) string {
	if len(s) > 300 {
		return s[:300] + "..."
	}
	return s
}

// TestDeterministic: a seed, or a byte string, names one query.
func TestDeterministic(t *testing.T) {
	s := schemas(t)["car_1"]
	for seed := uint64(0); seed < 50; seed++ {
		a := sqlgen.New(s, sqlgen.NewRandSource(seed), sqlgen.Config{}).Pair()
		b := sqlgen.New(s, sqlgen.NewRandSource(seed), sqlgen.Config{}).Pair()
		if a != b {
			t.Fatalf("seed %d: two runs differ:\n%+v\n%+v", seed, a, b)
		}
	}
	in := []byte("structure-aware fuzzing of the planner")
	a := sqlgen.New(s, sqlgen.NewByteSource(in), sqlgen.FuzzConfig).Query()
	b := sqlgen.New(s, sqlgen.NewByteSource(in), sqlgen.FuzzConfig).Query()
	if a != b {
		t.Fatalf("byte source: two runs differ:\n%s\n%s", a, b)
	}
	if c := sqlgen.New(s, sqlgen.NewRandSource(1), sqlgen.Config{}).Query(); c == sqlgen.New(s, sqlgen.NewRandSource(2), sqlgen.Config{}).Query() {
		t.Errorf("seeds 1 and 2 give the same query %q", c)
	}
}

// TestShapesReached: every top-level shape and every pair rewrite comes up
// within a few hundred seeds, so a fuzzer starting from seeds reaches them.
func TestShapesReached(t *testing.T) {
	s := schemas(t)["example"]
	shapes := map[sqlgen.Shape]bool{}
	rewrites := map[string]bool{}
	for seed := uint64(0); seed < 400; seed++ {
		p := sqlgen.New(s, sqlgen.NewRandSource(seed), sqlgen.Config{}).Pair()
		shapes[p.Shape] = true
		rewrites[p.Rewrite] = true
	}
	for _, sh := range []sqlgen.Shape{sqlgen.ShapePlain, sqlgen.ShapeGroupBy, sqlgen.ShapeJoins, sqlgen.ShapeNestedScalar,
		sqlgen.ShapeNestedExists, sqlgen.ShapeNestedIn, sqlgen.ShapeSetOps, sqlgen.ShapeCTEFanout, sqlgen.ShapeLongIn,
		sqlgen.ShapeBoolChain, sqlgen.ShapeRowIn, sqlgen.ShapeOrderLimit, sqlgen.ShapeValues, sqlgen.ShapeNestedDistinct} {
		if !shapes[sh] {
			t.Errorf("shape %s never generated", sh)
		}
	}
	for _, r := range []string{"identical", "shape", "literal", "wrapped", "unrelated"} {
		if !rewrites[r] {
			t.Errorf("rewrite %s never generated", r)
		}
	}
}

// TestByteSourceBounded: any input, including none and all 0xff, ends in
// a query whose size the configuration bounds.
func TestByteSourceBounded(t *testing.T) {
	s := schemas(t)["example"]
	inputs := [][]byte{nil, {0}, []byte(strings.Repeat("\xff", 4096)), []byte(strings.Repeat("\x80\x01", 2048))}
	for i, in := range inputs {
		q := sqlgen.New(s, sqlgen.NewByteSource(in), sqlgen.FuzzConfig).Query()
		if q == "" {
			t.Errorf("input %d: empty query", i)
		}
		// 5,000 list items of a few bytes each is the largest shape.
		if len(q) > 1<<20 {
			t.Errorf("input %d: query of %d bytes", i, len(q))
		}
	}
}

// TestReachesIssueSizes: the fuzz configuration reaches the sizes of the
// issue 9 reproducers (a 30-deep chain, a 1,000+ item list).
func TestReachesIssueSizes(t *testing.T) {
	s := schemas(t)["example"]
	deep, long := false, false
	for seed := uint64(0); seed < 3000 && !(deep && long); seed++ {
		q := sqlgen.New(s, sqlgen.NewRandSource(seed), sqlgen.FuzzConfig).Query()
		deep = deep || strings.Count(q, "(SELECT") >= 20 || strings.Count(q, "IS DISTINCT FROM") >= 20 || strings.Count(q, "EXISTS (") >= 20
		long = long || strings.Count(q, ",") >= 1000 || strings.Count(q, " OR ") >= 1000
	}
	if !deep {
		t.Error("no chain of depth 20 in 3000 seeds")
	}
	if !long {
		t.Error("no list of 1000 items in 3000 seeds")
	}
}

// TestLimits: Check passes a call within budget + 10% + 20 ms and under
// the allocation bound, and names each way a call breaks them.
func TestLimits(t *testing.T) {
	l := sqlgen.Limits{Budget: 100 * time.Millisecond, MaxAlloc: 1 << 20, MaxHeapGrowth: 8 << 20}
	for _, c := range []struct {
		u    sqlgen.Usage
		want string // substring of the error; "" for none
	}{
		{sqlgen.Usage{Wall: 129 * time.Millisecond}, ""},
		{sqlgen.Usage{Wall: 131 * time.Millisecond}, "over budget"},
		{sqlgen.Usage{Wall: time.Second, Hung: true}, "still running"},
		{sqlgen.Usage{Alloc: 2 << 20}, "allocated 2 MB"},
		{sqlgen.Usage{HeapGrowth: 9 << 20}, "heap grew by 9 MB"},
	} {
		err := l.Check(c.u)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%+v: unexpected %v", c.u, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%+v: got %v, want %q", c.u, err, c.want)
		}
	}
	// A collection during the call frees garbage counted in the baseline,
	// so growth is asserted at half of what the call holds.
	runtime.GC()
	var keep []byte
	u := l.Measure(context.Background(), func(ctx context.Context) {
		keep = make([]byte, 16<<20)
		<-ctx.Done()
	})
	if u.Hung || u.Wall < l.Budget || u.Alloc < 16<<20 || u.HeapGrowth < 8<<20 {
		t.Errorf("Measure of a call holding 16 MB until its deadline: %+v", u)
	}
	_ = keep
	short := sqlgen.Limits{Budget: time.Millisecond, Hang: 20 * time.Millisecond}
	block := make(chan struct{})
	defer close(block)
	if u := short.Measure(context.Background(), func(context.Context) { <-block }); !u.Hung {
		t.Errorf("a call ignoring its context was not reported hung: %+v", u)
	}
}
