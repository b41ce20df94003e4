package exec_test

import (
	"context"
	"testing"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/exec"
)

// jsonbDeleteCases are jsonb - integer over the one-row
// table "one" (its columns NULL) with PostgreSQL's results;
// TestJSONBDeleteText checks them against a real server.
var jsonbDeleteCases = []struct{ expr, want string }{
	{`'[123]'::jsonb - 0`, `[]`},
	{`'[1, 2, 3]'::jsonb - 1`, `[1, 3]`},
	{`'[1, 2, 3]'::jsonb - -1`, `[1, 2]`},
	{`'[1, 2, 3]'::jsonb - 3`, `[1, 2, 3]`},
	{`'[1, 2, 3]'::jsonb - -4`, `[1, 2, 3]`},
	{`'[]'::jsonb - 0`, `[]`},
	{`'{"a": 1}'::jsonb - 0`, queryError},
	{`'5'::jsonb - 0`, queryError},
	{`'[1, 2]'::jsonb - n`, "NULL"},
	{`'[1, 2]'::jsonb - 2147483647`, `[1, 2]`},
	// jsonb - text is not modelled (its operand is an unknown literal).
	{`'{"b": 1, "a": 2}'::jsonb - 'a'`, cannot_},
}

// TestJSONBDelete evaluates jsonbDeleteCases with the executor.
func TestJSONBDelete(t *testing.T) {
	ctx := context.Background()
	s, err := catalog.LoadDDL(datetimeOneDDL, catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	db := exec.Database{"one": {{exec.Int(1), exec.Null, exec.Null, exec.Null}}}
	for _, tc := range jsonbDeleteCases {
		if got := evalOne(ctx, t, s, db, tc.expr); got != tc.want {
			t.Errorf("%s = %s, want %s", tc.expr, got, tc.want)
		}
	}
}
