package prove_test

// pgRuleDataOJ are the rows TestRuleFilesOnPostgres loads for the rules
// of issue 35's items 2 and 4 (constants fixed by equalities, outer joins
// simplified): rows with and without partners, NULLs and duplicates.
var pgRuleDataOJ = map[string][]string{
	"left-join-hoist": {
		"INSERT INTO medium VALUES (1, 10), (2, 10), (3, 20), (4, NULL), (1, 10)",
		"INSERT INTO large VALUES (1, 10), (1, 30), (3, 20), (NULL, 10)",
		"INSERT INTO small VALUES (1, 10), (7, 20), (2, 30), (4, NULL), (1, 10)",
	},
	"not-null-rejected-above": {
		"INSERT INTO a VALUES (1, 1, 1.5, 'a', NULL), (2, NULL, NULL, NULL, NULL), (3, 2, 0, 'c', NULL), (4, 4, 0, 'd', NULL)",
		"INSERT INTO xyz VALUES (1, 1, 5), (2, NULL, 6), (3, 2, NULL), (4, 3, 7), (5, NULL, NULL)",
	},
	"agg-null-rows-dropped": {
		"INSERT INTO a VALUES (1, 1, 1.5, 'a', NULL), (2, NULL, NULL, NULL, NULL)",
		"INSERT INTO xy VALUES (1, 1), (2, NULL), (3, NULL), (4, 1), (5, 2), (6, NULL), (9, NULL), (12, NULL)",
	},
	"is-true-conjunct": {
		"INSERT INTO a VALUES (1, 1, 1.5, 'a', NULL), (2, NULL, NULL, NULL, NULL), (3, 12, 20, 'c', NULL), (4, 11, 0, 'd', NULL)",
		"INSERT INTO b VALUES (3, 12), (4, NULL), (5, 11), (6, 2)",
	},
	"agg-left-join-inner": {
		"INSERT INTO title VALUES (1, 'a', 2001), (2, 'b', 2005), (3, 'c', 1999), (4, 'd', 2010), (5, NULL, 2005)",
		"INSERT INTO movie_info VALUES (1, 2, 'm', 'n1'), (2, 2, 'c', NULL), (3, 3, 'z', 'x'), (4, 5, NULL, 'y'), (5, NULL, 'q', 'q')",
		"INSERT INTO kind_type VALUES (2001, 'movie'), (2005, 'tv'), (2010, 'x')",
	},
	"agg-constant-call": {
		"INSERT INTO abcd VALUES (1, 1, 1, 1, 1), (2, 2, 1, 3, 2), (3, 3, 2, 1, 3), (4, 4, NULL, NULL, 4)",
	},
	"distinct-pinned-limit": {
		"INSERT INTO a VALUES (1, 1, 1.5, 'a'), (0, 1, NULL, NULL), (4, 3, 0, 'x'), (5, 3, 0, 'x'), (6, 2, 1, NULL)",
	},
	"group-on-equal-key": {
		"INSERT INTO a VALUES (1, 1, 1.5, 'foo'), (2, 2, NULL, 'foo'), (3, 2, 0, 'c'), (4, 2, 0, 'foo'), (5, NULL, 1, NULL), (6, 6, 2, 'x'), (7, 9, 1, 'y'), (8, 9, 1, 'z')",
	},
	"left-join-project-pull": {
		"INSERT INTO r VALUES (1, 1, 'p'), (2, NULL, 'n'), (3, 3, NULL), (4, 4, 'x')",
		"INSERT INTO s VALUES (1, 5, 'a'), (2, -1, NULL), (5, NULL, 'c'), (6, 2, 'd')",
	},
	"agg-left-join-unread": {
		"INSERT INTO r VALUES (1, 1, 'p'), (2, NULL, 'n'), (3, 3, 'p'), (4, 4, 'x')",
		"INSERT INTO s VALUES (1, 1, 'a'), (2, 1, NULL), (3, 3, 'z'), (6, 2, 'd')",
	},
	"limit-above-row-bound": {
		"INSERT INTO ab VALUES (1, 1), (2, NULL), (3, 3), (4, 4), (5, 5), (6, 6), (7, 7)",
		"INSERT INTO uv VALUES (1, 1), (2, 1), (3, 2), (6, 3)",
	},
	"limit-past-left-join": {
		"INSERT INTO ab VALUES (1, 1), (2, NULL), (3, 3), (4, 4), (5, 7)",
		"INSERT INTO uv VALUES (1, 1), (2, 1), (3, 9), (4, 0), (7, 2)",
	},
	"scalar-values-column": {
		"INSERT INTO a VALUES (9223372036854775807, 1, 1.5, 'x', NULL), (1, 2, NULL, NULL, NULL), (2, NULL, 0, 'z', NULL)",
	},
	"left-join-swap": {
		"INSERT INTO r VALUES (1, 1, 'p'), (2, NULL, 'n'), (3, 3, 'p'), (4, 4, NULL)",
		"INSERT INTO s VALUES (1, 5, 'a'), (2, 3, NULL), (3, 3, 'z'), (6, 2, 'd')",
		"INSERT INTO w VALUES (1, 1, 'p'), (2, 1, 'n'), (3, 3, 'p'), (4, 2, NULL), (5, NULL, 'q')",
	},
}

func init() {
	for name, rows := range pgRuleDataOJ {
		pgRuleData[name] = rows
	}
}
