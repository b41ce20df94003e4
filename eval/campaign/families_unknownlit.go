package campaign

import "strings"

// famCaseLiteral writes a quoted literal beside a typed column in
// COALESCE, CASE or GREATEST, spelled two ways: PostgreSQL reads the
// literal as the column's type ('05' beside an integer is 5, a uuid
// spelled in capitals is the same uuid), so the spellings of one value
// return the same rows and those of two values do not. A judge that
// keeps the literal as text labels the first not_equivalent (found by
// hand after issue 34; the typed-literal family compares spellings only
// in WHERE).
func (g *gen) famCaseLiteral(p *Pair) bool {
	if !g.pgs {
		return false
	}
	has := func(c mcol) bool { return len(caseSpellings(c.sqlType)) > 0 }
	t := g.table(hasCol(has))
	if t == nil {
		return false
	}
	c := g.column(t, has)
	ss := caseSpellings(c.sqlType)
	s := ss[g.r.IntN(len(ss))]
	col := ident(c.name)
	var form string
	var wrap func(lit string) string
	switch g.r.IntN(4) {
	case 0:
		form, wrap = "coalesce", func(lit string) string { return "COALESCE(" + col + ", '" + lit + "')" }
	case 1:
		form, wrap = "case", func(lit string) string {
			return "CASE WHEN " + col + " IS NULL THEN '" + lit + "' ELSE " + col + " END"
		}
	case 2:
		form, wrap = "greatest", func(lit string) string { return "GREATEST('" + lit + "', " + col + ")" }
	default:
		// A set operation's column resolves its type the same way.
		p.Reference = "SELECT " + col + " FROM " + ident(t.name) + " UNION ALL SELECT '" + s.a + "'"
		p.Candidate = "SELECT " + col + " FROM " + ident(t.name) + " UNION ALL SELECT '" + s.b + "'"
		p.Class = "33.4"
		p.Mutation = strings.Fields(c.sqlType)[0] + "/union/" + map[bool]string{true: "same", false: "other"}[s.same]
		return true
	}
	items := strings.Join(g.items(t, "", "\x00"), ", ") // the same other outputs on both sides
	q := func(lit string) string {
		return "SELECT " + strings.Replace(items, "\x00", wrap(lit), 1) + " FROM " + ident(t.name)
	}
	p.Reference, p.Candidate = q(s.a), q(s.b)
	p.Class = "33.4"
	p.Mutation = strings.Fields(c.sqlType)[0] + "/" + form + "/" + map[bool]string{true: "same", false: "other"}[s.same]
	return true
}

// caseSpellings are the spellings famCaseLiteral writes for a column of
// sqlType (format_type's text): typedSpellings', and numbers and
// booleans that read alike or apart.
func caseSpellings(sqlType string) []struct {
	a, b string
	same bool
} {
	if ss := typedSpellings[sqlType]; len(ss) > 0 {
		return ss
	}
	switch {
	case sqlType == "integer", sqlType == "smallint", sqlType == "bigint":
		return []struct {
			a, b string
			same bool
		}{{"5", "05", true}, {"7", " 7 ", true}, {"5", "6", false}, {"0", "-0", true}}
	case strings.HasPrefix(sqlType, "numeric"):
		return []struct {
			a, b string
			same bool
		}{{"2.5", "+2.5", true}, {"1", " 1", true}, {"2.5", "2.6", false}}
	case sqlType == "boolean":
		return []struct {
			a, b string
			same bool
		}{{"yes", "true", true}, {"on", "t", true}, {"no", "true", false}}
	}
	return nil
}
