package rulefile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const sample = `# r: R ⇒ S
# when: always

ddl
CREATE TABLE t (a int);

data
INSERT INTO t VALUES (1);

# a comment
expect=r sqlite
a: SELECT a
  FROM t
b: SELECT a FROM t

expect-not=r
a: SELECT 1
b: SELECT 2
plan:
  project 1
    values
`

func TestParse(t *testing.T) {
	f, err := Parse("testdata/x/r.txt", sample, []string{"sqlite"})
	if err != nil {
		t.Fatal(err)
	}
	if f.Name != "r" || f.Fragment != "R ⇒ S" || f.Conditions != "always" || f.DDL != "CREATE TABLE t (a int);" || f.Data != "INSERT INTO t VALUES (1);" {
		t.Errorf("header or ddl: %+v", f)
	}
	want := []Case{
		{Kind: Expect, Rule: "r", Name: "expect-1", Flags: []string{"sqlite"}, A: "SELECT a FROM t", B: "SELECT a FROM t", Line: 11},
		{Kind: ExpectNot, Rule: "r", Name: "expect-not-1", A: "SELECT 1", B: "SELECT 2", Line: 16, Plan: "project 1\n  values"},
	}
	if len(f.Cases) != len(want) {
		t.Fatalf("cases %+v", f.Cases)
	}
	for i, w := range want {
		c := f.Cases[i]
		if c.Kind != w.Kind || c.Rule != w.Rule || c.Name != w.Name || strings.Join(c.Flags, ",") != strings.Join(w.Flags, ",") ||
			c.A != w.A || c.B != w.B || c.Line != w.Line || c.Plan != w.Plan {
			t.Errorf("case %d: %+v, want %+v", i, c, w)
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, text, err string
	}{
		{"no header", "ddl\nx\n", "line 1"},
		{"other name", "# q: x\n# when: y\n\nddl\nx\n", "line 1"},
		{"no when", "# r: x\n# y\n\nddl\nx\n", "line 2"},
		{"no ddl", "# r: x\n# when: y\n", "no ddl"},
		{"other rule", "# r: x\n# when: y\n\nddl\nx\n\nexpect=q\na: 1\nb: 2\n", "not the file's rule"},
		{"flag", "# r: x\n# when: y\n\nddl\nx\n\nexpect=r odd\na: 1\nb: 2\n", "unknown flag"},
		{"no a", "# r: x\n# when: y\n\nddl\nx\n\nexpect=r\nb: 1\n", "needs a:"},
		{"block", "# r: x\n# when: y\n\nddl\nx\n\nodd\n", "unknown block"},
		{"after plan", "# r: x\n# when: y\n\nddl\nx\n\nexpect=r\na: 1\nb: 2\nplan:\n  p\nc: 3\n", "after the plan"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("testdata/r.txt", tc.text, nil)
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("error %v, want one with %q", err, tc.err)
			}
		})
	}
}

// TestPlanUpdate: CheckPlan finds a stale plan, and with update rewrites
// the block (inserting one where a case has none) and nothing else.
func TestPlanUpdate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.txt")
	if err := os.WriteFile(path, []byte(sample), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Read(path, []string{"sqlite"})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.CheckPlan(1, "project 1\n  values\n", false); err != nil {
		t.Errorf("same plan: %v", err)
	}
	if err := f.CheckPlan(0, "scan t", false); err == nil {
		t.Error("a missing plan block passes")
	}
	if err := f.CheckPlan(0, "a\n\nb", true); err == nil {
		t.Error("a blank line in a plan passes")
	}
	for i, p := range []string{"scan t", "project 2"} {
		if err := f.CheckPlan(i, p, true); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.WriteBack(); err != nil {
		t.Fatal(err)
	}
	g, err := Read(path, []string{"sqlite"})
	if err != nil {
		t.Fatal(err)
	}
	if g.Cases[0].Plan != "scan t" || g.Cases[1].Plan != "project 2" || g.Cases[1].A != "SELECT 1" {
		t.Errorf("after update: %+v", g.Cases)
	}
	want := strings.Replace(strings.Replace(sample, "b: SELECT a FROM t\n", "b: SELECT a FROM t\nplan:\n  scan t\n", 1),
		"  project 1\n    values\n", "  project 2\n", 1)
	if data, _ := os.ReadFile(path); string(data) != want {
		t.Errorf("file after update:\n%s\nwant:\n%s", data, want)
	}
}

// TestCheckRegistry: a missing file, a stray file, a header that differs
// from the registry and a rule registered twice are each reported.
func TestCheckRegistry(t *testing.T) {
	root := t.TempDir()
	write := func(rel, text string) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("f/r.txt", sample)
	write("f/s.txt", "# s: X\n# when: never\n")
	write("g/stray.txt", "# stray: X\n# when: y\n")
	rules := []Rule{
		{Name: "r", Family: "f", Fragment: "R ⇒ S", Conditions: "always"},
		{Name: "s", Family: "f", Fragment: "X", Conditions: "always"},
		{Name: "gone", Family: "f", Fragment: "X", Conditions: "y"},
		{Name: "r", Family: "g", Fragment: "R ⇒ S", Conditions: "always"},
	}
	var got []string
	for _, err := range CheckRegistry(root, rules) {
		got = append(got, err.Error())
	}
	all := strings.Join(got, "\n")
	for _, want := range []string{"s.txt: the header says", "rule gone:", "registered twice", "stray.txt: no registered rule"} {
		if !strings.Contains(all, want) {
			t.Errorf("no error with %q in:\n%s", want, all)
		}
	}
	if len(got) != 5 { // g/r.txt is missing too
		t.Errorf("%d errors, want 5:\n%s", len(got), all)
	}
}

// TestOf reads the fields of a registry's own rule type.
func TestOf(t *testing.T) {
	type reg struct {
		Name, Family, Fragment, Conditions string
		apply                              func()
	}
	got := Of([]reg{{Name: "r", Family: "f", Fragment: "x ⇒ y", Conditions: "c"}})
	if len(got) != 1 || got[0] != (Rule{Name: "r", Family: "f", Fragment: "x ⇒ y", Conditions: "c"}) {
		t.Errorf("Of = %+v", got)
	}
	if got := Of([]int{1}); got[0] != (Rule{}) {
		t.Errorf("Of of no struct = %+v", got)
	}
}
