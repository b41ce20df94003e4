package catalog

import (
	"strconv"
	"strings"
)

// EqDomain describes what = compares on the values of one column or
// expression, as far as the schema says: enough to decide whether two
// values equal under = are the same value (see IdentityEqual).
type EqDomain struct {
	Type Type
	// Base is the declared type's name without its modifier, lower case
	// ("int4", "char", "numeric", "timestamptz"); "" when only the family
	// is known (a computed value).
	Base string
	// Mod is the char(n) width or the numeric scale; -1 when none or
	// unknown (an unconstrained numeric).
	Mod int
	// Collation is the declared collation ("" for the default) and
	// Nondeterministic says it makes = other than identity (Column's).
	Collation        string
	Nondeterministic bool
	// Mixed marks values of more than one declared type (a set
	// operation's column fed by differently declared columns).
	Mixed bool
}

// ColumnDomainIn is c's EqDomain in a table of dialect d. SQLite
// stores by affinity: INTEGER and NUMERIC columns hold an integral value
// as an integer and any other number as a REAL, alike whatever the
// declared precision or scale, so both read as integers here (a number
// one of them holds prints the same from the other); char(n) is not
// padded, so it is text.
func ColumnDomainIn(c *Column, d Dialect) EqDomain {
	dom := ColumnDomain(c)
	if d != SQLite {
		return dom
	}
	if dom.Collation == "binary" {
		dom.Collation = "" // SQLite's default
	}
	switch {
	case dom.Type == Int || dom.Type == Numeric:
		dom.Type, dom.Base, dom.Mod = Int, "int", -1
	case dom.Base == "char":
		dom.Base, dom.Mod = "text", -1
	}
	return dom
}

// ColumnDomain is c's EqDomain under PostgreSQL's types.
func ColumnDomain(c *Column) EqDomain {
	d := EqDomain{Type: c.Type, Mod: -1, Collation: strings.ToLower(strings.Trim(strings.TrimSpace(c.Collation), `"`)), Nondeterministic: c.LooseCollation()}
	if d.Collation == "default" {
		d.Collation = ""
	}
	base, args, hasArgs := strings.Cut(strings.ToLower(strings.TrimSpace(c.TypeSQL)), "(")
	base = strings.Join(strings.Fields(base), " ")
	if i := strings.Index(base, " collate"); i >= 0 {
		// A type spelled with its COLLATE clause: = follows a collation
		// nothing else here models.
		base, d.Nondeterministic = base[:i], true
	}
	switch base {
	case "character", "bpchar", "nchar":
		base = "char"
	case "character varying", "nvarchar":
		base = "varchar"
	case "decimal":
		base = "numeric"
	case "timestamp with time zone":
		base = "timestamptz"
	case "timestamp without time zone":
		base = "timestamp"
	case "time with time zone":
		base = "timetz"
	case "time without time zone":
		base = "time"
	}
	d.Base = base
	switch base {
	case "char":
		d.Mod = 1 // char without a width is char(1)
		if hasArgs {
			d.Mod = typmodArg(args, 0)
		}
	case "numeric":
		if hasArgs {
			d.Mod = 0 // numeric(p) is numeric(p,0)
			if s := typmodArg(args, 1); s >= 0 {
				d.Mod = s
			} else if typmodArg(args, 0) < 0 {
				d.Mod = -1
			}
		}
	}
	return d
}

// typmodArg is the i-th integer between a type's parentheses (args is
// the text after "("), -1 when absent or not an integer.
func typmodArg(args string, i int) int {
	parts := strings.Split(strings.TrimSuffix(strings.TrimSpace(args), ")"), ",")
	if i >= len(parts) {
		return -1
	}
	n, err := strconv.Atoi(strings.TrimSpace(parts[i]))
	if err != nil || n < 0 {
		return -1
	}
	return n
}

// LooseCollation says c's collation makes = something other than
// identity: Nondeterministic, or one of SQLite's NOCASE and RTRIM named
// in Collation (which SQLite's loader may leave unflagged).
func (c *Column) LooseCollation() bool {
	if c.Nondeterministic {
		return true
	}
	switch strings.ToLower(strings.Trim(c.Collation, `"`)) {
	case "nocase", "rtrim":
		return true
	}
	return false
}

// IdentityEqual says = between values of domains a and b is identity:
// two values it calls equal are indistinguishable by every operator
// (they print alike, cast alike, compute alike). Only then may a rule
// substitute one for the other (a join column for its partner, a column
// for the literal it was equated with), merge them into one class, or
// call two equalities with unequal constants a contradiction.
//
// It holds for integers, booleans, dates, uuids and byte strings of any
// declaration; for text, varchar and name under one deterministic
// collation on both sides (what reads the value next compares under its
// column's collation); for char(n) against char(n) of the same n (both
// padded to n); for numeric(p,s) against numeric of the same declared
// scale; for
// timestamps and times of one declared kind. It fails across families
// (1 = 1.0 holds between an int and a numeric that print differently;
// SQLite compares text with numbers), under a nondeterministic collation
// (NOCASE: 'abc' = 'ABC'), for char(n) against another width or text
// ('ab ' = 'ab   '), unconstrained numeric (1.0 = 1.00), floating point
// (-0 = 0), intervals ('1 month' = '30 days', yet date + iv differs),
// json, timestamp against timestamptz, and whatever is not known.
func IdentityEqual(a, b EqDomain) bool {
	if a.Mixed || b.Mixed || a.Nondeterministic || b.Nondeterministic || a.Type != b.Type {
		return false
	}
	switch a.Type {
	case Int, Bool, Date, UUID, Bytes:
		return true
	case Text:
		if !strings.EqualFold(a.Collation, b.Collation) {
			// Equal values, but what orders or compares them next
			// follows the column's collation: one may not stand for the
			// other.
			return false
		}
		ca, cb := a.Base == "char", b.Base == "char"
		switch {
		case ca || cb:
			return ca && cb && a.Mod > 0 && a.Mod == b.Mod
		case a.Base == "citext" || b.Base == "citext":
			return false
		}
		return true
	case Numeric:
		return a.Mod >= 0 && a.Mod == b.Mod
	case Timestamp, Time:
		return a.Base != "" && a.Base == b.Base
	}
	return false
}

// LiteralDomain is the EqDomain of a literal of family t whose text is
// v: a numeric literal has the scale it is written with.
func LiteralDomain(t Type, v string) EqDomain {
	d := EqDomain{Type: t, Mod: -1}
	switch t {
	case Numeric:
		d.Base = "numeric"
		v = strings.TrimSpace(v)
		if strings.ContainsAny(v, "eE") {
			return d
		}
		if i := strings.IndexByte(v, '.'); i >= 0 {
			d.Mod = len(v) - i - 1
		} else {
			d.Mod = 0
		}
	case Text:
		d.Base = "text"
	}
	return d
}
