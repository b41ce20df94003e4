package build

import (
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/pgequiv/pgequiv/internal/sqltext"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

var aggFuncs = map[string]bool{"count": true, "sum": true, "avg": true, "min": true, "max": true, "total": true,
	"group_concat": true, "string_agg": true, "array_agg": true, "bool_and": true, "bool_or": true, "every": true,
	"stddev": true, "stddev_pop": true, "stddev_samp": true, "variance": true, "var_pop": true, "var_samp": true, "any_value": true,
	"bit_and": true, "bit_or": true, "bit_xor": true, "corr": true, "covar_pop": true, "covar_samp": true,
	"regr_avgx": true, "regr_avgy": true, "regr_count": true, "regr_intercept": true, "regr_r2": true, "regr_slope": true,
	"regr_sxx": true, "regr_sxy": true, "regr_syy": true}

// sqliteAggs are the aggregates SQLite has; the others of aggFuncs are
// PostgreSQL's, and SQLite reports them as missing functions.
var sqliteAggs = map[string]bool{"count": true, "sum": true, "avg": true, "min": true, "max": true, "total": true,
	"group_concat": true, "string_agg": true}

var winFuncs = map[string]catalog.Type{"row_number": catalog.Int, "rank": catalog.Int, "dense_rank": catalog.Int, "ntile": catalog.Int,
	"percent_rank": catalog.Float, "cume_dist": catalog.Float, "lag": catalog.Unknown, "lead": catalog.Unknown,
	"first_value": catalog.Unknown, "last_value": catalog.Unknown, "nth_value": catalog.Unknown}

// scalarFuncTypes gives result types of known scalar functions; functions
// whose type follows their first argument are marked Unknown and resolved
// from it.
var scalarFuncTypes = map[string]catalog.Type{
	"lower": catalog.Text, "upper": catalog.Text, "substr": catalog.Text, "substring": catalog.Text, "trim": catalog.Text,
	"ltrim": catalog.Text, "rtrim": catalog.Text, "btrim": catalog.Text, "replace": catalog.Text, "concat": catalog.Text, "strftime": catalog.Text,
	"to_char": catalog.Text, "left": catalog.Text, "right": catalog.Text, "initcap": catalog.Text, "char": catalog.Text, "printf": catalog.Text,
	"length": catalog.Int, "char_length": catalog.Int, "instr": catalog.Int, "strpos": catalog.Int, "position": catalog.Int,
	"abs": catalog.Unknown, "round": catalog.Numeric, "ceil": catalog.Numeric, "ceiling": catalog.Numeric, "floor": catalog.Numeric,
	"coalesce": catalog.Unknown, "ifnull": catalog.Unknown, "nullif": catalog.Unknown, "iif": catalog.Unknown,
	"date": catalog.Text, "datetime": catalog.Text, "time": catalog.Text, "julianday": catalog.Float,
	"now": catalog.Timestamp, "date_part": catalog.Float, "extract": catalog.Numeric, "date_trunc": catalog.Timestamp, "age": catalog.Interval,
	"random": catalog.Float, "sqrt": catalog.Float, "power": catalog.Float, "exp": catalog.Float, "ln": catalog.Float, "log": catalog.Float,
	"mod": catalog.Unknown, "sign": catalog.Unknown, "typeof": catalog.Text, "greatest": catalog.Unknown, "least": catalog.Unknown,
}

// funcCall builds a function call: a window function, an aggregate or a
// scalar function, after resolving the name and building the arguments
// at the level they belong to.
func (b *builder) funcCall(fc *pg.FuncCall, sc *scope, st *aggState) (*plan.Expr, error) {
	name := strings.ToLower(fc.Funcname[len(fc.Funcname)-1].GetString_().GetSval())
	if len(fc.Funcname) == 2 && fc.Funcname[0].GetString_().GetSval() != "pg_catalog" {
		return nil, b.errf(fc.Location, "function %s.%s does not exist", fc.Funcname[0].GetString_().GetSval(), name)
	}
	if b.schema.Dialect == catalog.SQLite {
		if err := b.sqliteNoSuchFunc(name, fc.Location); err != nil {
			return nil, err
		}
	}
	if b.schema.Dialect == catalog.Postgres && pgLacksModelled(name) {
		return nil, b.errf(fc.Location, "function %s does not exist", name)
	}
	if fc.AggWithinGroup || fc.FuncVariadic {
		return nil, b.unsupported(fc.Location, "WITHIN GROUP / VARIADIC")
	}
	// Arguments of an aggregate belong to the level below it: no nested
	// aggregates.
	argState := st
	if aggFuncs[name] || fc.Over != nil {
		argState = nil
	}
	// A window function's arguments, partition and order keys are read
	// after grouping: they may hold aggregates, but no window calls.
	var winArgs *aggState
	if fc.Over != nil && st != nil {
		winArgs = &aggState{}
		argState = winArgs
	}
	args, err := b.exprs(fc.Args, sc, argState)
	if err != nil {
		return nil, err
	}
	if b.schema.Dialect == catalog.SQLite && (name == "max" || name == "min") && len(args) > 1 {
		// SQLite's multi-argument max/min are scalar.
		n := map[string]string{"max": "greatest", "min": "least"}[name]
		return &plan.Expr{Kind: plan.Func, Name: n, Args: args, Typ: commonType(args), Pos: fc.Location}, nil
	}
	if fc.Over != nil {
		return b.windowCall(fc, name, args, sc, st, winArgs)
	}
	if aggFuncs[name] {
		return b.aggCall(fc, name, args, sc, st)
	}
	// PostgreSQL refuses ORDER BY in a call that is no aggregate's, as it
	// does DISTINCT and FILTER; planning upper(x ORDER BY y) as upper(x)
	// would judge a query the engine does not run.
	if fc.AggStar || fc.AggDistinct || fc.AggFilter != nil || len(fc.AggOrder) > 0 && b.schema.Dialect == catalog.Postgres {
		if b.schema.Dialect == catalog.Postgres && pgListed(pgAggFuncs, name) {
			if err := b.pgArityErr(name, len(args), fc.Location); err != nil {
				return nil, err
			}
			return nil, b.unsupported(fc.Location, "aggregate "+name)
		}
		return nil, b.errf(fc.Location, "%s is not an aggregate function", name)
	}
	return b.scalarCall(fc, name, args)
}

// windowCall builds name(args) OVER (...) and records it, with the
// aggregates of its arguments and keys (winArgs), in st.
func (b *builder) windowCall(fc *pg.FuncCall, name string, args []*plan.Expr, sc *scope, st, winArgs *aggState) (*plan.Expr, error) {
	if st == nil {
		return nil, b.errf(fc.Location, "window functions are not allowed here")
	}
	t, ok := winFuncs[name]
	if !ok {
		if !aggFuncs[name] {
			if b.schema.Dialect == catalog.Postgres {
				switch {
				case pgHasWindowable(name):
					if err := b.pgArityErr(name, len(args), fc.Location); err != nil {
						return nil, err
					}
					return nil, b.unsupported(fc.Location, "window function "+name)
				case !pgListed(pgPlainFuncs, name):
					return nil, b.errf(fc.Location, "function %s does not exist", name)
				}
			}
			return nil, b.errf(fc.Location, "function %s is not a window function", name)
		}
		t = b.aggType(name, args)
	}
	if t == catalog.Unknown && len(args) > 0 {
		t = args[0].Typ
	}
	w := &plan.Expr{Kind: plan.WinFunc, Name: name, Args: args, Typ: t, Star: fc.AggStar, Pos: fc.Location}
	if fc.Over.Name != "" || fc.Over.Refname != "" {
		return nil, b.unsupported(fc.Location, "named windows")
	}
	// PostgreSQL rejects these qualifiers on a window call; dropping them
	// would plan another query.
	switch {
	case fc.AggDistinct:
		return nil, b.errf(fc.Location, "DISTINCT is not implemented for window functions")
	case len(fc.AggOrder) > 0:
		return nil, b.errf(fc.Location, "aggregate ORDER BY is not implemented for window functions")
	case fc.AggFilter != nil && !aggFuncs[name]:
		return nil, b.errf(fc.Location, "FILTER is not implemented for non-aggregate window functions")
	}
	var err error
	if fc.AggFilter != nil {
		// The filter picks the frame's rows the aggregate reads; like an
		// aggregate's FILTER it may hold neither aggregates nor window
		// calls (st nil rejects both).
		if w.Filter, err = b.expr(fc.AggFilter, sc, nil); err != nil {
			return nil, err
		}
	}
	if w.Partition, err = b.exprs(fc.Over.PartitionClause, sc, winArgs); err != nil {
		return nil, err
	}
	for _, on := range fc.Over.OrderClause {
		sb := on.GetSortBy()
		e, err := b.expr(sb.Node, sc, winArgs)
		if err != nil {
			return nil, err
		}
		k, err := b.sortKey(sb, e)
		if err != nil {
			return nil, err
		}
		w.Order = append(w.Order, k)
	}
	if fc.Over.FrameOptions != 1058 { // 1058: the default frame
		if w.Value, err = b.windowFrame(fc, sc); err != nil {
			return nil, err
		}
	}
	if len(winArgs.wins) > 0 {
		return nil, b.errf(fc.Location, "window function calls cannot be nested")
	}
	st.aggs = append(st.aggs, winArgs.aggs...)
	st.wins = append(st.wins, w)
	return w, nil
}

// windowFrame writes a window's frame that is not the default one as
// "frame=<options>" followed by its literal offsets.
func (b *builder) windowFrame(fc *pg.FuncCall, sc *scope) (string, error) {
	value := "frame=" + strconv.Itoa(int(fc.Over.FrameOptions))
	// N PRECEDING / FOLLOWING: the offsets are part of the frame.
	for _, off := range []*pg.Node{fc.Over.StartOffset, fc.Over.EndOffset} {
		if off == nil {
			continue
		}
		o, err := b.expr(off, sc, nil)
		if err != nil {
			return "", err
		}
		if o.Kind != plan.Const {
			return "", b.unsupported(fc.Location, "a window frame offset that is not a literal")
		}
		value += " " + o.Value
	}
	return value, nil
}

// aggCall builds an aggregate call and records it in st.
func (b *builder) aggCall(fc *pg.FuncCall, name string, args []*plan.Expr, sc *scope, st *aggState) (*plan.Expr, error) {
	if b.schema.Dialect == catalog.SQLite && !sqliteAggs[name] {
		return nil, b.errf(fc.Location, "no such function: %s", name)
	}
	if st == nil {
		return nil, b.errf(fc.Location, "aggregate function %s is not allowed here", name)
	}
	if len(fc.AggOrder) > 0 {
		return nil, b.unsupported(fc.Location, "ORDER BY inside an aggregate")
	}
	if err := b.checkMinMax(fc, name, args); err != nil {
		return nil, err
	}
	a := &plan.Expr{Kind: plan.Agg, Name: name, Args: args, Distinct: fc.AggDistinct, Star: fc.AggStar, Typ: b.aggType(name, args), Pos: fc.Location}
	if name == "count" && !fc.AggStar && len(args) == 0 {
		a.Star = true
	}
	if fc.AggFilter != nil {
		var err error
		if a.Filter, err = b.expr(fc.AggFilter, sc, nil); err != nil {
			return nil, err
		}
	}
	st.aggs = append(st.aggs, a)
	return a, nil
}

// scalarCall builds a call of a known scalar function, normalizing the
// dialects' synonyms, or of an extension function.
func (b *builder) scalarCall(fc *pg.FuncCall, name string, args []*plan.Expr) (*plan.Expr, error) {
	if e, ok, err := b.pgFunc(name, args, fc.Location); ok {
		return e, err
	}
	t, known := scalarFuncTypes[name]
	if !known {
		if e := b.extFunc(name, args, fc.Location); e != nil {
			return e, nil
		}
		switch {
		case sqltext.SideEffectFuncs[name]:
			return nil, b.sideEffects(fc.Location, "function "+name)
		case sqltext.VolatileFuncs[name]:
			return nil, b.unsupported(fc.Location, "volatile function "+name)
		}
		if b.schema.Dialect == catalog.Postgres {
			switch {
			case pgHasCallable(name):
				if err := b.pgArityErr(name, len(args), fc.Location); err != nil {
					return nil, err
				}
				return nil, b.unsupported(fc.Location, "function "+name)
			case b.castCall(name, len(args)):
				return nil, b.unsupported(fc.Location, "the cast "+name+"(x)")
			case pgListed(pgWindowFuncs, name):
				return nil, b.errf(fc.Location, "window function %s requires an OVER clause", name)
			}
		}
		return nil, b.errf(fc.Location, "function %s does not exist", name)
	}
	switch name {
	case "ifnull":
		name = "coalesce"
	case "iif":
		if len(args) != 3 {
			return nil, b.errf(fc.Location, "iif takes 3 arguments, got %d", len(args))
		}
		return &plan.Expr{Kind: plan.Case, Args: args, HasElse: true, Typ: commonType(args[1:]), Pos: fc.Location}, nil
	case "substring":
		// substring(s FROM pattern) and substring(s SIMILAR p ESCAPE e)
		// are PostgreSQL's substring(text, text [, text]): regular
		// expressions, where substr(s, '3') reads '3' as a position.
		if b.schema.Dialect != catalog.Postgres || len(args) < 2 || args[1].Typ != catalog.Text {
			name = "substr"
		}
	case "date":
		if b.schema.Dialect == catalog.Postgres {
			// PostgreSQL's date(x) is the cast to date; SQLite's date()
			// returns text.
			t = catalog.Date
		}
	}
	if t == catalog.Unknown {
		t = commonType(args)
	}
	return &plan.Expr{Kind: plan.Func, Name: name, Args: args, Typ: t, Pos: fc.Location}, nil
}

// aggType is the type family of aggregate name over args. PostgreSQL's
// sum of int2 or int4 is a bigint, but its sum of int8 (a bigint column,
// a COUNT, a cast) is a numeric, which divides exactly: SUM(bonus) / 2
// is 1.5 over a bigint bonus where CAST(SUM(bonus) AS bigint) / 2 is 1.
func (b *builder) aggType(name string, args []*plan.Expr) catalog.Type {
	if name == "sum" && len(args) > 0 && args[0].Typ == catalog.Int && b.schema.Dialect == catalog.Postgres && b.wideInt(args[0], 0) {
		return catalog.Numeric
	}
	return aggType(name, args)
}

// wideInt reports whether integer expression e is surely an int8 in
// PostgreSQL: a column so declared, a literal past 32 bits, a cast to
// bigint, a COUNT or a SUM of integers, or arithmetic, CASE and
// COALESCE over one; a computed column by its definition. A column whose
// definition the builder did not record (a set operation's) counts as
// narrow, the family's old reading.
func (b *builder) wideInt(e *plan.Expr, depth int) bool {
	if depth > 64 {
		return false
	}
	switch e.Kind {
	case plan.Const:
		return !e.Null && e.Typ == catalog.Int && b.exactType(e) == "int8"
	case plan.ColRef:
		if def, ok := b.colDefs[e.Col]; ok {
			return def.Typ == catalog.Int && b.wideInt(def, depth+1)
		}
		return b.exactType(e) == "int8"
	case plan.Cast:
		return e.Typ == catalog.Int && (e.Value == "" || CanonicalType(e.Value, false) == "int8")
	case plan.Agg:
		switch e.Name {
		case "count", "sum":
			return e.Typ == catalog.Int
		case "min", "max":
		default:
			return false
		}
	case plan.Op:
		switch e.Name {
		case "+", "-", "*", "/", "%":
		default:
			return false
		}
	case plan.Case:
	case plan.Func:
		if e.Name != "coalesce" && e.Name != "abs" {
			return false
		}
	default:
		return false
	}
	for _, a := range e.Args {
		if a.Typ == catalog.Int && b.wideInt(a, depth+1) {
			return true
		}
	}
	return false
}

func aggType(name string, args []*plan.Expr) catalog.Type {
	switch name {
	case "count":
		return catalog.Int
	case "avg", "stddev", "stddev_pop", "stddev_samp", "variance", "var_pop", "var_samp":
		if len(args) > 0 && args[0].Typ == catalog.Float {
			return catalog.Float
		}
		return catalog.Numeric
	case "sum":
		if len(args) > 0 && args[0].Typ == catalog.Int {
			return catalog.Int
		}
		if len(args) > 0 {
			return args[0].Typ
		}
	case "total":
		return catalog.Float
	case "group_concat", "string_agg":
		return catalog.Text
	case "bool_and", "bool_or", "every":
		return catalog.Bool
	case "regr_count":
		return catalog.Int
	case "corr", "covar_pop", "covar_samp", "regr_avgx", "regr_avgy", "regr_intercept", "regr_r2", "regr_slope",
		"regr_sxx", "regr_sxy", "regr_syy":
		return catalog.Float
	}
	if len(args) > 0 {
		return args[0].Typ
	}
	return catalog.Unknown
}

// checkMinMax refuses min() and max() over a type PostgreSQL defines
// them for none of: uuid, boolean, json and jsonb, bytea, ranges (issue 33
// campaign: min(tag) over a uuid was proved equal to ORDER BY tag LIMIT
// 1, which PostgreSQL refuses to run).
func (b *builder) checkMinMax(fc *pg.FuncCall, name string, args []*plan.Expr) error {
	if b.schema.Dialect != catalog.Postgres || (name != "min" && name != "max") || len(args) != 1 {
		return nil
	}
	a := args[0]
	word := ""
	switch a.Typ {
	case catalog.UUID:
		word = "uuid"
	case catalog.Bool:
		word = "boolean"
	case catalog.JSON:
		word = "json"
	case catalog.Bytes:
		word = "bytea"
	}
	if declared := strings.ToLower(b.declaredType(a)); strings.Contains(declared, "range") {
		word = declared
	}
	if word == "" {
		return nil
	}
	return b.errf(fc.Location, "function %s(%s) does not exist", name, word)
}
