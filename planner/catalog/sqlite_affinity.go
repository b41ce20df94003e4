package catalog

import "strings"

// SQLiteTypeFromName maps a SQLite column's declared type to its family
// by SQLite's affinity rules (https://sqlite.org/datatype3.html, 3.1),
// tried in order on the whole declared name: it contains "INT" →
// INTEGER; else "CHAR", "CLOB" or "TEXT" → TEXT; else "BLOB", or no type
// → BLOB; else "REAL", "FLOA" or "DOUB" → REAL; else NUMERIC. So STRING
// is NUMERIC, FLOATING POINT and CHARINT are INTEGER. The affinity
// decides what a stored value becomes ('5' in a TEXT column stays text,
// in a NUMERIC one becomes 5), so a family of another affinity would
// have the executor store and compare values as SQLite does not.
//
// Within NUMERIC affinity, TypeFromName's finer family is kept where it
// is one of that affinity (DATE, DATETIME, BOOLEAN, DECIMAL); BLOB is
// Bytes when spelled so and Unknown (no type) otherwise.
func SQLiteTypeFromName(name string) Type {
	u := strings.ToUpper(name)
	has := func(subs ...string) bool {
		for _, s := range subs {
			if strings.Contains(u, s) {
				return true
			}
		}
		return false
	}
	switch {
	case has("INT"):
		return Int
	case has("CHAR", "CLOB", "TEXT"):
		return Text
	case has("BLOB"):
		return Bytes
	case strings.TrimSpace(u) == "":
		return Unknown
	case has("REAL", "FLOA", "DOUB"):
		return Float
	}
	switch t := TypeFromName(name); t {
	case Numeric, Bool, Date, Timestamp:
		return t
	}
	return Numeric
}
