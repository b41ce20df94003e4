package judging

import (
	"strings"
	"testing"

	"github.com/pgequiv/pgequiv/proxy/tag"
)

// TestBypassMatchCatalog (issue 34, item 6): a match: catalog entry holds
// its query to the entry's reference whatever the client says. The
// entry's query (age > 2, not equivalent to the reference's age > 5) is
// refused when tagged with itself, under a session reference naming
// itself, padded past max_query_size, and wrapped in PREPARE, EXPLAIN
// ANALYZE, DECLARE or COPY (judged on the query they run) or in a CTE,
// a subquery or a UNION arm (refused: the entry's query inside a larger
// statement). The entry's query with the reference's constant runs, and
// so does a query the entry does not match.
func TestBypassMatchCatalog(t *testing.T) {
	cat, err := tag.ParseCatalog([]byte(`
references:
  - id: old-dogs
    match: SELECT count(*) FROM dogs WHERE age > 2
    reference: SELECT count(*) FROM dogs WHERE age > 5
`))
	if err != nil {
		t.Fatal(err)
	}
	set := bypassSettings(t)
	set.Catalog = cat
	set.Options.MaxQueryBytes = 2048
	match := "SELECT count(*) FROM dogs WHERE age > 2"
	pad := "/*" + strings.Repeat("x", 3000) + "*/ "
	notEq := func(name, sql string, setup ...string) enforceCase {
		return enforceCase{name: name, setup: setup, sql: sql, code: SQLStateNotEquivalent, msg: "not_equivalent", twice: true}
	}
	wrapped := func(name, sql string) enforceCase {
		return enforceCase{name: name, sql: sql, code: SQLStateUnverified, msg: "inside a larger statement"}
	}
	runEnforceCases(t, set, []enforceCase{
		notEq("the entry's query", match),
		notEq("tagged with itself", match+" "+tagRef(match)),
		notEq("session reference naming itself", match, "SET pgequiv.reference = '"+match+"'"),
		{name: "padded past max_query_size", sql: match + " " + pad, code: SQLStateUnverified, msg: "too large to fingerprint"},
		{name: "padded and tagged with itself", sql: match + " " + pad + tagRef(match), code: SQLStateUnverified, msg: "too large to fingerprint"},
		{name: "PREPARE", sql: "PREPARE bm AS " + match, code: SQLStateNotEquivalent, msg: "not_equivalent",
			probe: "EXECUTE bm", probeCode: "26000", probeMsg: "does not exist"},
		notEq("EXPLAIN ANALYZE", "EXPLAIN ANALYZE "+match),
		notEq("DECLARE", "BEGIN; DECLARE c CURSOR FOR "+match+"; FETCH c; COMMIT"),
		notEq("COPY TO STDOUT", "COPY ("+match+") TO STDOUT"),
		wrapped("CTE", "WITH x AS ("+match+") SELECT * FROM x"),
		wrapped("subquery", "SELECT ("+match+") AS n"),
		wrapped("UNION arm", match+" UNION ALL SELECT 0"),
		// What runs.
		{name: "the entry's query with the reference's constant", sql: "SELECT count(*) FROM dogs WHERE age > 5", twice: true},
		{name: "a query the entry does not match", sql: "SELECT count(*) FROM owners"},
	})
}
