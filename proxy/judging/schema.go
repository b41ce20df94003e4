package judging

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/proxy"
)

// SchemaSettings say where the schema of each database comes from: DDL
// files (loaded by the caller), else introspection of the upstream.
type SchemaSettings struct {
	// ByDatabase are schemas from DDL files, by database name.
	ByDatabase map[string]*catalog.Schema
	// Default, if set, serves every database not in ByDatabase.
	Default *catalog.Schema
	// Functions are what the files of ByDatabase[db] declare of
	// functions (ReadFileFunctions), DefaultFunctions those of Default's.
	// Without them the files declare none: a query calling any function
	// but a read-only built-in is refused for its side effects.
	Functions        map[string]*FileFunctions
	DefaultFunctions *FileFunctions
	// Introspect, if set, reads the schema of other databases from the
	// upstream's pg_catalog.
	Introspect *Introspection
	// RefreshInterval: an introspected schema older than this is read
	// again on its next use; 0 means only on DDL and reload.
	RefreshInterval time.Duration
}

// Introspection is how the proxy reads schemas from the upstream: its own
// connection, as a configured role, to the client's database. It reads
// only pg_catalog, never table data.
type Introspection struct {
	Upstream proxy.Upstream
	User     string
	Password string
	// Timeout bounds one introspection (default 10s).
	Timeout time.Duration
}

// ErrNoSchema is returned for a database with no schema source.
var ErrNoSchema = errors.New("no schema for this database (configure schema files or introspection)")

// introspectRetry is how long a failed introspection is remembered before
// the next use tries again.
const introspectRetry = 5 * time.Second

// schemaCache holds introspected schemas by database; one load runs per
// database at a time and every waiter shares it.
type schemaCache struct {
	log   *slog.Logger
	stats *judgeStats
	wg    sync.WaitGroup

	// rolePaths: some introspection read a login search_path setting
	// (rolepath.go); never cleared.
	rolePaths atomic.Bool

	mu      sync.Mutex
	entries map[string]*schemaEntry
	// undeclared serves a schema from files given without its
	// FileFunctions (filefuncs.go).
	undeclared map[*catalog.Schema]*FileFunctions
}

type schemaEntry struct {
	done   chan struct{} // closed when the load ends
	schema *catalog.Schema
	err    error
	loaded time.Time
	stale  bool // guarded by schemaCache.mu
	// volatile: the names of VOLATILE functions, their operators and
	// the views calling them (volatile.go).
	volatile map[string]bool
	// paths: the login search_path settings (rolepath.go).
	paths *rolePaths
}

func newSchemaCache(log *slog.Logger, stats *judgeStats) *schemaCache {
	return &schemaCache{log: log, stats: stats, entries: map[string]*schemaEntry{}}
}

func (e *schemaEntry) finished() bool {
	select {
	case <-e.done:
		return true
	default:
		return false
	}
}

// get returns db's schema, introspecting it if needed; it waits for the
// load until ctx ends (the load itself goes on for later users).
func (c *schemaCache) get(ctx context.Context, set *SchemaSettings, db string) (*catalog.Schema, error) {
	if s := set.ByDatabase[db]; s != nil {
		return s, nil
	}
	if set.Default != nil {
		return set.Default, nil
	}
	if set.Introspect == nil {
		return nil, ErrNoSchema
	}
	c.mu.Lock()
	e := c.entries[db]
	if e == nil || e.finished() && (e.stale ||
		e.err != nil && time.Since(e.loaded) > introspectRetry ||
		set.RefreshInterval > 0 && time.Since(e.loaded) > set.RefreshInterval) {
		e = &schemaEntry{done: make(chan struct{})}
		c.entries[db] = e
		c.wg.Add(1)
		go c.load(e, *set.Introspect, db)
	}
	c.mu.Unlock()
	select {
	case <-e.done:
		return e.schema, e.err
	case <-ctx.Done():
		return nil, fmt.Errorf("waiting for the schema of %q: %w", db, ctx.Err())
	}
}

// peek returns db's schema where get would return it at once, without
// waiting or starting a load; ok is false otherwise, and get decides.
func (c *schemaCache) peek(set *SchemaSettings, db string) (*catalog.Schema, bool) {
	if s := set.ByDatabase[db]; s != nil {
		return s, true
	}
	if set.Default != nil {
		return set.Default, true
	}
	if set.Introspect == nil {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.entries[db]
	if e == nil || !e.finished() || e.stale || e.err != nil ||
		set.RefreshInterval > 0 && time.Since(e.loaded) > set.RefreshInterval {
		return nil, false
	}
	return e.schema, true
}

func (c *schemaCache) load(e *schemaEntry, in Introspection, db string) {
	defer c.wg.Done()
	ctx, cancel := context.WithTimeout(context.Background(), in.Timeout)
	defer cancel()
	start := time.Now()
	s, ddl, facts, err := introspect(ctx, in, db)
	c.stats.introspections.Add(1)
	if err != nil {
		c.stats.introspectionFailures.Add(1)
		c.log.Warn("pgequiv: schema introspection failed", "database", db, "err", err, "partial", s != nil)
		if s != nil {
			err = nil // tables without the views are still worth judging with
		}
	} else {
		c.log.Debug("pgequiv: schema introspected", "database", db, "tables", strings.Count(ddl, "CREATE "), "took", time.Since(start))
	}
	c.mu.Lock()
	e.schema, e.err, e.loaded, e.volatile, e.paths = s, err, time.Now(), facts.volatile, facts.paths
	if facts.paths != nil && len(facts.paths.byKey) > 0 {
		c.rolePaths.Store(true)
	}
	c.mu.Unlock()
	close(e.done)
}

// invalidate marks db's introspected schema stale; the next use reads it
// again. A load in flight is marked too, since it may predate the change.
func (c *schemaCache) invalidate(db string) {
	c.mu.Lock()
	if e := c.entries[db]; e != nil {
		e.stale = true
	}
	c.mu.Unlock()
}

func (c *schemaCache) invalidateAll() {
	c.mu.Lock()
	for _, e := range c.entries {
		e.stale = true
	}
	c.mu.Unlock()
}

func (c *schemaCache) wait() { c.wg.Wait() }

// volatile returns the VOLATILE names of db's last finished
// introspection (volatile.go); nil for a schema from files or one not
// read yet.
func (c *schemaCache) volatile(set *SchemaSettings, db string) map[string]bool {
	if set.ByDatabase[db] != nil || set.Default != nil || set.Introspect == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.entries[db]; e != nil && e.finished() {
		return e.volatile
	}
	return nil
}

// rolePathWhy says how a login of role to db resolves names otherwise
// than db's last finished introspection (rolepath.go); "" if it does not,
// for a schema from files, or before one is read.
func (c *schemaCache) rolePathWhy(set *SchemaSettings, db, role string) string {
	if !c.rolePaths.Load() || set.ByDatabase[db] != nil || set.Default != nil || set.Introspect == nil {
		return "" // the common case, without the lock: no login sets one
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.entries[db]; e != nil && e.finished() {
		return e.paths.why(db, role)
	}
	return ""
}

// Introspect reads database db's schema from the upstream's pg_catalog
// (tables, columns, types, primary keys, unique constraints and indexes,
// NOT NULL, foreign keys, views) as DDL and loads it. It reads the
// relations visible on the role's search_path, outside pg_catalog and
// information_schema, and never table data. It returns the DDL too.
func Introspect(ctx context.Context, in Introspection, db string) (*catalog.Schema, string, error) {
	s, ddl, _, err := introspect(ctx, in, db)
	return s, ddl, err
}

// introspected is what introspection reads beside the schema, for
// enforce mode: the VOLATILE functions' names (volatile.go) and the login
// search_path settings (rolepath.go).
type introspected struct {
	volatile map[string]bool
	paths    *rolePaths
}

// introspect is Introspect that also reads the introspected facts: a
// schema without them is not loaded, since the proxy would judge
// queries calling VOLATILE functions, or in sessions that see other
// tables.
func introspect(ctx context.Context, in Introspection, db string) (*catalog.Schema, string, introspected, error) {
	var facts introspected
	conn, err := connectIntrospection(ctx, in, db)
	if err != nil {
		return nil, "", facts, err
	}
	defer conn.Close(context.Background())
	if facts.volatile, err = readVolatile(ctx, conn); err != nil {
		return nil, "", facts, fmt.Errorf("introspect %s: %w", db, err)
	}
	if facts.paths, err = readRolePaths(ctx, conn); err != nil {
		return nil, "", facts, fmt.Errorf("introspect %s: %w", db, err)
	}
	tables, views, err := introspectDDL(ctx, conn)
	if err != nil {
		return nil, "", facts, fmt.Errorf("introspect %s: %w", db, err)
	}
	ddl := tables + views
	s, err := catalog.LoadDDL(ddl, catalog.Postgres)
	if err != nil && views != "" {
		// A view the loader cannot take should not cost the tables.
		if st, terr := catalog.LoadDDL(tables, catalog.Postgres); terr == nil {
			return st, tables, facts, fmt.Errorf("introspect %s: views left out: %w", db, err)
		}
	}
	if err != nil {
		return nil, ddl, facts, fmt.Errorf("introspect %s: %w", db, err)
	}
	return s, ddl, facts, nil
}

func connectIntrospection(ctx context.Context, in Introspection, db string) (*pgx.Conn, error) {
	host, port, err := net.SplitHostPort(in.Upstream.Address)
	if err != nil {
		return nil, err
	}
	mode := in.Upstream.TLSMode
	if mode == "" {
		mode = proxy.TLSPrefer
	}
	cs := fmt.Sprintf("host=%s port=%s user=%s dbname=%s sslmode=%s application_name=pgequiv-introspect",
		quoteConnValue(host), quoteConnValue(port), quoteConnValue(in.User), quoteConnValue(db), mode)
	cfg, err := pgx.ParseConfig(cs)
	if err != nil {
		return nil, err
	}
	cfg.Password = in.Password
	if mode == proxy.TLSVerifyFull {
		name := in.Upstream.ServerName
		if name == "" {
			name = host
		}
		cfg.TLSConfig = &tls.Config{RootCAs: in.Upstream.RootCAs, ServerName: name}
		cfg.Fallbacks = nil
	}
	cfg.RuntimeParams["default_transaction_read_only"] = "on"
	cfg.ConnectTimeout = in.Timeout
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		if loginRefused(err) { // introspecterr.go: name the settings to fix
			return nil, &IntrospectAuthError{Database: db, Address: in.Upstream.Address, User: in.User, NoPassword: in.Password == "", Err: err}
		}
		return nil, fmt.Errorf("introspect %s: connect: %w", db, err)
	}
	return conn, nil
}

func quoteConnValue(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

type introRel struct {
	oid       uint32
	name      string
	kind      string
	viewDef   string
	partKey   string // PARTITION BY ... of a partitioned table
	partBound string // FOR VALUES ... of a partition
	rls       bool
	parents   []string
	cols      []string
	colDefs   []string
	cons      []string
	indexes   []string
}

const relsQuery = `
SELECT c.oid, c.relname, c.relkind::text, CASE WHEN c.relkind = 'v' THEN pg_get_viewdef(c.oid, true) ELSE '' END,
       CASE WHEN c.relkind = 'p' THEN pg_get_partkeydef(c.oid) ELSE '' END,
       COALESCE(pg_get_expr(c.relpartbound, c.oid), ''), c.relrowsecurity,
       COALESCE((SELECT array_agg(p.relname::text ORDER BY h.inhseqno) FROM pg_inherits h JOIN pg_class p ON p.oid = h.inhparent
                 WHERE h.inhrelid = c.oid), '{}')
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f')
  AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\_toast%'
  AND pg_table_is_visible(c.oid)
ORDER BY c.oid`

// colsQuery reads each column with what the loader models of it: its
// type as declared (a domain or enum by name), NOT NULL, the expression
// of a stored generated column and a collation other than its type's.
const colsQuery = `
SELECT a.attrelid, a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull,
       CASE WHEN a.attgenerated = 's' THEN pg_get_expr(d.adbin, d.adrelid) ELSE '' END,
       CASE WHEN a.attcollation <> 0 AND a.attcollation <> t.typcollation THEN quote_ident(co.collname) ELSE '' END
FROM pg_attribute a
JOIN pg_type t ON t.oid = a.atttypid
LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
LEFT JOIN pg_collation co ON co.oid = a.attcollation
WHERE a.attrelid = ANY($1) AND a.attnum > 0 AND NOT a.attisdropped
ORDER BY a.attrelid, a.attnum`

// consQuery reads keys, foreign keys, CHECKs and exclusion constraints;
// pg_get_constraintdef writes DEFERRABLE and NOT VALID, which the loader
// reads (such constraints are not trusted).
const consQuery = `
SELECT c.conrelid, pg_get_constraintdef(c.oid)
FROM pg_constraint c
WHERE c.conrelid = ANY($1) AND c.contype IN ('p', 'u', 'f', 'c', 'x')
  AND (c.contype <> 'f' OR c.confrelid = ANY($1))
ORDER BY c.conrelid, c.contype DESC, c.oid`

// indexesQuery reads the unique indexes that are not constraints: plain
// ones (keys), on expressions and partial ones.
const indexesQuery = `
SELECT i.indrelid, pg_get_indexdef(i.indexrelid)
FROM pg_index i
WHERE i.indrelid = ANY($1) AND i.indisunique AND NOT i.indisprimary
  AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)
ORDER BY i.indexrelid`

// typesQuery writes the enums (labels in their order), domains (base
// type, NOT NULL, CHECKs) and nondeterministic collations the database
// has, as DDL.
const typesQuery = `
SELECT 'CREATE TYPE ' || quote_ident(t.typname) || ' AS ENUM (' ||
       (SELECT string_agg(quote_literal(e.enumlabel), ', ' ORDER BY e.enumsortorder) FROM pg_enum e WHERE e.enumtypid = t.oid) || ');'
FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
WHERE t.typtype = 'e' AND n.nspname NOT IN ('pg_catalog', 'information_schema')
UNION ALL
SELECT 'CREATE DOMAIN ' || quote_ident(t.typname) || ' AS ' || format_type(t.typbasetype, t.typtypmod) ||
       CASE WHEN t.typnotnull THEN ' NOT NULL' ELSE '' END ||
       COALESCE((SELECT string_agg(' CONSTRAINT ' || quote_ident(c.conname) || ' ' || pg_get_constraintdef(c.oid), '' ORDER BY c.oid)
                 FROM pg_constraint c WHERE c.contypid = t.oid AND c.contype = 'c'), '') || ';'
FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
WHERE t.typtype = 'd' AND n.nspname NOT IN ('pg_catalog', 'information_schema')
UNION ALL
SELECT 'CREATE COLLATION ' || quote_ident(c.collname) || ' (deterministic = false);'
FROM pg_collation c
WHERE NOT c.collisdeterministic`

// introspectDDL builds DDL text for the visible tables and views, with
// the types, domains and collations their columns use, in the form the
// catalog's loader reads (one loader serves files and introspection).
func introspectDDL(ctx context.Context, conn *pgx.Conn) (tables, views string, err error) {
	rows, err := conn.Query(ctx, relsQuery)
	if err != nil {
		return "", "", err
	}
	var rels []*introRel
	byOID := map[uint32]*introRel{}
	var oids []uint32
	for rows.Next() {
		r := &introRel{}
		if err := rows.Scan(&r.oid, &r.name, &r.kind, &r.viewDef, &r.partKey, &r.partBound, &r.rls, &r.parents); err != nil {
			rows.Close()
			return "", "", err
		}
		rels = append(rels, r)
		byOID[r.oid] = r
		oids = append(oids, r.oid)
	}
	if err := rows.Err(); err != nil {
		return "", "", err
	}
	if len(rels) == 0 {
		return "", "", nil
	}
	var types []string
	trows, err := conn.Query(ctx, typesQuery)
	if err != nil {
		return "", "", err
	}
	for trows.Next() {
		var d string
		if err := trows.Scan(&d); err != nil {
			trows.Close()
			return "", "", err
		}
		types = append(types, d)
	}
	if err := trows.Err(); err != nil {
		return "", "", err
	}
	if err := scanPairs(ctx, conn, colsQuery, oids, func(oid uint32, vals []any) {
		r := byOID[oid]
		name, typ, notNull, gen, coll := vals[0].(string), vals[1].(string), vals[2].(bool), vals[3].(string), vals[4].(string)
		r.cols = append(r.cols, quoteIdent(name))
		def := quoteIdent(name) + " " + typ
		if coll != "" {
			def += " COLLATE " + coll
		}
		if gen != "" {
			def += " GENERATED ALWAYS AS (" + gen + ") STORED"
		}
		if notNull {
			def += " NOT NULL"
		}
		r.colDefs = append(r.colDefs, def)
	}, new(string), new(string), new(bool), new(string), new(string)); err != nil {
		return "", "", err
	}
	if err := scanPairs(ctx, conn, consQuery, oids, func(oid uint32, vals []any) {
		byOID[oid].cons = append(byOID[oid].cons, vals[0].(string))
	}, new(string)); err != nil {
		return "", "", err
	}
	if err := scanPairs(ctx, conn, indexesQuery, oids, func(oid uint32, vals []any) {
		byOID[oid].indexes = append(byOID[oid].indexes, vals[0].(string))
	}, new(string)); err != nil {
		return "", "", err
	}
	// Triggers are not read: none fires on a read, and the proxy judges
	// only reads (a write is refused for its side effects before it is
	// judged). Read, they made every tagged read of their table unknown,
	// "unmodelled schema: trigger" (issue 34, item 10).
	var b, v strings.Builder
	for _, d := range types {
		b.WriteString(d + "\n")
	}
	for _, r := range rels {
		if r.kind == "v" {
			continue
		}
		b.WriteString("CREATE TABLE " + quoteIdent(r.name) + " (\n  ")
		b.WriteString(strings.Join(append(append([]string(nil), r.colDefs...), r.cons...), ",\n  "))
		b.WriteString("\n)")
		if r.partKey != "" {
			b.WriteString(" PARTITION BY " + r.partKey)
		}
		b.WriteString(";\n")
	}
	// Parents before children: every table exists before any link.
	for _, r := range rels {
		for _, p := range r.parents {
			if r.partBound != "" {
				b.WriteString("ALTER TABLE " + quoteIdent(p) + " ATTACH PARTITION " + quoteIdent(r.name) + " " + r.partBound + ";\n")
			} else {
				b.WriteString("ALTER TABLE " + quoteIdent(r.name) + " INHERIT " + quoteIdent(p) + ";\n")
			}
		}
	}
	for _, r := range rels {
		for _, ix := range r.indexes {
			b.WriteString(ix + ";\n")
		}
		if r.rls {
			b.WriteString("ALTER TABLE " + quoteIdent(r.name) + " ENABLE ROW LEVEL SECURITY;\n")
		}
	}
	for _, r := range rels {
		if r.kind != "v" {
			continue
		}
		def := strings.TrimRight(strings.TrimSpace(r.viewDef), ";")
		v.WriteString("CREATE VIEW " + quoteIdent(r.name) + " (" + strings.Join(r.cols, ", ") + ") AS\n" + def + ";\n")
	}
	return b.String(), v.String(), nil
}

// scanPairs runs q with the oids and calls f with each row's first
// column (a relation oid) and the others, scanned into dst.
func scanPairs(ctx context.Context, conn *pgx.Conn, q string, oids []uint32, f func(uint32, []any), dst ...any) error {
	rows, err := conn.Query(ctx, q, oids)
	if err != nil {
		return err
	}
	defer rows.Close()
	var oid uint32
	for rows.Next() {
		if err := rows.Scan(append([]any{&oid}, dst...)...); err != nil {
			return err
		}
		vals := make([]any, len(dst))
		for i, d := range dst {
			switch p := d.(type) {
			case *string:
				vals[i] = *p
			case *bool:
				vals[i] = *p
			case *[]string:
				vals[i] = *p
			}
		}
		f(oid, vals)
	}
	return rows.Err()
}
