// Package equivalence judges whether a candidate query means the same as a
// reference query under a schema, without data: both are planned and
// normalized, sound ESM+ rewrite rules are applied, and the plans are
// compared. Proofs are exact; everything else is a graded score.
package equivalence

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/pgequiv/pgequiv/equivalence/rewrite"
)

// Label is the verdict's conclusion.
type Label string

// Labels.
const (
	// Equivalent: proved under the schema's declared constraints.
	Equivalent Label = "equivalent"
	// EquivalentUnderAssumptions: proved only if the named assumptions
	// hold.
	EquivalentUnderAssumptions Label = "equivalent_under_assumptions"
	// NotEquivalent: some database of the schema tells them apart.
	NotEquivalent Label = "not_equivalent"
	// Unknown: neither proved; Score and Likely say which way it leans.
	Unknown Label = "unknown"
)

// Proved reports whether the label is a proof of equivalence.
func (l Label) Proved() bool { return l == Equivalent || l == EquivalentUnderAssumptions }

// AssumptionKind classifies facts a proof may rest on beyond the schema.
type AssumptionKind string

// Assumption kinds.
const (
	// AssumeNonEmpty: a table has at least one row.
	AssumeNonEmpty AssumptionKind = rewrite.AssumeNonEmpty
	// AssumeForeignKey: a declared but unenforced foreign key holds.
	AssumeForeignKey AssumptionKind = rewrite.AssumeForeignKey
	// AssumePrimaryKeyNotNull: SQLite lets primary key columns hold NULL
	// unless declared NOT NULL; proofs that need them non-null say so.
	AssumePrimaryKeyNotNull AssumptionKind = "primary_key_not_null"
	// AssumeNotNull: a nullable column holds no NULL (Subject
	// "table.column"); only Verdict.ProvedUnder names it (notnullprobe.go).
	AssumeNotNull AssumptionKind = "not_null"
	// AssumeSameSpelling: where a nondeterministic collation calls
	// values equal ('a' and 'A' under NOCASE), both queries return them
	// spelled alike, though they merge equal rows with different
	// operators, or over different inputs (Subject: the columns and
	// their collation; spelling.go).
	AssumeSameSpelling AssumptionKind = "same_spelling"
)

// Assumption is a named fact a proof relies on.
type Assumption struct {
	Kind AssumptionKind `json:"kind"`
	// Subject is what it is about: a table, or "child.col -> parent.col".
	Subject string `json:"subject"`
}

func (a Assumption) String() string {
	switch a.Kind {
	case AssumeNonEmpty:
		return a.Subject + " is not empty"
	case AssumeForeignKey:
		return "foreign key " + a.Subject + " holds"
	case AssumePrimaryKeyNotNull:
		return "primary key " + a.Subject + " holds no NULL"
	case AssumeNotNull:
		return a.Subject + " holds no NULL"
	case AssumeSameSpelling:
		return "values " + a.Subject + " calls equal come back spelled alike from both queries"
	}
	return string(a.Kind) + ": " + a.Subject
}

// Difference is one component where the two queries differ.
type Difference struct {
	Component string `json:"component"`
	Reference string `json:"reference,omitempty"`
	Candidate string `json:"candidate,omitempty"`
}

// maxDifferenceText bounds each side of a Difference: a component of a
// generated query (an IN list of 100,000 items) would otherwise fill a
// NOTICE, a log line and the terminal with one expression.
const maxDifferenceText = 400

// clip shortens s to about maxDifferenceText bytes, on a UTF-8 boundary,
// saying how long it was.
func clip(s string) string {
	if len(s) <= maxDifferenceText {
		return s
	}
	cut := maxDifferenceText
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes in all)", s[:cut], len(s))
}

func (d Difference) String() string {
	switch {
	case d.Component == ComponentUnmodelled:
		return fmt.Sprintf("%s: %s", d.Component, d.Reference)
	case d.Reference != "" && d.Candidate != "":
		return fmt.Sprintf("%s: %s vs %s", d.Component, d.Reference, d.Candidate)
	case d.Reference != "":
		return fmt.Sprintf("%s: missing %s", d.Component, d.Reference)
	case d.Candidate != "":
		return fmt.Sprintf("%s: extra %s", d.Component, d.Candidate)
	}
	return d.Component
}

// Timings are per-stage durations.
type Timings struct {
	Plan    time.Duration `json:"plan_ns"`
	Rules   time.Duration `json:"rules_ns"`
	Compare time.Duration `json:"compare_ns"`
	Score   time.Duration `json:"score_ns"`
	Refute  time.Duration `json:"refute_ns"`
	Total   time.Duration `json:"total_ns"`
	// LLM is the time the Adviser took (Options.Adviser), part of Total.
	LLM time.Duration `json:"llm_ns,omitempty"`
}

// Verdict is the judge's answer.
type Verdict struct {
	Label Label `json:"label"`
	// Score is how likely the two are equivalent, in [0, 1].
	Score float64 `json:"score"`
	// Likely is "likely equivalent" or "likely different" for unknown
	// labels, from Score and Options.LikelyThreshold.
	Likely      string       `json:"likely,omitempty"`
	Assumptions []Assumption `json:"assumptions,omitempty"`
	// Rules lists every rewrite rule that fired, planner and ESM+ alike.
	Rules       []string     `json:"rules,omitempty"`
	Differences []Difference `json:"differences,omitempty"`
	Scores      Scores       `json:"scores"`
	// ReferenceFingerprint and CandidateFingerprint hash the final plans.
	ReferenceFingerprint string `json:"reference_fingerprint,omitempty"`
	CandidateFingerprint string `json:"candidate_fingerprint,omitempty"`
	// Counterexample is a database on which the two differ, when the
	// refuter found one: the proof behind a not_equivalent label.
	Counterexample *Counterexample `json:"counterexample,omitempty"`
	// ProvedUnder, beside a counterexample that needs only unusual data
	// (NULLs, an empty table, an orphaned row), names the assumptions
	// under which the pair is proved equivalent: "differs only if
	// cars.model is NULL; proved equal when it is not" (notnullprobe.go).
	ProvedUnder []Assumption `json:"proved_under,omitempty"`
	// Search says how hard the refuter looked when it found nothing.
	Search *Search `json:"search,omitempty"`
	// LeansDifferent, on a pair no database has told apart, names a
	// difference of structure that most databases would show (a LIMIT
	// value, a sort direction, a missing ORDER BY): not proof, since some
	// schema or filter may hide it (the LIMIT above every row the filter
	// keeps), so the label stays unknown and the score leans different.
	LeansDifferent string `json:"leans_different,omitempty"`
	// Notes say where the judge did less than usual to stay within its
	// bounds (a score approximated or left out for a large plan).
	Notes []string `json:"notes,omitempty"`
	// LLM is an adviser's opinion on an unknown pair (Options.Adviser):
	// it moved Score but is no proof, and the label stays unknown.
	LLM     *Opinion `json:"llm,omitempty"`
	Timings Timings  `json:"timings"`
}

// Summary is a one-line human form, as the proxy's NOTICE shows it, with
// the score rounded for people (three decimals; JSON keeps it whole).
func (v Verdict) Summary() string { return v.SummaryRedacted(nil) }

// ComponentOutputColumns is the Difference component whose sides are
// column counts rather than SQL.
const ComponentOutputColumns = "output columns"

// The Difference components of a candidate that does not plan (the
// verdict is unknown, with the planner's error as the candidate side):
// refused as the engine refuses it (SQLite's own refusals; a table or
// column the schema does not have, or an ambiguous one), valid SQL the
// planner does not take, and the rest (a function or form the planner
// may lack, or the query's own error: not told apart).
const (
	ComponentCandidateRejected    = "candidate is invalid: SQLite rejects it"
	ComponentCandidateUnknownName = "candidate is invalid: a name the schema does not resolve"
	ComponentCandidateUnsupported = "candidate uses unsupported syntax"
	ComponentCandidateUnplanned   = "candidate does not plan"
)

// ComponentReferenceUnsupported is the Difference component of a
// reference the planner does not take (valid SQL beyond it): the
// verdict is unknown, with the planner's error as the reference side.
const ComponentReferenceUnsupported = "reference uses unsupported syntax"

// Invalid reports whether the candidate would not run on the engine,
// with the engine-style reason: the planner refused it as the engine
// does (ComponentCandidateRejected, ComponentCandidateUnknownName).
// Execution accuracy counts such a query wrong. A candidate that does not
// plan for another reason is not called invalid: the planner may be
// what lacks.
func (v Verdict) Invalid() (reason string, ok bool) {
	if v.Label != Unknown || len(v.Differences) == 0 {
		return "", false
	}
	d := v.Differences[0]
	if d.Component != ComponentCandidateRejected && d.Component != ComponentCandidateUnknownName {
		return "", false
	}
	return d.Candidate, true
}

// Redacted returns d with redact applied to its SQL sides; column counts
// are not SQL and stay.
func (d Difference) Redacted(redact func(string) string) Difference {
	if d.Component == ComponentOutputColumns || d.Component == ComponentUnmodelled {
		// Column counts, and what the schema does not model: not SQL.
		return d
	}
	if d.Reference != "" {
		d.Reference = redact(d.Reference)
	}
	if d.Candidate != "" {
		d.Candidate = redact(d.Candidate)
	}
	return d
}

// SummaryRedacted is Summary with redact applied to the texts that come
// from SQL (the sides of differences, but not column counts); the score,
// rule names and assumptions are the verdict's own and stay. A nil redact
// keeps every text.
func (v Verdict) SummaryRedacted(redact func(string) string) string {
	var b strings.Builder
	b.WriteString(string(v.Label))
	if v.Likely != "" {
		b.WriteString(" (" + v.Likely + ")")
	}
	fmt.Fprintf(&b, " (score %.3f", v.Score)
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
	if v.Counterexample != nil {
		b.WriteString("; " + v.Counterexample.summary(redact))
	}
	if len(v.ProvedUnder) > 0 && v.Label == NotEquivalent {
		b.WriteString("; proved equivalent assuming ")
		for i, a := range v.ProvedUnder {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(a.String())
		}
	}
	if v.LLM != nil {
		b.WriteString("; llm: " + v.LLM.Answer)
		if v.LLM.Strength != "" {
			b.WriteString(" (" + v.LLM.Strength + ")")
		}
		fmt.Fprintf(&b, " %d/%d", v.LLM.Votes, v.LLM.Samples)
	}
	if len(v.Differences) > 0 && !v.Label.Proved() {
		b.WriteString("; differences: ")
		for i, d := range v.Differences {
			if i > 0 {
				b.WriteString("; ")
			}
			if redact != nil {
				d = d.Redacted(redact)
			}
			b.WriteString(d.String())
		}
	}
	return b.String()
}
