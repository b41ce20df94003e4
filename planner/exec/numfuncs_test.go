package exec_test

import (
	"context"
	"testing"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/exec"
)

// numFuncCases are numeric function calls over the one-row table "one"
// (its columns NULL) with PostgreSQL's results; TestNumFuncsText checks
// the texts against a real server.
var numFuncCases = []struct{ expr, want string }{
	{"div(1.333, 1.0)", "1"},
	{"div(7, 2)", "3"},
	{"div(-7, 2)", "-3"},
	{"div(-1, 3)", "0"},
	{"div(9.99, -0.5)", "-19"},
	{"div(10, 0.5)", "20"},
	{"div(123456789012345678901234567890, 7)", "17636684144620811271604938270"},
	{"div(1, 0)", queryError},
	{"div(1.5, 0.0)", queryError},
	{"div(n, 2)", "NULL"},
	{"div(n, 0)", "NULL"},
}

// TestNumFuncs evaluates numFuncCases with the executor.
func TestNumFuncs(t *testing.T) {
	ctx := context.Background()
	s, err := catalog.LoadDDL(datetimeOneDDL, catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	db := exec.Database{"one": {{exec.Int(1), exec.Null, exec.Null, exec.Null}}}
	for _, tc := range numFuncCases {
		if got := evalOne(ctx, t, s, db, tc.expr); got != tc.want {
			t.Errorf("%s = %s, want %s", tc.expr, got, tc.want)
		}
	}
}
