package model_test

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/pgequiv/pgequiv/eval/gmntrain"
	"github.com/pgequiv/pgequiv/gmn"
	"github.com/pgequiv/pgequiv/gmn/model"
	"github.com/pgequiv/pgequiv/gmn/plangraph"
	"github.com/pgequiv/pgequiv/planner"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

const ddl = `
CREATE TABLE student (stuid numeric, lname text, fname text, age numeric, sex text, PRIMARY KEY (stuid));
CREATE TABLE pets (petid numeric, pettype text, weight numeric, PRIMARY KEY (petid));
`

func TestDefaultScoresPlans(t *testing.T) {
	m, err := model.Default()
	if err != nil {
		t.Fatal(err)
	}
	if m2, _ := model.Default(); m2 != m {
		t.Fatal("Default loaded twice")
	}
	if m.Config().NumTypes != plangraph.NumTypes {
		t.Fatalf("NumTypes %d, vocabulary %d", m.Config().NumTypes, plangraph.NumTypes)
	}
	s, err := catalog.LoadDDL(ddl, catalog.SQLite)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	mustPlan := func(sql string) *plangraph.Program {
		p, err := planner.Plan(ctx, s, sql, planner.Options{})
		if err != nil {
			t.Fatal(err)
		}
		pr, err := plangraph.BuildProgram(p)
		if err != nil {
			t.Fatal(err)
		}
		return pr
	}
	a := mustPlan("SELECT fname FROM student WHERE age > 20")
	same := mustPlan("SELECT s.fname FROM student AS s WHERE 20 < s.age")
	other := mustPlan("SELECT count(*) FROM pets GROUP BY pettype")
	const tol = 1e-12
	if v, err := model.Score(m, a, same); err != nil || math.Abs(v-1) > tol {
		t.Fatalf("equal plans scored %g (err %v), want 1", v, err)
	}
	v, err := model.Score(m, a, other)
	if err != nil || !(v >= 0 && v < 1) {
		t.Fatalf("different plans scored %g (err %v)", v, err)
	}
	p1, _ := planner.Plan(ctx, s, "SELECT fname FROM student WHERE age > 20", planner.Options{})
	p2, _ := planner.Plan(ctx, s, "SELECT count(*) FROM pets GROUP BY pettype", planner.Options{})
	if w, err := model.ScorePlans(m, p1, p2); err != nil || math.Abs(w-v) > tol {
		t.Fatalf("ScorePlans = %g (err %v), Score = %g", w, err, v)
	}
	if _, err := model.ScorePlans(m, nil, p2); err == nil {
		t.Fatal("nil plan accepted")
	}
}

// BenchmarkSpiderPairs times every pair of the shared Spider-pair dev set
// one at a time with the shipped model and reports the median per pair:
// cold builds both programs from the (already planned) plans and scores;
// warm scores cached programs; embedded scores cached programs with their
// standalone node embeddings (model.ScoreEmbedded). It reports wall time and the thread's CPU
// time (which other processes on a shared machine do not inflate). Run
// single-core with -cpu 1 -benchtime 1x.
func BenchmarkSpiderPairs(b *testing.B) {
	const data = "../../../shared/data/spider_pair_dev.jsonl"
	if _, err := os.Stat(data); err != nil {
		b.Skip("shared data not found")
	}
	m, err := model.Default()
	if err != nil {
		b.Fatal(err)
	}
	c, err := gmntrain.LoadCorpus(context.Background(), data, "../../../shared/data/schemas")
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
	const data = "../../../shared/data/spider_pair_dev.jsonl"
	if _, err := os.Stat(data); err != nil {
		b.Skip("shared data not found")
	}
	c, err := gmntrain.LoadCorpus(context.Background(), data, "../../../shared/data/schemas")
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
