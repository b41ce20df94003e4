package equivalence

import (
	"context"
	"fmt"
	"time"

	"github.com/pgequiv/pgequiv/equivalence/score"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

// Adviser gives a second opinion on a pair the rules left unknown, such
// as a language model's (package eval/llmjudge). An opinion is
// never a proof: it moves the score within the unknown band and is
// reported as Verdict.LLM; the label stays unknown.
type Adviser interface {
	// Advise returns an opinion on req, within ctx. An error means no
	// opinion; the verdict is then the one without advice.
	Advise(ctx context.Context, req AdviceRequest) (Opinion, error)
}

// AdviceRequest is what an Adviser is told about a pair.
type AdviceRequest struct {
	Schema               *catalog.Schema
	Reference, Candidate string
	// Verdict is the judge's verdict without advice: the rules that fired,
	// the differences found, the notes.
	Verdict Verdict
}

// Opinions an Adviser may give.
const (
	OpinionEquivalent    = "equivalent"
	OpinionNotEquivalent = "not_equivalent"
	OpinionUnsure        = "unsure"
)

// Opinion is an adviser's answer.
type Opinion struct {
	// Answer is equivalent, not_equivalent or unsure.
	Answer string `json:"answer"`
	// Strength is "strong" (same result on every database) or "weak"
	// (same result up to row order, duplicates or output names) when the
	// answer is equivalent.
	Strength string `json:"strength,omitempty"`
	Reason   string `json:"reason,omitempty"`
	// Votes and Samples: Votes of Samples answers agreed on Answer.
	Votes   int    `json:"votes"`
	Samples int    `json:"samples"`
	Model   string `json:"model,omitempty"`
	Cached  bool   `json:"cached,omitempty"`
}

func (o Opinion) String() string {
	s := o.Answer
	if o.Strength != "" {
		s += " (" + o.Strength + ")"
	}
	s += fmt.Sprintf(", %d/%d votes", o.Votes, o.Samples)
	if o.Model != "" {
		s += ", " + o.Model
	}
	if o.Reason != "" {
		s += ": " + o.Reason
	}
	return s
}

// advise is the last stage: it asks opts.Adviser about an unknown
// verdict and folds its opinion into v, moving the score within the
// unknown band (score.Advised). A failed or empty opinion leaves v as it was, with a note.
func advise(ctx context.Context, s *catalog.Schema, reference, candidate string, v *Verdict, opts Options) {
	if opts.Adviser == nil || v.Label != Unknown {
		return
	}
	start := time.Now()
	op, err := opts.Adviser.Advise(ctx, AdviceRequest{Schema: s, Reference: reference, Candidate: candidate, Verdict: *v})
	v.Timings.LLM = time.Since(start)
	v.Timings.Total += v.Timings.LLM
	if err != nil {
		v.Notes = append(v.Notes, "llm: no opinion: "+err.Error())
		return
	}
	v.LLM = &op
	if op.Samples <= 0 {
		return
	}
	switch op.Answer {
	case OpinionEquivalent, OpinionNotEquivalent:
		v.Score = score.Advised(v.Score, op.Answer == OpinionEquivalent, op.Strength == "weak", op.Votes, op.Samples)
		v.Likely = score.Likely(v.Score, opts.LikelyThreshold)
	}
}
