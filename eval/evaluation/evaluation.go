// Package evaluation runs the judge over a labelled dataset in parallel
// and summarizes how well its verdicts and scores agree with the labels.
package evaluation

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/eval/metrics"
	"github.com/pgequiv/pgequiv/internal/dataset"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

// Result is the judge's outcome for one pair.
type Result struct {
	Pair    dataset.Pair
	Verdict equivalence.Verdict
	// Err is set when the reference could not be planned.
	Err error
}

// SchemaSource gives the schema of a database under a dialect; it must be
// safe for concurrent use.
type SchemaSource interface {
	Get(db string, d catalog.Dialect) (*catalog.Schema, error)
}

// Schemas loads <dir>/<db>.sql once per database and dialect.
type Schemas = dataset.SchemaDir

// Options configure a run.
type Options struct {
	Judge   equivalence.Options
	Workers int // 0: all cores
	// Progress is told of each finished pair; may be nil.
	Progress func()
}

// Run judges every pair, using Workers goroutines. Results keep the
// pairs' order.
//
// Pairs are judged grouped by reference, through a Judger whose small
// cache then serves each reference prepared once to all of its
// candidates (datasets pair a reference with several candidates: the
// shared Spider pairs have a third as many references as pairs). A
// Judger's verdicts are Judge's.
func Run(ctx context.Context, pairs []dataset.Pair, schemas SchemaSource, opts Options) ([]Result, error) {
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	j, err := equivalence.NewJudger(equivalence.JudgerOptions{MaxEntries: 8 * workers, MaxPairs: -1})
	if err != nil {
		return nil, err
	}
	order := make([]int, len(pairs))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		pa, pb := &pairs[order[a]], &pairs[order[b]]
		if pa.DB != pb.DB {
			return pa.DB < pb.DB
		}
		return pa.Reference < pb.Reference
	})
	results := make([]Result, len(pairs))
	next := make(chan int)
	var wg sync.WaitGroup
	errCh := make(chan error, 1)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				p := pairs[i]
				results[i].Pair = p
				d, err := catalog.ParseDialect(p.Dialect)
				if err == nil {
					var s *catalog.Schema
					if s, err = schemas.Get(p.DB, d); err != nil {
						select {
						case errCh <- err:
						default:
						}
						continue
					}
					results[i].Verdict, err = j.Judge(ctx, s, p.Reference, p.Candidate, opts.Judge)
				}
				results[i].Err = err
				if opts.Progress != nil {
					opts.Progress()
				}
			}
		}()
	}
	for _, i := range order {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	select {
	case err := <-errCh:
		return nil, err
	default:
	}
	return results, ctx.Err()
}

// Summary holds the metrics of a run.
type Summary struct {
	Pairs             int
	AUC               float64
	Spearman, Kendall float64
	// Confusion of proved (equivalent or under assumptions) vs the rest.
	Confusion metrics.Confusion
	// ProvedEquivalentOnly counts only the plain equivalent label.
	EquivalentPrecision float64
	BySource            []metrics.GroupStats
	Failures            []Result // reference failed to plan
	Elapsed             time.Duration
	Curve               metrics.Curve
	// Refuted counts pairs with a counterexample, by label (index 0 and
	// 1); ProvedUnder those of them also proved under assumptions that
	// rule the counterexample out (Verdict.ProvedUnder); RefutedOrdinary those whose counterexample is not Weak (ordinary
	// data, values not just column order); Labelled the pairs.
	Refuted, ProvedUnder, RefutedOrdinary, Labelled [2]int
	// RefuteMedian is the median search time of refuted pairs.
	RefuteMedian time.Duration
	// Outcomes counts the pairs by verdict: equivalent,
	// equivalent_under_assumptions, not_equivalent, unknown, and
	// OutcomeInvalid (a candidate the engine would reject, which execution
	// accuracy counts wrong) and OutcomeError (the reference did not plan)
	// apart from unknown.
	Outcomes map[string]int
}

// Outcomes beyond the verdict labels.
const (
	OutcomeInvalid = "invalid"
	OutcomeError   = "error"
)

// outcome is the Outcomes key of r.
func outcome(r Result) string {
	if r.Err != nil {
		return OutcomeError
	}
	if _, ok := r.Verdict.Invalid(); ok {
		return OutcomeInvalid
	}
	return string(r.Verdict.Label)
}

// Summarize computes the metrics of results.
func Summarize(results []Result) (*Summary, error) {
	s := &Summary{Pairs: len(results), Outcomes: map[string]int{}}
	var scores, labels []float64
	var bl []bool
	var samples []metrics.Sample
	var eqConf metrics.Confusion
	var refuteTimes []time.Duration
	for _, r := range results {
		if r.Err != nil {
			s.Failures = append(s.Failures, r)
		}
		s.Outcomes[outcome(r)]++
		score := r.Verdict.Score
		if math.IsNaN(score) {
			score = 0
		}
		actual := r.Pair.Label == 1
		proved := r.Verdict.Label.Proved()
		scores = append(scores, score)
		labels = append(labels, float64(r.Pair.Label))
		bl = append(bl, actual)
		s.Confusion.Add(proved, actual)
		eqConf.Add(r.Verdict.Label == equivalence.Equivalent, actual)
		samples = append(samples, metrics.Sample{Group: r.Pair.Source, Score: score, Predicted: proved, Actual: actual})
		if l := r.Pair.Label; l == 0 || l == 1 {
			s.Labelled[l]++
			if ce := r.Verdict.Counterexample; ce != nil {
				s.Refuted[l]++
				if !ce.Weak() {
					s.RefutedOrdinary[l]++
				}
				if len(r.Verdict.ProvedUnder) > 0 {
					s.ProvedUnder[l]++
				}
				refuteTimes = append(refuteTimes, r.Verdict.Timings.Refute)
			}
		}
	}
	if len(refuteTimes) > 0 {
		slices.Sort(refuteTimes)
		s.RefuteMedian = refuteTimes[len(refuteTimes)/2]
	}
	// A one-class file (every prover suite is all label 1) has no AUC or
	// curve; the rest of the summary still says what the judge did.
	var err error
	switch s.AUC, err = metrics.AUC(scores, bl); {
	case errors.Is(err, metrics.ErrOneClass):
		s.AUC = math.NaN()
	case err != nil:
		return nil, err
	default:
		if s.Curve, err = metrics.ROC(scores, bl); err != nil {
			return nil, err
		}
	}
	s.Spearman, _ = metrics.Spearman(scores, labels)
	s.Kendall, _ = metrics.KendallTauB(scores, labels)
	s.EquivalentPrecision = eqConf.Precision()
	if s.BySource, err = metrics.ByGroup(samples); err != nil {
		return nil, err
	}
	return s, nil
}

// Print writes the summary for people; its last line is the one-line
// figure scripts read.
func (s *Summary) Print(w io.Writer) {
	c := s.Confusion
	fmt.Fprintf(w, "pairs: %d   reference planning failures: %d   time: %s (%.0f pairs/s)\n", s.Pairs, len(s.Failures), s.Elapsed.Round(time.Millisecond), float64(s.Pairs)/s.Elapsed.Seconds())
	o := s.Outcomes
	fmt.Fprintf(w, "verdicts: equivalent %d   under assumptions %d   not_equivalent %d   unknown %d   invalid %d   reference error %d\n",
		o[string(equivalence.Equivalent)], o[string(equivalence.EquivalentUnderAssumptions)], o[string(equivalence.NotEquivalent)],
		o[string(equivalence.Unknown)], o[OutcomeInvalid], o[OutcomeError])
	if math.IsNaN(s.AUC) {
		fmt.Fprintf(w, "ROC AUC n/a (every pair has the same label)\n")
	} else {
		fmt.Fprintf(w, "ROC AUC %.4f   Spearman %.4f   Kendall tau-b %.4f\n", s.AUC, s.Spearman, s.Kendall)
	}
	fmt.Fprintf(w, "verdict (proved = equivalent or under assumptions) vs label:\n")
	fmt.Fprintf(w, "                 label 1   label 0\n")
	fmt.Fprintf(w, "  proved         %7d   %7d\n", c.TP, c.FP)
	fmt.Fprintf(w, "  not proved     %7d   %7d\n", c.FN, c.TN)
	fmt.Fprintf(w, "precision of proved %.4f   recall of proved %.4f   precision of 'equivalent' %.4f\n", c.Precision(), c.Recall(), s.EquivalentPrecision)
	pct := func(a, b int) float64 { return 100 * float64(a) / float64(max(b, 1)) }
	fmt.Fprintf(w, "refuted (counterexample found): label 0 %d/%d (%.1f%%), label 1 %d/%d (%.2f%%); median search %s\n",
		s.Refuted[0], s.Labelled[0], pct(s.Refuted[0], s.Labelled[0]), s.Refuted[1], s.Labelled[1], pct(s.Refuted[1], s.Labelled[1]), s.RefuteMedian.Round(time.Microsecond))
	fmt.Fprintf(w, "  on ordinary data (no NULL, empty table or orphaned row needed; more than column order): label 0 %d (%.1f%%), label 1 %d (%.2f%%)\n",
		s.RefutedOrdinary[0], pct(s.RefutedOrdinary[0], s.Labelled[0]), s.RefutedOrdinary[1], pct(s.RefutedOrdinary[1], s.Labelled[1]))
	fmt.Fprintf(w, "  and proved equivalent under named assumptions that rule the counterexample out (NOT NULL columns, foreign keys holding, tables non-empty): label 0 %d, label 1 %d\n",
		s.ProvedUnder[0], s.ProvedUnder[1])
	groups := append([]metrics.GroupStats(nil), s.BySource...)
	sort.Slice(groups, func(i, j int) bool { return groups[i].Group < groups[j].Group })
	fmt.Fprintf(w, "by source:\n")
	for _, g := range groups {
		auc := "n/a   "
		if !math.IsNaN(g.AUC) {
			auc = fmt.Sprintf("%.4f", g.AUC)
		}
		fmt.Fprintf(w, "  %-10s pairs %4d  AUC %s  precision %.3f  recall %.3f\n", g.Group, g.Confusion.N(), auc, g.Confusion.Precision(), g.Confusion.Recall())
	}
	for _, f := range s.Failures {
		fmt.Fprintf(w, "planning failure %s: %v\n", f.Pair.ID, f.Err)
	}
	fmt.Fprintf(w, "AUC=%.4f precision_equivalent=%.4f recall_equivalent=%.4f pairs=%d\n", s.AUC, c.Precision(), c.Recall(), s.Pairs)
}
