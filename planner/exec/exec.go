package exec

import (
	"context"
	"fmt"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Database maps a table name (as the catalog spells it) to its rows; each
// row holds one value per table column in table order.
type Database map[string][][]Value

// Result is a query's output: a bag of rows, in order when Ordered.
type Result struct {
	Rows [][]Value
	// Ordered is true when the query has a top-level ORDER BY; Ties then
	// numbers the rows' sort-key groups (rows with equal keys share a
	// number), so a comparison may permute rows within a group.
	Ordered bool
	Ties    []int
	// Nondeterministic is true when the result depends on choices the
	// database makes freely: a LIMIT that cuts through rows with equal
	// sort keys (or through unordered rows). Such results cannot be
	// compared row for row.
	Nondeterministic bool
	// Picks lists the SQLite scalar subqueries whose row the engine
	// chooses freely, once per execution (picks.go); OnlyPicks is true
	// when they are all that makes the result nondeterministic, so that
	// executing under each choice (Options.Picks) gives every result the
	// engine may return.
	Picks     []Pick
	OnlyPicks bool
	// CountFixed is true when the result is nondeterministic only in
	// which rows a top-level LIMIT keeps, never in how many: results of
	// different sizes differ whatever the engine chooses.
	CountFixed bool
}

// Options select the engine whose semantics the executor models.
type Options struct {
	// Dialect is the plan's dialect: Postgres (the default) models
	// PostgreSQL, SQLite models SQLite's storage classes, affinity,
	// arithmetic and comparisons (see the package documentation).
	Dialect catalog.Dialect
	// Funcs evaluate the extra functions a plan built with a
	// build.Extension calls (catalog-only functions such as format_type),
	// by name; their arguments are evaluated first, NULLs included. nil
	// for every judged plan.
	Funcs map[string]Func
	// Picks chooses the row of each Pick (Result.Picks), by subquery, as
	// an index among its candidate rows; absent, the first.
	Picks map[*plan.Node]int
	// Scratch, when set, holds the execution's intermediate rows and
	// relations, reusing the memory of the last execution given it (see
	// Scratch).
	Scratch *Scratch
}

// Func evaluates one extra function on its arguments' values.
type Func func(args []Value) (Value, error)

// Execute runs p over db with PostgreSQL's semantics. ctx bounds the
// work: it is checked at every operator, so a cancelled context stops a
// long evaluation.
func Execute(ctx context.Context, p *plan.Plan, db Database) (*Result, error) {
	return ExecuteWith(ctx, p, db, Options{})
}

// ExecuteWith runs p over db with the semantics opts select.
func ExecuteWith(ctx context.Context, p *plan.Plan, db Database, opts Options) (*Result, error) {
	if p.Raises != "" && opts.Dialect != catalog.SQLite {
		// PostgreSQL fails the query before it reads a row, on every
		// database, or may (norm/raises.go).
		if p.RaisesAlways {
			return nil, queryErr("%s", p.Raises)
		}
		return nil, cannot("PostgreSQL may fail the query whatever the data: %s", p.Raises)
	}
	if err := enumRefusal(p); err != nil {
		return nil, err
	}
	var x *executor
	if sc := opts.Scratch; sc != nil {
		sc.reset()
		x = &sc.x // the last execution's, done with
	} else {
		x = new(executor)
	}
	*x = executor{ctx: ctx, db: db, meta: p.Meta, lite: opts.Dialect == catalog.SQLite, root: p.Root, funcs: opts.Funcs, scratch: opts.Scratch, picks: opts.Picks}
	x.initBpchar()
	if err := x.initCollations(); err != nil {
		return nil, err
	}
	r, err := x.node(p.Root, nil)
	if err != nil {
		return nil, err
	}
	// The result's rows are copies in one block of their own: rel rows
	// may be the database's, or share blocks with discarded
	// intermediate rows.
	w := len(r.cols)
	res := &Result{Nondeterministic: x.nondet || x.nondetRows || len(x.met) > 0, Picks: x.met,
		OnlyPicks: !x.nondet && !x.nondetRows && len(x.met) > 0, CountFixed: !x.nondet && len(x.met) == 0}
	if len(r.rows) > 0 {
		block := make([]Value, w*len(r.rows))
		res.Rows = make([][]Value, len(r.rows))
		for i, row := range r.rows {
			vals := block[i*w : (i+1)*w : (i+1)*w]
			copy(vals, row[:w])
			if x.lite {
				liteResultRow(vals)
			}
			res.Rows[i] = vals
		}
	}
	if p.Ordered && r.ties != nil {
		res.Ordered, res.Ties = true, r.ties
	}
	return res, nil
}

type executor struct {
	funcs  map[string]Func // Options.Funcs
	ctx    context.Context
	db     Database
	meta   *plan.Metadata
	nondet bool
	// nondetRows: a top-level LIMIT cut through unordered rows (see
	// countFixed); the result's size is still determined.
	nondetRows bool
	// picks are Options.Picks; met the Picks met so far; subDepth counts
	// the subquery expressions being evaluated; uncorrelated memoizes
	// enumerable's reading of a subquery.
	picks        map[*plan.Node]int
	met          []Pick
	subDepth     int
	uncorrelated map[*plan.Node]bool
	steps        int
	pairs        int // row pairs compared in joins (see pair)
	// lite selects SQLite's semantics.
	lite bool
	// liteAff: the affinity of each computed column, derived at the
	// first use (derivedAffinity).
	liteAff map[plan.ColumnID]affinity
	// bp is true when the plan reads a char(n) column; bpCol (see
	// bpCols) holds the width of each column with bpchar values.
	root     *plan.Node
	bp       bool
	bpWidths [][]int // per table instance, nil where no char(n)
	bpCol    map[plan.ColumnID]int
	// coll is true when the plan reads a column whose collation matters
	// (see collation.go): its text values carry their collation.
	coll bool
	// buf is the unused rest of the block newRow carves rows from;
	// block is that block's size.
	buf   []Value
	block int
	// scratch, when set, replaces buf (Options.Scratch).
	scratch *Scratch
}

// maxPairs bounds the row pairs one execution may compare in joins. A
// chain of self-joins on duplicated values grows as a power of the rows
// (n, n², n⁴, ...): on a generated database of eight rows, a CTE fan-out
// of a few levels would ask for billions of rows and gigabytes. Past the
// bound the plan "cannot execute" on that database; ordinary queries over
// small databases compare a few thousand pairs.
const maxPairs = 100_000

// pair counts one compared row pair; it checks the context every 1,024
// pairs, since a single join can run long between operators.
func (x *executor) pair() error {
	x.pairs++
	if x.pairs&1023 == 0 {
		if err := x.ctx.Err(); err != nil {
			return fmt.Errorf("exec: %w", err)
		}
	}
	if x.pairs > maxPairs {
		return cannot("joins compare over %d row pairs", maxPairs)
	}
	return nil
}

func (x *executor) check() error {
	x.steps++
	if err := x.ctx.Err(); err != nil {
		return fmt.Errorf("exec: %w", err)
	}
	return nil
}

// node evaluates n with outer as the enclosing rows.
func (x *executor) node(n *plan.Node, outer *env) (*rel, error) {
	if err := x.check(); err != nil {
		return nil, err
	}
	switch n.Op {
	case plan.OpScan:
		return x.scan(n)
	case plan.OpValues:
		return x.values(n, outer)
	case plan.OpFilter:
		return x.filter(n, outer)
	case plan.OpProject:
		return x.project(n, outer)
	case plan.OpJoin:
		return x.join(n, outer)
	case plan.OpAggregate:
		return x.aggregate(n, outer)
	case plan.OpDistinct:
		return x.distinct(n, outer)
	case plan.OpSort:
		return x.sort(n, outer)
	case plan.OpLimit:
		return x.limit(n, outer)
	case plan.OpSetOp:
		return x.setOp(n, outer)
	case plan.OpWindow:
		return x.window(n, outer)
	}
	return nil, cannot("operator %s", n.Op)
}

func (x *executor) scan(n *plan.Node) (*rel, error) {
	r, err := x.scanRows(n)
	if err == nil && x.coll {
		r.rows = x.tagRows(n.Table, r.rows)
	}
	return r, err
}

func (x *executor) scanRows(n *plan.Node) (*rel, error) {
	if n.Table == nil {
		return nil, cannot("scan without a table")
	}
	if n.Table.IsView() {
		return nil, cannot("unexpanded view %s", n.Table.Name)
	}
	rows, ok := x.db[n.Table.Name]
	if !ok {
		return nil, cannot("table %s is not in the database", n.Table.Name)
	}
	r := x.newRel(n.Cols)
	if x.bp {
		if widths, ok := tableWidths(n.Table); ok && len(widths) == len(n.Cols) {
			r.rows = make([][]Value, len(rows))
			for i, row := range rows {
				if len(row) != len(n.Cols) {
					return nil, fmt.Errorf("exec: table %s: row has %d values, want %d", n.Table.Name, len(row), len(n.Cols))
				}
				padded, err := x.padRow(n.Table, widths, row)
				if err != nil {
					return nil, err
				}
				r.rows[i] = padded
			}
			return r, nil
		}
	}
	converted := false
	for _, row := range rows {
		if len(row) != len(n.Cols) {
			return nil, fmt.Errorf("exec: table %s: row has %d values, want %d", n.Table.Name, len(row), len(n.Cols))
		}
		converted = converted || x.lite && needsLite(row)
	}
	if !converted {
		// The table's own rows: no operator changes its input's rows,
		// and the capacity bound makes an append copy.
		if len(rows) > 0 {
			r.rows = rows[:len(rows):len(rows)]
		}
		return r, nil
	}
	r.rows = make([][]Value, len(rows))
	for i, row := range rows {
		if needsLite(row) {
			row = liteRow(row)
		}
		r.rows[i] = row
	}
	return r, nil
}

func (x *executor) values(n *plan.Node, outer *env) (*rel, error) {
	r := x.newRel(n.Cols)
	r.rows = x.rowList(len(n.Rows))
	block := x.newRows(len(n.Rows), len(n.Cols))
	for _, exprs := range n.Rows {
		if len(exprs) != len(n.Cols) {
			return nil, cannot("VALUES row of %d expressions for %d columns", len(exprs), len(n.Cols))
		}
		row := block.next(len(exprs))
		for i, e := range exprs {
			v, err := x.eval(e, outer)
			if err != nil {
				return nil, err
			}
			row[i] = v
		}
		r.rows = append(r.rows, row)
	}
	return r, nil
}

// where reports whether every predicate is TRUE (not FALSE, not NULL).
func (x *executor) where(preds []*plan.Expr, e *env) (bool, error) {
	for _, p := range preds {
		v, err := x.eval(p, e)
		if err != nil {
			return false, err
		}
		if x.lite {
			b, _, err := liteTruth(v)
			if err != nil {
				return false, err
			}
			if !b {
				return false, nil
			}
			continue
		}
		if v.K != KBool || !v.B {
			if v.K != KBool && v.K != KNull {
				return false, cannot("predicate of kind %s", kindName(v.K))
			}
			return false, nil
		}
	}
	return true, nil
}

func (x *executor) filter(n *plan.Node, outer *env) (*rel, error) {
	in, err := x.node(n.Inputs[0], outer)
	if err != nil {
		return nil, err
	}
	out := x.newRelLike(in)
	out.rows = x.rowList(len(in.rows))
	// One env serves every row: nothing keeps it past an evaluation.
	e := &env{r: in, outer: outer}
	for i, row := range in.rows {
		e.row = row
		ok, err := x.where(n.Preds, e)
		if err != nil {
			return nil, err
		}
		if ok {
			out.rows = append(out.rows, row)
			if in.ties != nil {
				out.ties = append(out.ties, in.ties[i])
			}
		}
	}
	if in.ties != nil && out.ties == nil {
		out.ties = []int{}
	}
	return out, nil
}

func (x *executor) project(n *plan.Node, outer *env) (*rel, error) {
	in, err := x.node(n.Inputs[0], outer)
	if err != nil {
		return nil, err
	}
	out := x.newRel(n.OutCols())
	out.ties = in.ties
	e := &env{r: in, outer: outer}
	out.rows = x.rowList(len(in.rows))
	block := x.newRows(len(in.rows), len(n.Proj))
	for _, row := range in.rows {
		e.row = row
		vals := block.next(len(n.Proj))
		for i, p := range n.Proj {
			if vals[i], err = x.eval(p.Expr, e); err != nil {
				return nil, err
			}
			if p.Expr.Kind == plan.Const && !x.lite {
				// A literal typed by its column (uuid.go): CASE WHEN
				// true THEN 'A0EE...' ELSE u END folded to the literal.
				if vals[i], err = asTyped(x.meta.Col(p.ID).Type, vals[i]); err != nil {
					return nil, err
				}
			}
		}
		out.rows = append(out.rows, vals)
	}
	return out, nil
}

func (x *executor) distinct(n *plan.Node, outer *env) (*rel, error) {
	in, err := x.node(n.Inputs[0], outer)
	if err != nil {
		return nil, err
	}
	out := x.newRelLike(in)
	seen := map[string]int{}
	reps := map[string]string{}
	for i, row := range in.rows {
		k := rowKey(row)
		if x.coll {
			if k, err = looseRowKey(row, reps); err != nil {
				return nil, err
			}
		}
		if j, ok := seen[k]; ok {
			if err := spelledApart(nil, out.rows[j], row); err != nil {
				return nil, err
			}
			continue
		}
		seen[k] = len(out.rows)
		out.rows = append(out.rows, row)
		if in.ties != nil {
			out.ties = append(out.ties, in.ties[i])
		}
	}
	return out, nil
}

// colType is the declared type of a column, for NULL padding and casts.
func (x *executor) colType(id plan.ColumnID) catalog.Type {
	if int(id) < len(x.meta.Columns) {
		return x.meta.Col(id).Type
	}
	return catalog.Unknown
}

// compare orders two non-NULL values under the executor's dialect.
func (x *executor) compare(a, b Value) (int, error) {
	if x.lite {
		return liteCompare(a, b)
	}
	return Compare(a, b)
}
