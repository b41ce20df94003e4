package equivalence

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pgequiv/pgequiv/equivalence/rewrite"
	"github.com/pgequiv/pgequiv/gmn"
)

// Column-order policies.
const (
	ColumnOrderStrict = "strict"
	ColumnOrderIgnore = "ignore"
)

// Options are the judge's policies. The zero value is the default.
type Options struct {
	// ColumnOrder is "strict" (default) or "ignore".
	ColumnOrder string
	// TrustForeignKeys says declared foreign keys hold. nil means the
	// dialect's default: true for postgres (enforced), false for sqlite
	// (declared but not enforced), where proofs name the assumption.
	TrustForeignKeys *bool
	// AcceptAssumptions lists assumption kinds that count as a pass for
	// exit codes and the proxy's enforce mode.
	AcceptAssumptions []AssumptionKind
	// LikelyThreshold splits unknown verdicts into likely equivalent and
	// likely different by Score; 0 means 0.5.
	LikelyThreshold float64
	// Combiner turns component scores into Score; nil means the built-in
	// logistic combiner (GMNCombiner when GMN is set).
	Combiner Combiner
	// GMN, when set, adds the graph matching network's similarity to the
	// scores (gmn/model.Default() is the shipped model). It costs about a
	// millisecond per pair, so it is off by default. Plans above
	// gmnMaxPlanSize are scored without it (Verdict.Notes says so).
	GMN *gmn.Model
	// Refute tunes the counterexample search run on every pair that is
	// not proved equivalent; a database found makes it not_equivalent.
	Refute RefuteOptions
	// Adviser, when set, is asked for a second opinion on unknown
	// verdicts (an LLM, package llmjudge); its answer moves the score
	// within the unknown band and is reported as Verdict.LLM. nil: off.
	Adviser Adviser
	// UnusualData is UnusualDataDiffers (default, "") or
	// UnusualDataAssumedAway: how a pair counts that differs only on
	// unusual data and is proved under assumptions that rule it out
	// (notnullprobe.go).
	UnusualData string
	// MaxQueryBytes bounds the length of either query: a longer one gets
	// an unknown verdict saying it is too large to judge. 0 means
	// DefaultMaxQueryBytes; negative means no limit.
	MaxQueryBytes int

	// pkProbe, when set, is offered to the counterexample search's
	// checkpoint (SQLite keys; pknotnull.go).
	pkProbe *pkProbe
	// proveOnly leaves an unproved pair unscored: the caller wants a
	// proof or nothing.
	proveOnly bool
	// rewriteHooks, when set (by tests), replace the ESM+ rule set or
	// watch every firing: its Rules, BeforeRound and AfterRule pass to
	// rewrite.Run.
	rewriteHooks *rewrite.Options
}

// SetPolicy sets one option from its key=value form, as the CLI and case
// files give them.
func (o *Options) SetPolicy(key, value string) error {
	switch key {
	case "column_order":
		if value != ColumnOrderStrict && value != ColumnOrderIgnore {
			return fmt.Errorf("policy column_order: %q is not strict or ignore", value)
		}
		o.ColumnOrder = value
	case "trust_foreign_keys":
		switch value {
		case "true":
			t := true
			o.TrustForeignKeys = &t
		case "false":
			f := false
			o.TrustForeignKeys = &f
		default:
			return fmt.Errorf("policy trust_foreign_keys: %q is not true or false", value)
		}
	case "accept_assumptions":
		o.AcceptAssumptions = nil
		for _, k := range strings.Split(value, ",") {
			k = strings.TrimSpace(k)
			switch AssumptionKind(k) {
			case AssumeNonEmpty, AssumeForeignKey, AssumePrimaryKeyNotNull, AssumeNotNull, AssumeSameSpelling:
				o.AcceptAssumptions = append(o.AcceptAssumptions, AssumptionKind(k))
			case "":
			default:
				return fmt.Errorf("policy accept_assumptions: unknown assumption kind %q", k)
			}
		}
	case "unusual_data":
		if value != UnusualDataDiffers && value != UnusualDataAssumedAway {
			return fmt.Errorf("policy unusual_data: %q is not %s or %s", value, UnusualDataDiffers, UnusualDataAssumedAway)
		}
		o.UnusualData = value
	case "likely_threshold":
		var t float64
		if _, err := fmt.Sscanf(value, "%g", &t); err != nil || t < 0 || t > 1 {
			return fmt.Errorf("policy likely_threshold: %q is not a number in [0,1]", value)
		}
		o.LikelyThreshold = t
	default:
		return fmt.Errorf("unknown policy %q (want column_order, trust_foreign_keys, accept_assumptions, unusual_data or likely_threshold)", key)
	}
	return nil
}

// Passes reports whether v counts as a pass under o: equivalent, or
// proved equivalent under assumptions that are all accepted (as the label
// equivalent_under_assumptions, or beside a counterexample that breaks
// them, Verdict.ProvedUnder).
func (o Options) Passes(v Verdict) bool {
	switch v.Label {
	case Equivalent:
		return true
	case EquivalentUnderAssumptions:
		return o.accepts(v.Assumptions)
	case NotEquivalent:
		return len(v.ProvedUnder) > 0 && o.accepts(v.ProvedUnder)
	}
	return false
}

// accepts reports whether every assumption's kind is accepted.
func (o Options) accepts(as []Assumption) bool {
	for _, a := range as {
		if !slices.Contains(o.AcceptAssumptions, a.Kind) {
			return false
		}
	}
	return true
}
