package layers_test

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/pgequiv/pgequiv/internal/layers"
)

type listed struct {
	ImportPath   string
	Imports      []string
	TestImports  []string
	XTestImports []string
}

// TestNoImportUpward: no package, nor its tests, imports a package of a
// higher layer (layers.go), and every package of the module has a layer.
func TestNoImportUpward(t *testing.T) {
	cmd := exec.Command("go", "list", "-json", layers.Module+"/...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	n := 0
	for dec.More() {
		var p listed
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		n++
		from, ok := layers.Of(p.ImportPath)
		if !ok {
			t.Errorf("%s has no layer (add a rule to layers.go)", p.ImportPath)
			continue
		}
		for kind, imps := range map[string][]string{"imports": p.Imports, "tests import": append(p.TestImports, p.XTestImports...)} {
			for _, imp := range imps {
				if !strings.HasPrefix(imp, layers.Module+"/") || imp == p.ImportPath {
					continue
				}
				to, ok := layers.Of(imp)
				if ok && to > from {
					t.Errorf("%s (%s) %s %s (%s)", p.ImportPath, layers.Name(from), kind, imp, layers.Name(to))
				}
			}
		}
	}
	if n < 20 {
		t.Fatalf("go list found only %d packages", n)
	}
}

func TestOf(t *testing.T) {
	for _, c := range []struct {
		pkg  string
		want int
	}{
		{layers.Module + "/config", layers.Leaf},
		{layers.Module + "/planner/exec", layers.Planner},
		{layers.Module + "/equivalence/prove", layers.Equivalence},
		{layers.Module + "/eval/metrics", layers.Eval},
		{layers.Module + "/internal/sqltext", layers.Base},
		{layers.Module + "/internal/soundness", layers.Equivalence},
		{layers.Module + "/eval/campaign", layers.Eval},
		{layers.Module + "/cmd/pgequiv", layers.Command},
	} {
		if got, ok := layers.Of(c.pkg); !ok || got != c.want {
			t.Errorf("Of(%s) = %d, %v; want %d", c.pkg, got, ok, c.want)
		}
	}
	if _, ok := layers.Of("github.com/other/module"); ok {
		t.Error("a package outside the module has a layer")
	}
}
