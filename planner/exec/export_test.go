package exec

// AREMatch exposes the regular expression match to the fuzzed
// differential test (regex_pg_test.go).
var AREMatch = areMatch

// RegexpReplace and RegexSubstring expose the regular expression
// functions to the same test.
var (
	RegexpReplace  = pgRegexpReplace
	RegexSubstring = pgRegexSubstring
)
