package exec

import (
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/pgequiv/pgequiv/planner/catalog"
)

// PostgreSQL's timestamp (without time zone) and interval, modelled
// exactly where the planner produces them and refused (ErrCannotExecute)
// elsewhere:
//
//	construct                              model
//	timestamp values                       microseconds since 1970-01-01, years 1–9999;
//	                                       output as PostgreSQL's ISO DateStyle
//	timestamp with time zone               a literal with a UTC offset is that instant (Value.B
//	                                       marks it); instants compare with each other and
//	                                       print in UTC; anything depending on the session's
//	                                       TimeZone (no offset, to timestamp, date or text,
//	                                       arithmetic, extract) cannot execute (exactcast.go)
//	time                                   cannot execute
//	interval values                        months, days and microseconds kept apart, as
//	                                       PostgreSQL does; output as IntervalStyle postgres
//	interval input                         integer fields with units, [-]HH:MM[:SS[.f]], "ago";
//	                                       fractional fields and other forms cannot execute
//	date ± integer, date − date            days (arith)
//	date/timestamp ± interval              timestamp: months first (the day clamped to the
//	                                       month's end), then days, then microseconds
//	timestamp − timestamp, with dates      interval, justified into days and time
//	interval ± interval, −interval,        fieldwise; out of range is a query error
//	interval × integer
//	interval × non-integer, interval / x   cannot execute (PostgreSQL's fraction carrying)
//	date vs timestamp                      the date as its midnight
//	interval vs interval                   as PostgreSQL: a month is 30 days, a day 24 hours
//	extract(f from date/timestamp)         numeric; date_part float8; fields year, month,
//	                                       day, quarter, week, dow, isodow, doy, decade,
//	                                       century, millennium, isoyear, epoch, hour,
//	                                       minute, second, milliseconds, microseconds
//	extract(f from interval)               year, month, day, hour, minute
//	date_trunc(f, timestamp)               timestamp; of a date cannot execute (the result is
//	                                       a timestamp with time zone)
//	casts                                  text ↔ date/timestamp/interval, date ↔ timestamp
//	a date and a timestamp in one column   not promoted: the date prints as a date where
//	(CASE, COALESCE, UNION branches)       PostgreSQL prints its midnight; they compare and
//	                                       group as equal, so no difference arises from it
//	equal intervals spelled apart          group together ('1 mon' and '30 days'); where
//	                                       one group, DISTINCT row, set operation match or
//	                                       MIN/MAX tie holds both, PostgreSQL keeps either:
//	                                       cannot execute
//
// An interval's days are kept in Value.F and its months in Value.Scale
// (only these accessors know), so that a Value stays one size.

const (
	usecPerSec = int64(1_000_000)
	usecPerDay = 86_400 * usecPerSec
)

// Timestamp builds a timestamp from microseconds since 1970-01-01.
func Timestamp(usec int64) Value { return Value{K: KTimestamp, I: usec} }

// Interval builds an interval of months, days and microseconds.
func Interval(months, days int32, usec int64) Value {
	return Value{K: KInterval, Scale: months, F: float64(days), I: usec}
}

// interval returns an interval value's fields.
func (v Value) interval() (months, days int32, usec int64) {
	return v.Scale, int32(v.F), v.I
}

func isTemporal(k Kind) bool { return k == KDate || k == KTimestamp || k == KInterval }

// minTimestamp and maxTimestamp bound the years the executor writes the
// way PostgreSQL does (1 to 9999, no BC, no five-digit years).
var (
	minTimestamp = time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC).UnixMicro()
	maxTimestamp = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC).UnixMicro() - 1
)

func checkTimestamp(us int64) (Value, error) {
	if us < minTimestamp || us > maxTimestamp {
		return Null, cannot("timestamp outside years 1 to 9999")
	}
	return Timestamp(us), nil
}

// floorDiv divides rounding toward minus infinity.
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// civil splits a timestamp into its calendar date (days since the epoch)
// and the microseconds into that day.
func civil(us int64) (days, tod int64) {
	days = floorDiv(us, usecPerDay)
	return days, us - days*usecPerDay
}

func dayTime(days int64) time.Time { return epoch.AddDate(0, 0, int(days)) }

func daysOf(t time.Time) int64 {
	return floorDiv(t.Unix(), 86400)
}

// timestampText matches the timestamp input read exactly: an ISO date,
// optionally a time of day, optionally a time zone (which a timestamp
// without time zone ignores, as PostgreSQL does).
// A zone after a bare date needs a blank before it: PostgreSQL rejects
// '2020-01-01-08'. Named zones (UTC, Z) are not read.
var timestampText = regexp.MustCompile(`^\s*(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?(?:\s*[+-]\d{2}(?::?\d{2})?)?|\s+[+-]\d{2}(?::?\d{2})?)?\s*$`)

// ParseTimestamp reads a timestamp's text.
func ParseTimestamp(s string) (Value, error) {
	m := timestampText.FindStringSubmatch(s)
	if m == nil {
		if us, ok := literalTimestamp(s); ok {
			return checkTimestamp(us) // '2020-1-1 1:00' (literal.go)
		}
		return Null, cannot("timestamp input %q", s)
	}
	n := func(i int) int {
		x, _ := strconv.Atoi(m[i])
		return x
	}
	y, mo, d := n(1), n(2), n(3)
	h, mi, sec := 0, 0, 0
	if m[4] != "" {
		h, mi = n(4), n(5)
		if m[6] != "" {
			sec = n(6)
		}
	}
	if y < 1 || mo < 1 || mo > 12 || d < 1 || d > daysIn(y, mo) || h > 23 || mi > 59 || sec > 59 {
		if h == 24 || sec == 60 {
			return Null, cannot("timestamp input %q", s) // PostgreSQL carries these over
		}
		return Null, queryErr("date/time field value out of range: %q", s)
	}
	frac := int64(0)
	if m[7] != "" {
		f, _ := strconv.ParseInt((m[7] + "00000")[:6], 10, 64)
		frac = f
	}
	days := daysOf(time.Date(y, time.Month(mo), d, 0, 0, 0, 0, time.UTC))
	return checkTimestamp(days*usecPerDay + (int64(h)*3600+int64(mi)*60+int64(sec))*usecPerSec + frac)
}

func isLeap(y int) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

func daysIn(y, m int) int {
	switch m {
	case 2:
		if isLeap(y) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// timestampString writes PostgreSQL's ISO output: fractional seconds
// without trailing zeros.
func timestampString(us int64) string {
	days, tod := civil(us)
	var b strings.Builder
	b.WriteString(dayTime(days).Format("2006-01-02"))
	sec := tod / usecPerSec
	b.WriteString(" " + pad2(sec/3600) + ":" + pad2(sec/60%60) + ":" + pad2(sec%60))
	b.WriteString(fraction(tod % usecPerSec))
	return b.String()
}

func pad2(n int64) string {
	if n < 10 {
		return "0" + strconv.FormatInt(n, 10)
	}
	return strconv.FormatInt(n, 10)
}

// fraction writes microseconds as ".ffffff" less trailing zeros, or ""
// for none; the sign is the caller's.
func fraction(us int64) string {
	if us < 0 {
		us = -us
	}
	if us == 0 {
		return ""
	}
	f := strconv.FormatInt(us+usecPerSec, 10)[1:]
	return "." + strings.TrimRight(f, "0")
}

// intervalUnits maps PostgreSQL's interval unit spellings to months,
// days or microseconds per unit.
var intervalUnits = map[string]struct{ months, days, usec int64 }{
	"microsecond": {0, 0, 1}, "microseconds": {0, 0, 1}, "us": {0, 0, 1}, "usec": {0, 0, 1}, "usecs": {0, 0, 1},
	"millisecond": {0, 0, 1000}, "milliseconds": {0, 0, 1000}, "ms": {0, 0, 1000}, "msec": {0, 0, 1000}, "msecs": {0, 0, 1000},
	"second": {0, 0, usecPerSec}, "seconds": {0, 0, usecPerSec}, "sec": {0, 0, usecPerSec}, "secs": {0, 0, usecPerSec}, "s": {0, 0, usecPerSec},
	"minute": {0, 0, 60 * usecPerSec}, "minutes": {0, 0, 60 * usecPerSec}, "min": {0, 0, 60 * usecPerSec}, "mins": {0, 0, 60 * usecPerSec}, "m": {0, 0, 60 * usecPerSec},
	"hour": {0, 0, 3600 * usecPerSec}, "hours": {0, 0, 3600 * usecPerSec}, "hr": {0, 0, 3600 * usecPerSec}, "hrs": {0, 0, 3600 * usecPerSec}, "h": {0, 0, 3600 * usecPerSec},
	"day": {0, 1, 0}, "days": {0, 1, 0}, "d": {0, 1, 0},
	"week": {0, 7, 0}, "weeks": {0, 7, 0}, "w": {0, 7, 0},
	"month": {1, 0, 0}, "months": {1, 0, 0}, "mon": {1, 0, 0}, "mons": {1, 0, 0},
	"year": {12, 0, 0}, "years": {12, 0, 0}, "y": {12, 0, 0}, "yr": {12, 0, 0}, "yrs": {12, 0, 0},
	"decade": {120, 0, 0}, "decades": {120, 0, 0},
	"century": {1200, 0, 0}, "centuries": {1200, 0, 0},
	"millennium": {12000, 0, 0}, "millennia": {12000, 0, 0},
}

var (
	intervalField = regexp.MustCompile(`^([+-]?\d+)\s*([a-z]+)$`)
	intervalClock = regexp.MustCompile(`^([+-])?(\d+):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?$`)
)

// ParseInterval reads the interval input forms PostgreSQL's postgres
// style writes and the planner folds qualifiers into ('3 month'):
// integer fields with units, a [-]HH:MM[:SS[.f]] clock and a trailing
// "ago". Anything else cannot execute rather than be misread.
func ParseInterval(s string) (Value, error) {
	words := strings.Fields(strings.ToLower(s))
	if len(words) > 0 && words[0] == "@" {
		words = words[1:]
	}
	ago := len(words) > 0 && words[len(words)-1] == "ago"
	if ago {
		words = words[:len(words)-1]
	}
	if len(words) == 0 {
		return Null, cannot("interval input %q", s)
	}
	var months, days, usec big.Int
	add := func(dst *big.Int, n, per int64) {
		dst.Add(dst, new(big.Int).Mul(big.NewInt(n), big.NewInt(per)))
	}
	clock := false
	for i := 0; i < len(words); i++ {
		w := words[i]
		if m := intervalClock.FindStringSubmatch(w); m != nil && !clock {
			clock = true
			h, _ := strconv.ParseInt(m[2], 10, 64)
			mi, _ := strconv.ParseInt(m[3], 10, 64)
			sec, _ := strconv.ParseInt("0"+m[4], 10, 64)
			frac := int64(0)
			if m[5] != "" {
				frac, _ = strconv.ParseInt((m[5] + "00000")[:6], 10, 64)
			}
			if mi > 59 || sec > 59 || h > 2_000_000 {
				return Null, cannot("interval input %q", s)
			}
			t := (h*3600+mi*60+sec)*usecPerSec + frac
			if m[1] == "-" {
				t = -t
			}
			add(&usec, t, 1)
			continue
		}
		if i+1 < len(words) && !strings.ContainsAny(words[i+1], "0123456789:") {
			w += words[i+1]
			i++
		}
		m := intervalField.FindStringSubmatch(w)
		if m == nil {
			return Null, cannot("interval input %q", s)
		}
		u, ok := intervalUnits[m[2]]
		n, err := strconv.ParseInt(m[1], 10, 64)
		if !ok || err != nil {
			return Null, cannot("interval input %q", s)
		}
		add(&months, n, u.months)
		add(&days, n, u.days)
		add(&usec, n, u.usec)
	}
	if ago {
		months.Neg(&months)
		days.Neg(&days)
		usec.Neg(&usec)
	}
	if !months.IsInt64() || !days.IsInt64() || !usec.IsInt64() ||
		months.Int64() != int64(int32(months.Int64())) || days.Int64() != int64(int32(days.Int64())) {
		return Null, queryErr("interval field value out of range: %q", s)
	}
	return Interval(int32(months.Int64()), int32(days.Int64()), usec.Int64()), nil
}

// intervalString writes PostgreSQL's IntervalStyle postgres output
// (EncodeInterval): "1 year 2 mons -3 days +04:05:06.5".
func intervalString(v Value) string {
	months, days, usec := v.interval()
	var b strings.Builder
	zero, before := true, false
	part := func(n int64, unit string) {
		if n == 0 {
			return
		}
		if !zero {
			b.WriteByte(' ')
		}
		if before && n > 0 {
			b.WriteByte('+')
		}
		b.WriteString(strconv.FormatInt(n, 10) + " " + unit)
		if n != 1 {
			b.WriteByte('s')
		}
		before, zero = n < 0, false
	}
	part(int64(months/12), "year")
	part(int64(months%12), "mon")
	part(int64(days), "day")
	if zero || usec != 0 {
		if !zero {
			b.WriteByte(' ')
		}
		switch {
		case usec < 0:
			b.WriteByte('-')
		case before:
			b.WriteByte('+')
		}
		a := usec
		if a < 0 {
			a = -a // cannot overflow: |usec| of a parsed or computed interval is below 2^63
		}
		sec := a / usecPerSec
		b.WriteString(pad2(sec/3600) + ":" + pad2(sec/60%60) + ":" + pad2(sec%60) + fraction(a%usecPerSec))
	}
	return b.String()
}

// intervalSpan is PostgreSQL's interval_cmp_value: the whole interval in
// microseconds, a month counting 30 days.
func intervalSpan(v Value) *big.Int {
	months, days, usec := v.interval()
	d := new(big.Int).Mul(big.NewInt(int64(months)), big.NewInt(30))
	d.Add(d, big.NewInt(int64(days)))
	d.Mul(d, big.NewInt(usecPerDay))
	return d.Add(d, big.NewInt(usec))
}

// asTimestamp promotes a date to its midnight; timestamps pass.
func asTimestamp(v Value) (int64, bool) {
	switch v.K {
	case KDate:
		return v.I * usecPerDay, true
	case KTimestamp:
		return v.I, true
	}
	return 0, false
}

// compareTemporal orders dates and timestamps with each other (a date is
// its midnight) and intervals with intervals.
func compareTemporal(a, b Value) (int, error) {
	if a.K == KInterval && b.K == KInterval {
		return intervalSpan(a).Cmp(intervalSpan(b)), nil
	}
	if isTimestamptz(a) || isTimestamptz(b) {
		if isTimestamptz(a) && isTimestamptz(b) {
			return cmpInt(a.I, b.I), nil // instants
		}
		return 0, cannot("comparison of timestamp with time zone with %s (depends on the session's TimeZone)", kindName(b.K))
	}
	x, ok1 := asTimestamp(a)
	y, ok2 := asTimestamp(b)
	if !ok1 || !ok2 {
		return 0, cannot("comparison of %s with %s", kindName(a.K), kindName(b.K))
	}
	return cmpInt(x, y), nil
}

// temporalKey is Key for the new kinds: a timestamp at midnight groups
// with its date, intervals group by their span.
func temporalKey(v Value) string {
	switch v.K {
	case KTimestamp:
		if v.B {
			return "Z" + strconv.FormatInt(v.I, 10)
		}
		if d, tod := civil(v.I); tod == 0 {
			return "d" + strconv.FormatInt(d, 10)
		}
		return "T" + strconv.FormatInt(v.I, 10)
	case KInterval:
		return "i" + intervalSpan(v).String()
	}
	return "?"
}

// plusInterval is PostgreSQL's timestamp_pl_interval: add the months
// (clamping the day to the new month's length), then the days, then the
// microseconds.
func plusInterval(ts int64, iv Value) (Value, error) {
	months, days, usec := iv.interval()
	if months != 0 {
		d, tod := civil(ts)
		t := dayTime(d)
		y, m := int64(t.Year()), int64(t.Month())-1+int64(months)
		y += floorDiv(m, 12)
		m -= floorDiv(m, 12) * 12
		if y < 1 || y > 9999 {
			return Null, cannot("timestamp outside years 1 to 9999")
		}
		day := min(t.Day(), daysIn(int(y), int(m)+1))
		ts = daysOf(time.Date(int(y), time.Month(m+1), day, 0, 0, 0, 0, time.UTC))*usecPerDay + tod
	}
	if days != 0 {
		ts += int64(days) * usecPerDay
		if ts < minTimestamp || ts > maxTimestamp {
			return Null, cannot("timestamp outside years 1 to 9999")
		}
	}
	s := ts + usec
	if (usec > 0 && s < ts) || (usec < 0 && s > ts) {
		return Null, queryErr("timestamp out of range")
	}
	return checkTimestamp(s)
}

// negInterval is −v; out of range (the most negative field) is an error.
func negInterval(v Value) (Value, error) {
	months, days, usec := v.interval()
	if months == math.MinInt32 || days == math.MinInt32 || usec == math.MinInt64 {
		return Null, queryErr("interval out of range")
	}
	return Interval(-months, -days, -usec), nil
}

// justifiedDiff is timestamp − timestamp: microseconds justified into
// days and a time of the same sign (interval_justify_hours).
func justifiedDiff(a, b int64) (Value, error) {
	t := a - b
	if (b < 0 && t < a) || (b > 0 && t > a) {
		return Null, queryErr("interval out of range")
	}
	days := t / usecPerDay // truncating, as TMODULO does
	t -= days * usecPerDay
	if days != int64(int32(days)) {
		return Null, queryErr("interval out of range")
	}
	return Interval(0, int32(days), t), nil
}

// temporalArith applies + and − (and interval × integer) where an
// operand is a date, timestamp or interval; date ± integer and
// date − date are arith's.
func temporalArith(op string, a, b Value) (Value, error) {
	if isTimestamptz(a) || isTimestamptz(b) {
		// A day is not 24 hours across a daylight-saving change.
		return Null, cannot("arithmetic on timestamp with time zone (depends on the session's TimeZone)")
	}
	switch {
	case op == "+" && b.K == KInterval && (a.K == KDate || a.K == KTimestamp):
		ts, _ := asTimestamp(a)
		return plusInterval(ts, b)
	case op == "+" && a.K == KInterval && (b.K == KDate || b.K == KTimestamp):
		ts, _ := asTimestamp(b)
		return plusInterval(ts, a)
	case op == "-" && b.K == KInterval && (a.K == KDate || a.K == KTimestamp):
		n, err := negInterval(b)
		if err != nil {
			return Null, err
		}
		ts, _ := asTimestamp(a)
		return plusInterval(ts, n)
	case op == "-" && (a.K == KTimestamp || b.K == KTimestamp) && (a.K == KDate || a.K == KTimestamp) && (b.K == KDate || b.K == KTimestamp):
		x, _ := asTimestamp(a)
		y, _ := asTimestamp(b)
		return justifiedDiff(x, y)
	case a.K == KInterval && b.K == KInterval && (op == "+" || op == "-"):
		if op == "-" {
			n, err := negInterval(b)
			if err != nil {
				return Null, err
			}
			b = n
		}
		m1, d1, u1 := a.interval()
		m2, d2, u2 := b.interval()
		m, d, u := int64(m1)+int64(m2), int64(d1)+int64(d2), u1+u2
		if m != int64(int32(m)) || d != int64(int32(d)) || (u2 > 0 && u < u1) || (u2 < 0 && u > u1) {
			return Null, queryErr("interval out of range")
		}
		return Interval(int32(m), int32(d), u), nil
	case op == "*" && (a.K == KInterval && b.K == KInt || a.K == KInt && b.K == KInterval):
		iv, k := a, b.I
		if a.K == KInt {
			iv, k = b, a.I
		}
		months, days, usec := iv.interval()
		m, d := int64(months)*k, int64(days)*k
		u, err := intArith("*", usec, k)
		if err != nil || m != int64(int32(m)) || d != int64(int32(d)) || (k != 0 && (m/k != int64(months) || d/k != int64(days))) {
			return Null, queryErr("interval out of range")
		}
		return Interval(int32(m), int32(d), u.I), nil
	}
	return Null, cannot("operator %s on %s and %s", op, kindName(a.K), kindName(b.K))
}

// temporalCast converts to or from a date, timestamp or interval.
func temporalCast(v Value, t catalog.Type) (Value, error) {
	switch {
	case t == catalog.Text:
		return Text(v.String()), nil
	case t == catalog.Timestamp && v.K == KText:
		return ParseTimestamp(v.S)
	case t == catalog.Timestamp && (v.K == KDate || v.K == KTimestamp):
		ts, _ := asTimestamp(v)
		return Timestamp(ts), nil
	case t == catalog.Date && v.K == KTimestamp:
		d, _ := civil(v.I)
		return Date(d), nil
	case t == catalog.Interval && v.K == KText:
		return ParseInterval(v.S)
	case t == catalog.Interval && v.K == KInterval:
		return v, nil
	}
	return Null, cannot("cast of %s to %s", kindName(v.K), t)
}

func init() {
	strictFuncs["extract"] = func(a []Value) (Value, error) { return extract(a, false) }
	strictFuncs["date_part"] = func(a []Value) (Value, error) { return extract(a, true) }
	strictFuncs["date_trunc"] = dateTrunc
}
