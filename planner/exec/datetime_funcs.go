package exec

import (
	"math/big"
	"strings"
	"time"
)

// dateFields are the units extract, date_part and date_trunc read, by
// their accepted spellings.
var dateFields = map[string]string{
	"year": "year", "years": "year", "y": "year", "yr": "year", "yrs": "year",
	"month": "month", "months": "month", "mon": "month", "mons": "month",
	"day": "day", "days": "day", "d": "day",
	"hour": "hour", "hours": "hour", "h": "hour", "hr": "hour", "hrs": "hour",
	"minute": "minute", "minutes": "minute", "m": "minute", "min": "minute", "mins": "minute",
	"second": "second", "seconds": "second", "s": "second", "sec": "second", "secs": "second",
	"millisecond": "milliseconds", "milliseconds": "milliseconds", "ms": "milliseconds", "msec": "milliseconds", "msecs": "milliseconds",
	"microsecond": "microseconds", "microseconds": "microseconds", "us": "microseconds", "usec": "microseconds", "usecs": "microseconds",
	"quarter": "quarter", "qtr": "quarter", "week": "week", "weeks": "week", "w": "week",
	"dow": "dow", "isodow": "isodow", "doy": "doy", "isoyear": "isoyear", "epoch": "epoch",
	"decade": "decade", "decades": "decade", "century": "century", "centuries": "century",
	"millennium": "millennium", "millennia": "millennium", "mil": "millennium", "mils": "millennium",
}

func fieldName(v Value) (string, error) {
	if v.K != KText {
		return "", cannot("date field of %s", kindName(v.K))
	}
	f, ok := dateFields[strings.ToLower(strings.TrimSpace(v.S))]
	if !ok {
		return "", cannot("date field %q", v.S)
	}
	return f, nil
}

// extract is extract(field from x) (numeric) or, asFloat, date_part
// (double precision). date_part of a date reads it as a timestamp, as
// PostgreSQL's SQL-language date_part(text, date) does; extract from a
// date refuses time-of-day units, as PostgreSQL does.
func extract(a []Value, asFloat bool) (Value, error) {
	if len(a) != 2 {
		return Null, cannot("extract of %d arguments", len(a))
	}
	f, err := fieldName(a[0])
	if err != nil {
		return Null, err
	}
	src := a[1]
	if asFloat && src.K == KDate {
		src = Timestamp(src.I * usecPerDay)
	}
	var num *big.Rat
	scale := int32(0)
	switch src.K {
	case KInterval:
		months, days, usec := src.interval()
		var n int64
		switch f {
		case "year":
			n = int64(months / 12)
		case "month":
			n = int64(months % 12)
		case "day":
			n = int64(days)
		case "hour":
			n = usec / (3600 * usecPerSec)
		case "minute":
			n = usec % (3600 * usecPerSec) / (60 * usecPerSec)
		default:
			return Null, cannot("extract %s from an interval", f)
		}
		num = new(big.Rat).SetInt64(n)
	case KDate, KTimestamp:
		if src.B && src.K == KTimestamp {
			return Null, cannot("extract from timestamp with time zone (depends on the session's TimeZone)")
		}
		days, tod := src.I, int64(0)
		if src.K == KTimestamp {
			days, tod = civil(src.I)
		}
		if n, ok := dateFieldValue(f, dayTime(days)); ok {
			num = new(big.Rat).SetInt64(n)
			break
		}
		if src.K == KDate {
			if f == "epoch" {
				num = new(big.Rat).SetInt64(days * 86400)
				break
			}
			return Null, queryErr("unit %q not supported for type date", f)
		}
		sec := tod / usecPerSec
		switch f {
		case "hour":
			num = new(big.Rat).SetInt64(sec / 3600)
		case "minute":
			num = new(big.Rat).SetInt64(sec / 60 % 60)
		case "second":
			num, scale = big.NewRat(tod%(60*usecPerSec), usecPerSec), 6
		case "milliseconds":
			num, scale = big.NewRat(tod%(60*usecPerSec), 1000), 3
		case "microseconds":
			num = new(big.Rat).SetInt64(tod % (60 * usecPerSec))
		case "epoch":
			num, scale = big.NewRat(src.I, usecPerSec), 6
		default:
			return Null, cannot("extract %s", f)
		}
	default:
		return Null, cannot("extract from %s", kindName(src.K))
	}
	if asFloat {
		x, _ := num.Float64()
		return Float(x), nil
	}
	return NumericRat(num, scale), nil
}

// dateFieldValue is a calendar field of day t (years 1 to 9999).
func dateFieldValue(f string, t time.Time) (int64, bool) {
	y := int64(t.Year())
	switch f {
	case "year":
		return y, true
	case "month":
		return int64(t.Month()), true
	case "day":
		return int64(t.Day()), true
	case "quarter":
		return (int64(t.Month())-1)/3 + 1, true
	case "week":
		_, w := t.ISOWeek()
		return int64(w), true
	case "isoyear":
		iy, _ := t.ISOWeek()
		return int64(iy), true
	case "dow":
		return int64(t.Weekday()), true
	case "isodow":
		if t.Weekday() == time.Sunday {
			return 7, true
		}
		return int64(t.Weekday()), true
	case "doy":
		return int64(t.YearDay()), true
	case "decade":
		return y / 10, true
	case "century":
		return (y + 99) / 100, true
	case "millennium":
		return (y + 999) / 1000, true
	}
	return 0, false
}

// dateTrunc is date_trunc(field, timestamp). Of a date PostgreSQL
// returns a timestamp with time zone, which depends on the session's
// TimeZone: not modelled.
func dateTrunc(a []Value) (Value, error) {
	if len(a) != 2 || a[1].K != KTimestamp || a[1].B {
		return Null, cannot("date_trunc of these arguments")
	}
	f, err := fieldName(a[0])
	if err != nil {
		return Null, err
	}
	days, tod := civil(a[1].I)
	t := dayTime(days)
	y, m := t.Year(), int(t.Month())
	unit := int64(0)
	switch f {
	case "microseconds":
		unit = 1
	case "milliseconds":
		unit = 1000
	case "second":
		unit = usecPerSec
	case "minute":
		unit = 60 * usecPerSec
	case "hour":
		unit = 3600 * usecPerSec
	case "day":
		unit = usecPerDay
	case "week":
		wd := int64(t.Weekday()+6) % 7 // days since Monday
		return checkTimestamp((days - wd) * usecPerDay)
	case "month", "quarter", "year", "decade", "century", "millennium":
		switch f {
		case "quarter":
			m = (m-1)/3*3 + 1
		case "year":
			m = 1
		case "decade":
			y, m = y/10*10, 1
		case "century":
			y, m = (y+99)/100*100-99, 1
		case "millennium":
			y, m = (y+999)/1000*1000-999, 1
		}
		return checkTimestamp(daysOf(time.Date(y, time.Month(m), 1, 0, 0, 0, 0, time.UTC)) * usecPerDay)
	default:
		return Null, cannot("date_trunc %s", f)
	}
	return Timestamp(days*usecPerDay + tod - tod%unit), nil
}
