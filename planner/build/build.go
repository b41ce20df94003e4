// Package build turns SQL text into a logical plan: it parses with
// pg_query, resolves every name against the schema and builds operators.
// It does not normalize; package norm does that.
package build

import (
	"context"
	"errors"
	"fmt"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"
	pgparser "github.com/pganalyze/pg_query_go/v5/parser"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Error is a planning error tied to a position in the query text.
type Error struct {
	// Pos is the 1-based character position in the SQL, or 0 if unknown.
	Pos int
	Msg string
	Err error // an underlying cause, if any
}

func (e *Error) Error() string {
	if e.Pos > 0 {
		return fmt.Sprintf("plan: %s at position %d", e.Msg, e.Pos)
	}
	return "plan: " + e.Msg
}

func (e *Error) Unwrap() error { return e.Err }

// ErrUnsupported marks syntax the planner does not model; callers may treat
// it differently from a wrong query.
var ErrUnsupported = errors.New("unsupported syntax")

// ErrSideEffects marks a statement that changes the database: INSERT,
// UPDATE, DELETE, MERGE, CREATE TABLE AS, SELECT INTO, SELECT ... FOR
// UPDATE/SHARE (which takes row locks), or a WITH query that modifies
// data (run whether or not the query reads it). The judge compares query
// results and models no database state, so it judges none of them:
// calling one equivalent to a read-only query would hide its effect, and
// calling it not equivalent would claim a difference in results that may
// not exist. It wraps ErrUnsupported.
var ErrSideEffects = fmt.Errorf("a statement with side effects is not judged: %w", ErrUnsupported)

// ErrTooLarge marks a query whose plan would exceed the node budget
// (Options.MaxNodes), or whose CTE and view expansions would exceed
// maxInlined: a verdict on it is out of reach, not a fault in it.
var ErrTooLarge = errors.New("query too large to plan")

// ErrNULByte marks SQL text containing a NUL byte. The parser stops at
// the first NUL, so planning would silently drop the rest of the query.
var ErrNULByte = errors.New("query contains a NUL byte")

// DefaultMaxNodes is the node budget when Options.MaxNodes is 0.
const DefaultMaxNodes = 2_000_000

// maxInlined bounds the plan and expression nodes that CTE and view
// expansion may produce in all. Each reference gets its own copy, so a
// chain of CTEs that each read the previous one twice doubles per link;
// the depth limit alone let 15 links build 2^15 copies.
const maxInlined = 10_000

// bytesPerNode is a generous upper bound on the text one node takes.
const bytesPerNode = 64

// Options bound building.
type Options struct {
	// MaxNodes bounds plan plus expression nodes: 0 means
	// DefaultMaxNodes, negative means no bound.
	MaxNodes int
	// Ext admits catalog-only functions, operators and casts (ext.go);
	// nil for every judged query.
	Ext *Extension
}

// Build parses sql (one SELECT-like statement) and returns its plan, not yet
// normalized.
func Build(s *catalog.Schema, sql string) (*plan.Plan, error) {
	return BuildContext(context.Background(), s, sql, Options{})
}

// BuildContext is Build that stops with ctx's error soon after ctx is
// done, and with an error wrapping ErrTooLarge when the plan would exceed
// opts.MaxNodes nodes.
func BuildContext(ctx context.Context, s *catalog.Schema, sql string, opts Options) (*plan.Plan, error) {
	if i := strings.IndexByte(sql, 0); i >= 0 {
		return nil, fmt.Errorf("build: %w at offset %d", ErrNULByte, i)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("build: %w", err)
	}
	lim := &limits{ctx: ctx, max: opts.MaxNodes}
	switch {
	case lim.max == 0:
		lim.max = DefaultMaxNodes
	case lim.max < 0:
		lim.max = -1
	}
	// Refuse text far beyond the budget before the parser spends time
	// and memory on it: even with long names and much space between
	// them, that many bytes make more nodes than allowed.
	if lim.max >= 0 && len(sql)/bytesPerNode > lim.max {
		return nil, fmt.Errorf("build: query of %d bytes exceeds %d nodes: %w", len(sql), lim.max, ErrTooLarge)
	}
	text, posMap := sql, []int32(nil)
	var toks []token
	if s.Dialect == catalog.SQLite {
		toks = lexSQL(sql)
		if err := sqliteRejects(sql, toks); err != nil {
			return nil, err
		}
		text, posMap = rewriteSQLiteTokens(sql, toks)
	}
	tree, err := parse(ctx, text)
	if ctx.Err() != nil {
		return nil, fmt.Errorf("build: %w", ctx.Err())
	}
	if err != nil {
		var pe *pgparser.Error
		e := &Error{Msg: "syntax error: " + err.Error(), Err: err}
		if errors.As(err, &pe) && pe.Cursorpos > 0 {
			e.Pos = mapPos(posMap, pe.Cursorpos-1, sql) + 1
		}
		return nil, e
	}
	if len(tree.Stmts) != 1 {
		return nil, &Error{Msg: fmt.Sprintf("expected one statement, got %d", len(tree.Stmts))}
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("build: %w", err)
	}
	b := &builder{schema: s, src: sql, text: text, posMap: posMap, meta: &plan.Metadata{Dialect: s.Dialect}, lim: lim, srcToks: toks, ext: opts.Ext}
	root, err := b.buildStmt(tree.Stmts[0].Stmt)
	if err != nil {
		if b2, root2, ok := b.retryInnerOn(tree.Stmts[0].Stmt, err); ok {
			b, root, err = b2, root2, nil
		}
	}
	if err != nil {
		return nil, err
	}
	if err := b.refuseEnumOrdering(root); err != nil {
		return nil, err
	}
	inferParamTypes(root)
	plan.AnnotateDomains(root.Root, root.Meta)
	if err := b.refuseJSONEquality(root); err != nil {
		return nil, err
	}
	return root, nil
}

// parse runs the parser, returning early when ctx is done. The parser
// cannot be interrupted, and a long query takes it hundreds of
// milliseconds, so it runs on its own goroutine, which finishes in the
// background and is discarded.
func parse(ctx context.Context, text string) (*pg.ParseResult, error) {
	if t := cachedParse(text); t != nil {
		return t, nil
	}
	if ctx.Done() == nil {
		t, err := pg.Parse(text)
		if err == nil {
			rememberParse(text, t)
		}
		return t, err
	}
	type result struct {
		tree *pg.ParseResult
		err  error
	}
	done := make(chan result, 1)
	go func() {
		t, err := pg.Parse(text)
		if err == nil {
			rememberParse(text, t)
		}
		done <- result{t, err}
	}()
	select {
	case r := <-done:
		return r.tree, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func mapPos(posMap []int32, off int, src string) int {
	if posMap == nil {
		return runePos(src, off)
	}
	if off >= len(posMap) {
		return runePos(src, len(src))
	}
	return runePos(src, int(posMap[off]))
}

// runePos converts a byte offset to a character offset.
func runePos(s string, off int) int {
	if off > len(s) {
		off = len(s)
	}
	return len([]rune(s[:off]))
}

type builder struct {
	// colDefs are the definitions of computed columns the select lists
	// and aggregates made, for reading their exact integer width
	// (wideInt).
	colDefs map[plan.ColumnID]*plan.Expr
	schema  *catalog.Schema
	src     string
	text    string
	posMap  []int32
	meta    *plan.Metadata
	depth   int // view/CTE expansion depth, to stop cycles
	lim     *limits
	// laterals counts LATERAL subqueries built so far: a join whose right
	// input built none cannot depend on its left, and need not be checked.
	laterals int
	// srcToks are src's tokens, lexed on first use (sqliteNoSuchFunc).
	srcToks []token
	// ext admits catalog-only constructs (ext.go); nil when judging.
	ext *Extension
	// deferInnerOn: SQLite's inner joins read their ON conditions over
	// the whole FROM clause (from_inner.go); onQuals collects them for
	// the FROM clause being built.
	deferInnerOn bool
	onQuals      *[]*pg.Node
	// jsonKinds: VALUES columns of one exact json type (noteJSONKind).
	jsonKinds map[plan.ColumnID]string
	// sqliteNonBase: SQLite FROM items' names that are no base table
	// (subqueries, CTEs, views), whose rowid is not modelled
	// (sqlite_rowid.go).
	sqliteNonBase map[string]bool
}

// limits are the budgets one Build shares with the builders of the views
// it expands.
type limits struct {
	ctx     context.Context
	max     int // node budget; -1: none
	used    int
	inlined int // nodes built inside CTE and view expansions
}

// spend accounts for n nodes about to be built, and looks at the context
// every checkEvery nodes.
func (b *builder) spend(n int) error {
	l := b.lim
	before := l.used
	l.used += n
	if l.max >= 0 && l.used > l.max {
		return fmt.Errorf("build: plan exceeds %d nodes: %w", l.max, ErrTooLarge)
	}
	if b.depth > 0 {
		if l.inlined += n; l.inlined > maxInlined {
			return fmt.Errorf("build: CTE and view expansions exceed %d nodes: %w", maxInlined, ErrTooLarge)
		}
	}
	if before/checkEvery != l.used/checkEvery {
		if err := l.ctx.Err(); err != nil {
			return fmt.Errorf("build: %w", err)
		}
	}
	return nil
}

// checkEvery is how many nodes are built between looks at the context.
const checkEvery = 256

func (b *builder) errf(loc int32, format string, args ...any) error {
	e := &Error{Msg: fmt.Sprintf(format, args...)}
	if loc >= 0 {
		e.Pos = mapPos(b.posMap, int(loc), b.src) + 1
	}
	return e
}

// sideEffects reports a statement or clause that changes the database
// (see ErrSideEffects).
func (b *builder) sideEffects(loc int32, what string) error {
	e := b.errf(loc, "%s is not supported: it has side effects (it writes to the database or takes locks), and only read-only queries are judged", what).(*Error)
	e.Err = ErrSideEffects
	return e
}

func (b *builder) unsupported(loc int32, what string) error {
	e := b.errf(loc, "%s is not supported", what).(*Error)
	e.Err = ErrUnsupported
	return e
}

func (b *builder) buildStmt(n *pg.Node) (*plan.Plan, error) {
	sel := n.GetSelectStmt()
	if sel == nil {
		switch {
		case n.GetInsertStmt() != nil, n.GetUpdateStmt() != nil, n.GetDeleteStmt() != nil, n.GetMergeStmt() != nil,
			n.GetCreateTableAsStmt() != nil:
			return nil, b.sideEffects(0, "statement "+nodeKindName(n))
		}
		return nil, b.unsupported(0, "statement "+nodeKindName(n))
	}
	q, err := b.buildSelect(sel, nil, nil)
	if err != nil {
		return nil, err
	}
	return &plan.Plan{Root: q.node, Meta: b.meta, Names: q.names, Ordered: q.ordered}, nil
}
