package exec

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/pgequiv/pgequiv/planner/catalog"
)

// Typed literals spelled apart (issue 33, item 4). PostgreSQL reads a
// quoted literal compared with or cast to a typed value through the
// type's input function, which accepts many spellings of one value:
// '2020-1-1', '20200101', 'Jan 1, 2020' and 'epoch'-like words for dates,
// '1:2' for times, uuids in either case with or without dashes, bytea in
// escape or hex form, '[1,2]' for the int4range '[1,3)', '10.0.0.1/32'
// for the inet '10.0.0.1'. CanonicalLiteral reads the spellings it is
// sure of and writes the value the way PostgreSQL outputs it, so that
// equal values are equal texts; a spelling it does not read stays as
// written, and the planner and prover then decide nothing on its text.
//
//	type                 read                                       written
//	date                 Y-M-D (month, day of 1 or 2 digits),       YYYY-MM-DD
//	                     YYYYMMDD, 'epoch', Mon D[,] YYYY,
//	                     D Mon YYYY (English month names)
//	timestamp            a date as above, then [ T]H:M[:S[.f]]      YYYY-MM-DD HH:MM:SS[.f]
//	                     (no time zone, no 'epoch': a timestamptz
//	                     would read them against the session's zone)
//	time                 H:M[:S[.f]], no time zone                  HH:MM:SS[.f]
//	uuid                 32 hex digits, either case, a dash after   8-4-4-4-12, lower case
//	                     any group of four, optional braces
//	bytea                \x and pairs of hex digits; escape form    \x and lower-case hex
//	                     of printable ASCII, \\ and \ooo
//	int4range, int8range [a,b] (a,b) [a,b) (a,b], bounds optional,   [a,b), (,b), [a,), (,), empty
//	                     or 'empty'
//	inet                 dotted IPv4, optionally /n                 the address; /n unless 32
//
// Years run from 1 to 9999; fractions of up to six digits (more would
// round); anything else, and every value PostgreSQL would reject, is not
// read (ok false).

// CanonicalLiteral returns the output text of the value literal s spells
// as a value of family t; base names the declared type where the family
// alone does not (int4range, inet: family Unknown). ok is false when s
// is not a spelling read here.
func CanonicalLiteral(t catalog.Type, base, s string) (string, bool) {
	switch t {
	case catalog.Date:
		d, ok := literalDate(s)
		if !ok {
			return "", false
		}
		return Date(d).String(), true
	case catalog.Timestamp:
		us, ok := literalTimestamp(s)
		if !ok {
			return "", false
		}
		return timestampString(us), true
	case catalog.Time:
		us, ok := literalClock(strings.TrimSpace(s))
		if !ok {
			return "", false
		}
		return clockString(us), true
	case catalog.UUID:
		return literalUUID(s)
	case catalog.Bytes:
		return literalBytea(s)
	case catalog.Unknown:
		switch strings.ToLower(strings.TrimSpace(base)) {
		case "int4range":
			return literalIntRange(s, 32)
		case "int8range":
			return literalIntRange(s, 64)
		case "inet":
			return literalInet(s)
		}
	}
	return "", false
}

var (
	isoDate    = regexp.MustCompile(`^(\d{4})-(\d{1,2})-(\d{1,2})$`)
	packedDate = regexp.MustCompile(`^(\d{4})(\d{2})(\d{2})$`)
	// Mon D[,] YYYY and D Mon YYYY: words of letters, then digits.
	monthFirst = regexp.MustCompile(`^([A-Za-z]+)\s+(\d{1,2}),?\s+(\d{4})$`)
	dayFirst   = regexp.MustCompile(`^(\d{1,2})\s+([A-Za-z]+)\s+(\d{4})$`)
	clockText  = regexp.MustCompile(`^(\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:\.(\d{1,6}))?)?$`)
)

// monthNames are the month spellings PostgreSQL's date input knows
// (datetktbl): full names and three-letter abbreviations, and "sept".
var monthNames = map[string]int{
	"jan": 1, "january": 1, "feb": 2, "february": 2, "mar": 3, "march": 3, "apr": 4, "april": 4,
	"may": 5, "jun": 6, "june": 6, "jul": 7, "july": 7, "aug": 8, "august": 8,
	"sep": 9, "sept": 9, "september": 9, "oct": 10, "october": 10, "nov": 11, "november": 11,
	"dec": 12, "december": 12,
}

// civilDays is the day number of y-m-d, ok false outside the calendar
// or years 1 to 9999.
func civilDays(y, m, d int) (int64, bool) {
	if y < 1 || y > 9999 || m < 1 || m > 12 || d < 1 || d > daysIn(y, m) {
		return 0, false
	}
	return daysOf(time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)), true
}

// literalDate reads a date spelling of the table above.
func literalDate(s string) (int64, bool) {
	s = strings.TrimSpace(s)
	if strings.EqualFold(s, "epoch") {
		return 0, true
	}
	atoi := func(x string) int { n, _ := strconv.Atoi(x); return n }
	if m := isoDate.FindStringSubmatch(s); m != nil {
		return civilDays(atoi(m[1]), atoi(m[2]), atoi(m[3]))
	}
	if m := packedDate.FindStringSubmatch(s); m != nil {
		return civilDays(atoi(m[1]), atoi(m[2]), atoi(m[3]))
	}
	if m := monthFirst.FindStringSubmatch(s); m != nil {
		if mo, ok := monthNames[strings.ToLower(m[1])]; ok {
			return civilDays(atoi(m[3]), mo, atoi(m[2]))
		}
	}
	if m := dayFirst.FindStringSubmatch(s); m != nil {
		if mo, ok := monthNames[strings.ToLower(m[2])]; ok {
			return civilDays(atoi(m[3]), mo, atoi(m[1]))
		}
	}
	return 0, false
}

// literalTimestamp reads a date of literalDate's ISO or packed forms,
// then optionally a time of day after a blank or a T.
func literalTimestamp(s string) (int64, bool) {
	s = strings.TrimSpace(s)
	date, clock := s, ""
	if i := strings.IndexAny(s, " T"); i >= 0 {
		date, clock = s[:i], strings.TrimSpace(s[i+1:])
	}
	if strings.EqualFold(date, "epoch") || !isoDate.MatchString(date) && !packedDate.MatchString(date) {
		return 0, false
	}
	days, ok := literalDate(date)
	if !ok {
		return 0, false
	}
	var tod int64
	if clock != "" {
		if tod, ok = literalClock(clock); !ok {
			return 0, false
		}
	}
	return days*usecPerDay + tod, true
}

// literalClock reads H:M[:S[.f]] within one day (24:00 and leap seconds
// carry over in PostgreSQL: not read).
func literalClock(s string) (int64, bool) {
	m := clockText.FindStringSubmatch(s)
	if m == nil {
		return 0, false
	}
	h, _ := strconv.Atoi(m[1])
	mi, _ := strconv.Atoi(m[2])
	sec := 0
	if m[3] != "" {
		sec, _ = strconv.Atoi(m[3])
	}
	if h > 23 || mi > 59 || sec > 59 {
		return 0, false
	}
	var frac int64
	if m[4] != "" {
		frac, _ = strconv.ParseInt((m[4] + "00000")[:6], 10, 64)
	}
	return (int64(h)*3600+int64(mi)*60+int64(sec))*usecPerSec + frac, true
}

// clockString writes a time of day as PostgreSQL's time output does.
func clockString(us int64) string {
	sec := us / usecPerSec
	return pad2(sec/3600) + ":" + pad2(sec/60%60) + ":" + pad2(sec%60) + fraction(us%usecPerSec)
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// literalUUID reads uuid_in's input: optional braces around 32 hex
// digits, a dash allowed after any group of four but the last.
func literalUUID(s string) (string, bool) {
	if len(s) >= 2 && s[0] == '{' && s[len(s)-1] == '}' {
		s = s[1 : len(s)-1]
	}
	var digits []byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case isHex(c):
			digits = append(digits, c|0x20) // lower case (digits keep their value)
		case c == '-' && len(digits) > 0 && len(digits)%4 == 0 && len(digits) < 32 && i+1 < len(s) && s[i+1] != '-':
		default:
			return "", false
		}
	}
	if len(digits) != 32 {
		return "", false
	}
	d := string(digits)
	return d[:8] + "-" + d[8:12] + "-" + d[12:16] + "-" + d[16:20] + "-" + d[20:], true
}

// literalBytea reads bytea's hex form (without blanks) and its escape
// form over printable ASCII, and writes the hex form (bytea_output's
// default).
func literalBytea(s string) (string, bool) {
	const hexDigits = "0123456789abcdef"
	var out []byte
	if strings.HasPrefix(s, `\x`) {
		h := s[2:]
		if len(h)%2 != 0 {
			return "", false
		}
		for i := 0; i < len(h); i++ {
			if !isHex(h[i]) {
				return "", false
			}
		}
		return `\x` + strings.ToLower(h), true
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s) && s[i+1] == '\\':
			out = append(out, '\\')
			i++
		case c == '\\' && i+3 < len(s) && s[i+1] >= '0' && s[i+1] <= '3' && isOctal(s[i+2]) && isOctal(s[i+3]):
			out = append(out, (s[i+1]-'0')<<6|(s[i+2]-'0')<<3|(s[i+3]-'0'))
			i += 3
		case c == '\\' || c < 0x20 || c > 0x7e:
			return "", false
		default:
			out = append(out, c)
		}
	}
	b := make([]byte, 0, 2+2*len(out))
	b = append(b, '\\', 'x')
	for _, c := range out {
		b = append(b, hexDigits[c>>4], hexDigits[c&15])
	}
	return string(b), true
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }

var intRangeText = regexp.MustCompile(`^\s*([\[(])\s*([+-]?\d*)\s*,\s*([+-]?\d*)\s*([\])])\s*$`)

// literalIntRange reads a discrete integer range of bits-wide bounds and
// writes its canonical form: an inclusive lower and an exclusive upper
// bound, or empty. A lower bound above the upper one is an error in
// PostgreSQL: not read; neither is a bound that overflows.
func literalIntRange(s string, bits int) (string, bool) {
	if strings.EqualFold(strings.TrimSpace(s), "empty") {
		return "empty", true
	}
	m := intRangeText.FindStringSubmatch(s)
	if m == nil {
		return "", false
	}
	lim := int64(math.MaxInt64)
	if bits == 32 {
		lim = math.MaxInt32
	}
	bound := func(x string) (int64, bool, bool) { // value, present, ok
		if x == "" {
			return 0, false, true
		}
		v, err := strconv.ParseInt(x, 10, 64)
		if err != nil || v > lim || v < -lim-1 {
			return 0, true, false
		}
		return v, true, true
	}
	lo, hasLo, ok1 := bound(m[2])
	hi, hasHi, ok2 := bound(m[3])
	if !ok1 || !ok2 {
		return "", false
	}
	if hasLo && hasHi {
		if lo > hi {
			return "", false
		}
		if lo == hi && (m[1] == "(" || m[4] == ")") {
			return "empty", true
		}
	}
	if hasLo && m[1] == "(" {
		if lo == lim {
			return "", false
		}
		lo++
	}
	if hasHi && m[4] == "]" {
		if hi == lim {
			return "", false
		}
		hi++
	}
	if hasLo && hasHi && lo >= hi {
		return "empty", true
	}
	out := "("
	if hasLo {
		out = "[" + strconv.FormatInt(lo, 10)
	}
	out += ","
	if hasHi {
		out += strconv.FormatInt(hi, 10)
	}
	return out + ")", true
}

var inet4Text = regexp.MustCompile(`^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})(?:/(\d{1,2}))?$`)

// literalInet reads a dotted IPv4 address without leading zeros,
// optionally with a netmask length; /32 is the address alone.
func literalInet(s string) (string, bool) {
	m := inet4Text.FindStringSubmatch(s)
	if m == nil {
		return "", false
	}
	for _, o := range m[1:5] {
		if n, _ := strconv.Atoi(o); n > 255 || len(o) > 1 && o[0] == '0' {
			return "", false
		}
	}
	addr := m[1] + "." + m[2] + "." + m[3] + "." + m[4]
	if m[5] == "" {
		return addr, true
	}
	if n, _ := strconv.Atoi(m[5]); n > 32 || len(m[5]) > 1 && m[5][0] == '0' {
		return "", false
	}
	if m[5] == "32" {
		return addr, true
	}
	return addr + "/" + m[5], true
}
