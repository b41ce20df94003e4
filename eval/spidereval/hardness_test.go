package spidereval

import "testing"

// The levels are those Spider's dev.json gold queries get from
// evaluation.py (the first eight are dev queries of concert_singer and
// pets_1 as published), plus cases for each quirk kept.
func TestHardness(t *testing.T) {
	for _, tc := range []struct{ sql, want string }{
		{"SELECT count(*) FROM singer", Easy},
		{"SELECT name ,  country ,  age FROM singer ORDER BY age DESC", Med},
		{"SELECT avg(age) ,  min(age) ,  max(age) FROM singer WHERE country  =  'France'", Med},
		{"SELECT song_name ,  song_release_year FROM singer ORDER BY age LIMIT 1", Med},
		{"SELECT name FROM stadium WHERE stadium_id NOT IN (SELECT stadium_id FROM concert)", Hard},
		{"SELECT country FROM singer WHERE age  >  40 INTERSECT SELECT country FROM singer WHERE age  <  30", Hard},
		{"SELECT T2.name ,  T2.capacity FROM concert AS T1 JOIN stadium AS T2 ON T1.stadium_id  =  T2.stadium_id WHERE T1.year  >=  2014 GROUP BY T2.stadium_id ORDER BY count(*) DESC LIMIT 1", Extra},
		{"SELECT count(*) FROM pets WHERE weight  >  10", Easy},
		// A JOIN without ON (SQLite's cross join) is one more table, as
		// Spider's parser reads it, not a parse error.
		{"SELECT T1.a FROM t1 AS T1 JOIN t2 AS T2 WHERE T2.b = 'x'", Med},
		// Three tables (two joins), WHERE and GROUP BY: four components.
		{"SELECT count(*) FROM t1 JOIN t2 JOIN t3 ON t2.x = t3.x WHERE t1.a = 1 GROUP BY t1.b", Extra},
		// A FROM subquery is not nesting to Spider (get_nestedSQL reads
		// conditions and set operations only).
		{"SELECT a FROM t1 INNER JOIN (SELECT b FROM t2 JOIN t3) AS s", Easy},
		{"SELECT a FROM t1 LEFT JOIN t2 USING (id) JOIN t3 ON t3.x = t1.x", Med},
		// JOIN counts like a clause: two tables and a WHERE make medium.
		{"SELECT T1.a FROM t1 AS T1 JOIN t2 AS T2 ON T1.id = T2.id WHERE T2.b = 'x'", Med},
		// OR and LIKE count as components.
		{"SELECT a FROM t WHERE b LIKE '%x%' OR c = 1", Hard},
		// Backticks and == are SQLite spellings.
		{"SELECT `name` FROM `singer` WHERE age == 3", Easy},
		// Two subqueries in conditions are two nestings: extra.
		{"SELECT a FROM t WHERE b > (SELECT avg(b) FROM t) AND c IN (SELECT c FROM s)", Extra},
		// A NOT condition in WHERE counts as an aggregate (Spider's quirk):
		// with one aggregate in SELECT that makes two, one "other".
		{"SELECT count(*) FROM t WHERE a NOT LIKE 'x%'", Med},
		// A select unit's arithmetic on two aggregates counts once (its
		// aggregate slot); ORDER BY's counts both.
		{"SELECT max(a) - min(a) FROM t", Easy},
		{"SELECT a FROM t ORDER BY max(b) - min(b)", Med},
		// A subquery in FROM is a table unit, not a nesting.
		{"SELECT a FROM (SELECT a FROM t) AS s", Easy},
	} {
		got, err := Hardness(tc.sql)
		if err != nil || got != tc.want {
			t.Errorf("Hardness(%q) = %q, %v; want %q", tc.sql, got, err, tc.want)
		}
	}
	if _, err := Hardness("SELEC nothing"); err == nil {
		t.Error("Hardness of a query that does not parse: no error")
	}
}
