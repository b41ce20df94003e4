package prove_test

// The rows TestRuleFilesOnPostgres loads for subquery-same-value: dogs
// of two owners, the oldest all of one owner and none the heaviest, and
// treats for some dogs only, so that each near miss's two queries return
// different rows.
func init() {
	pgRuleData["subquery-same-value"] = []string{
		"INSERT INTO owners VALUES (1, 'ca', 'ann'), (2, 'ny', 'bob')",
		"INSERT INTO dogs VALUES (1, 1, 'rex', 5, 1.5), (2, 2, 'max', 3, 2.5), (3, 1, 'fido', 5, 0.5), (4, 2, 'spot', 1, 9.5)",
		"INSERT INTO treats VALUES (1, 1, 2.50), (2, 3, 4.00), (3, 3, 1.25), (4, 2, 7.00)",
	}
}
