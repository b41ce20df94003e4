package build

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/pgequiv/pgequiv/planner/catalog"
)

func cteChain(n int) string {
	var b strings.Builder
	b.WriteString("WITH c0 AS (SELECT dog_id, age FROM dogs)")
	for i := 1; i < n; i++ {
		fmt.Fprintf(&b, ", c%d AS (SELECT a.dog_id, b.age FROM c%d a JOIN c%d b ON a.dog_id = b.dog_id)", i, i-1, i-1)
	}
	fmt.Fprintf(&b, " SELECT dog_id FROM c%d", n-1)
	return b.String()
}

func inList(n int) string {
	items := make([]string, n)
	for i := range items {
		items[i] = fmt.Sprint(i)
	}
	return "SELECT dog_id FROM dogs WHERE age IN (" + strings.Join(items, ",") + ")"
}

func TestBuildLimits(t *testing.T) {
	pg := schema(t, catalog.Postgres)
	tests := []struct {
		name     string
		sql      string
		maxNodes int
		want     error  // nil: builds
		msg      string // part of the error text
	}{
		{"nul-byte", "SELECT dog_id FROM dogs\x00 WHERE junk", 0, ErrNULByte, "build: query contains a NUL byte at offset 23"},
		{"cte-fan-out-5", cteChain(5), 0, nil, ""},
		{"cte-fan-out-15", cteChain(15), 0, ErrTooLarge, "CTE and view expansions exceed"},
		{"cte-fan-out-unbounded-budget", cteChain(16), -1, ErrTooLarge, "CTE and view expansions exceed"},
		{"in-list-within-default", inList(10000), 0, nil, ""},
		{"in-list-over-budget", inList(1000), 500, ErrTooLarge, "IN list of 1000 items"},
		{"in-list-unbounded", inList(1000), -1, nil, ""},
		{"plan-over-budget", "SELECT a.name FROM dogs a, dogs b, dogs c", 20, ErrTooLarge, "plan exceeds 20 nodes"},
		{"text-over-budget", inList(1000), 50, ErrTooLarge, "bytes exceeds 50 nodes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t0 := time.Now()
			_, err := BuildContext(context.Background(), pg, tc.sql, Options{MaxNodes: tc.maxNodes})
			if d := time.Since(t0); d > 2*time.Second {
				t.Errorf("took %v", d)
			}
			switch {
			case tc.want == nil && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tc.want != nil && !errors.Is(err, tc.want):
				t.Fatalf("got %v, want %v", err, tc.want)
			case tc.want != nil && !strings.Contains(err.Error(), tc.msg):
				t.Errorf("error %q lacks %q", err, tc.msg)
			}
		})
	}
}

func TestBuildStopsAtDeadline(t *testing.T) {
	pg := schema(t, catalog.Postgres)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := BuildContext(ctx, pg, "SELECT 1", Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled context: got %v", err)
	}
	// Building a 200,000-item list takes far longer than 2ms.
	ctx, cancel = context.WithTimeout(context.Background(), 2*time.Millisecond)
	defer cancel()
	t0 := time.Now()
	_, err := BuildContext(ctx, pg, inList(200000), Options{})
	if d := time.Since(t0); d > time.Second {
		t.Errorf("stopped after %v", d)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("got %v, want DeadlineExceeded", err)
	}
}
