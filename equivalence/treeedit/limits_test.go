package treeedit

import (
	"context"
	"errors"
	"math/rand/v2"
	"runtime"
	"strconv"
	"testing"
	"time"
)

// TestBoundIsALowerBound: the linear bound never exceeds the exact
// distance, under every cost set the exact tests use.
func TestBoundIsALowerBound(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, costs := range []Costs{DefaultCosts(), {1, 1, 1}, {2, 3, 1}, {1, 1, 5}, {0, 1, 1}} {
		c, err := NewCalculator(costs)
		if err != nil {
			t.Fatal(err)
		}
		for trial := 0; trial < 300; trial++ {
			a, b := randomTree(r, r.IntN(25), 4), randomTree(r, r.IntN(25), 4)
			d, lb := c.Distance(a, b), c.Bound(a, b)
			if lb > d {
				t.Fatalf("costs %+v: bound %d > distance %d for a=%s b=%s", costs, lb, d, a, b)
			}
		}
	}
}

// list is a flat tree "in(0 1 ... n-1)", the shape of an IN-list.
func list(n int, extra ...string) *Node {
	root := &Node{Label: "in"}
	for i := 0; i < n; i++ {
		root.Children = append(root.Children, &Node{Label: strconv.Itoa(i)})
	}
	for _, l := range extra {
		root.Children = append(root.Children, &Node{Label: l})
	}
	return root
}

// TestLimits: above the limits the distance is the bound, computed in
// linear time and memory (two 100,000-item lists once asked for 360 GB);
// identical trees are 0 at any size.
func TestLimits(t *testing.T) {
	tests := []struct {
		name      string
		a, b      *Node
		maxCells  int
		want      int
		wantExact bool
	}{
		{"small lists exact", list(50), list(50, "x"), 0, 1, true},
		{"over the cell limit", list(2100), list(2100, "x"), 0, 1, false},
		{"huge lists", list(100_000), list(100_000, "x"), 0, 1, false},
		{"huge identical", list(100_000), list(100_000), 0, 0, true},
		{"custom cell limit", list(50), list(50, "x"), 100, 1, false},
		{"relabelled over the limit", list(3000, "a"), list(3000, "b"), 0, 2, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := NewCalculator(DefaultCosts())
			c.MaxCells = tc.maxCells
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			r, err := c.DistanceContext(context.Background(), tc.a, tc.b)
			el := time.Since(start)
			runtime.ReadMemStats(&after)
			if err != nil {
				t.Fatal(err)
			}
			if r.Distance != tc.want || r.Exact != tc.wantExact {
				t.Errorf("got %+v, want distance %d exact %v", r, tc.want, tc.wantExact)
			}
			if el > 2*time.Second {
				t.Errorf("took %v", el)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
				t.Errorf("allocated %d MiB", alloc>>20)
			}
		})
	}
}

// TestDistanceContextStops: an exact computation within unlimited limits
// stops promptly once its context ends.
func TestDistanceContextStops(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	a, b := randomTree(r, 1500, 4), randomTree(r, 1500, 4)
	c, _ := NewCalculator(DefaultCosts())
	c.MaxCells, c.MaxWork = -1, -1
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	_, err := c.DistanceContext(ctx, a, b)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if el := time.Since(start); el > 100*time.Millisecond {
		t.Errorf("took %v after cancellation", el)
	}
}

func BenchmarkDistanceLargeLists(b *testing.B) {
	x, y := list(100_000), list(100_000, "x")
	c, _ := NewCalculator(DefaultCosts())
	b.ReportAllocs()
	for b.Loop() {
		c.Distance(x, y)
	}
}
