package campaign

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// outcome is how two queries' results on one database compare.
type outcome int

const (
	same    outcome = iota
	skip            // nothing to compare: both queries failed
	display         // equal values, printed differently (1.0 and 1.00), or the same text in columns of other types
	differ
)

func (o outcome) String() string {
	return [...]string{"same", "skip", "display-only difference", "differ"}[o]
}

// maxRows bounds a result the oracle reads: a larger one (a cross join
// of cross joins) is treated as a query out of time.
const maxRows = 5000

var errTooManyRows = errors.New("result too large to compare")

// errDriverTime marks a SQLite result the driver (modernc.org/sqlite)
// delivered as time.Time: it parses the text of a column declared DATE,
// DATETIME or TIMESTAMP and keeps no trace of SQLite's own text, so the
// same stored value read through max() (no declared type) and read
// directly would compare apart. Such a result is not compared.
var errDriverTime = errors.New("the driver turned a DATE/DATETIME/TIMESTAMP column's text into a time")

// timedOut reports whether a query was stopped for time (a slow query
// tells nothing about equivalence).
func timedOut(err error) bool {
	if err == nil {
		return false
	}
	m := err.Error()
	return errors.Is(err, errTooManyRows) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) ||
		strings.Contains(m, "statement timeout") || strings.Contains(m, "interrupted") || strings.Contains(m, "context deadline")
}

// typesDiffer reports whether the result columns' types differ (0 and
// '0' print alike).
func typesDiffer(a, b result) bool {
	if len(a.types) != len(b.types) {
		return a.types != nil && b.types != nil
	}
	for i := range a.types {
		if a.types[i] != b.types[i] {
			return true
		}
	}
	return false
}

// compareResults compares ref and cand as the pair says: as multisets of
// rows, and, where the reference orders by all its output columns, in
// order up to ties (rows that sort alike may come in either order, and
// under a LIMIT the rows tied at the cut may be any of them). Values are
// compared as the engine printed them; where only the printing differs
// (equal numbers at another scale) the outcome is display.
func compareResults(p Pair, ref, cand result) (outcome, string) {
	switch {
	case timedOut(ref.err) || timedOut(cand.err):
		return skip, "a query ran out of time"
	case errors.Is(ref.err, errDriverTime) || errors.Is(cand.err, errDriverTime):
		return skip, errDriverTime.Error()
	case ref.err != nil && cand.err != nil:
		return skip, "both fail"
	case ref.err != nil:
		return differ, "the reference fails: " + firstLine(ref.err.Error())
	case cand.err != nil:
		return differ, "the candidate fails: " + firstLine(cand.err.Error())
	}
	if p.Modifies && ref.digest != cand.digest {
		return differ, fmt.Sprintf("the tables differ after the queries: %s vs %s", ref.digest, cand.digest)
	}
	if len(ref.rows) != len(cand.rows) {
		return differ, fmt.Sprintf("%d rows vs %d", len(ref.rows), len(cand.rows))
	}
	if len(ref.rows) > 0 && len(ref.rows[0]) != len(cand.rows[0]) {
		return differ, fmt.Sprintf("%d columns vs %d", len(ref.rows[0]), len(cand.rows[0]))
	}
	exact := func(row []cell) string { return rowKey(row, func(c cell) string { return c.exact }) }
	show := func(row []cell) string { return strings.ReplaceAll(exact(row), "\x00", ", ") }
	loose := func(row []cell) string { return rowKey(row, func(c cell) string { return c.loose }) }
	if p.Ordered {
		tie := func(row []cell) string { return rowKey(row, tieValue) }
		for i := range ref.rows {
			if tie(ref.rows[i]) != tie(cand.rows[i]) {
				return differ, fmt.Sprintf("row %d differs in order or value: (%s) vs (%s)", i+1, show(ref.rows[i]), show(cand.rows[i]))
			}
		}
		start := 0
		worst := same
		var why string
		for i := 1; i <= len(ref.rows); i++ {
			if i < len(ref.rows) && tie(ref.rows[i]) == tie(ref.rows[i-1]) {
				continue
			}
			if p.Limit && i == len(ref.rows) {
				// rows tied at the cut: each must be one of the tie
				// group's rows in the reference's whole result
				if ref.full != nil && ref.full.err == nil {
					avail, availLoose := map[string]int{}, map[string]int{}
					for _, row := range ref.full.rows {
						if tie(row) == tie(ref.rows[start]) {
							avail[exact(row)]++
							availLoose[loose(row)]++
						}
					}
					for _, row := range cand.rows[start:i] {
						switch {
						case avail[exact(row)] > 0:
						case availLoose[loose(row)] > 0:
							worst, why = display, fmt.Sprintf("row (%s) prints differently from the reference's rows that tie at the LIMIT", show(row))
						default:
							return differ, fmt.Sprintf("row (%s) is not among the reference's rows that tie at the LIMIT", show(row))
						}
						avail[exact(row)]--
						availLoose[loose(row)]--
					}
				}
			} else {
				switch {
				case bagsDiffer(ref.rows[start:i], cand.rows[start:i], exact) && bagsDiffer(ref.rows[start:i], cand.rows[start:i], loose):
					return differ, fmt.Sprintf("rows %d-%d differ", start+1, i)
				case bagsDiffer(ref.rows[start:i], cand.rows[start:i], exact):
					worst, why = display, fmt.Sprintf("rows %d-%d print differently", start+1, i)
				}
			}
			start = i
		}
		if worst == same && typesDiffer(ref, cand) {
			return display, "the same text in columns of other types"
		}
		return worst, why
	}
	if !bagsDiffer(ref.rows, cand.rows, exact) {
		if why, ok := orderDiffers(p, ref, cand); ok {
			return differ, why
		}
		if typesDiffer(ref, cand) {
			return display, fmt.Sprintf("the same text in columns of other types (%v vs %v)", ref.types, cand.types)
		}
		return same, ""
	}
	if !bagsDiffer(ref.rows, cand.rows, loose) {
		return display, "equal values printed differently: " + firstDiff(ref.rows, cand.rows, exact)
	}
	return differ, firstDiff(ref.rows, cand.rows, exact)
}

// trailingOrderBy matches the one-key ORDER BY internal/sqlgen ends a
// query with.
var trailingOrderBy = regexp.MustCompile(`(?i)\bORDER BY (\d+)( ASC| DESC)?( NULLS FIRST| NULLS LAST)?\s*$`)

// orderDiffers tells an order difference of a pair the generator did not
// order by every column (sqlgen's ORDER BY <one column>): where the
// reference's key holds no two values an ORDER BY could tie, its order is
// the only one it may return, and a candidate ordering its rows otherwise
// differs. With ties anywhere in the key the rows' order is the engine's
// choice, and the bags decide.
func orderDiffers(p Pair, ref, cand result) (string, bool) {
	m := trailingOrderBy.FindStringSubmatch(p.Reference)
	if m == nil || !trailingOrderBy.MatchString(p.Candidate) {
		return "", false
	}
	k, err := strconv.Atoi(m[1])
	if err != nil || k < 1 || len(ref.rows) == 0 || k > len(ref.rows[0]) {
		return "", false
	}
	seen := map[string]bool{}
	for _, row := range ref.rows {
		v := tieValue(row[k-1])
		if seen[v] {
			// A tie: equal values, two NULLs (which sort together), or
			// a NULL and the text 'null', which print alike.
			return "", false
		}
		seen[v] = true
	}
	for i := range ref.rows {
		if rowKey(ref.rows[i], tieValue) != rowKey(cand.rows[i], tieValue) {
			return fmt.Sprintf("row %d differs in order: the reference orders by column %d, which holds no ties", i+1, k), true
		}
	}
	return "", false
}

// tieValue is a value as an ORDER BY may tie it with another: by value,
// without case or trailing blanks (a nondeterministic or NOCASE/RTRIM
// collation sorts those alike).
func tieValue(c cell) string {
	return strings.TrimRight(strings.ToLower(c.loose), " ")
}

func rowKey(row []cell, f func(cell) string) string {
	parts := make([]string, len(row))
	for i, c := range row {
		parts[i] = f(c)
	}
	return strings.Join(parts, "\x00")
}

func bagsDiffer(a, b [][]cell, key func([]cell) string) bool {
	count := map[string]int{}
	for _, r := range a {
		count[key(r)]++
	}
	for _, r := range b {
		k := key(r)
		if count[k] == 0 {
			return true
		}
		count[k]--
	}
	return false
}

// firstDiff names a row one result has more often than the other.
func firstDiff(a, b [][]cell, key func([]cell) string) string {
	count := map[string]int{}
	for _, r := range a {
		count[key(r)]++
	}
	for _, r := range b {
		count[key(r)]--
	}
	for k, n := range count {
		k = strings.ReplaceAll(k, "\x00", ", ")
		if n > 0 {
			return "only the reference returns (" + k + ")"
		}
		if n < 0 {
			return "only the candidate returns (" + k + ")"
		}
	}
	return ""
}
