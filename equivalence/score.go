package equivalence

import (
	"slices"
	"time"

	"github.com/pgequiv/pgequiv/equivalence/score"
)

// The score stage: graded similarity (package score) places the verdict
// within its label's band.

// Scores are the graded similarity measures, each in [0, 1].
type Scores = score.Scores

// score computes the pair's scores, combines them, and bands the result.
func (j *judgement) score() error {
	ref, cand, v, opts := j.ref, j.cand, &j.v, j.opts
	for _, n := range append(append([]string(nil), ref.notes...), cand.notes...) {
		if !slices.Contains(v.Notes, n) {
			v.Notes = append(v.Notes, n)
		}
	}
	if err := j.ctx.Err(); err != nil {
		return err
	}
	t := time.Now()
	scores, notes, err := score.Structural(j.ctx, ref.shape, cand.shape, j.cmp.matched, j.cmp.total)
	if err != nil {
		return err
	}
	v.Scores = scores
	v.Notes = append(v.Notes, notes...)
	combiner := opts.Combiner
	if combiner == nil {
		combiner = DefaultCombiner
	}
	if err := j.ctx.Err(); err != nil {
		return err
	}
	// The GMN scores only what neither proof nor search settled: within
	// the proved and refuted bands the structural scores order pairs.
	if opts.GMN != nil && v.Label == Unknown && ref.graph != nil && cand.graph != nil {
		g, err := j.memo.similarity(j.ctx, opts.GMN, ref, cand)
		if j.ctx.Err() != nil {
			return j.ctx.Err()
		}
		if err == nil {
			v.Scores.GMN = g
			if opts.Combiner == nil {
				combiner = GMNCombiner
			}
		}
	}
	v.Scores.Combined = combiner.Combine(Features{Scores: v.Scores, Label: v.Label, Components: j.cmp, Search: v.Search})
	band(v, opts)
	v.Timings.Score = time.Since(t)
	v.Timings.Total = time.Since(j.start)
	return j.ctx.Err()
}

// band places the combined score in its label's band and, for unknown
// verdicts, says which way the score leans.
func band(v *Verdict, opts Options) {
	o := score.Unsettled
	switch v.Label {
	case Unknown:
		if v.LeansDifferent != "" {
			o = score.UnsettledDifferent
		}
	case Equivalent:
		o = score.Proved
	case EquivalentUnderAssumptions:
		o = score.ProvedUnderAssumptions
	case NotEquivalent:
		switch {
		case v.Counterexample != nil && !v.Counterexample.Weak():
			o = score.Refuted
		case v.Counterexample != nil:
			o = score.RefutedWeakly
		default:
			o = score.RefutedByStructure
		}
	}
	v.Score = score.Band(o, v.Scores.Combined)
	v.Likely = ""
	if o == score.Unsettled || o == score.UnsettledDifferent {
		v.Likely = score.Likely(v.Score, opts.LikelyThreshold)
	}
	if o == score.Unsettled && v.Likely == score.LikelyEquivalent && unpopulated(v.Search) {
		// A search whose databases never gave a table the queries read a
		// row is no evidence (issue 39): structure alone does not make
		// such a pair likely equivalent. Its score stays below the
		// threshold and the verdict says why.
		v.Score = min(v.Score, score.BelowLikely(opts.LikelyThreshold))
		v.Likely = score.NoEvidence
	}
}

// unpopulated reports whether a search left a table the queries read
// without a row in every database.
func unpopulated(s *Search) bool { return s != nil && len(s.Unpopulated) > 0 }

// RescoreGMN returns v as if the judge had scored it with a GMN similarity
// of gmnScore: the label, rules and differences stay; the combined score
// is recomputed with GMNCombiner (or opts.Combiner) and banded again. It
// lets a cross-validation score each pair with a model that did not see it
// (`pgequiv eval --gmn-scores`). v must come from a judge that planned
// both queries (a candidate that does not plan has no scores to combine).
func RescoreGMN(v Verdict, gmnScore float64, opts Options) Verdict {
	// As in the judge, the GMN scores only unknown pairs.
	if v.Label != Unknown || v.Scores == (Scores{}) {
		return v
	}
	combiner := opts.Combiner
	if combiner == nil {
		combiner = GMNCombiner
	}
	v.Scores.GMN = gmnScore
	return Rescore(v, combiner, opts)
}

// Rescore returns v with its combined score recomputed by c and banded
// again; the label and everything else stay. It serves fitting and
// cross-validating combiners on judged pairs.
func Rescore(v Verdict, c Combiner, opts Options) Verdict {
	v.Scores.Combined = c.Combine(Features{Scores: v.Scores, Label: v.Label, Search: v.Search})
	band(&v, opts)
	return v
}

// Features are what a combiner sees of one judged pair.
type Features struct {
	Scores     Scores
	Label      Label
	Components comparison
	// Search is the refuter's effort on a pair it did not refute; nil
	// when it did not search.
	Search *Search
}

// Combiner maps features to a score in [0, 1]. The GMN plugs in here.
type Combiner interface {
	Combine(Features) float64
}

// LogisticCombiner is σ(bias + Σ wᵢ·xᵢ) over the component scores and
// the refuter's search evidence (score.Logistic); Search weighs
// SearchEvidence: how many generated databases the pair survived.
type LogisticCombiner score.Logistic

// Combine implements Combiner.
func (c LogisticCombiner) Combine(f Features) float64 {
	return score.Logistic(c).Combine(f.Scores, SearchEvidence(f.Search))
}

// SearchEvidence maps the refuter's effort on a pair it did not refute to
// [0, 1]: the share of DefaultRefuteInstances databases on which both
// queries ran and agreed; 0 when there was no search, or when its
// databases never gave a table the queries read a row (agreeing on
// empty tables shows nothing).
func SearchEvidence(s *Search) float64 {
	if s == nil || s.CannotExecute != "" || len(s.Unpopulated) > 0 {
		return 0
	}
	return score.SearchEvidence(s.Instances, DefaultRefuteInstances)
}

// DefaultCombiner weighs the structural scores and the refuter's search
// evidence, with the weights fit on the shared Spider pairs
// (score.StructuralWeights).
var DefaultCombiner Combiner = LogisticCombiner(score.StructuralWeights)

// GMNCombiner scores with the graph matching network and the refuter's
// search evidence (score.GMNWeights); used when Options.GMN is set, for
// the pairs neither proof nor search settles.
var GMNCombiner Combiner = LogisticCombiner(score.GMNWeights)
