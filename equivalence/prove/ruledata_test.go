package prove_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pgequiv/pgequiv/equivalence/prove"
	"github.com/pgequiv/pgequiv/internal/shareddata"
	"github.com/pgequiv/pgequiv/planner"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

// Each registered rule has its own file, testdata/<family>/<name>.txt,
// of blocks separated by blank lines ('#' starts a comment line):
//
//	ddl                         the schema: the lines below, or
//	schema data/provers/schemas/emp_dept.sql   a shared schema file
//
//	expect=<rule> [flags]       the pair is proved both ways round, the
//	a: SELECT ...               proof names the rule, and the executor
//	b: SELECT ...               finds no difference on random databases
//
//	expect-not=<rule> [flags]   a near miss: the pair is not proved (so
//	a: ...                      the rule does not fire) and the executor
//	b: ...                      shows a difference
//
// Flags: sqlite (plan, prove and execute under SQLite), as-given (only
// the proof with a as the reference must name the rule), unseen (the
// executor cannot show the difference: the comment says why), equal
// (expect-not only: the pair is equivalent but beyond the rule; the
// executor must find no difference). A line of a or b that starts with
// whitespace continues the one above.

// ruleFile is one parsed testdata file.
type ruleFile struct {
	ddl    string
	sqlite bool
	cases  []ruleCase
	expect map[string]int // cases by kind: "expect" and "expect-not"
}

func readRuleFile(t *testing.T, path, rule string) ruleFile {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f := ruleFile{expect: map[string]int{}}
	var blocks [][]string
	var cur []string
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "#") {
			continue
		}
		if strings.TrimSpace(line) == "" {
			if cur != nil {
				blocks = append(blocks, cur)
			}
			cur = nil
			continue
		}
		cur = append(cur, line)
	}
	if cur != nil {
		blocks = append(blocks, cur)
	}
	for i, b := range blocks {
		head := strings.Fields(b[0])
		switch {
		case head[0] == "ddl":
			f.ddl = strings.Join(b[1:], "\n")
		case head[0] == "schema" && len(head) == 2:
			ddl, err := os.ReadFile(shareddata.Path(t, head[1]))
			if err != nil {
				t.Fatal(err)
			}
			f.ddl = string(ddl)
		case strings.HasPrefix(head[0], "expect"):
			c, kind, err := parseRuleCase(b, rule)
			if err != nil {
				t.Fatalf("%s, block %d: %v", path, i+1, err)
			}
			c.name = fmt.Sprintf("%s-%d", kind, f.expect[kind]+1)
			f.expect[kind]++
			f.cases = append(f.cases, c)
		default:
			t.Fatalf("%s, block %d: unknown block %q", path, i+1, b[0])
		}
	}
	if f.ddl == "" {
		t.Fatalf("%s: no ddl or schema block", path)
	}
	return f
}

// parseRuleCase reads a case block about rule.
func parseRuleCase(b []string, rule string) (ruleCase, string, error) {
	head := strings.Fields(b[0])
	kind, name, _ := strings.Cut(head[0], "=")
	if name != rule {
		return ruleCase{}, "", fmt.Errorf("%s names %q, not the file's rule %q", kind, name, rule)
	}
	var c ruleCase
	switch kind {
	case "expect":
		c.want, c.rule = true, rule
	case "expect-not":
		c.ruleNot = rule
	default:
		return ruleCase{}, "", fmt.Errorf("unknown %q", head[0])
	}
	for _, flag := range head[1:] {
		switch flag {
		case "sqlite":
			c.sqlite = true
		case "as-given":
			c.ruleAsGiven = true
		case "unseen":
			c.unseen = "see the test file"
		case "equal":
			c.unproved = "see the test file"
		default:
			return ruleCase{}, "", fmt.Errorf("unknown flag %q", flag)
		}
	}
	var last *string
	for _, line := range b[1:] {
		switch {
		case strings.HasPrefix(line, "a:"):
			c.a, last = strings.TrimSpace(line[2:]), &c.a
		case strings.HasPrefix(line, "b:"):
			c.b, last = strings.TrimSpace(line[2:]), &c.b
		case last != nil && (line[0] == ' ' || line[0] == '\t'):
			*last += " " + strings.TrimSpace(line)
		default:
			return ruleCase{}, "", fmt.Errorf("unexpected line %q", line)
		}
	}
	if c.a == "" || c.b == "" {
		return ruleCase{}, "", fmt.Errorf("a case needs a: and b:")
	}
	return c, kind, nil
}

// TestRuleFiles runs each registered rule's file: at least one pair it
// proves naming the rule and one near miss, each checked by the executor.
func TestRuleFiles(t *testing.T) {
	for _, r := range prove.Rules() {
		t.Run(r.Family+"/"+r.Name, func(t *testing.T) {
			f := readRuleFile(t, filepath.Join("testdata", r.Family, r.Name+".txt"), r.Name)
			if f.expect["expect"] == 0 || f.expect["expect-not"] == 0 {
				t.Fatalf("want at least one expect=%s and one expect-not=%s case, have %v", r.Name, r.Name, f.expect)
			}
			runRuleCases(t, f.ddl, f.cases)
		})
	}
}

// TestRuleFilesRegistered: every file under testdata names a registered
// rule of its folder's family, and no two rules share a name.
func TestRuleFilesRegistered(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range prove.Rules() {
		if seen[r.Name] {
			t.Errorf("rule %s registered twice", r.Name)
		}
		seen[r.Name] = true
		if r.Name == "" || r.Family == "" || r.Fragment == "" || r.Conditions == "" || strings.Contains(r.Name, ": ") {
			t.Errorf("rule %+v: name, family, fragment and conditions are all needed; a name holds no \": \"", r)
		}
	}
	files, err := filepath.Glob(filepath.Join("testdata", "*", "*.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range files {
		name := strings.TrimSuffix(filepath.Base(path), ".txt")
		r, ok := prove.LookupRule(name)
		if !ok || r.Family != filepath.Base(filepath.Dir(path)) {
			t.Errorf("%s: no registered rule %s of family %s", path, name, filepath.Base(filepath.Dir(path)))
		}
	}
}

// TestSuiteTracesNameRegisteredRules proves every pair of the shared
// suites (the prover suites and the Spider pairs): each entry of each
// proof's trace must name a registered rule.
func TestSuiteTracesNameRegisteredRules(t *testing.T) {
	n := 0
	for _, c := range soundnessCorpus {
		forEachProof(t, c.file, c.schemas, c.dialect, func(id string, rules []string) {
			n++
			for _, e := range rules {
				if _, ok := prove.LookupRule(prove.RuleName(e)); !ok {
					t.Errorf("%s %s: trace entry %q names no registered rule", c.file, id, e)
				}
			}
		})
	}
	if n == 0 {
		t.Fatal("no pair proved")
	}
}

// forEachProof proves each pair of the shared suite file (schemas in
// the shared folder schemas, under dialect d) and calls fn with the
// trace of each proof.
func forEachProof(t *testing.T, file, schemas string, d catalog.Dialect, fn func(id string, rules []string)) {
	t.Helper()
	ctx := context.Background()
	load := schemaLoader(t, shareddata.Path(t, "data/"+schemas), d)
	for _, p := range loadPairs(t, shareddata.Path(t, "data/"+file)) {
		s := load(p.DB)
		a, err1 := planner.Plan(ctx, s, p.Reference, planner.Options{})
		b, err2 := planner.Plan(ctx, s, p.Candidate, planner.Options{})
		if err1 != nil || err2 != nil {
			continue
		}
		r, err := prove.Equivalent(ctx, a, b, prove.Options{TrustForeignKeys: d == catalog.Postgres, SQLite: d == catalog.SQLite})
		if err != nil {
			t.Fatal(err)
		}
		if r.Proved {
			fn(p.ID, r.Rules)
		}
	}
}
