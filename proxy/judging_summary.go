package proxy

import (
	"fmt"
	"strings"

	"github.com/pgequiv/pgequiv/equivalence"
)

// componentOutputColumns is the Difference component whose sides are
// column counts, not SQL: they are never redacted.
const componentOutputColumns = "output columns"

// keepText is the redactor of texts shown as they are (notices and
// refusals go to the client that sent the query; log.literals).
func keepText(s string) string { return s }

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
	}
	return verdictSummary(o.v, redact)
}

// verdictSummary is equivalence.Verdict.Summary with the score rounded
// for people (three decimals, as SHOW VERDICTS and pgequiv check print
// it) and redact applied to the differences' SQL fragments.
func verdictSummary(v equivalence.Verdict, redact func(string) string) string {
	var b strings.Builder
	b.WriteString(string(v.Label))
	if v.Likely != "" {
		b.WriteString(" (" + v.Likely + ")")
	}
	fmt.Fprintf(&b, " (score %s", formatScore(v.Score))
	if len(v.Rules) > 0 {
		b.WriteString("; rules: " + strings.Join(v.Rules, ", "))
	}
	b.WriteString(")")
	for i, a := range v.Assumptions {
		if i == 0 {
			b.WriteString(" assuming ")
		} else {
			b.WriteString(", ")
		}
		b.WriteString(a.String())
	}
	if len(v.Differences) > 0 && !v.Label.Proved() {
		b.WriteString("; differences: ")
		for i, d := range v.Differences {
			if i > 0 {
				b.WriteString("; ")
			}
			b.WriteString(differenceText(d, redact))
		}
	}
	return b.String()
}

// differenceText is d.String() with redact applied to its SQL sides.
func differenceText(d equivalence.Difference, redact func(string) string) string {
	if d.Component != componentOutputColumns {
		if d.Reference != "" {
			d.Reference = redact(d.Reference)
		}
		if d.Candidate != "" {
			d.Candidate = redact(d.Candidate)
		}
	}
	return d.String()
}

// formatScore rounds a score for people: three decimals (0.993, 0.990).
// Machine outputs (the JSON verdict log, spans) keep full precision.
func formatScore(s float64) string { return fmt.Sprintf("%.3f", s) }

// orEmpty returns xs, or an empty list for nil, so that JSON shows [] as
// for the other lists, not null.
func orEmpty[T any](xs []T) []T {
	if xs == nil {
		return []T{}
	}
	return xs
}
