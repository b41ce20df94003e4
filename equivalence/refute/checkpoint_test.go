package refute

import (
	"context"
	"testing"
)

// TestCheckpoint: the checkpoint is asked once, after the first databases
// of the typical tier agreed; true stops the search there without a
// counterexample, false lets it go on to the end; a pair that differs on
// the first databases never reaches it.
func TestCheckpoint(t *testing.T) {
	s := exampleSchema(t)
	same := [2]string{"SELECT name FROM dogs WHERE age > 3", "SELECT name FROM dogs WHERE 3 < age"}
	nullOnly := [2]string{"SELECT COUNT(age) FROM dogs", "SELECT COUNT(*) FROM dogs"}
	differ := [2]string{"SELECT COUNT(*) FROM dogs", "SELECT COUNT(*) + 1 FROM dogs"}
	cases := []struct {
		name      string
		pair      [2]string
		stop      bool
		wantCalls int
		wantFound bool
		wantStop  bool
	}{
		{"stops an agreeing search", same, true, 1, false, true},
		{"goes on when told", same, false, 1, false, false},
		{"goes on to a difference beyond the typical tier", nullOnly, false, 1, true, false},
		{"stops before the difference beyond it", nullOnly, true, 1, false, true},
		{"never asked when the first databases differ", differ, true, 0, true, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			calls := 0
			o := testOpts()
			o.CheckpointAfter = 8
			var res Result
			o.Checkpoint = func() bool {
				calls++
				return c.stop
			}
			var err error
			res, err = Refute(context.Background(), s, mustPlan(t, s, c.pair[0]), mustPlan(t, s, c.pair[1]), o)
			if err != nil {
				t.Fatal(err)
			}
			if calls != c.wantCalls || res.Found != c.wantFound || res.Stopped != c.wantStop {
				t.Fatalf("calls %d found %v stopped %v; want %d %v %v (%s)", calls, res.Found, res.Stopped, c.wantCalls, c.wantFound, c.wantStop, res.Reason)
			}
			if c.wantStop && res.Instances > o.CheckpointAfter {
				t.Fatalf("stopped after %d databases; the checkpoint comes after %d", res.Instances, o.CheckpointAfter)
			}
			if !c.wantStop && !c.wantFound && res.Instances < o.MaxInstances/2 {
				t.Fatalf("went on over only %d databases", res.Instances)
			}
		})
	}
}
