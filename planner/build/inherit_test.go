package build_test

import (
	"context"
	"strings"
	"testing"

	"github.com/pgequiv/pgequiv/planner"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

func TestInheritanceExpansion(t *testing.T) {
	s, err := catalog.LoadDDL(`
CREATE TABLE parent (id int PRIMARY KEY, a text);
CREATE TABLE child (b int) INHERITS (parent);
CREATE TABLE grandchild (c int) INHERITS (child);
CREATE TABLE m (k int NOT NULL, v int) PARTITION BY RANGE (k);
CREATE TABLE m1 PARTITION OF m FOR VALUES FROM (0) TO (10);
CREATE TABLE m2 PARTITION OF m FOR VALUES FROM (10) TO (20);
CREATE TABLE lone (x int);`, catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		sql    string
		scans  []string
		hasSet bool
	}{
		{"SELECT id FROM parent", []string{"parent", "child", "grandchild"}, true},
		{"SELECT id FROM ONLY parent", []string{"parent"}, false},
		{"SELECT id FROM child", []string{"child", "grandchild"}, true},
		{"SELECT k FROM m", []string{"m1", "m2"}, true},
		{"SELECT k FROM ONLY m", []string{"m"}, false},
		{"SELECT x FROM lone", []string{"lone"}, false},
	}
	for _, tc := range tests {
		p, err := planner.Plan(context.Background(), s, tc.sql, planner.Options{})
		if err != nil {
			t.Fatalf("%s: %v", tc.sql, err)
		}
		var got []string
		for _, in := range p.Meta.Instances {
			got = append(got, in.Table.Name)
		}
		if strings.Join(got, ",") != strings.Join(tc.scans, ",") {
			t.Errorf("%s: scans %v, want %v", tc.sql, got, tc.scans)
		}
		if has := strings.Contains(p.Explain(), "union"); has != tc.hasSet {
			t.Errorf("%s: union %v, want %v\n%s", tc.sql, has, tc.hasSet, p.Explain())
		}
	}
}
