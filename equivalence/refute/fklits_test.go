package refute

import (
	"context"
	"testing"

	"github.com/pgequiv/pgequiv/planner/catalog"
)

// TestLiteralsFollowForeignKeys: a literal compared with a foreign-key
// column reaches the referenced column's pool, through a chain, so that
// rows whose key values come from their parents can still match it.
func TestLiteralsFollowForeignKeys(t *testing.T) {
	s, err := catalog.LoadDDL(`
CREATE TABLE warehouse (w_id integer PRIMARY KEY);
CREATE TABLE district (d_w_id integer NOT NULL REFERENCES warehouse (w_id), d_id integer NOT NULL, PRIMARY KEY (d_w_id, d_id));
CREATE TABLE customer (c_w_id integer NOT NULL, c_d_id integer NOT NULL, c_id integer NOT NULL, PRIMARY KEY (c_w_id, c_d_id, c_id),
  FOREIGN KEY (c_w_id, c_d_id) REFERENCES district (d_w_id, d_id));`, catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	ref := mustPlan(t, s, "SELECT c_id FROM customer WHERE c_w_id = 987 AND c_d_id = 654")
	cand := mustPlan(t, s, "SELECT c_id FROM customer WHERE c_w_id = 988 AND c_d_id = 654")
	l := collectLiteralsFor(s.Dialect, ref, cand)
	l.alongForeignKeys(s)
	for _, k := range []colKey{{"warehouse", 0}, {"district", 0}, {"district", 1}} {
		if len(l.exact[k]) < 1 {
			t.Errorf("%v: no literals %v", k, l.byCol[k])
		}
	}
	res, err := Refute(context.Background(), s, ref, cand, testOpts())
	if err != nil {
		t.Fatal(err)
	}
	if !res.Found {
		t.Errorf("not refuted: %s", res.Reason)
	}
}
