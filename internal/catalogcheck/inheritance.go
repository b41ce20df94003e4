package catalogcheck

import (
	"context"
	"slices"

	"github.com/jackc/pgx/v5"
)

// inhRow is a table's place in inheritance and partitioning.
type inhRow struct {
	rel                    string
	partitioned, partition bool
	parents                []string
}

// inheritanceSQL reads the inheritance of the tables in the public schema.
const inheritanceSQL = `
SELECT c.relname, c.relkind = 'p', COALESCE((SELECT array_agg(p.relname ORDER BY h.inhseqno)::text[]
         FROM pg_inherits h JOIN pg_class p ON p.oid = h.inhparent WHERE h.inhrelid = c.oid), '{}'),
       c.relispartition
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'public'
WHERE c.relkind IN ('r', 'p')`

// inheritance compares inheritance and partitioning.
func (c *comparison) inheritance(ctx context.Context, conn *pgx.Conn) error {
	inh, err := queryRows(ctx, conn, "inheritance", inheritanceSQL, func(rows pgx.Rows, r *inhRow) error {
		return rows.Scan(&r.rel, &r.partitioned, &r.parents, &r.partition)
	})
	if err != nil {
		return err
	}
	for _, r := range inh {
		t := c.table(r.rel)
		if t == nil {
			continue
		}
		if t.Partitioned != r.partitioned {
			c.miss("%s: partitioned %v, database says %v", r.rel, t.Partitioned, r.partitioned)
		}
		if !slices.Equal(t.Inherits, r.parents) {
			c.miss("%s: inherits %q, database says %q", r.rel, t.Inherits, r.parents)
		}
		if r.partition && t.PartitionBound == "" && len(t.Unmodelled) == 0 {
			c.miss("%s: a partition with no bound", r.rel)
		}
	}
	return nil
}
