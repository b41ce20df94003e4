package exec

import (
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Blocks of rows of unknown count (join output) start at rowBlockRows
// rows and double up to rowBlockMax values: most executions produce a
// few rows, some thousands.
const rowBlockRows, rowBlockMax = 4, 1024

// newRow returns a zeroed row of n values. Rows are carved from shared
// blocks, one allocation for many rows: allocation was a third of the
// refuter's time. A row's capacity is its length, so appending to one
// never writes into the next.
func (x *executor) newRow(n int) []Value {
	if x.scratch != nil {
		return x.scratch.vals.take(n, scratchVals)
	}
	if n > len(x.buf) {
		x.block = min(max(2*x.block, rowBlockRows*n), rowBlockMax)
		x.buf = make([]Value, max(n, x.block))
	}
	r := x.buf[:n:n]
	x.buf = x.buf[n:]
	return r
}

// rows carves count rows of n values from one block of their own, for
// operators that know how many rows they produce.
type rows struct{ buf []Value }

func (x *executor) newRows(count, n int) rows {
	if x.scratch != nil {
		return rows{x.scratch.vals.take(count*n, scratchVals)}
	}
	return rows{make([]Value, count*n)}
}

// rowList is an empty list of rows with room for n: a relation's rows.
func (x *executor) rowList(n int) [][]Value {
	if x.scratch != nil {
		return x.scratch.heads.take(n, scratchHeads)[:0]
	}
	return make([][]Value, 0, n)
}

// next returns the next row of n values.
func (r *rows) next(n int) []Value {
	row := r.buf[:n:n]
	r.buf = r.buf[n:]
	return row
}

// rel is a materialized intermediate result. ties is non-nil when the
// rows come out of a Sort (see Result.Ties).
type rel struct {
	cols []plan.ColumnID
	// idx maps a column to its first position, for wide relations that
	// are looked up often: a relation is built per operator per
	// execution, usually over a few rows, and building a map cost more
	// than the linear searches it saves. lookups counts the searches.
	idx     map[plan.ColumnID]int
	lookups int
	rows    [][]Value
	ties    []int
}

// A relation of relIndexMin columns or more indexes them after
// relIndexAfter lookups.
const relIndexMin, relIndexAfter = 16, 64

// newRel is an empty relation of cols. (Carving relations from blocks,
// as rows are, measured slower, unless the blocks are reused: Scratch.)
func (x *executor) newRel(cols []plan.ColumnID) *rel {
	if x.scratch != nil {
		r := &x.scratch.rels.take(1, scratchRels)[0]
		r.cols = cols
		return r
	}
	return &rel{cols: cols}
}

// newRelLike is a relation with in's columns, sharing its index.
func (x *executor) newRelLike(in *rel) *rel {
	r := x.newRel(in.cols)
	r.idx = in.idx
	return r
}

// index returns the first position of column c.
func (r *rel) index(c plan.ColumnID) (int, bool) {
	if r.idx == nil && len(r.cols) >= relIndexMin {
		if r.lookups++; r.lookups > relIndexAfter {
			r.idx = make(map[plan.ColumnID]int, len(r.cols))
			for i, c := range r.cols {
				if _, dup := r.idx[c]; !dup {
					r.idx[c] = i
				}
			}
		}
	}
	if r.idx != nil {
		i, ok := r.idx[c]
		return i, ok
	}
	for i, x := range r.cols {
		if x == c {
			return i, true
		}
	}
	return 0, false
}

// env binds column values while an expression is evaluated: the current
// row of a relation, then the rows of enclosing queries (for correlated
// subqueries).
type env struct {
	r     *rel
	row   []Value
	outer *env
}

func (e *env) lookup(id plan.ColumnID) (Value, bool) {
	for ; e != nil; e = e.outer {
		if i, ok := e.r.index(id); ok {
			return e.row[i], true
		}
	}
	return Null, false
}
