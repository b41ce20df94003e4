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
}

func init() {
	for name, rows := range pgRuleDataOJ {
		pgRuleData[name] = rows
	}
}
