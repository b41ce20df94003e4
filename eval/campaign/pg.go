package campaign

import (
	"context"
	"fmt"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgequiv/pgequiv/planner/catalog"
)

// pgEngine is one database of a real PostgreSQL cluster.
type pgEngine struct {
	conn   *pgx.Conn
	tables []string // every table, for the digest
}

// pgTimeZones are the session time zones a state draws from: a verdict
// must hold whatever the session's TimeZone.
var pgTimeZones = []string{"UTC", "Asia/Kolkata", "America/New_York", "Pacific/Chatham"}

// openPG creates database name in the cluster at connString (a keyword/
// value string naming dbname=postgres), runs ddl there and returns a
// connection to it with the engine's report of the schema.
func openPG(ctx context.Context, connString, name, ddl string) (*pgEngine, *meta, error) {
	admin, err := pgx.Connect(ctx, connString)
	if err != nil {
		return nil, nil, fmt.Errorf("connect: %w", err)
	}
	defer admin.Close(ctx)
	db := "campaign_" + name
	if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+db); err != nil {
		return nil, nil, fmt.Errorf("drop database %s: %w", db, err)
	}
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+db+" TEMPLATE template0 ENCODING 'UTF8'"); err != nil {
		return nil, nil, fmt.Errorf("create database %s: %w", db, err)
	}
	cs := strings.Replace(connString, "dbname=postgres", "dbname="+db, 1)
	setup, err := pgx.Connect(ctx, cs)
	if err != nil {
		return nil, nil, fmt.Errorf("connect %s: %w", db, err)
	}
	// pg_dump's output empties search_path for its session; the
	// campaign's own connection below is a fresh one.
	_, err = setup.Exec(ctx, ddl)
	setup.Close(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("schema %s: %w", name, err)
	}
	conn, err := pgx.Connect(ctx, cs)
	if err != nil {
		return nil, nil, fmt.Errorf("connect %s: %w", db, err)
	}
	if _, err := conn.Exec(ctx, "SET statement_timeout = '2s'"); err != nil {
		conn.Close(ctx)
		return nil, nil, err
	}
	m, err := pgMeta(ctx, conn)
	if err != nil {
		conn.Close(ctx)
		return nil, nil, fmt.Errorf("schema %s: read pg_catalog: %w", name, err)
	}
	e := &pgEngine{conn: conn}
	for _, t := range m.tables {
		e.tables = append(e.tables, t.name)
	}
	return e, m, nil
}

func (e *pgEngine) dialect() catalog.Dialect { return catalog.Postgres }

func (e *pgEngine) begin(ctx context.Context, tz string) error {
	stmt := "BEGIN"
	if tz != "" {
		stmt += "; SET LOCAL TimeZone = '" + tz + "'"
	}
	_, err := e.conn.Exec(ctx, stmt)
	return err
}

func (e *pgEngine) exec(ctx context.Context, stmt string) error {
	if _, err := e.conn.Exec(ctx, "SAVEPOINT s; "+stmt); err != nil {
		if _, err2 := e.conn.Exec(ctx, "ROLLBACK TO SAVEPOINT s"); err2 != nil {
			return fmt.Errorf("%v (and rollback: %w)", err, err2)
		}
		return err
	}
	return nil
}

func (e *pgEngine) commitCheck(ctx context.Context) error {
	return e.exec(ctx, "SET CONSTRAINTS ALL IMMEDIATE")
}

func (e *pgEngine) rollback(ctx context.Context) error {
	_, err := e.conn.Exec(ctx, "ROLLBACK")
	return err
}

func (e *pgEngine) close() { e.conn.Close(context.Background()) }

func (e *pgEngine) query(ctx context.Context, q string, seeded, fingerprint bool) result {
	pre := "SAVEPOINT q"
	if seeded {
		pre += "; SELECT setseed(0.37)"
	}
	if _, err := e.conn.Exec(ctx, pre); err != nil {
		return result{err: err}
	}
	res := e.rows(ctx, q)
	if fingerprint && res.err == nil {
		res.digest = e.digest(ctx)
	}
	if _, err := e.conn.Exec(ctx, "ROLLBACK TO SAVEPOINT q"); err != nil && res.err == nil {
		res.err = err
	}
	return res
}

func (e *pgEngine) rows(ctx context.Context, q string) result {
	qctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	rows, err := e.conn.Query(qctx, q, pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		return result{err: err}
	}
	defer rows.Close()
	var types []string
	for _, fd := range rows.FieldDescriptions() {
		types = append(types, strconv.FormatUint(uint64(fd.DataTypeOID), 10))
	}
	var out [][]cell
	for rows.Next() {
		raw := rows.RawValues()
		if len(out) >= maxRows {
			return result{err: errTooManyRows}
		}
		row := make([]cell, len(raw))
		for i, b := range raw {
			if b == nil {
				row[i] = cell{"NULL", "NULL"}
			} else {
				loose := pgLoose(string(b))
				if i < len(types) && types[i] == intervalOID {
					loose = intervalLoose(string(b))
				}
				row[i] = cell{"'" + string(b) + "'", loose}
			}
		}
		out = append(out, row)
	}
	return result{rows: out, types: types, ncols: len(types), err: rows.Err()}
}

// digest writes every table's rows, sorted, so that two states compare.
func (e *pgEngine) digest(ctx context.Context) string {
	var b strings.Builder
	for _, t := range e.tables {
		r := e.rows(ctx, "SELECT count(*), md5(coalesce(string_agg(x::text, ',' ORDER BY x::text), '')) FROM ONLY "+pgIdent(t)+" AS x")
		fmt.Fprintf(&b, "%s=%v;", t, r)
	}
	return b.String()
}

var pgNumber = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?(e[-+]?[0-9]+)?$`)

// pgLoose writes a value as SQL compares it: numbers by value (floats to
// 12 significant digits), booleans spelled out, anything else as it is.
func pgLoose(v string) string {
	switch v {
	case "t":
		return "b:true"
	case "f":
		return "b:false"
	case "-0":
		return "n:0"
	}
	if pgNumber.MatchString(v) {
		if r, ok := new(big.Rat).SetString(v); ok && !strings.ContainsAny(v, "eE") {
			if r.IsInt() {
				return "n:" + r.RatString()
			}
			f, _ := r.Float64()
			return "n:" + strconv.FormatFloat(f, 'g', 12, 64)
		}
		if f, err := strconv.ParseFloat(v, 64); err == nil {
			return "n:" + strconv.FormatFloat(f, 'g', 12, 64)
		}
	}
	return "s:" + v
}

// intervalOID is the pg_type OID of interval.
const intervalOID = "1186"

// intervalLoose is an interval as PostgreSQL's = compares it: a month is
// 30 days, a day 24 hours, so '1 mon', '30 days' and '720:00:00' are one
// value (printed apart: a display difference, and peers under ORDER BY).
// It reads the default IntervalStyle's output; what it cannot read stays
// as printed.
func intervalLoose(v string) string {
	var micros big.Int
	add := func(n *big.Rat, unit int64) {
		n.Mul(n, new(big.Rat).SetInt64(unit))
		if !n.IsInt() {
			n.SetInt(new(big.Int).Quo(n.Num(), n.Denom()))
		}
		micros.Add(&micros, n.Num())
	}
	const day = 24 * 3600 * 1000000
	f := strings.Fields(v)
	for i := 0; i < len(f); i++ {
		tok := f[i]
		if strings.Contains(tok, ":") {
			neg := strings.HasPrefix(tok, "-")
			parts := strings.Split(strings.TrimLeft(tok, "+-"), ":")
			if len(parts) != 3 {
				return "s:" + v
			}
			var t big.Rat
			for k, unit := range []int64{3600, 60, 1} {
				x, ok := new(big.Rat).SetString(parts[k])
				if !ok {
					return "s:" + v
				}
				t.Add(&t, x.Mul(x, new(big.Rat).SetInt64(unit)))
			}
			if neg {
				t.Neg(&t)
			}
			add(&t, 1000000)
			continue
		}
		n, ok := new(big.Rat).SetString(tok)
		if !ok || i+1 >= len(f) {
			return "s:" + v
		}
		i++
		switch strings.TrimSuffix(f[i], "s") {
		case "year":
			add(n, 360*day)
		case "mon":
			add(n, 30*day)
		case "day":
			add(n, day)
		default:
			return "s:" + v
		}
	}
	return "iv:" + micros.String()
}

func pgIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// pgMeta reads the tables of schema public from pg_catalog.
func pgMeta(ctx context.Context, conn *pgx.Conn) (*meta, error) {
	m := &meta{}
	rows, err := conn.Query(ctx, `
SELECT c.relname, c.relkind = 'p', coalesce(par.relname, ''),
       a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull OR coalesce(t.typnotnull, false), a.attgenerated <> '',
       coalesce(bt.typname, t.typname), coalesce(bt.typtype, t.typtype)::text,
       coalesce(coll.collname, ''), coalesce(NOT coll.collisdeterministic, false),
       coalesce((SELECT array_agg(e.enumlabel::text ORDER BY e.enumsortorder) FROM pg_enum e WHERE e.enumtypid = coalesce(bt.oid, t.oid)), '{}'),
       coalesce((SELECT array_agg(pg_get_constraintdef(dc.oid)) FROM pg_constraint dc WHERE dc.contypid = t.oid AND dc.contype = 'c'), '{}'),
       CASE WHEN coalesce(bt.typname, t.typname) IN ('varchar', 'bpchar') AND a.atttypmod > 4 THEN a.atttypmod - 4 ELSE 0 END,
       coalesce((SELECT pg_get_expr(d.adbin, d.adrelid) FROM pg_attrdef d WHERE d.adrelid = c.oid AND d.adnum = a.attnum AND a.attgenerated <> ''), '')
FROM pg_class c
JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'public'
JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
JOIN pg_type t ON t.oid = a.atttypid
LEFT JOIN pg_type bt ON t.typtype = 'd' AND bt.oid = t.typbasetype
LEFT JOIN pg_collation coll ON coll.oid = a.attcollation AND a.attcollation <> 100
LEFT JOIN pg_inherits i ON i.inhrelid = c.oid
LEFT JOIN pg_class par ON par.oid = i.inhparent
WHERE c.relkind IN ('r', 'p')
ORDER BY c.oid, a.attnum`)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var tname, parent, cname, typ, base, typtype, coll string
		var part, notNull, gen, nondet bool
		var enum, domCk []string
		var maxLen int
		var genExpr string
		if err := rows.Scan(&tname, &part, &parent, &cname, &typ, &notNull, &gen, &base, &typtype, &coll, &nondet, &enum, &domCk, &maxLen, &genExpr); err != nil {
			rows.Close()
			return nil, err
		}
		t := m.table(tname)
		if t == nil {
			t = &mtable{name: tname, parent: parent, partitioned: part}
			m.tables = append(m.tables, t)
		}
		c := mcol{name: cname, sqlType: typ, cat: pgCategory(base, typtype), notNull: notNull, gen: gen, collate: coll, nondet: nondet, enum: enum, maxLen: maxLen, genExpr: genExpr}
		for _, ck := range domCk {
			c.domainCk = append(c.domainCk, strings.ReplaceAll(checkBody(ck), "VALUE", pgIdent(cname)))
		}
		t.cols = append(t.cols, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	cons, err := conn.Query(ctx, `
SELECT c.relname, k.contype::text, k.condeferrable, pg_get_constraintdef(k.oid),
       coalesce((SELECT array_agg(a.attname::text ORDER BY x.i) FROM unnest(k.conkey) WITH ORDINALITY x(n, i) JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = x.n), '{}'),
       coalesce(f.relname, ''),
       coalesce((SELECT array_agg(a.attname::text ORDER BY x.i) FROM unnest(k.confkey) WITH ORDINALITY x(n, i) JOIN pg_attribute a ON a.attrelid = k.confrelid AND a.attnum = x.n), '{}')
FROM pg_constraint k
JOIN pg_class c ON c.oid = k.conrelid
JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'public'
LEFT JOIN pg_class f ON f.oid = k.confrelid
WHERE k.contype IN ('p', 'u', 'f', 'c')
ORDER BY k.oid`)
	if err != nil {
		return nil, err
	}
	defer cons.Close()
	for cons.Next() {
		var tname, kind, def, ref string
		var deferrable bool
		var cols, refCols []string
		if err := cons.Scan(&tname, &kind, &deferrable, &def, &cols, &ref, &refCols); err != nil {
			return nil, err
		}
		t := m.table(tname)
		if t == nil {
			continue
		}
		switch kind {
		case "p":
			t.pk = cols
		case "u":
			t.uniques = append(t.uniques, cols)
		case "f":
			t.fks = append(t.fks, mfk{cols: cols, ref: ref, refCols: refCols, deferrable: deferrable})
		case "c":
			t.checks = append(t.checks, checkBody(def))
		}
	}
	if err := cons.Err(); err != nil {
		return nil, err
	}
	cons.Close()
	// views, with the columns PostgreSQL froze when each was created
	vs, err := conn.Query(ctx, `
SELECT c.relname, array_agg(a.attname::text ORDER BY a.attnum)
FROM pg_class c
JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'public'
JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
WHERE c.relkind = 'v'
GROUP BY c.relname
ORDER BY c.relname`)
	if err != nil {
		return nil, err
	}
	defer vs.Close()
	for vs.Next() {
		var v mview
		if err := vs.Scan(&v.name, &v.cols); err != nil {
			return nil, err
		}
		m.views = append(m.views, v)
	}
	return m, vs.Err()
}

// checkBody turns "CHECK ((qty > 0))" into "(qty > 0)".
func checkBody(def string) string {
	def = strings.TrimSpace(def)
	def = strings.TrimSuffix(strings.TrimPrefix(def, "CHECK "), " NOT VALID")
	return def
}
