package refute

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/exec"
)

// fit adapts v to the column's declared width: char(n) values get exactly
// n characters (the executor does not model blank padding), varchar(n)
// values must fit, numeric(p,s) values must fit without rounding, and
// smallint/integer values their range. ok is false when v cannot be
// stored as is.
func fit(c catalog.Column, v exec.Value) (exec.Value, bool) {
	return fitTo(c.Type, specOf(c), v)
}

// typeSpec is a declared type as fit reads it: base name (in its own
// case) and arguments.
type typeSpec struct {
	base    string
	p, s    int
	hasArgs bool
	// ts says, for a postgres timestamp column, whether it holds local
	// timestamps (tsLocal) or instants (tsInstant); tsAny where the
	// dialect is not known (see specIn) or a SQLite column, which holds
	// whatever it is given.
	ts int8
}

const (
	tsAny int8 = iota
	tsLocal
	tsInstant
)

// specIn is specOf for a column of a schema of dialect d.
func specIn(d catalog.Dialect, c catalog.Column) typeSpec {
	sp := specOf(c)
	if d == catalog.Postgres && c.Type == catalog.Timestamp {
		sp.ts = tsLocal
		if isTimestamptz(sp) {
			sp.ts = tsInstant
		}
	}
	return sp
}

// specOf reads c's declared type without lowering its case: fit runs
// for every generated and checked value, and a lowered copy was an
// allocation each time.
func specOf(c catalog.Column) typeSpec {
	base, args, hasArgs := strings.Cut(strings.TrimSpace(c.TypeSQL), "(")
	sp := typeSpec{base: strings.TrimSpace(base), hasArgs: hasArgs}
	if hasArgs {
		a, b, _ := strings.Cut(strings.TrimSuffix(strings.TrimSpace(args), ")"), ",")
		sp.p, _ = strconv.Atoi(strings.TrimSpace(a))
		sp.s, _ = strconv.Atoi(strings.TrimSpace(b))
	}
	return sp
}

// fitTo is fit for a column of type t declared as sp.
func fitTo(t catalog.Type, sp typeSpec, v exec.Value) (exec.Value, bool) {
	if v.IsNull() {
		return v, true
	}
	if sp.ts == tsInstant && v.K == exec.KText {
		out, err := exec.ParseTimestamptz(v.S)
		if err != nil {
			return exec.Null, false
		}
		v = out
	}
	if t == catalog.JSON {
		// Documents are built as jsonb values (pools, seeds): text
		// is no document.
		return v, v.K == exec.KJSON
	}
	if t == catalog.UUID {
		// A uuid is held as its canonical text: any other text (a
		// neighbour of a literal, another spelling) would compare
		// apart from the uuid PostgreSQL reads it as.
		if v.K != exec.KText || v.B || !exec.IsCanonicalUUID(v.S) {
			return exec.Null, false
		}
		return v, true
	}
	if v.K != kindOf(t) {
		out, err := exec.Parse(t, v.String())
		if err != nil {
			return exec.Null, false
		}
		v = out
	}
	base, p, s, hasArgs := sp.base, sp.p, sp.s, sp.hasArgs
	switch v.K {
	case exec.KTimestamp:
		// A timestamp with time zone column holds instants: a drawn
		// timestamp is read as UTC (what the INSERT's +00 says). A
		// timestamp column never holds an instant, whose local time
		// depends on the session's TimeZone.
		switch {
		case sp.ts == tsInstant:
			v.B = true
		case sp.ts == tsLocal && v.B:
			return exec.Null, false
		}
	case exec.KInt:
		lim := int64(1<<63 - 1)
		switch {
		case isAny(base, "smallint", "int2"):
			lim = 32767
		case isAny(base, "integer", "int", "int4", "serial"):
			lim = 1<<31 - 1
		}
		if v.I > lim || v.I < -lim-1 {
			return exec.Null, false
		}
	case exec.KText:
		if !hasArgs || p <= 0 {
			break
		}
		switch {
		case isAny(base, "char", "character", "bpchar", "nchar"):
			// At most n characters, the last not a blank: the executor
			// pads (see bpchar.go), and a value's own trailing blanks
			// would only repeat the padding.
			if utf8.RuneCountInString(v.S) <= p && !strings.HasSuffix(v.S, " ") {
				break
			}
			return exec.Null, false
		default:
			if len(v.S) > p {
				return exec.Null, false
			}
		}
	case exec.KFloat:
		// PostgreSQL's real (float4) holds single precision: 0.1 stored
		// there is 0.100000001490116, so r = 0.1 is false and
		// r = 0.1::real true. The executor models real values
		// (exec.Float4: rounded, compared in float8 beside anything but
		// another real), so a literal reaches the column rounded.
		// float4 is how the postgres DDL loader spells real; SQLite's
		// REAL is double precision. (The executor rounds a postgres
		// column spelled real as it reads it.)
		if isAny(base, "float4") {
			f := float32(v.F)
			if math.IsInf(float64(f), 0) && !math.IsInf(v.F, 0) {
				return exec.Null, false
			}
			v = exec.Float4(f)
		} else if v.IsFloat4() {
			v = exec.Float(v.F) // a double precision column holds it widened
		}
	case exec.KNumeric:
		if !hasArgs || p <= 0 {
			break
		}
		str := strings.TrimPrefix(v.String(), "-")
		ip, frac, _ := strings.Cut(str, ".")
		frac = strings.TrimRight(frac, "0")
		if len(frac) > s || len(strings.TrimLeft(ip, "0")) > p-s {
			return exec.Null, false
		}
	}
	return v, true
}

// isAny reports whether name, lowered, is one of names (lower-case
// ASCII): strings.ToLower(name) == n without building the lowered copy.
func isAny(name string, names ...string) bool {
	for _, n := range names {
		if len(name) != len(n) {
			continue
		}
		same := true
		for i := 0; i < len(n) && same; i++ {
			c := name[i]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			same = c == n[i]
		}
		if same {
			return true
		}
	}
	return false
}

// kindOf is the value kind a column of type t holds.
func kindOf(t catalog.Type) exec.Kind {
	switch t {
	case catalog.Int:
		return exec.KInt
	case catalog.Numeric:
		return exec.KNumeric
	case catalog.Float:
		return exec.KFloat
	case catalog.Text:
		return exec.KText
	case catalog.Bool:
		return exec.KBool
	case catalog.Date:
		return exec.KDate
	case catalog.Timestamp:
		return exec.KTimestamp
	case catalog.Interval:
		return exec.KInterval
	case catalog.UUID:
		return exec.KText
	case catalog.JSON:
		return exec.KJSON
	}
	return exec.KNull
}

// isTimestamptz says whether sp declares a timestamp with time zone.
func isTimestamptz(sp typeSpec) bool {
	return isAny(sp.base, "timestamptz", "timestamp with time zone")
}

// fitAll keeps the values that fit the column, padding text for
// char(n) so that literals still reach fixed-width columns.
func fitAll(d catalog.Dialect, c catalog.Column, vs []exec.Value) []exec.Value {
	sp := specIn(d, c)
	fit := func(c catalog.Column, v exec.Value) (exec.Value, bool) { return fitTo(c.Type, sp, v) }
	var out []exec.Value
	seen := map[string]bool{}
	add := func(f exec.Value) {
		if !seen[f.Key()+"|"+f.String()] {
			seen[f.Key()+"|"+f.String()] = true
			out = append(out, f)
		}
	}
	_, char := charWidthOf(c)
	for _, v := range vs {
		f, ok := fit(c, v)
		if !ok && v.K == exec.KText {
			f, ok = fit(c, exec.Text(padTo(c, v.S)))
		}
		if ok {
			add(f)
		}
		if char && v.K == exec.KText {
			// Also the full-width spelling: plans that fold a string
			// cast execute only on unpadded char(n) values.
			if f, ok := fit(c, exec.Text(padTo(c, v.S))); ok {
				add(f)
			}
		}
	}
	return out
}

func padTo(c catalog.Column, s string) string {
	t := strings.ToLower(c.TypeSQL)
	_, args, ok := strings.Cut(t, "(")
	if !ok {
		return s
	}
	n, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.Split(args, ",")[0], ")")))
	if err != nil || n <= 0 {
		return s
	}
	// No trailing blank (see bpchar.go): pad with x, also where cutting
	// to n characters leaves one at the end. The length is in characters,
	// as the engine counts it, and a cut never splits one (a split UTF-8
	// sequence is a value PostgreSQL refuses).
	r := []rune(strings.TrimRight(s, " "))
	if len(r) > n {
		r = []rune(strings.TrimRight(string(r[:n]), " "))
	}
	return string(r) + strings.Repeat("x", n-len(r))
}
