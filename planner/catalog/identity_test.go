package catalog

import "testing"

// TestIdentityEqual pins which equalities are identity: those the
// rules may substitute across (the engine-checked pairs are in
// equivalence's TestJoinSubstitutionNotIdentityPostgres and the collation
// tests).
func TestIdentityEqual(t *testing.T) {
	col := func(typ string) EqDomain {
		return ColumnDomain(&Column{Type: TypeFromName(typ), TypeSQL: typ})
	}
	nocase := ColumnDomain(&Column{Type: Text, TypeSQL: "text", Collation: "NOCASE"})
	ci := ColumnDomain(&Column{Type: Text, TypeSQL: "text", Collation: "ci", Nondeterministic: true})
	cColl := ColumnDomain(&Column{Type: Text, TypeSQL: "text", Collation: "C"})
	lite := func(typ string) EqDomain {
		return ColumnDomainIn(&Column{Type: TypeFromName(typ), TypeSQL: typ}, SQLite)
	}
	cases := []struct {
		name string
		a, b EqDomain
		want bool
	}{
		{"int = bigint", col("int"), col("bigint"), true},
		{"text = varchar(10)", col("text"), col("varchar(10)"), true},
		{"text = text literal", col("text"), LiteralDomain(Text, "abc"), true},
		{"int = int literal", col("integer"), LiteralDomain(Int, "3"), true},
		{"date = date", col("date"), col("date"), true},
		{"bool = bool", col("boolean"), col("boolean"), true},
		{"numeric(10,2) = numeric(15,2)", col("numeric(10,2)"), col("numeric(15, 2)"), true},
		{"numeric(10,2) = 1.50", col("numeric(10,2)"), LiteralDomain(Numeric, "1.50"), true},
		{"numeric(10,2) = 1.5", col("numeric(10,2)"), LiteralDomain(Numeric, "1.5"), false},
		{"numeric(10,2) = numeric(10,3)", col("numeric(10,2)"), col("numeric(10,3)"), false},
		{"numeric = numeric", col("numeric"), col("numeric"), false},
		{"int = numeric", col("int"), col("numeric(10,0)"), false},
		{"float = float", col("double precision"), col("double precision"), false},
		{"interval = interval", col("interval"), col("interval"), false},
		{"json = json", col("jsonb"), col("jsonb"), false},
		{"char(3) = char(3)", col("char(3)"), col("character(3)"), true},
		{"char(3) = char(5)", col("char(3)"), col("char(5)"), false},
		{"char(3) = text", col("char(3)"), col("text"), false},
		{"citext = citext", col("citext"), col("citext"), false},
		{"timestamp = timestamp", col("timestamp"), col("timestamp without time zone"), true},
		{"timestamptz = timestamptz", col("timestamptz"), col("timestamp with time zone"), true},
		{"timestamp = timestamptz", col("timestamp"), col("timestamptz"), false},
		{"text = text NOCASE", col("text"), nocase, false},
		{"text = text nondeterministic", ci, col("text"), false},
		{"text = text COLLATE \"C\"", cColl, col("text"), false},
		{"text COLLATE \"C\" = text COLLATE \"C\"", cColl, cColl, true},
		{"unknown = unknown", col("geometry"), col("geometry"), false},
		{"sqlite numeric = integer", lite("numeric"), lite("integer"), true},
		{"sqlite char(3) = char(5)", lite("char(3)"), lite("char(5)"), true},
		{"sqlite real = integer", lite("real"), lite("integer"), false},
		{"mixed", EqDomain{Type: Int, Mod: -1, Mixed: true}, col("int"), false},
		{"COLLATE \"default\"", ColumnDomain(&Column{Type: Text, TypeSQL: "text", Collation: `"default"`}), col("text"), true},
		{"sqlite COLLATE BINARY", ColumnDomainIn(&Column{Type: Text, TypeSQL: "text", Collation: "BINARY"}, SQLite), lite("text"), true},
	}
	for _, c := range cases {
		if got := IdentityEqual(c.a, c.b); got != c.want {
			t.Errorf("%s: IdentityEqual = %v, want %v (%+v, %+v)", c.name, got, c.want, c.a, c.b)
		}
		if got := IdentityEqual(c.b, c.a); got != c.want {
			t.Errorf("%s swapped: IdentityEqual = %v, want %v", c.name, got, c.want)
		}
	}
}
