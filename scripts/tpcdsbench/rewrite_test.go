package main

import (
	"strings"
	"testing"
)

// TestVariants checks each rewrite and mutation on small queries, with
// the cases where it must leave the query alone.
func TestVariants(t *testing.T) {
	cases := []struct {
		name string
		sql  string
		kind string
		want string // the variant's SQL; "" when there must be none
	}{
		{"reorder from and where", "SELECT a.x FROM a, b WHERE a.x = b.y AND b.z = 1", "reorder",
			"SELECT a.x FROM b, a WHERE b.z = 1 AND a.x = b.y"},
		{"reorder in a subquery and a CTE", "WITH c AS (SELECT x FROM a, b WHERE p AND q) SELECT * FROM c WHERE x IN (SELECT y FROM d, e)", "reorder",
			"WITH c AS (SELECT x FROM b, a WHERE q AND p) SELECT * FROM c WHERE x IN (SELECT y FROM e, d)"},
		{"star keeps its FROM order", "SELECT * FROM a, b WHERE p AND q", "reorder",
			"SELECT * FROM a, b WHERE q AND p"},
		{"qualified star reorders", "SELECT a.* FROM a, b", "reorder", "SELECT a.* FROM b, a"},
		{"FROM only", "SELECT a.x FROM a, b WHERE p AND q", "reorder_from", "SELECT a.x FROM b, a WHERE p AND q"},
		{"WHERE only", "SELECT a.x FROM a, b WHERE p AND q", "reorder_where", "SELECT a.x FROM a, b WHERE q AND p"},
		{"no FROM-only pair when it is the whole reorder", "SELECT a.x FROM a, b WHERE p", "reorder_from", ""},
		{"a LEFT JOIN is not commuted", "SELECT 1 FROM a LEFT JOIN b ON a.x = b.x WHERE p", "reorder", ""},
		{"OR is not reordered", "SELECT 1 FROM a WHERE p OR q", "reorder", ""},
		{"cmp flip on a filter", "SELECT 1 FROM a, b WHERE a.x = b.x AND a.y >= 3", "cmp_flip",
			"SELECT 1 FROM a, b WHERE a.x = b.x AND a.y > 3"},
		{"no cmp flip on a join predicate only", "SELECT 1 FROM a, b WHERE a.x = b.x", "cmp_flip", ""},
		{"drop join predicate", "SELECT 1 FROM a, b WHERE a.y = 2 AND a.x = b.x", "drop_join_pred",
			"SELECT 1 FROM a, b WHERE a.y = 2"},
		{"no join predicate over one table", "SELECT 1 FROM a WHERE a.x = a.y AND p", "drop_join_pred", ""},
		{"sum to max", "SELECT sum(x), sum(y) FROM a", "sum_max", "SELECT max(x), sum(y) FROM a"},
		{"no sum", "SELECT count(x) FROM a", "sum_max", ""},
		{"constant change", "SELECT 1 FROM a WHERE a.y = 'z' AND a.x < 10", "const_change",
			"SELECT 1 FROM a WHERE a.y = 'z' AND a.x < 11"},
		{"no integer compared", "SELECT 10 FROM a WHERE a.y = 'z'", "const_change", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ref, vs, err := variants(c.sql)
			if err != nil {
				t.Fatal(err)
			}
			if vs[0].Kind != "identity" || vs[0].SQL != ref || !vs[0].Equivalent {
				t.Fatalf("first variant %+v, want the identity %q", vs[0], ref)
			}
			got := ""
			for _, v := range vs {
				if v.Kind == c.kind {
					got = v.SQL
					if v.Equivalent != strings.HasPrefix(c.kind, "reorder") {
						t.Errorf("%s: Equivalent %v", c.kind, v.Equivalent)
					}
				}
			}
			if got != c.want {
				t.Errorf("%s of %q:\n got %q\nwant %q", c.kind, c.sql, got, c.want)
			}
			if got != "" {
				if _, err := parseOne(got); err != nil {
					t.Errorf("the variant does not parse again: %v", err)
				}
			}
		})
	}
}

func TestVariantsRefusesTwoStatements(t *testing.T) {
	if _, _, err := variants("SELECT 1; SELECT 2"); err == nil || !strings.Contains(err.Error(), "2 statements") {
		t.Fatalf("err = %v, want a refusal of 2 statements", err)
	}
}
