package exec_test

import (
	"context"
	"testing"
)

// TestJSONBDeleteText runs jsonbDeleteCases on PostgreSQL: each value
// is PostgreSQL's exact text, and each query error one there too.
func TestJSONBDeleteText(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	ctx := context.Background()
	conn := pgConn(t, ctx, datetimeOneDDL+" INSERT INTO one VALUES (1, NULL, NULL, NULL);")
	for _, tc := range jsonbDeleteCases {
		if tc.want == cannot_ {
			continue
		}
		if got := pgOne(ctx, t, conn, tc.expr); got != tc.want {
			t.Errorf("PostgreSQL: %s = %s, the case says %s", tc.expr, got, tc.want)
		}
	}
}
