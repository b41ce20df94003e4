package exec

// AREMatch exposes the regular expression match to the fuzzed
// differential test (regex_pg_test.go).
var AREMatch = areMatch
