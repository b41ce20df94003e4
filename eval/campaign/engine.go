package campaign

import (
	"context"
	"strings"

	"github.com/pgequiv/pgequiv/planner/catalog"
)

// target is one schema of the corpus on one real engine: the product's
// catalog of it (read from the DDL through the product's normal path),
// the engine's own report of it, and a connection to an empty instance.
type target struct {
	name string // the corpus schema's name
	ddl  string
	// schema is what catalog.LoadDDL (or sqlitefile.Load) made of the
	// DDL: the judge's and the refuter's view; nil when it did not load.
	schema *catalog.Schema
	// loader names the product's path that made schema.
	loader string
	meta   *meta
	eng    engine
}

// engine is a connection to a real database holding one schema's empty
// tables. Every state is built inside a transaction that rollback undoes.
type engine interface {
	dialect() catalog.Dialect
	// begin starts a fresh state: empty tables, session time zone tz
	// (PostgreSQL; "" keeps the server's).
	begin(ctx context.Context, tz string) error
	// exec runs one statement; a statement the engine refuses leaves the
	// state as it was and returns the engine's error.
	exec(ctx context.Context, stmt string) error
	// commitCheck reports whether the state could commit: deferred
	// constraints checked now (PostgreSQL SET CONSTRAINTS ALL IMMEDIATE).
	commitCheck(ctx context.Context) error
	// query runs q and undoes whatever it changed; seed > 0 seeds
	// random() first where the engine can. fingerprint asks for a digest
	// of every table as q left them (a data-modifying statement).
	query(ctx context.Context, q string, seeded bool, fingerprint bool) result
	rollback(ctx context.Context) error
	close()
}

// cell is one value of a result: exact is the engine's own text (with
// its storage class in SQLite), loose the value as SQL compares it
// (numbers by value), so that a difference in display only is told from
// a difference in value.
type cell struct{ exact, loose string }

// result is one query's rows on the engine, or the engine's error.
type result struct {
	rows [][]cell
	// types are the result columns' types as the engine reports them
	// (PostgreSQL; nil for SQLite, whose values carry their class).
	types []string
	// ncols is the number of result columns the engine described, also
	// for an empty result.
	ncols  int
	err    error
	digest string // the tables after the query, when asked
	// full is the reference's result without its LIMIT: the rows a cut
	// may choose among when they tie.
	full *result
}

func (r result) String() string {
	if r.err != nil {
		return "error: " + firstLine(r.err.Error())
	}
	var b strings.Builder
	b.WriteString("[")
	for i, row := range r.rows {
		if i == 8 {
			b.WriteString(" …")
			break
		}
		if i > 0 {
			b.WriteString(" ")
		}
		b.WriteString("(")
		for j, c := range row {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString(c.exact)
		}
		b.WriteString(")")
	}
	b.WriteString("]")
	return b.String()
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
