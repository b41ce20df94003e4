package config

import (
	"go/build"
	"strings"
	"testing"
)

// TestConfigIsALeaf: config, its tests included, imports nothing from the
// rest of pgequiv; building components from it is cmd/pgequiv's wiring.
func TestConfigIsALeaf(t *testing.T) {
	p, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range append(append(p.Imports, p.TestImports...), p.XTestImports...) {
		if imp == "github.com/pgequiv/pgequiv" || strings.HasPrefix(imp, "github.com/pgequiv/pgequiv/") {
			t.Errorf("config imports %s", imp)
		}
	}
}
