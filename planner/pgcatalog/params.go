package pgcatalog

import (
	"context"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/pgequiv/pgequiv/internal/pgtypes"
	"github.com/pgequiv/pgequiv/planner/build"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// ParamOIDs are the types of sql's parameters $1..$n as a
// ParameterDescription gives them, for a statement judged over schema s
// (database-free mode answers a tagged query's Describe with them):
// drivers encode each Bind value in the type described, and pgx refuses
// to send an integer as text.
//
// A parameter compared with, or beside, a table column in an operator
// (dog_id = $1, age BETWEEN $1 AND $2, coalesce(x, $1))
// has the column's declared type, as PostgreSQL infers it at Parse
// (integer is int4, not the planner's integer family); a cast gives
// its type ($1::int8, and the planner's cast of a parameter compared
// with a column of another family). Otherwise the
// planner's family decides (build's inferParamTypes: a cast, LIMIT,
// arithmetic beside a typed expression; text when nothing does): int8
// for an integer, since any integer value fits it, float8, numeric,
// text, bool, date, timestamp, time, interval, bytea, jsonb, uuid. A
// statement that does not plan, or a parameter it does not use, is
// text, as before.
func ParamOIDs(ctx context.Context, s *catalog.Schema, sql string, n int) []uint32 {
	return paramOIDs(ctx, s, sql, sql, n, build.Options{}, nil)
}

// ParamOIDs is the package's ParamOIDs for a catalog query over c (oid
// = $1 is oid, relname = $1 name, relkind = $1 "char", as PostgreSQL
// describes them), so that pgx can bind an integer to a catalog query.
func (c *Catalog) ParamOIDs(ctx context.Context, sql string, n int) []uint32 {
	rewritten, err := rewrite(sql, nil)
	if err != nil {
		return paramOIDs(ctx, nil, sql, sql, n, build.Options{}, nil)
	}
	return paramOIDs(ctx, c.sys, sql, rewritten, n, build.Options{Ext: c.ext}, c.colOIDs)
}

// paramOIDs plans planned (sql, or its catalog rewriting) over s;
// colOIDs, for the system catalog, are its columns' types by
// "table.column" ("char" there is PostgreSQL's one-byte type, not
// char(1)).
func paramOIDs(ctx context.Context, s *catalog.Schema, sql, planned string, n int, opts build.Options, colOIDs map[string]uint32) []uint32 {
	oids := make([]uint32, n)
	for k := range oids {
		oids[k] = pgtypes.Text
	}
	if n == 0 || s == nil {
		return oids
	}
	p, err := build.BuildContext(ctx, s, planned, opts)
	if err != nil || p.Root == nil {
		return oids
	}
	declared := castParams(sql)
	family := map[int]catalog.Type{}
	visit := func(e *plan.Expr) {
		if e.Kind == plan.Cast && len(e.Args) == 1 {
			// The planner casts a parameter compared with a column of
			// another family to the column's type (t > cast($1 as
			// timestamptz)).
			if k, ok := build.ParamNumber(e.Args[0]); ok {
				if _, seen := declared[k]; !seen {
					if e.Value != "" {
						declared[k], _ = declaredType(e.Value)
					} else {
						declared[k] = familyOID(e.Typ)
					}
				}
			}
			return
		}
		if k, ok := build.ParamNumber(e); ok {
			if _, seen := family[k]; !seen {
				family[k] = e.Typ
			}
			return
		}
		if !siblingTyped(e) {
			return
		}
		var col *plan.Expr
		for _, a := range e.Args {
			if a != nil && a.Kind == plan.ColRef {
				col = a
				break
			}
		}
		if col == nil {
			return
		}
		oid := columnOID(p, col.Col, colOIDs)
		if oid == 0 || oid == pgtypes.Text && col.Typ != catalog.Text {
			return // a type the catalog does not model reads as text: use the family
		}
		for _, a := range e.Args {
			if k, ok := build.ParamNumber(a); ok {
				if _, seen := declared[k]; !seen {
					declared[k] = oid
				}
			}
		}
	}
	p.Root.WalkNodes(func(nd *plan.Node) { nd.Exprs(func(e **plan.Expr) { plan.WalkDeep(*e, visit) }) })
	for k := range oids {
		if oid, ok := declared[k+1]; ok {
			oids[k] = oid
		} else if t, ok := family[k+1]; ok {
			oids[k] = familyOID(t)
		}
	}
	return oids
}

// castParams are the types of the parameters the text casts ($1::int8,
// CAST($2 AS date)): PostgreSQL takes a parameter's type from its cast,
// which the planner drops between types of one family.
func castParams(sql string) map[int]uint32 {
	out := map[int]uint32{}
	tree, err := pg.Parse(sql)
	if err != nil {
		return out
	}
	each(tree.ProtoReflect(), func(n *pg.Node) {
		tc := n.GetTypeCast()
		if tc == nil || tc.Arg.GetParamRef() == nil || tc.TypeName == nil || len(tc.TypeName.ArrayBounds) > 0 || len(tc.TypeName.Names) == 0 {
			return
		}
		k := int(tc.Arg.GetParamRef().Number)
		if _, seen := out[k]; seen {
			return
		}
		name := tc.TypeName.Names[len(tc.TypeName.Names)-1].GetString_().GetSval()
		if _, known := typeByName[name]; known {
			out[k], _ = declaredType(name)
		}
	})
	return out
}

// siblingTyped says whether a parameter among e's operands takes the
// type of a column beside it: comparisons, arithmetic, LIKE, IN lists
// and the functions whose arguments share one type. (Not subscripts or
// JSON keys, nor other functions, whose arguments have their own types.)
func siblingTyped(e *plan.Expr) bool {
	switch e.Kind {
	case plan.Op:
		switch e.Name {
		case plan.OpSubscript, plan.OpJSONField, plan.OpJSONText, plan.OpContains, plan.OpContainedBy, plan.OpAnd, plan.OpOr, plan.OpNot:
			return false
		case plan.OpLike, plan.OpILike, plan.OpNotLike, plan.OpNotILike, plan.OpSimilar, plan.OpRegex, plan.OpIRegex:
			return false // a pattern is text, beside a name or char(n) column too
		}
		return true
	case plan.Func:
		switch e.Name {
		case "coalesce", "nullif", "greatest", "least":
			return true
		}
	}
	return false
}

// columnOID is the declared type of a base table column, 0 for a
// computed one.
func columnOID(p *plan.Plan, id plan.ColumnID, colOIDs map[string]uint32) uint32 {
	m := p.Meta.Col(id)
	if m.Instance < 0 || m.Instance >= len(p.Meta.Instances) {
		return 0
	}
	t := p.Meta.Instances[m.Instance].Table
	if t == nil || m.Ordinal < 0 || m.Ordinal >= len(t.Columns) {
		return 0
	}
	if oid, ok := colOIDs[t.Name+"."+t.Columns[m.Ordinal].Name]; ok {
		return oid
	}
	oid, _ := declaredType(t.Columns[m.Ordinal].TypeSQL)
	if oid == 1043 { // varchar
		// varchar has no operators of its own: PostgreSQL resolves
		// varchar = $1 as text = text, and describes $1 as text.
		return pgtypes.Text
	}
	return oid
}

// familyOID is a planner type family's widest PostgreSQL type.
func familyOID(t catalog.Type) uint32 {
	switch t {
	case catalog.Int:
		return pgtypes.Int8
	case catalog.Numeric:
		return pgtypes.Numeric
	case catalog.Float:
		return pgtypes.Float8
	case catalog.Bool:
		return pgtypes.Bool
	case catalog.Date:
		return 1082
	case catalog.Timestamp:
		return 1114
	case catalog.Time:
		return 1083
	case catalog.Interval:
		return 1186
	case catalog.Bytes:
		return 17
	case catalog.JSON:
		return 3802
	case catalog.UUID:
		return 2950
	}
	return pgtypes.Text
}
