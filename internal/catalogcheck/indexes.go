package catalogcheck

import (
	"context"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/pgequiv/pgequiv/planner/catalog"
)

// idxRow is a unique index that is no constraint: special where it has
// expressions or a predicate.
type idxRow struct {
	rel, name, where string
	special          bool
	exprs            []string
}

// uniqueIndexesSQL reads the unique indexes of the tables in the public
// schema that are no constraint.
const uniqueIndexesSQL = `
SELECT c.relname, ic.relname, i.indexprs IS NOT NULL OR i.indpred IS NOT NULL,
       COALESCE(pg_get_expr(i.indpred, i.indrelid), ''),
       COALESCE((SELECT array_agg(pg_get_indexdef(i.indexrelid, k, true) ORDER BY k)::text[]
                 FROM generate_series(1, i.indnkeyatts) k), '{}')
FROM pg_index i
JOIN pg_class c ON c.oid = i.indrelid
JOIN pg_class ic ON ic.oid = i.indexrelid
JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'public'
WHERE i.indisunique AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid)
  AND c.relkind IN ('r', 'p')`

// uniqueIndexes compares the unique indexes that are not constraints.
func (c *comparison) uniqueIndexes(ctx context.Context, conn *pgx.Conn) error {
	idx, err := queryRows(ctx, conn, "indexes", uniqueIndexesSQL, func(rows pgx.Rows, r *idxRow) error {
		return rows.Scan(&r.rel, &r.name, &r.special, &r.where, &r.exprs)
	})
	if err != nil {
		return err
	}
	for _, r := range idx {
		t := c.table(r.rel)
		if t == nil {
			continue
		}
		if !r.special {
			want := strings.Join(r.exprs, ",")
			if !slices.ContainsFunc(t.Unique, func(o []int) bool { return colNames(t, o) == want }) {
				c.miss("%s: unique index %s (%s) missing from Unique", r.rel, r.name, want)
			}
			continue
		}
		ok := slices.ContainsFunc(t.UniqueIndexes, func(u catalog.UniqueIndex) bool {
			if len(u.Exprs) != len(r.exprs) || !sameExpr(u.Where, r.where) {
				return false
			}
			for i := range u.Exprs {
				if !sameExpr(u.Exprs[i], r.exprs[i]) {
					return false
				}
			}
			return true
		})
		if !ok {
			c.miss("%s: unique index %s (%q where %q) missing; catalog has %+v", r.rel, r.name, r.exprs, r.where, t.UniqueIndexes)
		}
	}
	return nil
}
