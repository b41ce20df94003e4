package build_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/pgequiv/pgequiv/planner"
	"github.com/pgequiv/pgequiv/planner/build"
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

// TestEnumOrderingRefused: ordering values of an enum column is refused
// (its order is the declaration's, which nothing models); equality and
// ordering other columns are planned.
func TestEnumOrderingRefused(t *testing.T) {
	s, err := catalog.LoadDDL(`CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy');
CREATE TABLE e (id int PRIMARY KEY, feel mood, note text);`, catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		sql     string
		refused bool
	}{
		{"SELECT id FROM e WHERE feel = 'ok'", false},
		{"SELECT feel, count(*) FROM e GROUP BY feel", false},
		{"SELECT id FROM e WHERE feel = 'ok' ORDER BY id", false},
		{"SELECT DISTINCT feel FROM e", false},
		{"SELECT id FROM e WHERE feel < 'ok'", true},
		{"SELECT id FROM e ORDER BY feel", true},
		{"SELECT max(feel) FROM e", true},
		{"SELECT id FROM e WHERE feel BETWEEN 'sad' AND 'ok'", true},
		{"SELECT f FROM (SELECT feel AS f FROM e) s ORDER BY f", true},
		{"SELECT id FROM e WHERE id IN (SELECT id FROM e x WHERE x.feel > 'sad')", true},
		{"SELECT row_number() OVER (ORDER BY feel) FROM e", true},
		// An aggregate's FILTER orders nothing (issue 35: Django's
		// Max('total', filter=Q(state='shipped')) was refused).
		{"SELECT max(id) FILTER (WHERE feel = 'ok') FROM e", false},
		{"SELECT m FROM (SELECT max(id) FILTER (WHERE feel = 'ok') AS m FROM e) s ORDER BY m", false},
		{"SELECT max(feel) FILTER (WHERE id > 1) FROM e", true},
		{"SELECT count(*) FILTER (WHERE feel > 'ok') FROM e", true},
		{"SELECT m FROM (SELECT min(feel) AS m FROM e) s ORDER BY m", true},
	} {
		_, err := planner.Plan(context.Background(), s, tc.sql, planner.Options{})
		if refused := errors.Is(err, build.ErrUnsupported); refused != tc.refused || (err != nil && !refused) {
			t.Errorf("%s: %v, want refused %v", tc.sql, err, tc.refused)
		}
	}
}
