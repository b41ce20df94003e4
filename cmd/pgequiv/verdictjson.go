package main

import (
	"encoding/json"

	"github.com/pgequiv/pgequiv/equivalence"
)

// verdictJSON is a verdict as the CLI prints it in JSON: every list is
// present and [] when empty, so that a consumer need not tell a missing
// key, null and an empty list apart. (The outer fields hide the embedded
// verdict's omitempty ones of the same name.)
type verdictJSON struct {
	equivalence.Verdict
	Assumptions []equivalence.Assumption `json:"assumptions"`
	Rules       []string                 `json:"rules"`
	Differences []equivalence.Difference `json:"differences"`
	Notes       []string                 `json:"notes"`
}

func jsonVerdict(v equivalence.Verdict) verdictJSON {
	return verdictJSON{
		Verdict:     v,
		Assumptions: orEmpty(v.Assumptions),
		Rules:       orEmpty(v.Rules),
		Differences: orEmpty(v.Differences),
		Notes:       orEmpty(v.Notes),
	}
}

// orEmpty returns xs, or an empty list for nil: JSON [] rather than null.
func orEmpty[T any](xs []T) []T {
	if xs == nil {
		return []T{}
	}
	return xs
}

// MarshalJSON prints the case's verdict as verdictJSON does.
func (r caseResult) MarshalJSON() ([]byte, error) {
	type plain caseResult // without this method
	return json.Marshal(struct {
		plain
		Verdict verdictJSON `json:"verdict"`
	}{plain(r), jsonVerdict(r.Verdict)})
}
