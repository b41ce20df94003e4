// Package layers states the project's layering, which a test checks
// against the imports `go list` reports (docs/architecture.md explains
// it): data flows protocol → proxy → equivalence → planner, gmn and
// cache; eval/ (what measures the judge) and cmd/ sit on top; config is
// a leaf. A package may import packages of its own layer or lower ones,
// never a higher one.
package layers

import "strings"

// Module is the module path the layers apply to.
const Module = "github.com/pgequiv/pgequiv"

// Layer ranks: a package may import a package whose rank is at most its
// own.
const (
	Leaf        = 0 // config, and helpers that import nothing above them
	Base        = 1 // protocol, telemetry, internal/sqltext: no judging
	Planner     = 2 // planner/..., gmn/..., cache
	Equivalence = 3 // the judge: equivalence/...
	Proxy       = 4 // the relay and its judging: proxy/...
	Eval        = 5 // evaluation tooling and test infrastructure over the judge
	Command     = 6 // cmd/..., scripts/...
)

// rule assigns a layer to a path prefix (relative to Module); the
// longest matching prefix wins.
type rule struct {
	prefix string
	layer  int
}

var rules = []rule{
	{"config", Leaf},
	{"internal/shareddata", Leaf},
	{"internal/pgtest", Leaf},
	{"internal/sqlitetest", Leaf},
	{"internal/rulefile", Leaf},
	{"internal/pgtypes", Leaf}, // built-in type OIDs and float spellings, shared by the binder, catalog and executor // the rule files of the prover, the normalizer and the ESM+ rules
	{"internal/layers", Leaf},
	{"protocol", Base},
	{"telemetry", Base},
	{"internal/sqltext", Base},
	{"internal/buildinfo", Base},       // the build's version and revision, for `version` and SHOW VERSION
	{"internal/sqlgen", Planner},       // generates SQL over a catalog, for fuzzing the planner and up
	{"internal/catalogcheck", Planner}, // checks a catalog against a real engine
	{"internal/dataset", Planner},      // reads the pair and case files and their schemas
	{"cache", Planner},
	{"planner", Planner},
	{"gmn", Planner},
	{"equivalence", Equivalence},
	{"internal/soundness", Equivalence}, // the soundness net's corpora and its planner and norm checks, which generate databases with the refuter
	{"proxy", Proxy},
	{"eval", Eval},
	{"internal", Eval}, // test infrastructure: campaign, soundness, sqlgen, ...
	{"cmd", Command},
	{"scripts", Command},
}

// Of returns the layer of a package path of Module, and false for a path
// outside the module or one no rule covers.
func Of(pkg string) (int, bool) {
	rel, ok := strings.CutPrefix(pkg, Module+"/")
	if !ok {
		return 0, false
	}
	best, layer := -1, 0
	for _, r := range rules {
		if (rel == r.prefix || strings.HasPrefix(rel, r.prefix+"/")) && len(r.prefix) > best {
			best, layer = len(r.prefix), r.layer
		}
	}
	return layer, best >= 0
}

// Name names a layer for messages.
func Name(layer int) string {
	return [...]string{"leaf", "base", "planner/gmn/cache", "equivalence", "proxy", "eval", "cmd"}[layer]
}
