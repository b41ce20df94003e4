package gmntrain_test

import (
	"context"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/pgequiv/pgequiv/eval/gmntrain"
	"github.com/pgequiv/pgequiv/gmn"
	"github.com/pgequiv/pgequiv/gmn/model"
	"github.com/pgequiv/pgequiv/gmn/plangraph"
	"github.com/pgequiv/pgequiv/internal/shareddata"
)

// The shipped model's speed on the shared Spider pairs. These benchmarks
// live here, not in gmn/model, because they read the pairs through the
// training corpus loader, which sits above the model.

// BenchmarkSpiderPairs times every pair of the shared Spider-pair dev set
// one at a time with the shipped model and reports the median per pair:
// cold builds both programs from the (already planned) plans and scores;
// warm scores cached programs; embedded scores cached programs with their
// standalone node embeddings (model.ScoreEmbedded). It reports wall time and the thread's CPU
// time (which other processes on a shared machine do not inflate). Run
// single-core with -cpu 1 -benchtime 1x.
func BenchmarkSpiderPairs(b *testing.B) {
	data := shareddata.Path(b, "data/spider_pair_dev.jsonl")
	schemas := shareddata.Path(b, "data/schemas")
	m, err := model.Default()
	if err != nil {
		b.Fatal(err)
	}
	c, err := gmntrain.LoadCorpus(context.Background(), data, schemas)
	if err != nil {
		b.Fatal(err)
	}
	plans := make(map[*plangraph.Program]*gmntrain.Query, len(c.Queries))
	for _, q := range c.Queries {
		plans[q.Prog] = q
	}
	embedded := make(map[*plangraph.Program]*model.Embedded, len(c.Queries))
	for _, q := range c.Queries {
		e, err := model.Embed(m, q.Prog)
		if err != nil {
			b.Fatal(err)
		}
		embedded[q.Prog] = e
	}
	median := func(d []time.Duration) float64 {
		slices.Sort(d)
		return float64(d[len(d)/2].Nanoseconds()) / 1e6
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for b.Loop() {
		var cold, warm, emb, coldCPU, warmCPU, embCPU []time.Duration
		for _, it := range c.Items {
			st, cpu := time.Now(), threadCPU()
			if _, err := model.ScorePlans(m, plans[it.A].Plan, plans[it.B].Plan); err != nil {
				b.Fatal(err)
			}
			cold = append(cold, time.Since(st))
			coldCPU = append(coldCPU, threadCPU()-cpu)
			st, cpu = time.Now(), threadCPU()
			if _, err := model.Score(m, it.A, it.B); err != nil {
				b.Fatal(err)
			}
			warm = append(warm, time.Since(st))
			warmCPU = append(warmCPU, threadCPU()-cpu)
			ea, eb := embedded[it.A], embedded[it.B]
			st, cpu = time.Now(), threadCPU()
			if _, err := model.ScoreEmbedded(m, ea, eb); err != nil {
				b.Fatal(err)
			}
			emb = append(emb, time.Since(st))
			embCPU = append(embCPU, threadCPU()-cpu)
		}
		b.ReportMetric(median(cold), "ms-median-cold")
		b.ReportMetric(median(warm), "ms-median-warm")
		b.ReportMetric(median(emb), "ms-median-embedded")
		b.ReportMetric(median(coldCPU), "cpu-ms-median-cold")
		b.ReportMetric(median(warmCPU), "cpu-ms-median-warm")
		b.ReportMetric(median(embCPU), "cpu-ms-median-embedded")
	}
}

// BenchmarkEncoderSpeed compares the content encoders' scoring time on the
// Spider pairs (programs built, one goroutine), alternating the two models
// pair by pair, measuring thread CPU time. Timing does not depend
// on the weights, so untrained models of the shipped shape are used.
func BenchmarkEncoderSpeed(b *testing.B) {
	data := shareddata.Path(b, "data/spider_pair_dev.jsonl")
	schemas := shareddata.Path(b, "data/schemas")
	c, err := gmntrain.LoadCorpus(context.Background(), data, schemas)
	if err != nil {
		b.Fatal(err)
	}
	base, err := model.Default()
	if err != nil {
		b.Fatal(err)
	}
	var ms [2]*gmn.Model
	for i, enc := range []gmn.EncoderKind{gmn.EncoderNGram, gmn.EncoderCNN} {
		cfg := base.Config()
		cfg.Encoder = enc
		if ms[i], err = gmn.New(cfg, rand.New(rand.NewPCG(1, 2))); err != nil {
			b.Fatal(err)
		}
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for b.Loop() {
		var d [2][]time.Duration
		for _, it := range c.Items {
			seeds := plangraph.Seeds(it.A, it.B)
			for i, m := range ms {
				st := threadCPU()
				if _, err := m.Score(it.A.G, it.B.G, seeds); err != nil {
					b.Fatal(err)
				}
				d[i] = append(d[i], threadCPU()-st)
			}
		}
		for i, name := range []string{"ngram", "cnn"} {
			slices.Sort(d[i])
			b.ReportMetric(float64(d[i][len(d[i])/2].Nanoseconds())/1e6, "cpu-ms-median-"+name)
		}
	}
}
