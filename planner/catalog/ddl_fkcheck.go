package catalog

import (
	"errors"
	"fmt"
	"slices"
)

// ErrRejected is wrapped by the error of a schema the engine itself
// refuses to create: a verdict over a schema no database can have would
// be about nothing.
var ErrRejected = errors.New("the engine refuses this statement")

// checkForeignKey refuses, in PostgreSQL, a foreign key the engine
// refuses when the statement adding it runs: its table is not declared
// before it (or is no table), or the columns it references are not the
// whole of one non-deferrable primary key, UNIQUE constraint or plain
// unique index declared before it. (pg_dump adds every foreign key with
// ALTER TABLE after every table and key, which this lets through.)
// SQLite checks none of this when a table is created.
// stmt names the statement for the error ("CREATE TABLE orders").
func (b *ddlBuilder) checkForeignKey(stmt string, fk fkDef) error {
	if b.d != Postgres {
		return nil
	}
	fail := func(format string, args ...any) error {
		return fmt.Errorf("catalog: line %d: %s: foreign key %s: %w: %s", b.line, stmt, fk.name, ErrRejected, fmt.Sprintf(format, args...))
	}
	ref := b.byName[b.norm(fk.ref)]
	if ref == nil {
		for _, v := range b.views {
			if b.norm(v.Name) == b.norm(fk.ref) {
				return fail("referenced relation %q is not a table", fk.ref)
			}
		}
		if b.matviews[b.norm(fk.ref)] {
			return fail("referenced relation %q is not a table", fk.ref)
		}
		return fail("relation %q does not exist (a table must be declared before a foreign key references it)", fk.ref)
	}
	var want []string
	if len(fk.refCols) == 0 {
		for _, k := range ref.keys {
			if k.primary {
				want = k.cols
			}
		}
		if want == nil {
			return fail("there is no primary key for referenced table %q", fk.ref)
		}
	} else {
		for _, n := range fk.refCols {
			o := ref.t.ordinal(n, b.d)
			if o < 0 {
				return fail("column %q referenced in foreign key constraint does not exist", n)
			}
			want = append(want, ref.t.Columns[o].Name)
		}
	}
	if len(want) != len(fk.cols) {
		return fail("number of referencing and referenced columns for foreign key disagree")
	}
	same := func(k keyDef) bool {
		if k.deferrable || len(k.cols) != len(want) {
			return false
		}
		for _, c := range want {
			if !slices.Contains(k.cols, c) {
				return false
			}
		}
		return true
	}
	if !slices.ContainsFunc(ref.keys, same) {
		return fail("there is no unique constraint matching given keys for referenced table %q", fk.ref)
	}
	return nil
}
