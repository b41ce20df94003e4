package selection

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/pgequiv/pgequiv/internal/dataset"
)

// Group is one question's candidates, one JSON object per line of a
// `pgequiv select` input:
//
//	{"id": "q1", "db": "car_1", "dialect": "sqlite", "candidates": ["SELECT ...", "SELECT ..."]}
//
// Labels is optional: when present (one 0/1 per candidate, 1 correct) the
// command also reports selection accuracy. Other fields are ignored.
type Group struct {
	ID         string   `json:"id"`
	DB         string   `json:"db"`
	Dialect    string   `json:"dialect,omitempty"`
	Candidates []string `json:"candidates"`
	Labels     []int    `json:"labels,omitempty"`
	Line       int      `json:"-"`
}

// maxGroupLine bounds one input line (a group of long queries).
const maxGroupLine = 64 << 20

// ReadGroups reads JSONL groups. Blank lines are skipped; an unreadable
// line is an error naming it.
func ReadGroups(r io.Reader) ([]Group, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxGroupLine)
	var out []Group
	line := 0
	for sc.Scan() {
		line++
		b := strings.TrimSpace(sc.Text())
		if b == "" {
			continue
		}
		var g Group
		if err := json.Unmarshal([]byte(b), &g); err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		switch {
		case g.DB == "":
			return nil, fmt.Errorf("line %d: no \"db\"", line)
		case len(g.Candidates) == 0:
			return nil, fmt.Errorf("line %d: no \"candidates\"", line)
		case g.Labels != nil && len(g.Labels) != len(g.Candidates):
			return nil, fmt.Errorf("line %d: %d labels for %d candidates", line, len(g.Labels), len(g.Candidates))
		}
		if g.ID == "" {
			g.ID = fmt.Sprintf("line-%d", line)
		}
		g.Line = line
		out = append(out, g)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("line %d: %w", line+1, err)
	}
	return out, nil
}

// GroupsFromPairs turns labelled pairs into selection groups: the
// candidates of the pairs that share a db and a reference, with their
// labels; the reference itself is not part of the group. Groups come in
// order of their first pair, candidates in file order: callers that
// benchmark should not let that order carry information (a selector
// that breaks ties by position would read it).
func GroupsFromPairs(pairs []dataset.Pair) []Group {
	type k struct{ db, ref string }
	at := map[k]int{}
	var out []Group
	for _, p := range pairs {
		key := k{p.DB, p.Reference}
		i, ok := at[key]
		if !ok {
			i = len(out)
			at[key] = i
			out = append(out, Group{ID: p.ID, DB: p.DB, Dialect: p.Dialect, Labels: []int{}})
		}
		out[i].Candidates = append(out[i].Candidates, p.Candidate)
		out[i].Labels = append(out[i].Labels, p.Label)
	}
	return out
}

// Mixed reports whether the group has at least one correct and one wrong
// candidate: only there does a selection matter.
func (g Group) Mixed() bool {
	var ok, bad bool
	for _, l := range g.Labels {
		ok = ok || l == 1
		bad = bad || l != 1
	}
	return ok && bad
}

// RandomExpectation is the expected accuracy of a uniformly random pick.
func (g Group) RandomExpectation() float64 {
	n := 0
	for _, l := range g.Labels {
		if l == 1 {
			n++
		}
	}
	return float64(n) / float64(max(len(g.Labels), 1))
}

// MostFrequentExpectation is the expected accuracy of picking the most
// frequent candidate text (whitespace, letter case and a trailing
// semicolon ignored), ties broken uniformly at random.
func (g Group) MostFrequentExpectation() float64 {
	count := map[string]int{}
	label := map[string]int{}
	for i, c := range g.Candidates {
		t := normText(c)
		count[t]++
		if g.Labels[i] == 1 {
			label[t] = 1
		}
	}
	best := 0
	for _, n := range count {
		best = max(best, n)
	}
	var tied, good int
	for t, n := range count {
		if n == best {
			tied++
			good += label[t]
		}
	}
	return float64(good) / float64(tied)
}

func normText(s string) string {
	return strings.ToLower(strings.TrimSuffix(strings.Join(strings.Fields(s), " "), ";"))
}
