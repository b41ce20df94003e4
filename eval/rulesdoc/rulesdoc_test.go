package rulesdoc

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite docs/rules.md")

// root is the module root, from this package.
const root = "../.."

// TestRulesDocFresh: docs/rules.md is what the registries render, and
// every rule's file it links to exists.
func TestRulesDocFresh(t *testing.T) {
	systems := Systems()
	for _, s := range systems {
		if len(s.Rules) == 0 {
			t.Errorf("%s: no rule registered", s.Package)
		}
		for _, r := range s.Rules {
			if _, err := os.Stat(filepath.Join(root, r.File(s.Dir()))); err != nil {
				t.Errorf("%s: %v", r.Name, err)
			}
		}
	}
	got := Markdown(systems)
	path := filepath.Join(root, "docs", "rules.md")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != got {
		t.Errorf("%s is stale: run go test ./eval/rulesdoc -run TestRulesDocFresh -update", path)
	}
}
