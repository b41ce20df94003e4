package catalogcheck

import (
	"context"
	"slices"

	"github.com/jackc/pgx/v5"
)

// colRow is a column as the database holds it.
type colRow struct {
	rel, col, gen, coll, domain string
	notNull, nondet             bool
	enum                        []string
}

// columnsSQL reads the columns of the tables in the public schema.
const columnsSQL = `
SELECT c.relname, a.attname, a.attnotnull OR EXISTS (
         WITH RECURSIVE d(t) AS (SELECT a.atttypid UNION ALL
           SELECT b.typbasetype FROM pg_type b JOIN d ON b.oid = d.t WHERE b.typtype = 'd')
         SELECT 1 FROM d JOIN pg_type x ON x.oid = d.t WHERE x.typnotnull),
       CASE WHEN a.attgenerated = 's' THEN pg_get_expr(d.adbin, d.adrelid) ELSE '' END,
       CASE WHEN a.attcollation <> t.typcollation AND a.attcollation <> 0 THEN co.collname ELSE '' END,
       COALESCE(NOT co.collisdeterministic, false),
       COALESCE((SELECT array_agg(e.enumlabel ORDER BY e.enumsortorder)::text[] FROM pg_enum e
                 WHERE e.enumtypid = CASE WHEN t.typtype = 'd' THEN t.typbasetype ELSE t.oid END), '{}'),
       CASE WHEN t.typtype = 'd' THEN t.typname ELSE '' END
FROM pg_attribute a
JOIN pg_class c ON c.oid = a.attrelid
JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'public'
JOIN pg_type t ON t.oid = a.atttypid
LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
LEFT JOIN pg_collation co ON co.oid = a.attcollation
WHERE c.relkind IN ('r', 'p') AND a.attnum > 0 AND NOT a.attisdropped
ORDER BY c.relname, a.attnum`

// columns compares the columns: NOT NULL (a domain's too), generated,
// collation, enum, domain.
func (c *comparison) columns(ctx context.Context, conn *pgx.Conn) error {
	cols, err := queryRows(ctx, conn, "columns", columnsSQL, func(rows pgx.Rows, r *colRow) error {
		return rows.Scan(&r.rel, &r.col, &r.notNull, &r.gen, &r.coll, &r.nondet, &r.enum, &r.domain)
	})
	if err != nil {
		return err
	}
	for _, r := range cols {
		t := c.table(r.rel)
		if t == nil {
			continue
		}
		col, ok := c.s.Column(t, r.col)
		if !ok {
			c.miss("%s.%s: column missing", r.rel, r.col)
			continue
		}
		if col.NotNull != r.notNull {
			c.miss("%s.%s: NOT NULL %v, database says %v", r.rel, r.col, col.NotNull, r.notNull)
		}
		if (col.Generated != "") != (r.gen != "") || !sameExpr(col.Generated, r.gen) {
			c.miss("%s.%s: generated %q, database says %q", r.rel, r.col, col.Generated, r.gen)
		}
		if r.coll != "" && col.Collation != r.coll || col.Nondeterministic != r.nondet {
			c.miss("%s.%s: collation %q nondeterministic %v, database says %q %v", r.rel, r.col, col.Collation, col.Nondeterministic, r.coll, r.nondet)
		}
		if len(r.enum) > 0 && !slices.Equal(col.Enum, r.enum) || len(r.enum) == 0 && col.Enum != nil {
			c.miss("%s.%s: enum %q, database says %q", r.rel, r.col, col.Enum, r.enum)
		}
		if col.Domain != r.domain {
			c.miss("%s.%s: domain %q, database says %q", r.rel, r.col, col.Domain, r.domain)
		}
	}
	return nil
}
