package exec

import (
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// PostgreSQL's char(n) (bpchar) stores its value blank-padded to n
// characters; a bpchar Value is a KText with B set and S the padded
// string, exactly as PostgreSQL stores and prints it. What sees the
// padding and what does not follows PostgreSQL:
//
//   - comparison, grouping, DISTINCT, set operations and sorting ignore
//     trailing blanks (bpcharcmp); a string constant ending in a blank
//     beside a bpchar value "cannot execute" (see bpLiteral);
//   - bpchar against text (or varchar) depends on the operator PostgreSQL
//     picks (text = text for text, bpchar = bpchar for varchar), which the
//     executor cannot see; both agree when the other side has no trailing
//     blank, and otherwise the comparison "cannot execute";
//   - LIKE matches the padded value; a cast to text, ||, and the text
//     functions see the value without trailing blanks; length counts
//     characters without them, octet_length the padded bytes;
//   - output is the padded value.
//
// The planner keeps a cast from a char(n) value to text or varchar in
// the plan (build/exacttype.go), so c::text strips the padding here as
// in PostgreSQL; Metadata.StringCast (a plan that folded such a cast,
// whose padded values are refused) is no longer set by the planner.
// Constructs whose result type
// PostgreSQL resolves from several inputs (CASE, COALESCE, GREATEST,
// LEAST, a set operation mixing char(n) with other types or widths)
// "cannot execute" when a bpchar input may be among them.

// charWidth reports whether a declared column type is char(n) and its n
// (char without a width is char(1)).
func charWidth(typeSQL string) (int, bool) {
	// Most declared types start otherwise: this runs for every column
	// of every table a plan reads, at every execution.
	if typeSQL == "" {
		return 0, false
	}
	switch typeSQL[0] | 0x20 {
	case 'c', 'b', 'n', ' ':
	default:
		return 0, false
	}
	base, args, hasArgs := strings.Cut(strings.ToLower(strings.TrimSpace(typeSQL)), "(")
	switch strings.TrimSpace(base) {
	case "char", "character", "bpchar", "nchar":
	default:
		return 0, false
	}
	if !hasArgs {
		return 1, true
	}
	n, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(args), ")")))
	if err != nil || n < 1 {
		return 0, false
	}
	return n, true
}

// bpMixed marks a column that may hold bpchar values of more than one
// width, or values derived from bpchar ones whose type the executor does
// not track.
const bpMixed = -1

// stripBlanks is the value without trailing blanks: bpchar's comparison
// key and its text form.
func stripBlanks(s string) string { return strings.TrimRight(s, " ") }

// textOf is v's text as an operator taking text sees it: a bpchar value
// is cast to text, which drops the padding.
func textOf(v Value) string {
	if v.K == KText && v.B {
		return stripBlanks(v.S)
	}
	return v.String()
}

// compareBpchar compares two text values at least one of which is
// bpchar.
func compareBpchar(a, b Value) (int, error) {
	if a.B && b.B {
		return strings.Compare(stripBlanks(a.S), stripBlanks(b.S)), nil
	}
	// text = text and bpchar = bpchar agree when the non-bpchar side has
	// no trailing blank.
	other := b
	if b.B {
		other = a
	}
	if strings.HasSuffix(other.S, " ") {
		return 0, cannot("char(n) compared with a text value ending in a blank")
	}
	return strings.Compare(stripBlanks(a.S), stripBlanks(b.S)), nil
}

// initBpchar finds whether the plan reads char(n) columns.
func (x *executor) initBpchar() {
	if x.lite || x.meta == nil {
		return
	}
	widths := make([][]int, len(x.meta.Instances))
	for i, inst := range x.meta.Instances {
		if inst.Table == nil {
			continue
		}
		if w, ok := tableWidths(inst.Table); ok {
			widths[i], x.bp = w, true
		}
	}
	x.bpWidths = widths
}

// bpCols returns the width of every column with bpchar values, computed
// at the first use: most plans never ask (only CASE, COALESCE, set
// operations and the like do).
func (x *executor) bpCols() map[plan.ColumnID]int {
	if x.bpCol != nil || !x.bp {
		return x.bpCol
	}
	widths := x.bpWidths
	x.bpCol = map[plan.ColumnID]int{}
	for id, c := range x.meta.Columns {
		if c.Instance < 0 || c.Instance >= len(widths) {
			continue
		}
		if w := widths[c.Instance]; c.Ordinal >= 0 && c.Ordinal < len(w) && w[c.Ordinal] > 0 {
			x.bpCol[plan.ColumnID(id)] = w[c.Ordinal]
		}
	}
	// Computed columns take their inputs' widths; a fixpoint over the
	// definitions covers columns defined after their uses.
	var defs []func() bool
	var visit func(n *plan.Node)
	visit = func(n *plan.Node) {
		n.WalkNodes(func(m *plan.Node) {
			for _, it := range m.Proj {
				defs = append(defs, x.defineBp(it.ID, it.Expr, false))
			}
			for _, it := range m.Aggs {
				defs = append(defs, x.defineBp(it.ID, it.Expr, m.Op == plan.OpAggregate))
			}
			if m.Op == plan.OpSetOp {
				for i, out := range m.Cols {
					defs = append(defs, x.defineSetBp(out, m.SetCols, i))
				}
			}
			m.Exprs(func(e **plan.Expr) {
				plan.Walk(*e, func(s *plan.Expr) {
					if s.Kind == plan.Subquery && s.Sub != nil {
						visit(s.Sub)
					}
				})
			})
		})
	}
	visit(x.root)
	for changed, rounds := true, 0; changed && rounds < 64; rounds++ {
		changed = false
		for _, d := range defs {
			changed = d() || changed
		}
	}
	return x.bpCol
}

// setBp records width w for column id; it reports a change.
func (x *executor) setBp(id plan.ColumnID, w int) bool {
	if old, ok := x.bpCol[id]; ok && (old == w || old == bpMixed) {
		return false
	} else if ok && old != w {
		w = bpMixed
	}
	x.bpCol[id] = w
	return true
}

// defineBp is the width rule for a computed column: a plain reference
// (or MIN/MAX of one) keeps its width; anything else that mentions a
// bpchar column is bpMixed.
func (x *executor) defineBp(id plan.ColumnID, e *plan.Expr, agg bool) func() bool {
	return func() bool {
		if e == nil {
			return false
		}
		if e.Kind == plan.ColRef {
			if w, ok := x.bpCol[e.Col]; ok {
				return x.setBp(id, w)
			}
			return false
		}
		if agg && e.Kind == plan.Func && (e.Name == "min" || e.Name == "max") && len(e.Args) == 1 && e.Args[0].Kind == plan.ColRef {
			if w, ok := x.bpCol[e.Args[0].Col]; ok {
				return x.setBp(id, w)
			}
			return false
		}
		if x.mentionsBp(e) {
			return x.setBp(id, bpMixed)
		}
		return false
	}
}

func (x *executor) defineSetBp(out plan.ColumnID, in [][]plan.ColumnID, i int) func() bool {
	return func() bool {
		w, seen, plain := 0, false, false
		for _, cols := range in {
			if i >= len(cols) {
				continue
			}
			cw, ok := x.bpCol[cols[i]]
			switch {
			case !ok:
				plain = true
			case !seen:
				w, seen = cw, true
			case cw != w:
				w = bpMixed
			}
		}
		if !seen {
			return false
		}
		if plain {
			w = bpMixed
		}
		return x.setBp(out, w)
	}
}

// mentionsBp reports whether e reads a bpchar (or bpchar-derived) column.
func (x *executor) mentionsBp(e *plan.Expr) bool {
	if !x.bp || e == nil {
		return false
	}
	cols := x.bpCols()
	found := false
	plan.WalkDeep(e, func(s *plan.Expr) {
		if s.Kind == plan.ColRef {
			if _, ok := cols[s.Col]; ok {
				found = true
			}
		}
	})
	return found
}

// padRow returns row with the char(n) columns of t as bpchar values, or
// row itself when none needs a change.
func (x *executor) padRow(t *catalog.Table, widths []int, row []Value) ([]Value, error) {
	var out []Value
	for i, n := range widths {
		v := row[i]
		if n == realWidth && v.K == KFloat && !v.B {
			// A real column stores single precision, whatever the
			// database handed in.
			if out == nil {
				out = append([]Value(nil), row...)
			}
			out[i] = Float4(float32(v.F))
			continue
		}
		if n <= 0 || v.K != KText || (v.B && utf8.RuneCountInString(v.S) == n) {
			continue
		}
		s := stripBlanks(v.S)
		l := utf8.RuneCountInString(s)
		if l > n {
			return nil, cannot("value too long for %s.%s char(%d)", t.Name, t.Columns[i].Name, n)
		}
		if l < n && x.meta.StringCast {
			return nil, cannot("padded char(n) value where the plan folded a string cast")
		}
		if out == nil {
			out = append([]Value(nil), row...)
		}
		out[i] = Value{K: KText, B: true, S: s + strings.Repeat(" ", n-l)}
	}
	if out == nil {
		return row, nil
	}
	return out, nil
}

// realWidth marks a real (float4) column among the widths: its values
// are rounded to single precision as they are read.
const realWidth = -1

func isRealType(typeSQL string) bool {
	switch strings.ToLower(strings.TrimSpace(typeSQL)) {
	case "real", "float4", "pg_catalog.float4":
		return true
	}
	return false
}

// tableWidths is the char(n) width of each column of t (0: not char,
// realWidth: real),
// remembered per table: it is asked at every execution. Catalog tables
// do not change once loaded; past widthCacheMax tables (a long-running
// process loading many schemas) widths are computed afresh.
func tableWidths(t *catalog.Table) ([]int, bool) {
	if w, ok := widthCache.Load(t); ok {
		w := w.([]int)
		return w, w != nil
	}
	w, _ := computeWidths(t)
	if widthCacheLen.Add(1) <= widthCacheMax {
		widthCache.Store(t, w)
	}
	return w, w != nil
}

const widthCacheMax = 4096

var (
	widthCache    sync.Map // *catalog.Table → []int (nil: no char(n) column)
	widthCacheLen atomic.Int64
)

func computeWidths(t *catalog.Table) ([]int, bool) {
	var w []int
	for i, c := range t.Columns {
		if isRealType(c.TypeSQL) {
			if w == nil {
				w = make([]int, len(t.Columns))
			}
			w[i] = realWidth
			continue
		}
		if n, ok := charWidth(c.TypeSQL); ok {
			if w == nil {
				w = make([]int, len(t.Columns))
			}
			w[i] = n
		}
	}
	return w, w != nil
}

// bpLiteral checks a string constant beside a bpchar value. PostgreSQL
// reads char_col = 'ab ' as bpchar = bpchar (true for 'ab'), but a
// constant the planner substituted for a column (WITH k AS (SELECT 'ab '
// AS s) ... c = k.s) is text there, and text = text is false: the plan
// holds the same constant either way. The two agree unless the constant
// ends in a blank, which then "cannot execute".
func (x *executor) bpLiteral(lit *plan.Expr, v, other Value) (Value, error) {
	if !x.bp || lit.Kind != plan.Const || v.K != KText || v.B || other.K != KText || !other.B {
		return v, nil
	}
	if strings.HasSuffix(v.S, " ") {
		return Null, cannot("a string constant ending in a blank beside char(n) (char(n) or text comparison)")
	}
	return v, nil
}

// bpFuncArgs adapts bpchar arguments of function name: text functions
// see the value cast to text; the few with bpchar versions are computed
// here (done); functions not known to take text "cannot execute".
func bpFuncArgs(name string, args []Value) (v Value, done bool, err error) {
	any := false
	for _, a := range args {
		any = any || a.K == KText && a.B
	}
	if !any {
		return Null, false, nil
	}
	switch name {
	case "length", "char_length", "character_length":
		if len(args) == 1 {
			return Int(int64(utf8.RuneCountInString(stripBlanks(args[0].S)))), true, nil
		}
	case "octet_length":
		if len(args) == 1 {
			return Int(int64(len(args[0].S))), true, nil
		}
	case "lower", "upper", "substr", "substring", "strpos", "replace", "trim", "btrim", "ltrim", "rtrim", "left", "right", "reverse", "position":
		for i, a := range args {
			if a.K == KText && a.B {
				args[i] = Text(stripBlanks(a.S))
			}
		}
		return Null, false, nil
	}
	return Null, false, cannot("%s of a char(n) value", name)
}

// bpNullifSecond reports whether NULLIF(bpchar, e) stays bpchar: e is a
// constant (read as bpchar) or a char(n) column.
func (x *executor) bpNullifSecond(e *plan.Expr) bool {
	switch e.Kind {
	case plan.Const:
		return true
	case plan.ColRef:
		return x.bpCols()[e.Col] > 0
	}
	return false
}
