package judging

import (
	"github.com/pgequiv/pgequiv/equivalence"
)

// summary is the outcome's one-line form for people (NOTICE, refusal,
// SHOW VERDICTS, logs). redact hides literals in the texts that come from
// SQL (differences' fragments, error messages) and only there: the score,
// rule names, assumptions and column counts are the verdict's own.
func (o judgeOutcome) summary(redact func(string) string) string {
	switch {
	case o.timedOut:
		return "no verdict in time (" + redact(o.err.Error()) + ")"
	case o.err != nil:
		return "cannot judge: " + redact(o.err.Error())
	case o.sum != "":
		return o.sum
	}
	return verdictSummary(o.v, redact)
}

// verdictSummary is the verdict's summary with redact applied to its
// SQL fragments.
func verdictSummary(v equivalence.Verdict, redact func(string) string) string {
	return v.SummaryRedacted(redact)
}

// orEmpty returns xs, or an empty list for nil, so that JSON shows [] as
// for the other lists, not null.
func orEmpty[T any](xs []T) []T {
	if xs == nil {
		return []T{}
	}
	return xs
}

// counterexampleText is the outcome's counterexample in full (the
// database as INSERT statements, then both results), redacted; "" when
// there is none.
func counterexampleText(o judgeOutcome, redact func(string) string) string {
	ce := o.v.Counterexample
	if ce == nil || o.err != nil {
		return ""
	}
	return ce.Redacted(redact).Detail()
}
