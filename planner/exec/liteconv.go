package exec

import "math/big"

// SQLiteConverter is ForSQLite for a run of databases that share values,
// as a refutation search's do (its databases draw values from the same
// pools): it converts each numeric and date once. With Rows it also
// converts each row once, for databases that share rows (a
// minimization's candidates); such rows must not be modified once
// converted, as a converted row is remembered by its address. The zero
// value is ready; it is not safe for concurrent use.
//
// With Recycle (and not Rows), each call may reuse the memory of the
// Database the last call returned, which must then no longer be in use:
// a search converts a database, runs the plans on it and is done with it.
type SQLiteConverter struct {
	Rows    bool
	Recycle bool
	rats    map[*big.Rat]Value
	dates   map[int64]Value
	rows    map[*Value][]Value
	// last is the Database the last call returned, and vals and heads
	// its memory, for Recycle.
	last  Database
	vals  slab[Value]
	heads slab[[]Value]
}

// Database returns db in SQLite's storage classes, as ForSQLite does.
func (c *SQLiteConverter) Database(db Database) Database {
	if c.rows == nil {
		c.rats, c.dates, c.rows = map[*big.Rat]Value{}, map[int64]Value{}, map[*Value][]Value{}
	}
	recycle := c.Recycle && !c.Rows
	var out Database
	if recycle && c.last != nil {
		clear(c.last)
		out = c.last
		c.vals.reset()
		c.heads.reset()
	} else {
		out = make(Database, len(db))
	}
	if recycle {
		c.last = out
	}
	for name, rows := range db {
		var conv [][]Value
		var block []Value // converted rows' values, one allocation
		for i, row := range rows {
			if !needsLite(row) {
				continue
			}
			if conv == nil {
				if recycle {
					conv = c.heads.take(len(rows), scratchHeads)
					copy(conv, rows)
				} else {
					conv = append([][]Value(nil), rows...)
				}
			}
			if c.Rows {
				if lr, ok := c.rows[&row[0]]; ok && len(lr) == len(row) {
					conv[i] = lr
					continue
				}
			}
			if len(block) < len(row) {
				if recycle {
					block = c.vals.take(len(row)*(len(rows)-i), scratchVals)
				} else {
					block = make([]Value, len(row)*(len(rows)-i))
				}
			}
			lr := block[:len(row):len(row)]
			block = block[len(row):]
			copy(lr, row)
			for j, v := range lr {
				if v.K == KNumeric || v.K == KDate || v.K == KTimestamp {
					lr[j] = c.value(v)
				}
			}
			if c.Rows {
				c.rows[&row[0]] = lr
			}
			conv[i] = lr
		}
		if conv == nil {
			conv = rows
		}
		out[name] = conv
	}
	return out
}

// value is liteValue, remembered for numerics (by their shared rational)
// and dates; timestamps, rarer, are converted each time.
func (c *SQLiteConverter) value(v Value) Value {
	switch v.K {
	case KNumeric:
		lv, ok := c.rats[v.R]
		if !ok {
			lv = liteValue(v)
			c.rats[v.R] = lv
		}
		return lv
	case KDate:
		lv, ok := c.dates[v.I]
		if !ok {
			lv = liteValue(v)
			c.dates[v.I] = lv
		}
		return lv
	case KTimestamp:
		return liteValue(v)
	}
	return v
}
