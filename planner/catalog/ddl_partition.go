package catalog

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"
)

// setBound records that ch is a partition of parent p with bound spec:
// PartitionBound becomes the boolean expression PostgreSQL's partition
// constraint is, over the partition key. DEFAULT and HASH partitions are
// not modelled (their rows are those no sibling takes, or those of a
// hash), so both tables are marked.
func (b *ddlBuilder) setBound(ch, p *tableState, spec *pg.PartitionBoundSpec) {
	ch.bound = spec
	ch.t.Inherits = []string{p.t.Name}
	if spec == nil {
		return
	}
	if spec.IsDefault {
		why := "a DEFAULT partition holds the rows no other partition takes"
		b.note(ch, "DEFAULT partition of "+p.t.Name, why)
		b.note(p, "DEFAULT partition "+ch.t.Name, why)
		return
	}
	keys := make([]string, len(p.partKeys))
	for i, k := range p.partKeys {
		pe := k.GetPartitionElem()
		switch {
		case pe == nil:
			keys[i] = ""
		case pe.Name != "":
			keys[i] = `"` + strings.ReplaceAll(pe.Name, `"`, `""`) + `"`
		default:
			sql, err := deparseExpr(pe.Expr)
			if err != nil {
				keys[i] = ""
			} else {
				keys[i] = "(" + sql + ")"
			}
		}
		if keys[i] == "" {
			b.note(ch, "partition of "+p.t.Name, "its partition key cannot be read")
			return
		}
	}
	switch strings.ToLower(spec.Strategy) {
	case "h":
		why := "a HASH partition's rows are those of a hash value, which is not modelled"
		b.note(ch, "HASH partition of "+p.t.Name, why)
		b.note(p, "HASH partition "+ch.t.Name, why)
	case "l":
		if len(keys) != 1 {
			b.note(ch, "LIST partition of "+p.t.Name, "a list partition key has one column")
			return
		}
		var vals []string
		hasNull := false
		for _, d := range spec.Listdatums {
			if c := d.GetAConst(); c != nil && c.Isnull {
				hasNull = true
				continue
			}
			v, err := deparseExpr(d)
			if err != nil {
				b.note(ch, "LIST partition of "+p.t.Name, "a bound value cannot be read")
				return
			}
			vals = append(vals, v)
		}
		var bound string
		if len(vals) > 0 {
			bound = keys[0] + " IN (" + strings.Join(vals, ", ") + ")"
		}
		switch {
		case hasNull && bound != "":
			bound = "(" + keys[0] + " IS NULL OR " + bound + ")"
		case hasNull:
			bound = keys[0] + " IS NULL"
		default:
			bound = keys[0] + " IS NOT NULL AND " + bound
		}
		ch.t.PartitionBound = bound
	case "r":
		lo, ok1 := rangeSide(spec.Lowerdatums)
		hi, ok2 := rangeSide(spec.Upperdatums)
		if !ok1 || !ok2 || len(lo) != len(keys) || len(hi) != len(keys) {
			b.note(ch, "RANGE partition of "+p.t.Name, "a bound value cannot be read")
			return
		}
		var parts []string
		for _, k := range keys {
			parts = append(parts, k+" IS NOT NULL")
		}
		if e := lexCompare(keys, lo, true); e != "" {
			parts = append(parts, e)
		}
		if e := lexCompare(keys, hi, false); e != "" {
			parts = append(parts, e)
		}
		ch.t.PartitionBound = strings.Join(parts, " AND ")
	default:
		b.note(ch, "partition of "+p.t.Name, "its bound is not read")
	}
}

// rangeDatum is one value of a RANGE bound: SQL, or MINVALUE/MAXVALUE.
type rangeDatum struct {
	sql      string
	min, max bool
}

func rangeSide(ds []*pg.Node) ([]rangeDatum, bool) {
	out := make([]rangeDatum, len(ds))
	for i, d := range ds {
		if rd := d.GetPartitionRangeDatum(); rd != nil {
			switch rd.Kind {
			case pg.PartitionRangeDatumKind_PARTITION_RANGE_DATUM_MINVALUE:
				out[i].min = true
				continue
			case pg.PartitionRangeDatumKind_PARTITION_RANGE_DATUM_MAXVALUE:
				out[i].max = true
				continue
			}
			d = rd.Value
		}
		// The raw parse gives MINVALUE and MAXVALUE as column names.
		if cr := d.GetColumnRef(); cr != nil && len(cr.Fields) == 1 {
			switch strings.ToLower(cr.Fields[0].GetString_().GetSval()) {
			case "minvalue":
				out[i].min = true
				continue
			case "maxvalue":
				out[i].max = true
				continue
			}
		}
		sql, err := deparseExpr(d)
		if err != nil {
			return nil, false
		}
		out[i].sql = sql
	}
	return out, true
}

// lexCompare writes keys >= bound (lower) or keys < bound (upper) in
// row order, as PostgreSQL compares a row with a range bound: a MINVALUE
// or MAXVALUE ends the comparison, the column before it then compares
// inclusively (MAXVALUE in a lower bound, MINVALUE in an upper one make
// it strict). Empty means no restriction.
func lexCompare(keys []string, bound []rangeDatum, lower bool) string {
	n := len(bound)
	final := "<"
	if lower {
		final = ">="
	}
	for i, d := range bound {
		if d.min || d.max {
			n = i
			switch {
			case lower && d.min, !lower && d.max:
				final = map[bool]string{true: ">=", false: "<="}[lower]
			default:
				final = map[bool]string{true: ">", false: "<"}[lower]
			}
			break
		}
	}
	if n == 0 {
		// (MINVALUE) as a lower bound or (MAXVALUE) as an upper one
		// admits everything; the opposite admits nothing.
		if (lower && bound[0].min) || (!lower && bound[0].max) {
			return ""
		}
		return "false"
	}
	strict := map[bool]string{true: ">", false: "<"}[lower]
	// k1 op1 v1 OR (k1 = v1 AND (k2 op2 v2 OR (...)))
	var rec func(i int) string
	rec = func(i int) string {
		if i == n-1 {
			return keys[i] + " " + final + " " + bound[i].sql
		}
		return "(" + keys[i] + " " + strict + " " + bound[i].sql + " OR (" + keys[i] + " = " + bound[i].sql + " AND " + rec(i+1) + "))"
	}
	return rec(0)
}
