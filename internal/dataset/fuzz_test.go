package dataset

import (
	"bytes"
	"errors"
	"testing"
)

// FuzzReadPairs checks that any input either yields pairs that satisfy the
// format's rules or a located *Error, and never panics.
func FuzzReadPairs(f *testing.F) {
	f.Add([]byte(`{"id":"a","db":"d","reference":"SELECT 1","candidate":"SELECT 1","label":1}` + "\n"))
	f.Add([]byte(`{"id":"a","db":"d","reference":"r","candidate":"c","label":0,"x":null}` + "\n\n{\"id\":\"a\"}"))
	f.Add([]byte("{\"label\":1e400}\n"))
	f.Add([]byte("\xff\n{"))
	f.Fuzz(func(t *testing.T, in []byte) {
		pairs, err := ReadPairs(bytes.NewReader(in))
		if err != nil {
			if _, ok := errors.AsType[*Error](err); !ok {
				t.Fatalf("error %v is not a *Error", err)
			}
			return
		}
		seen := map[string]bool{}
		for _, p := range pairs {
			if p.ID == "" || p.DB == "" || p.Reference == "" || p.Candidate == "" || (p.Label != 0 && p.Label != 1) || seen[p.ID] {
				t.Fatalf("accepted invalid pair %+v", p)
			}
			seen[p.ID] = true
		}
	})
}

// FuzzReadCases checks that any input either yields valid cases or an
// error, and never panics.
func FuzzReadCases(f *testing.F) {
	f.Add([]byte("schema: x\ncases:\n- id: a\n  tier: core\n  reference: r\n  candidate: c\n  expect: equivalent\n"))
	f.Add([]byte("schema: &s x\ncases:\n- &c {id: a, tier: hard, reference: *s, candidate: *s, expect: equivalent_under_assumptions, assumptions: [*s]}\n- *c\n"))
	f.Add([]byte("schema: x\ncases: [{policy: {a: b}}]\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		cf, err := ReadCases(bytes.NewReader(in))
		if err != nil {
			return
		}
		if cf.Schema == "" {
			t.Fatal("accepted a file without a schema")
		}
		for _, c := range cf.Cases {
			if c.ID == "" || c.Reference == "" || c.Candidate == "" ||
				(c.Tier != TierCore && c.Tier != TierHard) ||
				(c.Expect == EquivalentUnderAssumptions) != (len(c.Assumptions) > 0) {
				t.Fatalf("accepted invalid case %+v", c)
			}
		}
	})
}
