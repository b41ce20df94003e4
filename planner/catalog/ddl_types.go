package catalog

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"
)

// domainDef is a CREATE DOMAIN: its base type (maybe another domain),
// NOT NULL and CHECKs over VALUE.
type domainDef struct {
	base      colType
	notNull   bool
	checks    []checkDef
	collation string
}

func (b *ddlBuilder) createDomain(cd *pg.CreateDomainStmt) {
	d := &domainDef{base: colTypeOf(cd.TypeName, cd.CollClause)}
	d.collation = d.base.collation
	name := lastName(nodeNames(cd.Domainname))
	for _, n := range cd.Constraints {
		b.domainConstraint(name, d, n.GetConstraint())
	}
	b.domains[name] = d
}

func (b *ddlBuilder) domainConstraint(name string, d *domainDef, c *pg.Constraint) {
	if c == nil {
		return
	}
	switch c.Contype {
	case pg.ConstrType_CONSTR_NOTNULL:
		d.notNull = true
	case pg.ConstrType_CONSTR_CHECK:
		cn := c.Conname
		if cn == "" {
			cn = name + "_check"
		}
		d.checks = append(d.checks, checkDef{name: cn, expr: c.RawExpr, notValid: c.SkipValidation})
	}
}

// alterDomain reads ALTER DOMAIN ... ADD/DROP CONSTRAINT, SET/DROP NOT
// NULL, VALIDATE CONSTRAINT (pg_dump writes NOT VALID checks so).
func (b *ddlBuilder) alterDomain(ad *pg.AlterDomainStmt) {
	name := lastName(nodeNames(ad.TypeName))
	d := b.domains[name]
	if d == nil {
		b.drop("ALTER DOMAIN on unknown domain " + name)
		return
	}
	switch ad.Subtype {
	case "C":
		b.domainConstraint(name, d, ad.Def.GetConstraint())
	case "X":
		for i := 0; i < len(d.checks); i++ {
			if d.checks[i].name == ad.Name {
				d.checks = append(d.checks[:i], d.checks[i+1:]...)
				i--
			}
		}
	case "V":
		for i := range d.checks {
			if d.checks[i].name == ad.Name {
				d.checks[i].notValid = false
			}
		}
	case "O":
		d.notNull = true
	case "N":
		d.notNull = false
	}
}

func (b *ddlBuilder) createEnum(ce *pg.CreateEnumStmt) {
	var labels []string
	for _, v := range ce.Vals {
		labels = append(labels, v.GetString_().GetSval())
	}
	b.enums[lastName(nodeNames(ce.TypeName))] = labels
}

// alterEnum reads ALTER TYPE ... ADD VALUE [BEFORE|AFTER] and RENAME
// VALUE; the labels keep the order < compares them in.
func (b *ddlBuilder) alterEnum(ae *pg.AlterEnumStmt) {
	name := lastName(nodeNames(ae.TypeName))
	labels, ok := b.enums[name]
	if !ok {
		b.drop("ALTER TYPE on unknown enum " + name)
		return
	}
	if ae.OldVal != "" {
		for i, l := range labels {
			if l == ae.OldVal {
				labels[i] = ae.NewVal
			}
		}
		return
	}
	if contains(labels, ae.NewVal) {
		return
	}
	at := len(labels)
	if ae.NewValNeighbor != "" {
		for i, l := range labels {
			if l == ae.NewValNeighbor {
				at = i
				if ae.NewValIsAfter {
					at = i + 1
				}
			}
		}
	}
	labels = append(labels[:at], append([]string{ae.NewVal}, labels[at:]...)...)
	b.enums[name] = labels
}

// define reads CREATE COLLATION (whether = is identity under it); other
// DEFINE statements (aggregates, operators, base types) are not read.
func (b *ddlBuilder) define(ds *pg.DefineStmt) {
	switch ds.Kind {
	case pg.ObjectType_OBJECT_COLLATION:
		name := lastName(nodeNames(ds.Defnames))
		nondet := false
		for _, n := range ds.Definition {
			de := n.GetDefElem()
			if de == nil {
				continue
			}
			switch strings.ToLower(de.Defname) {
			case "deterministic":
				nondet = !defBool(de.Arg)
			case "from":
				nondet = b.collations[lastName(nodeNames(de.Arg.GetList().GetItems()))]
			}
		}
		b.collations[name] = nondet
	case pg.ObjectType_OBJECT_TYPE:
		if len(ds.Definition) > 0 {
			b.otherTypes[lastName(nodeNames(ds.Defnames))] = "base type"
		}
	case pg.ObjectType_OBJECT_AGGREGATE, pg.ObjectType_OBJECT_OPERATOR, pg.ObjectType_OBJECT_TSCONFIGURATION,
		pg.ObjectType_OBJECT_TSDICTIONARY, pg.ObjectType_OBJECT_TSPARSER, pg.ObjectType_OBJECT_TSTEMPLATE:
		// Only queries that call them could differ, and those do not plan.
	default:
		b.drop("CREATE " + strings.TrimPrefix(ds.Kind.String(), "OBJECT_") + " is not read")
	}
}

// defBool reads a DefElem's boolean: false, 'false', off, 0.
func defBool(n *pg.Node) bool {
	if n == nil {
		return true
	}
	var s string
	switch {
	case n.GetBoolean() != nil:
		return n.GetBoolean().Boolval
	case n.GetString_() != nil:
		s = n.GetString_().Sval
	case n.GetInteger() != nil:
		return n.GetInteger().Ival != 0
	case n.GetAConst() != nil:
		if c := n.GetAConst(); c.GetBoolval() != nil {
			return c.GetBoolval().Boolval
		} else if c.GetSval() != nil {
			s = c.GetSval().Sval
		} else if c.GetIval() != nil {
			return c.GetIval().Ival != 0
		}
	}
	switch strings.ToLower(s) {
	case "false", "off", "no", "0":
		return false
	}
	return true
}

// knownPGTypes are built-in types TypeFromName folds to Unknown: the
// planner handles their columns as it always has. A type name that is
// neither one of them, nor a family TypeFromName knows, nor a domain or
// enum of the DDL is one the catalog cannot model.
var knownPGTypes = map[string]bool{
	"inet": true, "cidr": true, "macaddr": true, "macaddr8": true, "tsvector": true, "tsquery": true,
	"point": true, "line": true, "lseg": true, "box": true, "path": true, "polygon": true, "circle": true,
	"money": true, "bit": true, "varbit": true, "xml": true, "oid": true, "regclass": true, "regtype": true,
	"int4range": true, "int8range": true, "numrange": true, "tsrange": true, "tstzrange": true, "daterange": true,
	"pg_lsn": true, "txid_snapshot": true, "pg_snapshot": true, "char": true, "hstore": true, "citext": true,
}

// resolveTypes fills each column's type facts once the whole DDL is read:
// a domain's base type, NOT NULL and CHECKs (VALUE replaced by the
// column), an enum's labels, and the collation and whether it is
// deterministic.
func (b *ddlBuilder) resolveTypes(ts *tableState) []checkDef {
	var checks []checkDef
	for i := range ts.t.Columns {
		c := &ts.t.Columns[i]
		ct := ts.types[i]
		coll := ct.collation
		seen := map[string]bool{}
		for !ct.array {
			d := b.domains[ct.name]
			if d == nil || seen[ct.name] {
				break
			}
			seen[ct.name] = true
			if c.Domain == "" {
				c.Domain = ct.name
			}
			c.NotNull = c.NotNull || d.notNull
			for _, dc := range d.checks {
				if dc.notValid {
					continue
				}
				checks = append(checks, checkDef{name: dc.name, expr: replaceValue(dc.expr, c.Name)})
			}
			if coll == "" {
				coll = d.collation
			}
			ct = d.base
		}
		if c.Domain != "" {
			c.Type, c.TypeSQL = TypeFromName(ct.name), ct.name+ct.mods
		}
		if labels, ok := b.enums[ct.name]; ok && !ct.array {
			c.Type, c.TypeSQL, c.Enum = Text, ct.name, append([]string(nil), labels...)
		} else if kind, ok := b.otherTypes[ct.name]; ok {
			b.noteAt(ts, ts.types[i].line, "column "+c.Name+" of "+kind+" "+ct.name, "its values are not modelled")
		} else if b.d == Postgres && c.Type == Unknown && !ct.array && !knownPGTypes[ct.name] && !knownPGTypes[strings.TrimPrefix(ct.name, "_")] {
			b.noteAt(ts, ts.types[i].line, "column "+c.Name+" of unknown type "+ct.qualified, "its values are not modelled")
		}
		if b.d == Postgres && ct.name == "citext" && !ct.array {
			// citext's = ignores case, as a nondeterministic collation's.
			c.Nondeterministic = true
		}
		if coll != "" {
			c.Collation = coll
			switch {
			case b.d == SQLite:
				c.Nondeterministic = strings.EqualFold(coll, "nocase") || strings.EqualFold(coll, "rtrim")
			default:
				c.Nondeterministic = c.Nondeterministic || b.collations[coll]
			}
		}
	}
	return checks
}
