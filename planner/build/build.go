// Package build turns SQL text into a logical plan: it parses with
// pg_query, resolves every name against the schema and builds operators.
// It does not normalize; package norm does that.
package build

import (
	"context"
	"errors"
	"fmt"
	"strconv"
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

// relation is a built query or FROM item: a node with named output
// columns.
type relation struct {
	node    *plan.Node
	cols    []plan.ColumnID
	names   []string
	ordered bool
}

// scopeCol is one column visible to name resolution.
type scopeCol struct {
	qual   string // table alias or name qualifying it
	name   string
	id     plan.ColumnID
	typ    catalog.Type
	hidden bool // merged away by USING: visible only when qualified
}

type cte struct {
	def     *pg.CommonTableExpr
	visible *scope // CTEs defined before it (for inlining in its own context)
}

type scope struct {
	cols   []scopeCol
	parent *scope
	ctes   map[string]*cte
	// correlated records that an expression referenced a parent scope.
	correlated bool
	// aliases are output columns that unresolved names may refer to
	// (SQLite only).
	aliases []target
}

func (b *builder) nameKey(s string) string {
	if b.schema.Dialect == catalog.SQLite {
		return strings.ToLower(s)
	}
	return s
}

func (sc *scope) lookupCTE(b *builder, name string) *cte {
	for s := sc; s != nil; s = s.parent {
		if c, ok := s.ctes[b.nameKey(name)]; ok {
			return c
		}
	}
	return nil
}

func (b *builder) nameEq(a, c string) bool { return b.schema.NameEqual(a, c) }

func (b *builder) newColumn(name string, t catalog.Type) plan.ColumnID {
	return b.meta.AddColumn(plan.ColumnMeta{Name: name, Type: t, Instance: -1, Ordinal: -1})
}

// defineColumn is newColumn for a column computed as def.
func (b *builder) defineColumn(name string, def *plan.Expr) plan.ColumnID {
	id := b.newColumn(name, def.Typ)
	if b.colDefs == nil {
		b.colDefs = map[plan.ColumnID]*plan.Expr{}
	}
	b.colDefs[id] = def
	return id
}

func (b *builder) typeOf(id plan.ColumnID) catalog.Type { return b.meta.Col(id).Type }

// buildSelect builds a SELECT, VALUES or set operation. outer is the
// scope of an enclosing query for correlated references; inherited CTEs
// come through it too.
func (b *builder) buildSelect(sel *pg.SelectStmt, outer *scope, ctes map[string]*cte) (*relation, error) {
	if err := b.spend(1); err != nil {
		return nil, err
	}
	if sel.IntoClause != nil {
		return nil, b.sideEffects(-1, "SELECT INTO")
	}
	if len(sel.LockingClause) > 0 {
		return nil, b.sideEffects(-1, "FOR UPDATE/SHARE (row locks)")
	}
	sc := &scope{parent: outer, ctes: map[string]*cte{}}
	for k, v := range ctes {
		sc.ctes[k] = v
	}
	if w := sel.WithClause; w != nil {
		if w.Recursive {
			return nil, b.unsupported(w.Location, "WITH RECURSIVE")
		}
		for _, cn := range w.Ctes {
			c := cn.GetCommonTableExpr()
			if c.Ctequery.GetSelectStmt() == nil {
				// PostgreSQL runs a data-modifying WITH query to
				// completion whether or not the query reads it.
				return nil, b.sideEffects(c.Location, "data-modifying WITH query "+strconv.Quote(c.Ctename)+" ("+nodeKindName(c.Ctequery)+")")
			}
			snapshot := &scope{parent: outer, ctes: map[string]*cte{}}
			for k, v := range sc.ctes {
				snapshot.ctes[k] = v
			}
			sc.ctes[b.nameKey(c.Ctename)] = &cte{def: c, visible: snapshot}
		}
	}
	if sel.Op != pg.SetOperation_SETOP_NONE && sel.Op != pg.SetOperation_SET_OPERATION_UNDEFINED {
		if b.schema.Dialect == catalog.SQLite {
			sel = sqliteCompoundOrder(sel)
		}
		return b.buildSetOp(sel, sc)
	}
	if len(sel.ValuesLists) > 0 {
		rel, err := b.buildValues(sel, sc)
		if err != nil {
			return nil, err
		}
		return b.finishOrderLimit(sel, rel, sc)
	}
	return b.buildSimpleSelect(sel, sc)
}

func (b *builder) buildValues(sel *pg.SelectStmt, sc *scope) (*relation, error) {
	n := &plan.Node{Op: plan.OpValues}
	width := -1
	var types []catalog.Type
	for _, row := range sel.ValuesLists {
		items := row.GetList().GetItems()
		if width >= 0 && len(items) != width {
			return nil, b.errf(-1, "VALUES lists must all be the same length")
		}
		width = len(items)
		var r []*plan.Expr
		for i, it := range items {
			e, err := b.expr(it, sc, nil)
			if err != nil {
				return nil, err
			}
			if len(types) <= i {
				types = append(types, e.Typ)
			} else if types[i] == catalog.Null || types[i] == catalog.Unknown {
				types[i] = e.Typ
			}
			r = append(r, e)
		}
		n.Rows = append(n.Rows, r)
	}
	if err := b.checkValuesLiterals(n.Rows); err != nil {
		return nil, err
	}
	rel := &relation{node: n}
	for i, t := range types {
		name := fmt.Sprintf("column%d", i+1)
		id := b.newColumn(name, t)
		b.noteJSONKind(id, t, n.Rows, i)
		n.Cols = append(n.Cols, id)
		rel.cols = append(rel.cols, id)
		rel.names = append(rel.names, name)
	}
	return rel, nil
}

func (b *builder) buildSetOp(sel *pg.SelectStmt, sc *scope) (*relation, error) {
	l, err := b.buildSelect(sel.Larg, sc.parent, sc.ctes)
	if err != nil {
		return nil, err
	}
	r, err := b.buildSelect(sel.Rarg, sc.parent, sc.ctes)
	if err != nil {
		return nil, err
	}
	if len(l.cols) != len(r.cols) {
		return nil, b.errf(-1, "each %s query must have the same number of columns (%d vs %d)", setOpName(sel.Op), len(l.cols), len(r.cols))
	}
	if err := b.checkSetOpStrings(l, r); err != nil {
		return nil, err
	}
	if err := b.checkSetOpLiterals(l, r); err != nil {
		return nil, err
	}
	n := &plan.Node{Op: plan.OpSetOp, Inputs: []*plan.Node{l.node, r.node}, All: sel.All, SetCols: [][]plan.ColumnID{l.cols, r.cols}}
	switch sel.Op {
	case pg.SetOperation_SETOP_UNION:
		n.Set = plan.Union
	case pg.SetOperation_SETOP_INTERSECT:
		n.Set = plan.Intersect
	case pg.SetOperation_SETOP_EXCEPT:
		n.Set = plan.Except
	}
	rel := &relation{node: n, names: l.names}
	for i, c := range l.cols {
		t := b.typeOf(c)
		if t == catalog.Null || t == catalog.Unknown {
			t = b.typeOf(r.cols[i])
		}
		b.typeUntypedNull(l.node, l.cols[i], t)
		b.typeUntypedNull(r.node, r.cols[i], t)
		// A set operation's column is as wide as its widest branch's
		// (int4 against int8 is int8): wideInt reads the branches.
		id := b.defineColumn(l.names[i], &plan.Expr{Kind: plan.Func, Name: "coalesce", Typ: t,
			Args: []*plan.Expr{plan.NewCol(l.cols[i], b.typeOf(l.cols[i])), plan.NewCol(r.cols[i], b.typeOf(r.cols[i]))}})
		n.Cols = append(n.Cols, id)
		rel.cols = append(rel.cols, id)
	}
	return b.finishOrderLimit(sel, rel, sc)
}

func setOpName(op pg.SetOperation) string {
	switch op {
	case pg.SetOperation_SETOP_INTERSECT:
		return "INTERSECT"
	case pg.SetOperation_SETOP_EXCEPT:
		return "EXCEPT"
	}
	return "UNION"
}

// finishOrderLimit applies ORDER BY and LIMIT to a relation whose columns
// can only be referenced by output name or ordinal (set operations,
// VALUES).
func (b *builder) finishOrderLimit(sel *pg.SelectStmt, rel *relation, sc *scope) (*relation, error) {
	if len(sel.SortClause) > 0 {
		osc := &scope{parent: sc.parent, ctes: sc.ctes}
		for i, c := range rel.cols {
			osc.cols = append(osc.cols, scopeCol{name: rel.names[i], id: c, typ: b.typeOf(c)})
		}
		var keys []plan.SortKey
		for _, sn := range sel.SortClause {
			sb := sn.GetSortBy()
			var e *plan.Expr
			if i, ok := ordinalRef(sb.Node); ok {
				if i < 1 || i > len(rel.cols) {
					return nil, b.errf(sb.Location, "ORDER BY position %d is not in select list", i)
				}
				e = plan.NewCol(rel.cols[i-1], b.typeOf(rel.cols[i-1]))
			} else {
				var err error
				if e, err = b.expr(sb.Node, osc, nil); err != nil {
					return nil, err
				}
			}
			k, err := b.sortKey(sb, e)
			if err != nil {
				return nil, err
			}
			keys = append(keys, k)
		}
		rel.node = &plan.Node{Op: plan.OpSort, Inputs: []*plan.Node{rel.node}, Keys: keys}
		rel.ordered = true
	}
	return b.applyLimit(sel, rel, sc)
}

func (b *builder) applyLimit(sel *pg.SelectStmt, rel *relation, sc *scope) (*relation, error) {
	if b.schema.Dialect == catalog.SQLite && sel.LimitCount == nil && sel.LimitOffset != nil {
		return nil, b.sqliteErr(-1, "near \"OFFSET\": syntax error: OFFSET without LIMIT")
	}
	if sel.LimitCount == nil && sel.LimitOffset == nil {
		return rel, nil
	}
	if sel.LimitOption == pg.LimitOption_LIMIT_OPTION_WITH_TIES {
		return nil, b.unsupported(-1, "FETCH ... WITH TIES")
	}
	n := &plan.Node{Op: plan.OpLimit, Inputs: []*plan.Node{rel.node}}
	var err error
	if sel.LimitCount != nil {
		if c := sel.LimitCount.GetAConst(); c == nil || !c.Isnull { // LIMIT NULL / ALL means none
			if n.Limit, err = b.expr(sel.LimitCount, sc, nil); err != nil {
				return nil, err
			}
		}
	}
	if sel.LimitOffset != nil {
		if n.Offset, err = b.expr(sel.LimitOffset, sc, nil); err != nil {
			return nil, err
		}
	}
	n.Limit = b.limitLiteral(sel.LimitCount, n.Limit)
	n.Offset = b.limitLiteral(sel.LimitOffset, n.Offset)
	typeParam(n.Limit, catalog.Int)
	typeParam(n.Offset, catalog.Int)
	if n.Limit == nil && n.Offset == nil {
		return rel, nil
	}
	rel.node = n
	return rel, nil
}

func (b *builder) sortKey(sb *pg.SortBy, e *plan.Expr) (plan.SortKey, error) {
	k := plan.SortKey{Expr: e}
	switch sb.SortbyDir {
	case pg.SortByDir_SORTBY_DESC:
		k.Desc = true
	case pg.SortByDir_SORTBY_USING:
		return k, b.unsupported(sb.Location, "ORDER BY USING")
	}
	// PostgreSQL sorts NULLs as larger than any value; SQLite as smaller.
	k.NullsFirst = k.Desc
	if b.schema.Dialect == catalog.SQLite {
		k.NullsFirst = !k.Desc
	}
	switch sb.SortbyNulls {
	case pg.SortByNulls_SORTBY_NULLS_FIRST:
		k.NullsFirst = true
	case pg.SortByNulls_SORTBY_NULLS_LAST:
		k.NullsFirst = false
	}
	return k, nil
}

func ordinalRef(n *pg.Node) (int, bool) {
	if c := n.GetAConst(); c != nil {
		if iv, ok := c.Val.(*pg.A_Const_Ival); ok {
			return int(iv.Ival.Ival), true
		}
	}
	return 0, false
}

// singleName returns the name of an unqualified column reference.
func singleName(n *pg.Node) (string, bool) {
	if cr := n.GetColumnRef(); cr != nil && len(cr.Fields) == 1 {
		if s := cr.Fields[0].GetString_(); s != nil {
			return s.Sval, true
		}
	}
	return "", false
}

// limitLiteral reads a quoted literal bound as the engine does:
// PostgreSQL gives an untyped literal the bound's type, bigint, so LIMIT
// '2' is LIMIT 2 (int8in: blanks around an optionally signed run of
// digits); SQLite converts text with numeric affinity. A literal the
// engine refuses stays as written ('2.5' in PostgreSQL, 'x' in both).
func (b *builder) limitLiteral(src *pg.Node, e *plan.Expr) *plan.Expr {
	if src == nil || e == nil {
		return e
	}
	c := src.GetAConst()
	if c == nil {
		return e
	}
	sv, ok := c.Val.(*pg.A_Const_Sval)
	if !ok {
		return e
	}
	text := strings.Trim(sv.Sval.Sval, " \t\n\r\v\f")
	if b.schema.Dialect == catalog.SQLite {
		// SQLite reads '2.0' as 2 too; a fractional value is refused.
		if i := strings.IndexByte(text, '.'); i > 0 && strings.Trim(text[i+1:], "0") == "" {
			text = text[:i]
		}
	}
	n, err := strconv.ParseInt(text, 10, 64)
	if err != nil || text == "" || text[0] == '+' && b.schema.Dialect == catalog.SQLite {
		return e
	}
	out := plan.NewConst(catalog.Int, strconv.FormatInt(n, 10))
	out.Pos = e.Pos
	return out
}
