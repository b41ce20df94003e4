package pgcatalog

import (
	"context"
	"fmt"
	"testing"

	"github.com/pgequiv/pgequiv/planner/catalog"
)

// TestParamOIDs: the declared column type where a parameter sits beside
// a column, the planner's family elsewhere, text where nothing types it
// (an unused $n, a statement that does not plan). The column cases are
// PostgreSQL's answers (proxy/dbfree's TestTypedParameterDescription
// compares more with a real server).
func TestParamOIDs(t *testing.T) {
	s, err := catalog.LoadDDL(catalog.ExampleDDL()+"CREATE TABLE v (c varchar(10), t timestamptz, b bigint);", catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		sql  string
		n    int
		want string
	}{
		{"SELECT name FROM dogs WHERE dog_id = $1", 1, "[23]"},
		{"SELECT c FROM v WHERE c = $1 AND t > $2 AND b = $3", 3, "[25 1184 20]"},
		{"SELECT name FROM dogs WHERE coalesce(age, $1) > 2", 1, "[23]"},
		{"SELECT name FROM dogs WHERE age > $1::bigint", 1, "[20]"},
		{"SELECT name FROM dogs WHERE weight > $1::float8", 1, "[701]"},
		{"SELECT $1", 1, "[25]"},
		{"SELECT name FROM dogs WHERE dog_id = $2", 2, "[25 23]"},
		{"SELECT nosuch FROM dogs WHERE dog_id = $1", 1, "[25]"},
		{"SELECT name FROM dogs", 0, "[]"},
	} {
		if got := fmt.Sprint(ParamOIDs(context.Background(), s, tc.sql, tc.n)); got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.sql, got, tc.want)
		}
	}
}
