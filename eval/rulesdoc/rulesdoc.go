// Package rulesdoc writes docs/rules.md, the table of every rule of the
// three rule systems (the normalizer, the ESM+ rules, the prover) from
// their registries, so that the page cannot drift from the code: a test
// fails when the page is stale and rewrites it with -update.
package rulesdoc

import (
	"fmt"
	"path"
	"strings"

	"github.com/pgequiv/pgequiv/equivalence/prove"
	"github.com/pgequiv/pgequiv/equivalence/rewrite"
	"github.com/pgequiv/pgequiv/internal/rulefile"
	"github.com/pgequiv/pgequiv/planner/norm"
)

// System is one rule system: its registry and where its rule files lie.
type System struct {
	Title   string // a heading
	Package string // the package, from the module root
	Intro   string // what its rules do and where a verdict names them
	Rules   []rulefile.Rule
}

// Dir is where the system's rule files lie, from the module root.
func (s System) Dir() string { return path.Join(s.Package, "testdata") }

// Systems returns the three systems in the order the judge runs them.
func Systems() []System {
	n, w, p := rulefile.Of(norm.Rules()), rulefile.Of(rewrite.Rules()), rulefile.Of(prove.Rules())
	return []System{
		{Title: "The normalizer", Package: "planner/norm", Rules: n,
			Intro: "Rewrites every plan toward one normal form as it is planned; `Plan.Rules` records the rules that fired, and a verdict's `rules` lists them."},
		{Title: "The ESM+ rules", Package: "equivalence/rewrite", Rules: w,
			Intro: "The judge's second stage: rewrites each plan of a pair where the schema facts a rule names hold; a rule that needs a fact the schema does not enforce names it as an assumption of the verdict."},
		{Title: "The prover", Package: "equivalence/prove", Rules: p,
			Intro: "Proof steps over two plans that still print apart; a proof's trace (a verdict's `rules`) names each step as `name` or `name: detail`. [prover.md](prover.md) describes the procedure."},
	}
}

// Markdown renders docs/rules.md for systems.
func Markdown(systems []System) string {
	var b strings.Builder
	b.WriteString("# Rules\n\n")
	b.WriteString("<!-- Generated from the rule registries by eval/rulesdoc: do not edit; run\n")
	b.WriteString("     go test ./eval/rulesdoc -run TestRulesDocFresh -update -->\n\n")
	b.WriteString("Every rule of the three rule systems, from their registries: its name (as a\n")
	b.WriteString("verdict prints it), what it rewrites (before ⇒ after) and the conditions that\n")
	b.WriteString("make it sound. Each name links to the rule's file of executed cases (the\n")
	b.WriteString("format of `internal/rulefile`): pairs it relates and near misses it must\n")
	b.WriteString("leave alone.\n")
	for _, s := range systems {
		fmt.Fprintf(&b, "\n## %s (`%s`): %d rules\n\n%s\n", s.Title, s.Package, len(s.Rules), s.Intro)
		for _, fam := range families(s.Rules) {
			if fam != "" {
				fmt.Fprintf(&b, "\n### %s\n", fam)
			}
			b.WriteString("\n| rule | fragment | conditions |\n| --- | --- | --- |\n")
			for _, r := range s.Rules {
				if r.Family == fam {
					fmt.Fprintf(&b, "| [`%s`](../%s) | %s | %s |\n", r.Name, r.File(s.Dir()), cell(r.Fragment), cell(r.Conditions))
				}
			}
		}
	}
	return b.String()
}

// families lists the families of rules in the order they first appear.
func families(rules []rulefile.Rule) []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range rules {
		if !seen[r.Family] {
			seen[r.Family] = true
			out = append(out, r.Family)
		}
	}
	return out
}

// cell escapes what a Markdown table cell cannot hold as is.
func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}
