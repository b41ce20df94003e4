// Package catalogcheck compares a catalog loaded from DDL with what a live
// PostgreSQL database says in pg_constraint, pg_index, pg_attribute and
// pg_inherits: the test that the loader misses no fact the engine
// enforces. Tests of the loader (pg_dump output) and of the proxy's
// introspection share it.
package catalogcheck

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/pgequiv/pgequiv/planner/catalog"
)

// Compare lists every fact of db's tables in the public schema that s does
// not hold as the database does; empty when they agree.
func Compare(ctx context.Context, conn *pgx.Conn, s *catalog.Schema) ([]string, error) {
	var bad []string
	miss := func(format string, args ...any) { bad = append(bad, fmt.Sprintf(format, args...)) }
	table := func(name string) *catalog.Table {
		t := s.Table(name)
		if t == nil {
			miss("table %s missing", name)
		}
		return t
	}
	colNames := func(t *catalog.Table, ords []int) string {
		var ns []string
		for _, o := range ords {
			ns = append(ns, t.Columns[o].Name)
		}
		return strings.Join(ns, ",")
	}

	// Columns: NOT NULL (a domain's too), generated, collation, enum, domain.
	rows, err := conn.Query(ctx, `
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
ORDER BY c.relname, a.attnum`)
	if err != nil {
		return nil, fmt.Errorf("catalogcheck: columns: %w", err)
	}
	type colRow struct {
		rel, col, gen, coll, domain string
		notNull, nondet             bool
		enum                        []string
	}
	var cols []colRow
	for rows.Next() {
		var r colRow
		if err := rows.Scan(&r.rel, &r.col, &r.notNull, &r.gen, &r.coll, &r.nondet, &r.enum, &r.domain); err != nil {
			rows.Close()
			return nil, fmt.Errorf("catalogcheck: columns: %w", err)
		}
		cols = append(cols, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("catalogcheck: columns: %w", err)
	}
	for _, r := range cols {
		t := table(r.rel)
		if t == nil {
			continue
		}
		c, ok := s.Column(t, r.col)
		if !ok {
			miss("%s.%s: column missing", r.rel, r.col)
			continue
		}
		if c.NotNull != r.notNull {
			miss("%s.%s: NOT NULL %v, database says %v", r.rel, r.col, c.NotNull, r.notNull)
		}
		if (c.Generated != "") != (r.gen != "") || !sameExpr(c.Generated, r.gen) {
			miss("%s.%s: generated %q, database says %q", r.rel, r.col, c.Generated, r.gen)
		}
		if r.coll != "" && c.Collation != r.coll || c.Nondeterministic != r.nondet {
			miss("%s.%s: collation %q nondeterministic %v, database says %q %v", r.rel, r.col, c.Collation, c.Nondeterministic, r.coll, r.nondet)
		}
		if len(r.enum) > 0 && !slices.Equal(c.Enum, r.enum) || len(r.enum) == 0 && c.Enum != nil {
			miss("%s.%s: enum %q, database says %q", r.rel, r.col, c.Enum, r.enum)
		}
		if c.Domain != r.domain {
			miss("%s.%s: domain %q, database says %q", r.rel, r.col, c.Domain, r.domain)
		}
	}

	// Constraints: keys, foreign keys, CHECKs.
	rows, err = conn.Query(ctx, `
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
ORDER BY c.relname, k.conname`)
	if err != nil {
		return nil, fmt.Errorf("catalogcheck: constraints: %w", err)
	}
	type conRow struct {
		rel, name, typ, ref, expr string
		deferrable, valid         bool
		cols, refCols             []string
	}
	var cons []conRow
	for rows.Next() {
		var r conRow
		if err := rows.Scan(&r.rel, &r.name, &r.typ, &r.deferrable, &r.valid, &r.cols, &r.ref, &r.refCols, &r.expr); err != nil {
			rows.Close()
			return nil, fmt.Errorf("catalogcheck: constraints: %w", err)
		}
		cons = append(cons, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("catalogcheck: constraints: %w", err)
	}
	for _, r := range cons {
		t := table(r.rel)
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
					miss("%s: deferrable primary key %s (%s) not in DeferrableKeys", r.rel, r.name, want)
				}
			} else if colNames(t, t.PrimaryKey) != want {
				miss("%s: primary key %s (%s), catalog has (%s)", r.rel, r.name, want, colNames(t, t.PrimaryKey))
			}
		case "u":
			switch {
			case r.deferrable && !has(t.DeferrableKeys):
				miss("%s: deferrable unique %s (%s) not in DeferrableKeys", r.rel, r.name, want)
			case r.deferrable && has(t.Unique):
				miss("%s: deferrable unique %s (%s) is trusted as Unique", r.rel, r.name, want)
			case !r.deferrable && !has(t.Unique) && colNames(t, t.PrimaryKey) != want:
				miss("%s: unique %s (%s) missing", r.rel, r.name, want)
			}
		case "f":
			list, other := t.ForeignKeys, t.DeferrableForeignKeys
			if r.deferrable {
				list, other = other, list
			}
			match := func(fk catalog.ForeignKey) bool {
				ref := s.Table(fk.RefTable)
				return colNames(t, fk.Columns) == want && ref != nil && ref.Name == r.ref && colNames(ref, fk.RefColumns) == strings.Join(r.refCols, ",")
			}
			if r.valid && !slices.ContainsFunc(list, match) {
				miss("%s: foreign key %s (%s) -> %s missing (deferrable %v)", r.rel, r.name, want, r.ref, r.deferrable)
			}
			if slices.ContainsFunc(other, match) || !r.valid && slices.ContainsFunc(list, match) {
				miss("%s: foreign key %s (%s) -> %s held as the wrong kind", r.rel, r.name, want, r.ref)
			}
		case "c":
			found := slices.ContainsFunc(t.Checks, func(c catalog.Check) bool { return sameExpr(c.Expr, r.expr) })
			if r.valid && !found {
				miss("%s: CHECK %s (%s) missing; catalog has %q", r.rel, r.name, r.expr, t.Checks)
			}
			if !r.valid && found {
				miss("%s: NOT VALID CHECK %s (%s) is trusted", r.rel, r.name, r.expr)
			}
		}
	}

	// Domain CHECKs of each domain column.
	rows, err = conn.Query(ctx, `
WITH RECURSIVE dom(rel, col, typ) AS (
  SELECT c.relname::text, a.attname::text, a.atttypid FROM pg_attribute a
  JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'public'
  JOIN pg_type t ON t.oid = a.atttypid AND t.typtype = 'd'
  WHERE c.relkind IN ('r', 'p') AND a.attnum > 0 AND NOT a.attisdropped
  UNION ALL
  SELECT d.rel, d.col, t.typbasetype FROM dom d JOIN pg_type t ON t.oid = d.typ AND t.typtype = 'd')
SELECT d.rel, d.col, k.conname, pg_get_constraintdef(k.oid)
FROM dom d JOIN pg_constraint k ON k.contypid = d.typ AND k.contype = 'c' AND k.convalidated`)
	if err != nil {
		return nil, fmt.Errorf("catalogcheck: domain checks: %w", err)
	}
	type domRow struct{ rel, col, name, def string }
	var doms []domRow
	for rows.Next() {
		var r domRow
		if err := rows.Scan(&r.rel, &r.col, &r.name, &r.def); err != nil {
			rows.Close()
			return nil, fmt.Errorf("catalogcheck: domain checks: %w", err)
		}
		doms = append(doms, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("catalogcheck: domain checks: %w", err)
	}
	for _, r := range doms {
		t := table(r.rel)
		if t == nil {
			continue
		}
		expr := strings.TrimSuffix(strings.TrimPrefix(r.def, "CHECK ("), ")")
		expr = replaceWord(expr, "VALUE", `"`+r.col+`"`)
		if !slices.ContainsFunc(t.Checks, func(c catalog.Check) bool { return sameExpr(c.Expr, expr) }) {
			miss("%s.%s: domain CHECK %s (%s) missing; catalog has %q", r.rel, r.col, r.name, expr, t.Checks)
		}
	}

	// Unique indexes that are not constraints.
	rows, err = conn.Query(ctx, `
SELECT c.relname, ic.relname, i.indexprs IS NOT NULL OR i.indpred IS NOT NULL,
       COALESCE(pg_get_expr(i.indpred, i.indrelid), ''),
       COALESCE((SELECT array_agg(pg_get_indexdef(i.indexrelid, k, true) ORDER BY k)::text[]
                 FROM generate_series(1, i.indnkeyatts) k), '{}')
FROM pg_index i
JOIN pg_class c ON c.oid = i.indrelid
JOIN pg_class ic ON ic.oid = i.indexrelid
JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'public'
WHERE i.indisunique AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid)
  AND c.relkind IN ('r', 'p')`)
	if err != nil {
		return nil, fmt.Errorf("catalogcheck: indexes: %w", err)
	}
	type idxRow struct {
		rel, name, where string
		special          bool
		exprs            []string
	}
	var idx []idxRow
	for rows.Next() {
		var r idxRow
		if err := rows.Scan(&r.rel, &r.name, &r.special, &r.where, &r.exprs); err != nil {
			rows.Close()
			return nil, fmt.Errorf("catalogcheck: indexes: %w", err)
		}
		idx = append(idx, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("catalogcheck: indexes: %w", err)
	}
	for _, r := range idx {
		t := table(r.rel)
		if t == nil {
			continue
		}
		if !r.special {
			want := strings.Join(r.exprs, ",")
			if !slices.ContainsFunc(t.Unique, func(o []int) bool { return colNames(t, o) == want }) {
				miss("%s: unique index %s (%s) missing from Unique", r.rel, r.name, want)
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
			miss("%s: unique index %s (%q where %q) missing; catalog has %+v", r.rel, r.name, r.exprs, r.where, t.UniqueIndexes)
		}
	}

	// Inheritance, partitioning.
	rows, err = conn.Query(ctx, `
SELECT c.relname, c.relkind = 'p', COALESCE((SELECT array_agg(p.relname ORDER BY h.inhseqno)::text[]
         FROM pg_inherits h JOIN pg_class p ON p.oid = h.inhparent WHERE h.inhrelid = c.oid), '{}'),
       c.relispartition
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'public'
WHERE c.relkind IN ('r', 'p')`)
	if err != nil {
		return nil, fmt.Errorf("catalogcheck: inheritance: %w", err)
	}
	type inhRow struct {
		rel                    string
		partitioned, partition bool
		parents                []string
	}
	var inh []inhRow
	for rows.Next() {
		var r inhRow
		if err := rows.Scan(&r.rel, &r.partitioned, &r.parents, &r.partition); err != nil {
			rows.Close()
			return nil, fmt.Errorf("catalogcheck: inheritance: %w", err)
		}
		inh = append(inh, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("catalogcheck: inheritance: %w", err)
	}
	for _, r := range inh {
		t := table(r.rel)
		if t == nil {
			continue
		}
		if t.Partitioned != r.partitioned {
			miss("%s: partitioned %v, database says %v", r.rel, t.Partitioned, r.partitioned)
		}
		if !slices.Equal(t.Inherits, r.parents) {
			miss("%s: inherits %q, database says %q", r.rel, t.Inherits, r.parents)
		}
		if r.partition && t.PartitionBound == "" && len(t.Unmodelled) == 0 {
			miss("%s: a partition with no bound", r.rel)
		}
	}
	return bad, nil
}

// sameExpr says whether two SQL expressions over a table's columns are
// the same up to how they are printed: the loader's deparse and
// pg_get_expr differ in parentheses, casts of literals and quotes, so the
// texts are compared with those stripped.
func sameExpr(a, b string) bool {
	return normExpr(a) == normExpr(b)
}

var castRE = regexp.MustCompile(`::[a-z_]+( varying| precision)?`)

func normExpr(s string) string {
	s = strings.ToLower(s)
	s = castRE.ReplaceAllString(s, "")
	r := strings.NewReplacer("(", "", ")", "", `"`, "", " ", "", "\n", "")
	return r.Replace(s)
}

// replaceWord replaces whole-word occurrences of w in s.
func replaceWord(s, w, by string) string {
	var out strings.Builder
	for i := 0; i < len(s); {
		if strings.HasPrefix(s[i:], w) && (i == 0 || !isWord(s[i-1])) && (i+len(w) == len(s) || !isWord(s[i+len(w)])) {
			out.WriteString(by)
			i += len(w)
			continue
		}
		out.WriteByte(s[i])
		i++
	}
	return out.String()
}

func isWord(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
