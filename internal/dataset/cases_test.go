package dataset

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/pgequiv/pgequiv/internal/shareddata"
)

func TestReadCasesSharedFile(t *testing.T) {
	cf, err := ReadCasesFile(shareddata.Path(t, "equivalence/cases.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(cf.Cases) != 86 {
		t.Fatalf("read %d cases, want 86", len(cf.Cases))
	}
	tiers := map[Tier]int{}
	expects := map[Expect]int{}
	byID := map[string]Case{}
	for _, c := range cf.Cases {
		tiers[c.Tier]++
		expects[c.Expect]++
		byID[c.ID] = c
	}
	if tiers[TierCore] != 82 || tiers[TierHard] != 4 {
		t.Errorf("tiers = %v, want 82 core and 4 hard", tiers)
	}
	if expects[Equivalent] != 49 || expects[NotEquivalent] != 34 || expects[EquivalentUnderAssumptions] != 3 {
		t.Errorf("expects = %v, want 49 equivalent, 34 not_equivalent, 3 under assumptions", expects)
	}
	if !strings.HasPrefix(cf.Schema, "CREATE TABLE breeds (\n") || !strings.Contains(cf.Schema, "CREATE TABLE treatments (") {
		t.Errorf("schema = %q", cf.Schema)
	}

	if c := cf.Cases[0]; c.ID != "norm-alias" || c.Line != 53 || c.Tier != TierCore || c.Expect != Equivalent ||
		c.Reference != "SELECT name FROM dogs WHERE age > 3" || c.Policy != nil || c.Assumptions != nil {
		t.Errorf("first case = %+v", c)
	}
	// A folded (>-) scalar joins its lines with spaces.
	if c := byID["join-predicate-pushdown"]; c.Line != 155 || !strings.HasPrefix(c.Reference, "SELECT COUNT(*) FROM treatments JOIN dogs ON treatments.dog_id = dogs.dog_id JOIN owners") {
		t.Errorf("join-predicate-pushdown = %+v", c)
	}
	if c := byID["norm-column-order-ignored"]; c.Policy["column_order"] != "ignore" || len(c.Policy) != 1 {
		t.Errorf("norm-column-order-ignored policy = %v", c.Policy)
	}
	c := byID["join-count-distinct-through-unenforced-fk"]
	if c.Policy["trust_foreign_keys"] != "false" || c.Expect != EquivalentUnderAssumptions ||
		!slices.Equal(c.Assumptions, []string{"foreign key dogs.breed_code references breeds.breed_code holds"}) {
		t.Errorf("join-count-distinct-through-unenforced-fk = %+v", c)
	}
	if c := byID["esm09-max-vs-order-limit-not-null"]; !slices.Equal(c.Assumptions, []string{"treatments is not empty"}) {
		t.Errorf("esm09-max-vs-order-limit-not-null assumptions = %q", c.Assumptions)
	}
}

func TestReadCasesBadInput(t *testing.T) {
	const head = "schema: CREATE TABLE t (a int);\ncases:\n" // cases start on line 3
	const ok = "- id: ok\n  tier: core\n  reference: SELECT a FROM t\n  candidate: SELECT a FROM t\n  expect: equivalent\n"
	tests := []struct {
		name  string
		in    string
		line  int
		field string
		want  error
	}{
		{"empty file", "", 1, "", ErrMissingField},
		{"top level list", "- a\n", 1, "", ErrInvalidValue},
		{"unknown top key", "schema: x\nversion: 2\ncases: []\n", 2, "version", ErrUnknownKey},
		{"schema missing", "cases: []\n", 1, "schema", ErrMissingField},
		{"schema null", "schema:\ncases: []\n", 1, "schema", ErrInvalidValue},
		{"cases missing", "schema: x\n", 1, "cases", ErrMissingField},
		{"cases a mapping", "schema: x\ncases:\n  a: 1\n", 3, "cases", ErrInvalidValue},
		{"duplicate top key", "schema: x\nschema: y\ncases: []\n", 2, "schema", ErrDuplicateKey},
		{"unknown case key", head + ok + "  note: hi\n", 8, "note", ErrUnknownKey},
		{"misspelt key", head + strings.Replace(ok, "expect:", "expected:", 1), 7, "expected", ErrUnknownKey},
		{"bad tier", head + strings.Replace(ok, "tier: core", "tier: easy", 1), 4, "tier", ErrInvalidValue},
		{"bad expect", head + strings.Replace(ok, "expect: equivalent", "expect: equal", 1), 7, "expect", ErrInvalidValue},
		{"expect list", head + strings.Replace(ok, "expect: equivalent", "expect: [equivalent]", 1), 7, "expect", ErrInvalidValue},
		{"missing candidate", head + strings.Replace(ok, "  candidate: SELECT a FROM t\n", "", 1), 3, "candidate", ErrMissingField},
		{"empty reference", head + strings.Replace(ok, "reference: SELECT a FROM t", "reference: ''", 1), 5, "reference", ErrInvalidValue},
		{"duplicate id", head + ok + ok, 8, "id", ErrDuplicateID},
		{"duplicate case key", head + ok + "  tier: hard\n", 8, "tier", ErrDuplicateKey},
		{"case not a mapping", head + ok + "- just text\n", 8, "", ErrInvalidValue},
		{"assumptions missing", head + strings.Replace(ok, "expect: equivalent", "expect: equivalent_under_assumptions", 1), 3, "assumptions", ErrMissingField},
		{"assumptions not allowed", head + ok + "  assumptions: [t is not empty]\n", 3, "assumptions", ErrInvalidValue},
		{"assumptions not a list", head + strings.Replace(ok, "expect: equivalent", "expect: equivalent_under_assumptions\n  assumptions: t is not empty", 1), 8, "assumptions", ErrInvalidValue},
		{"policy not a mapping", head + ok + "  policy: strict\n", 8, "policy", ErrInvalidValue},
		{"policy value a list", head + ok + "  policy: {column_order: [a]}\n", 8, "policy.column_order", ErrInvalidValue},
		{"second document", head + ok + "---\nschema: y\n", 8, "", ErrInvalidValue},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadCases(strings.NewReader(tt.in))
			e, ok := errors.AsType[*Error](err)
			if !ok {
				t.Fatalf("error = %v, want *Error", err)
			}
			if e.Line != tt.line || e.Field != tt.field {
				t.Errorf("error at line %d field %q (%v), want line %d field %q", e.Line, e.Field, err, tt.line, tt.field)
			}
			if !errors.Is(err, tt.want) {
				t.Errorf("error = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestReadCasesYAMLSyntaxError(t *testing.T) {
	_, err := ReadCases(strings.NewReader("schema: x\ncases: [\n"))
	if err == nil {
		t.Fatal("no error for unterminated flow sequence")
	}
}

func TestReadCasesValid(t *testing.T) {
	in := `schema: CREATE TABLE t (a int);
cases:
- id: a
  tier: hard
  reference: SELECT a FROM t
  candidate: SELECT a FROM t
  expect: equivalent_under_assumptions
  assumptions: [t is not empty, a is unique]
  policy: {trust_foreign_keys: false, column_order: ignore}
- id: b
  tier: core
  reference: |
    SELECT a
    FROM t
  candidate: SELECT DISTINCT a FROM t
  expect: not_equivalent
`
	cf, err := ReadCases(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(cf.Cases) != 2 {
		t.Fatalf("%d cases, want 2", len(cf.Cases))
	}
	a, b := cf.Cases[0], cf.Cases[1]
	if a.Tier != TierHard || a.Line != 3 || !slices.Equal(a.Assumptions, []string{"t is not empty", "a is unique"}) ||
		a.Policy["trust_foreign_keys"] != "false" || a.Policy["column_order"] != "ignore" {
		t.Errorf("case a = %+v", a)
	}
	if b.Reference != "SELECT a\nFROM t\n" || b.Line != 10 || b.Expect != NotEquivalent {
		t.Errorf("case b = %+v", b)
	}
}
