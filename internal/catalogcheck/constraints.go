package catalogcheck

import (
	"context"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/pgequiv/pgequiv/planner/catalog"
)

// conRow is a key, foreign key or CHECK constraint as the database
// holds it.
type conRow struct {
	rel, name, typ, ref, expr string
	deferrable, valid         bool
	cols, refCols             []string
}

// constraintsSQL reads the constraints of the tables in the public schema.
const constraintsSQL = `
SELECT c.relname, k.conname, k.contype::text, k.condeferrable, k.convalidated,
       COALESCE((SELECT array_agg(a.attname ORDER BY x.i)::text[] FROM unnest(k.conkey) WITH ORDINALITY x(n, i)
                 JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = x.n), '{}'),
       COALESCE(f.relname, ''),
       COALESCE((SELECT array_agg(a.attname ORDER BY x.i)::text[] FROM unnest(k.confkey) WITH ORDINALITY x(n, i)
                 JOIN pg_attribute a ON a.attrelid = k.confrelid AND a.attnum = x.n), '{}'),
       CASE WHEN k.contype = 'c' THEN pg_get_expr(k.conbin, k.conrelid) ELSE '' END
FROM pg_constraint k
JOIN pg_class c ON c.oid = k.conrelid
JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'public'
LEFT JOIN pg_class f ON f.oid = k.confrelid
WHERE k.contype IN ('p', 'u', 'f', 'c')
ORDER BY c.relname, k.conname`

// constraints compares the constraints: keys, foreign keys, CHECKs.
func (c *comparison) constraints(ctx context.Context, conn *pgx.Conn) error {
	cons, err := queryRows(ctx, conn, "constraints", constraintsSQL, func(rows pgx.Rows, r *conRow) error {
		return rows.Scan(&r.rel, &r.name, &r.typ, &r.deferrable, &r.valid, &r.cols, &r.ref, &r.refCols, &r.expr)
	})
	if err != nil {
		return err
	}
	for _, r := range cons {
		t := c.table(r.rel)
		if t == nil {
			continue
		}
		want := strings.Join(r.cols, ",")
		has := func(sets [][]int) bool {
			return slices.ContainsFunc(sets, func(o []int) bool { return colNames(t, o) == want })
		}
		switch r.typ {
		case "p":
			if r.deferrable {
				if !has(t.DeferrableKeys) {
					c.miss("%s: deferrable primary key %s (%s) not in DeferrableKeys", r.rel, r.name, want)
				}
			} else if colNames(t, t.PrimaryKey) != want {
				c.miss("%s: primary key %s (%s), catalog has (%s)", r.rel, r.name, want, colNames(t, t.PrimaryKey))
			}
		case "u":
			switch {
			case r.deferrable && !has(t.DeferrableKeys):
				c.miss("%s: deferrable unique %s (%s) not in DeferrableKeys", r.rel, r.name, want)
			case r.deferrable && has(t.Unique):
				c.miss("%s: deferrable unique %s (%s) is trusted as Unique", r.rel, r.name, want)
			case !r.deferrable && !has(t.Unique) && colNames(t, t.PrimaryKey) != want:
				c.miss("%s: unique %s (%s) missing", r.rel, r.name, want)
			}
		case "f":
			list, other := t.ForeignKeys, t.DeferrableForeignKeys
			if r.deferrable {
				list, other = other, list
			}
			match := func(fk catalog.ForeignKey) bool {
				ref := c.s.Table(fk.RefTable)
				return colNames(t, fk.Columns) == want && ref != nil && ref.Name == r.ref && colNames(ref, fk.RefColumns) == strings.Join(r.refCols, ",")
			}
			if r.valid && !slices.ContainsFunc(list, match) {
				c.miss("%s: foreign key %s (%s) -> %s missing (deferrable %v)", r.rel, r.name, want, r.ref, r.deferrable)
			}
			if slices.ContainsFunc(other, match) || !r.valid && slices.ContainsFunc(list, match) {
				c.miss("%s: foreign key %s (%s) -> %s held as the wrong kind", r.rel, r.name, want, r.ref)
			}
		case "c":
			found := slices.ContainsFunc(t.Checks, func(ck catalog.Check) bool { return sameExpr(ck.Expr, r.expr) })
			if r.valid && !found {
				c.miss("%s: CHECK %s (%s) missing; catalog has %q", r.rel, r.name, r.expr, t.Checks)
			}
			if !r.valid && found {
				c.miss("%s: NOT VALID CHECK %s (%s) is trusted", r.rel, r.name, r.expr)
			}
		}
	}
	return nil
}

// domRow is a CHECK of a domain column's type.
type domRow struct{ rel, col, name, def string }

// domainChecksSQL reads the validated CHECKs of the domains, and of
// their base domains, of the columns of the tables in the public schema.
const domainChecksSQL = `
WITH RECURSIVE dom(rel, col, typ) AS (
  SELECT c.relname::text, a.attname::text, a.atttypid FROM pg_attribute a
  JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'public'
  JOIN pg_type t ON t.oid = a.atttypid AND t.typtype = 'd'
  WHERE c.relkind IN ('r', 'p') AND a.attnum > 0 AND NOT a.attisdropped
  UNION ALL
  SELECT d.rel, d.col, t.typbasetype FROM dom d JOIN pg_type t ON t.oid = d.typ AND t.typtype = 'd')
SELECT d.rel, d.col, k.conname, pg_get_constraintdef(k.oid)
FROM dom d JOIN pg_constraint k ON k.contypid = d.typ AND k.contype = 'c' AND k.convalidated`

// domainChecks compares the domain CHECKs of each domain column.
func (c *comparison) domainChecks(ctx context.Context, conn *pgx.Conn) error {
	doms, err := queryRows(ctx, conn, "domain checks", domainChecksSQL, func(rows pgx.Rows, r *domRow) error {
		return rows.Scan(&r.rel, &r.col, &r.name, &r.def)
	})
	if err != nil {
		return err
	}
	for _, r := range doms {
		t := c.table(r.rel)
		if t == nil {
			continue
		}
		expr := strings.TrimSuffix(strings.TrimPrefix(r.def, "CHECK ("), ")")
		expr = replaceWord(expr, "VALUE", `"`+r.col+`"`)
		if !slices.ContainsFunc(t.Checks, func(ck catalog.Check) bool { return sameExpr(ck.Expr, expr) }) {
			c.miss("%s.%s: domain CHECK %s (%s) missing; catalog has %q", r.rel, r.col, r.name, expr, t.Checks)
		}
	}
	return nil
}
