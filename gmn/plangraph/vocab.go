package plangraph

import "github.com/pgequiv/pgequiv/planner/plan"

// The type-id vocabulary. Its order is part of the saved weights format
// (row i of the model's type embedding belongs to Vocabulary[i]): append new
// names at the end and never reorder, or bump VocabVersion and retrain.
//
// Names are grouped by prefix:
//
//	op.*     relational operators (join and set kinds spelled out)
//	expr.*   scalar operators (plan.Op* names), CASE, CAST, tuples, …
//	fn.*     scalar functions; fn.other for the rest
//	agg.*    aggregate functions; agg.other for the rest
//	win.*    window functions; win.other for the rest
//	sub.*    subquery uses
//	key.*    sort keys, LIMIT/OFFSET slots, markers
//	c.*      content nodes: table, base column, derived column, literals
var Vocabulary = []string{
	// relational operators
	"op.scan", "op.filter", "op.project",
	"op.join.inner", "op.join.cross", "op.join.left", "op.join.right", "op.join.full", "op.join.semi", "op.join.anti",
	"op.aggregate", "op.distinct", "op.sort", "op.limit",
	"op.setop.union", "op.setop.union_all", "op.setop.intersect", "op.setop.intersect_all",
	"op.setop.except", "op.setop.except_all",
	"op.values", "op.window",
	// scalar operators
	"expr." + plan.OpAnd, "expr." + plan.OpOr, "expr." + plan.OpNot,
	"expr." + plan.OpEq, "expr." + plan.OpNe, "expr." + plan.OpLt, "expr." + plan.OpLe, "expr." + plan.OpGt, "expr." + plan.OpGe,
	"expr." + plan.OpLike, "expr." + plan.OpILike, "expr." + plan.OpNotLike, "expr." + plan.OpNotILike, "expr." + plan.OpSimilar,
	"expr." + plan.OpIsNull, "expr." + plan.OpIsNotNull, "expr." + plan.OpIsDistinct, "expr." + plan.OpNotDistinc,
	"expr." + plan.OpIsTrue, "expr." + plan.OpIsNotTrue, "expr." + plan.OpIsFalse, "expr." + plan.OpIsNotFalse,
	"expr." + plan.OpAdd, "expr." + plan.OpSub, "expr." + plan.OpMul, "expr." + plan.OpDiv, "expr." + plan.OpMod,
	"expr." + plan.OpConcat, "expr." + plan.OpNeg, "expr.other",
	"expr.case", "expr.case_operand", "expr.cast", "expr.tuple", "expr.param",
	// scalar functions
	"fn.abs", "fn.round", "fn.length", "fn.lower", "fn.upper", "fn.substr", "fn.substring", "fn.trim",
	"fn.ltrim", "fn.rtrim", "fn.replace", "fn.coalesce", "fn.ifnull", "fn.nullif", "fn.iif",
	"fn.strftime", "fn.date", "fn.time", "fn.datetime", "fn.julianday", "fn.now",
	"fn.least", "fn.greatest", "fn.max", "fn.min", "fn.instr", "fn.strpos", "fn.mod",
	"fn.power", "fn.sqrt", "fn.sign", "fn.typeof", "fn.printf", "fn.to_char", "fn.other",
	// aggregate functions
	"agg.count", "agg.count_star", "agg.sum", "agg.avg", "agg.min", "agg.max", "agg.total",
	"agg.group_concat", "agg.string_agg", "agg.every", "agg.bool_and", "agg.bool_or",
	"agg.stddev", "agg.variance", "agg.other",
	// window functions
	"win.row_number", "win.rank", "win.dense_rank", "win.percent_rank", "win.ntile",
	"win.lag", "win.lead", "win.first_value", "win.last_value", "win.nth_value", "win.agg", "win.other",
	// subqueries
	"sub.scalar", "sub.exists", "sub.any", "sub.all",
	// keys and markers
	"key.asc", "key.desc", "key.nulls_first", "key.nulls_last", "key.limit", "key.offset",
	"key.distinct", "key.filter", "key.partition", "key.order", "key.row", "key.group",
	// content
	"c.table", "c.column", "c.derived",
	"c.int", "c.numeric", "c.float", "c.text", "c.bool", "c.date", "c.null", "c.other",
}

// NumTypes is the size of the vocabulary: the Config.NumTypes of models
// reading these graphs.
var NumTypes = len(Vocabulary)

var typeID = func() map[string]int {
	m := make(map[string]int, len(Vocabulary))
	for i, s := range Vocabulary {
		if _, dup := m[s]; dup {
			panic("plangraph: duplicate vocabulary entry " + s)
		}
		m[s] = i
	}
	return m
}()

// TypeID returns the id of name, or the id of its prefix's "other" bucket
// (fn.other, agg.other, win.other, expr.other, c.other) when the name is not
// in the vocabulary.
func TypeID(name string) int {
	if id, ok := typeID[name]; ok {
		return id
	}
	for i := 0; i < len(name); i++ {
		if name[i] == '.' {
			if id, ok := typeID[name[:i]+".other"]; ok {
				return id
			}
			break
		}
	}
	return typeID["expr.other"]
}
