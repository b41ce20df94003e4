package refute

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/pgequiv/pgequiv/planner/build"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/exec"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Row rules are the constraints the engine enforces on a table's rows
// beyond NOT NULL, keys and foreign keys: CHECK constraints (column,
// table and domain ones), a partition's bound, expression and partial
// unique indexes, generated columns, enum labels, and a partitioned
// table holding no rows of its own. Their expressions are SQL, so they
// are planned once per table (build.Build of a SELECT over the table,
// not normalized: a normalization that read the constraints as facts
// would prove them of themselves) and evaluated row by row with the
// executor, under the schema's dialect. A database the generator writes
// satisfies them; a table whose rules cannot be planned or evaluated is
// not modelled, and a search over it is refused rather than run on
// databases the engine might reject.

// tableRules are one table's compiled row rules.
type tableRules struct {
	t    *catalog.Table
	lite bool
	// gen are the generated columns' ordinals; genPlan computes them
	// (one output each), in that order.
	gen     []int
	genPlan *plan.Plan
	// rowPlan outputs, per row: every check, then the bound (when
	// bound), then each unique index's elements followed by its
	// predicate (when it has one). nil when there is nothing to output.
	rowPlan *plan.Plan
	checks  []string // the checks' names or texts, for messages
	bound   bool
	idx     []indexLayout
	// enums maps a column's ordinal to its labels.
	enums map[int]map[string]bool
	// partitioned: the table holds no rows of its own.
	partitioned bool
	// alwaysEmpty: a CHECK that no row satisfies (CHECK (false)).
	alwaysEmpty bool
	// err says why the rules cannot be modelled; the other fields are
	// then unusable.
	err error
}

// indexLayout locates one unique index in rowPlan's output.
type indexLayout struct {
	name   string
	off, n int  // its elements are outputs off..off+n-1
	where  bool // output off+n is its predicate
}

// hasRowRules reports whether t has any row rule: most tables have none,
// and this is asked for every table of every generated database.
func hasRowRules(t *catalog.Table) bool {
	if len(t.Checks) > 0 || len(t.UniqueIndexes) > 0 || t.PartitionBound != "" || t.Partitioned || len(t.DeferrableKeys) > 0 {
		return true
	}
	for i := range t.Columns {
		if t.Columns[i].Generated != "" || t.Columns[i].Enum != nil {
			return true
		}
	}
	return false
}

// rulesCache holds compiled rules by schema fingerprint and table name.
// Bounded: past rulesCacheMax entries, rules are compiled afresh.
var rulesCache struct {
	sync.Mutex
	m map[string]*tableRules
}

const rulesCacheMax = 1024

// rulesFor returns t's compiled rules, nil when it has none.
func rulesFor(s *catalog.Schema, t *catalog.Table) *tableRules {
	if t == nil || t.IsView() || !hasRowRules(t) {
		return nil
	}
	// The fingerprint folds declared widths into type families; the
	// rules' values are fitted to the declared types, so they key too.
	var k strings.Builder
	k.WriteString(s.Fingerprint())
	k.WriteString("\x00" + t.Name)
	for i := range t.Columns {
		k.WriteString("\x00" + t.Columns[i].TypeSQL)
	}
	rulesCache.Lock()
	r, ok := rulesCache.m[k.String()]
	rulesCache.Unlock()
	if ok {
		return r // the same key plans alike, whichever schema value
	}
	r = compileRules(s, t)
	rulesCache.Lock()
	if rulesCache.m == nil {
		rulesCache.m = map[string]*tableRules{}
	}
	if len(rulesCache.m) < rulesCacheMax {
		rulesCache.m[k.String()] = r
	}
	rulesCache.Unlock()
	return r
}

// compileRules plans t's rule expressions.
func compileRules(s *catalog.Schema, t *catalog.Table) *tableRules {
	r := &tableRules{t: t, lite: s.Dialect == catalog.SQLite, partitioned: t.Partitioned}
	fail := func(what string, err error) *tableRules {
		r.err = fmt.Errorf("table %s: %s: %w", t.Name, what, err)
		return r
	}
	from := " FROM " + quoteName(t.Name)
	var gens []string
	for i, c := range t.Columns {
		if c.Enum != nil {
			if r.enums == nil {
				r.enums = map[int]map[string]bool{}
			}
			set := make(map[string]bool, len(c.Enum))
			for _, l := range c.Enum {
				set[l] = true
			}
			r.enums[i] = set
		}
		if c.Generated != "" {
			if !executable(s.Dialect, &c) {
				return fail("generated column "+c.Name, fmt.Errorf("%w: values of type %s", exec.ErrCannotExecute, c.TypeSQL))
			}
			r.gen = append(r.gen, i)
			gens = append(gens, "("+c.Generated+")")
		}
	}
	if len(gens) > 0 {
		p, err := build.Build(s, "SELECT "+strings.Join(gens, ", ")+from)
		if err != nil {
			return fail("generated column expression", err)
		}
		r.genPlan = p
	}
	var outs []string
	for _, c := range t.Checks {
		outs = append(outs, "("+c.Expr+")")
		name := c.Name
		if name == "" {
			name = "CHECK (" + c.Expr + ")"
		}
		r.checks = append(r.checks, name)
	}
	if t.PartitionBound != "" {
		outs = append(outs, "("+t.PartitionBound+")")
		r.bound = true
	}
	for _, u := range t.UniqueIndexes {
		if len(u.Exprs) == 0 {
			return fail("unique index "+u.Name, errors.New("no elements"))
		}
		l := indexLayout{name: u.Name, off: len(outs), n: len(u.Exprs), where: u.Where != ""}
		for _, e := range u.Exprs {
			outs = append(outs, "("+e+")")
		}
		if l.where {
			outs = append(outs, "("+u.Where+")")
		}
		r.idx = append(r.idx, l)
	}
	if len(outs) > 0 {
		p, err := build.Build(s, "SELECT "+strings.Join(outs, ", ")+from)
		if err != nil {
			return fail("constraint expression", err)
		}
		r.rowPlan = p
	}
	// A check that holds of no row, whatever its values: evaluated on a
	// row of NULLs it is FALSE, and it reads no column.
	for i, c := range t.Checks {
		if refersToColumn(r.rowPlan, i) {
			continue
		}
		outs, err := r.eval(context.Background(), [][]exec.Value{make([]exec.Value, len(t.Columns))})
		if err == nil && !r.passes(outs[0][i]) {
			r.alwaysEmpty = true
		} else if errors.Is(err, exec.ErrCannotExecute) {
			return fail("check "+c.Expr, err)
		}
	}
	return r
}

// refersToColumn reports whether output i of p reads a column.
func refersToColumn(p *plan.Plan, i int) bool {
	var proj *plan.Node
	p.Root.WalkNodes(func(n *plan.Node) {
		if proj == nil && n.Op == plan.OpProject {
			proj = n
		}
	})
	if proj == nil || i >= len(proj.Proj) {
		return true
	}
	found := false
	plan.Walk(proj.Proj[i].Expr, func(e *plan.Expr) { found = found || e.Kind == plan.ColRef || e.Kind == plan.Subquery })
	return found
}

// quoteName quotes a table name exactly as the catalog spells it.
func quoteName(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// eval runs rowPlan over rows: one output row per input row, in order.
func (r *tableRules) eval(ctx context.Context, rows [][]exec.Value) ([][]exec.Value, error) {
	return r.run(ctx, r.rowPlan, rows)
}

func (r *tableRules) run(ctx context.Context, p *plan.Plan, rows [][]exec.Value) ([][]exec.Value, error) {
	if p == nil {
		return make([][]exec.Value, len(rows)), nil
	}
	opts := exec.Options{}
	if r.lite {
		opts.Dialect = catalog.SQLite
	}
	res, err := exec.ExecuteWith(ctx, p, exec.Database{r.t.Name: rows}, opts)
	if err != nil {
		return nil, err
	}
	if len(res.Rows) != len(rows) {
		return nil, fmt.Errorf("table %s: %w: constraint plan returned %d rows for %d", r.t.Name, exec.ErrCannotExecute, len(res.Rows), len(rows))
	}
	return res.Rows, nil
}

// passes reads a CHECK's value: a row is legal when it is TRUE or NULL
// (SQLite: NULL or a nonzero number). Anything else (text in SQLite,
// which it would convert) rejects the row: a narrower search, never an
// illegal database.
func (r *tableRules) passes(v exec.Value) bool {
	if v.IsNull() {
		return true
	}
	return r.isTrue(v)
}

// isTrue is TRUE itself, as a partial index's predicate and a
// partition's bound need (NULL excludes).
func (r *tableRules) isTrue(v exec.Value) bool {
	switch v.K {
	case exec.KBool:
		return v.B
	case exec.KInt:
		return r.lite && v.I != 0
	case exec.KFloat:
		return r.lite && v.F != 0
	}
	return false
}

// complete computes row's generated columns in place. ok is false when
// the engine would reject the row (an evaluation error, a value that
// does not fit the column as is); the error is non-nil when the
// executor cannot evaluate the expressions (the table is not modelled).
func (r *tableRules) complete(ctx context.Context, row []exec.Value) (bool, error) {
	if r.genPlan == nil {
		return true, nil
	}
	for _, i := range r.gen {
		row[i] = exec.Null
	}
	// SQLite lets a generated column read another one: as many passes as
	// there are generated columns reach every chain.
	passes := 1
	if r.lite {
		passes = len(r.gen)
	}
	for range passes {
		out, err := r.run(ctx, r.genPlan, [][]exec.Value{row})
		if err != nil {
			if errors.Is(err, exec.ErrQuery) {
				return false, nil
			}
			if errors.Is(err, exec.ErrCannotExecute) {
				return false, fmt.Errorf("table %s: generated column: %w", r.t.Name, err)
			}
			return false, nil // the context ended
		}
		for j, i := range r.gen {
			v, ok := storeGenerated(r.t.Columns[i], out[0][j], r.lite)
			if !ok {
				return false, nil
			}
			row[i] = v
		}
	}
	return true, nil
}

// storeGenerated is v stored in column c, when that needs no rounding
// or conversion the executor does not model: a value of the column's
// own kind, or a number into a numeric column that holds it exactly (a
// float into a numeric only in SQLite, where the value stays as it is;
// PostgreSQL rounds it to 15 digits).
func storeGenerated(c catalog.Column, v exec.Value, lite bool) (exec.Value, bool) {
	if v.IsNull() {
		return v, !c.NotNull
	}
	want := kindOf(c.Type)
	if v.K != want {
		if !isNum(v.K) || !isNum(want) || (v.K == exec.KFloat && want == exec.KNumeric && !lite) {
			return exec.Null, false
		}
	}
	return fit(c, v)
}

// legal reports why the row with rowPlan output out breaks a check, the
// bound or an enum, or "" when it does not.
func (r *tableRules) legal(row, out []exec.Value) string {
	for i, name := range r.checks {
		if !r.passes(out[i]) {
			return r.t.Name + ": violates " + name
		}
	}
	if r.bound && !r.isTrue(out[len(r.checks)]) {
		return r.t.Name + ": row outside the partition bound"
	}
	for i, labels := range r.enums {
		if v := row[i]; !v.IsNull() && (v.K != exec.KText || !labels[v.S]) {
			return r.t.Name + "." + r.t.Columns[i].Name + ": " + v.String() + " is not a label of its enum"
		}
	}
	return ""
}

// conflict reports the unique index on which two rows (their rowPlan
// outputs, a and b) collide, or "" when none: both satisfy the index's
// predicate and have equal non-NULL values of every element.
func (r *tableRules) conflict(a, b []exec.Value) string {
	for _, l := range r.idx {
		if l.where && (!r.isTrue(a[l.off+l.n]) || !r.isTrue(b[l.off+l.n])) {
			continue
		}
		same := true
		for k := l.off; k < l.off+l.n && same; k++ {
			same = sameValue(a[k], b[k])
		}
		if same {
			return "unique index " + l.name
		}
	}
	return ""
}

// deferrableHold reports whether row keeps the deferrable keys against
// rows (skipping index skip): a committed state satisfies them.
func deferrableHold(t *catalog.Table, rows [][]exec.Value, row []exec.Value, skip int) bool {
	for _, set := range t.DeferrableKeys {
		if !setHolds(t, set, rows, row, skip) {
			return false
		}
	}
	return true
}

// admit completes a drawn row (its generated columns) and reports
// whether it may join kept (whose rowPlan outputs are outs), returning
// its own output. err: the rules cannot be evaluated.
func (r *tableRules) admit(ctx context.Context, row []exec.Value, kept, outs [][]exec.Value) ([]exec.Value, bool, error) {
	if r.partitioned || r.alwaysEmpty {
		return nil, false, nil
	}
	if ok, err := r.complete(ctx, row); !ok || err != nil {
		return nil, false, err
	}
	if !deferrableHold(r.t, kept, row, -1) {
		return nil, false, nil
	}
	res, err := r.eval(ctx, [][]exec.Value{row})
	if err != nil {
		if errors.Is(err, exec.ErrCannotExecute) {
			return nil, false, err
		}
		return nil, false, nil // the engine rejects the row (or the context ended)
	}
	out := res[0]
	if r.legal(row, out) != "" {
		return nil, false, nil
	}
	for _, o := range outs {
		if r.conflict(out, o) != "" {
			return nil, false, nil
		}
	}
	return out, true, nil
}

// validate reports the first rule rows break, or "" when they keep them
// all: the safety net under every reported database.
func (r *tableRules) validate(ctx context.Context, rows [][]exec.Value) string {
	if len(rows) == 0 {
		return ""
	}
	if r.err != nil {
		return "cannot model " + r.err.Error()
	}
	if r.partitioned {
		return r.t.Name + " is partitioned and holds no rows of its own"
	}
	if r.genPlan != nil {
		for _, row := range rows {
			fresh := append([]exec.Value(nil), row...)
			ok, err := r.complete(ctx, fresh)
			if err != nil || !ok {
				return r.t.Name + ": a generated column cannot be stored"
			}
			for _, i := range r.gen {
				if !sameShown(fresh[i], row[i]) {
					return r.t.Name + "." + r.t.Columns[i].Name + ": " + row[i].String() + " is not its generated value " + fresh[i].String()
				}
			}
		}
	}
	for j, row := range rows {
		if !deferrableHold(r.t, rows, row, j) {
			return r.t.Name + ": duplicate deferrable key"
		}
	}
	outs, err := r.eval(ctx, rows)
	if err != nil {
		return r.t.Name + ": constraints cannot be evaluated: " + err.Error()
	}
	for i, row := range rows {
		if msg := r.legal(row, outs[i]); msg != "" {
			return msg
		}
		for _, o := range outs[:i] {
			if msg := r.conflict(outs[i], o); msg != "" {
				return r.t.Name + ": duplicate in " + msg
			}
		}
	}
	return ""
}

// regenerate recomputes the generated columns of every row of db whose
// table has them, copying the rows it changes: a minimization step that
// changed a column changes what is computed from it.
func regenerate(s *catalog.Schema, db exec.Database) {
	for _, t := range s.Tables {
		rows := db[t.Name]
		if len(rows) == 0 {
			continue
		}
		r := rulesFor(s, t)
		if r == nil || r.genPlan == nil || r.err != nil {
			continue
		}
		for i, row := range rows {
			fresh := append([]exec.Value(nil), row...)
			if ok, err := r.complete(context.Background(), fresh); ok && err == nil {
				rows[i] = fresh
			}
			// Otherwise the row stays as it was, and validation rejects
			// the database.
		}
	}
}

// unmodelledTables says why a search over tables cannot be run on
// databases the engine would accept: a table whose rules cannot be
// planned, or that the catalog says it does not model. "" when none.
func unmodelledTables(s *catalog.Schema, tables []*catalog.Table) string {
	for _, t := range tables {
		if len(t.Unmodelled) > 0 {
			return "table " + t.Name + " is not modelled: " + strings.Join(t.Unmodelled, "; ")
		}
		if r := rulesFor(s, t); r != nil && r.err != nil {
			return "constraints not modelled: " + r.err.Error()
		}
	}
	return ""
}

// withRulePlans is plans followed by the rule plans of the tables they
// read: the constants of a CHECK, a bound or an index predicate (a
// CHECK (status IN ('a', 'b')) in SQLite, say) seed the value pools, so
// that drawn rows satisfy the rules more often than chance would.
func withRulePlans(s *catalog.Schema, plans ...*plan.Plan) []*plan.Plan {
	out := append([]*plan.Plan(nil), plans...)
	// The tables the plans read and those they reference, transitively:
	// a parent reached only through a foreign key still needs rows that
	// pass its CHECKs (status IN ('draft', 'published')), or no row of
	// the tables read can be generated.
	read := referencedClosure(s, readTables(plans...))
	for _, t := range s.Tables {
		if !read[t.Name] {
			continue
		}
		if r := rulesFor(s, t); r != nil && r.err == nil {
			for _, p := range []*plan.Plan{r.rowPlan, r.genPlan} {
				if p != nil {
					out = append(out, p)
				}
			}
		}
	}
	return out
}

// generationSchema is s with every table's deferrable foreign keys
// among its foreign keys: a deferrable reference may dangle inside a
// transaction but not at its commit, so a database the engine holds
// keeps it, and the generator (which writes committed states) must
// too. s itself when no table has one: nothing to copy.
func generationSchema(s *catalog.Schema) *catalog.Schema {
	need := false
	for _, t := range s.Tables {
		need = need || len(t.DeferrableForeignKeys) > 0
	}
	if !need {
		return s
	}
	tables := make([]*catalog.Table, len(s.Tables))
	for i, t := range s.Tables {
		c := *t
		if len(t.DeferrableForeignKeys) > 0 {
			c.ForeignKeys = append(append([]catalog.ForeignKey(nil), t.ForeignKeys...), t.DeferrableForeignKeys...)
			c.DeferrableForeignKeys = nil
		}
		tables[i] = &c
	}
	out, err := catalog.NewSchema(s.Dialect, tables)
	if err != nil {
		return s // a reference to an unknown table: the loader reported it
	}
	return out
}

// referencedClosure adds to read the tables its tables reference through
// foreign keys, transitively.
func referencedClosure(s *catalog.Schema, read map[string]bool) map[string]bool {
	var add func(name string)
	add = func(name string) {
		t := s.Table(name)
		if t == nil {
			return
		}
		for _, fk := range t.ForeignKeys {
			if !read[fk.RefTable] {
				read[fk.RefTable] = true
				add(fk.RefTable)
			}
		}
	}
	for name := range read {
		add(name)
	}
	return read
}
