package judging

import (
	"context"
	"errors"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/proxy"
)

// TestJudgingAnswersAtTheDeadline: a judgement that is still running at
// its deadline (a hung judge, here one that ignores its context), or
// still queued for a judge slot behind such judgements, is answered at
// the deadline: enforce refuses under enforce_unknown at once. (Whether
// the queued one's reason reads "waiting for a free judge" or "judging"
// is a race between the pool's wait and judgeWithin, both at the deadline.) Ordering,
// not timing: every answer comes while the hung judges are still held.
func TestJudgingAnswersAtTheDeadline(t *testing.T) {
	s, err := catalog.LoadDDL(catalog.ExampleDDL(), catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	var released sync.Once
	free := func() { released.Do(func() { close(release) }) }
	// A hung judge in every slot of the judge pool, the one bound on
	// judgements running at once.
	slots := 2 * runtime.GOMAXPROCS(0)
	var held atomic.Int64
	backend := localBackend(t, slots, func(context.Context, *catalog.Schema, string, string, equivalence.Options) (equivalence.Verdict, error) {
		held.Add(1)
		<-release
		return equivalence.Verdict{}, errors.New("released")
	})
	// The budget leaves every statement time to reach its judge on a
	// loaded machine (at 50 ms one did not, and the wait below spun
	// forever); each statement is read in a slot of its own.
	j, err := NewJudging(JudgeSettings{Mode: ModeEnforce, EnforceUnknown: true, VerdictTimeout: time.Second,
		Schemas: SchemaSettings{Default: s}},
		JudgingOptions{Logger: slog.New(slog.DiscardHandler), VerdictLog: slog.New(slog.DiscardHandler), Judger: backend, ReadSlots: slots + 1})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { free(); j.Wait() }()
	observe := func() proxy.Action {
		ev := &proxy.QueryEvent{Kind: proxy.KindQuery, SQL: []byte("SELECT count(owner_id) FROM dogs /*pgequiv_ref='SELECT%20count(*)%20FROM%20dogs'*/"),
			Session: &proxy.Session{Database: "d"}}
		return j.ObserveQuery(context.Background(), ev)
	}
	check := func(what string, v proxy.Action, want string) {
		t.Helper()
		if v.Refuse == nil || v.Refuse.Code != SQLStateUnverified || !strings.Contains(v.Refuse.Message, want) {
			t.Errorf("%s: %+v, want a PGQ02 refusal saying %q", what, v.Refuse, want)
		}
		select {
		case <-release:
			t.Errorf("%s: answered after the hung judge was released", what)
		default:
		}
	}
	// Fill every judge slot with a hung judgement; each is answered at
	// its own deadline while its judge goes on.
	var wg sync.WaitGroup
	for range slots {
		wg.Add(1)
		go func() {
			defer wg.Done()
			check("hung judgement", observe(), "no verdict in time")
		}()
	}
	answered := make(chan struct{})
	go func() { wg.Wait(); close(answered) }()
	for held.Load() < int64(slots) {
		select {
		case <-answered:
			t.Fatalf("only %d of %d judgements reached the judge before their deadline", held.Load(), slots)
		default:
			runtime.Gosched()
		}
	}
	// Queued behind them, this one's deadline passes while it waits.
	check("queued judgement", observe(), "no verdict in time")
	wg.Wait()
	free()
	j.Wait()
	if st := statMap(j); st["timeouts"] != uint64(slots)+1 || st["refusals"] != uint64(slots)+1 {
		t.Errorf("stats %v", st)
	}
}

// TestJudgeDeadlineKeepsDeliveryTime: the judge stops before
// verdict_timeout by 5% of it, at most 100 ms, and never at or past it.
func TestJudgeDeadlineKeepsDeliveryTime(t *testing.T) {
	start := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		timeout, want time.Duration
	}{
		{2 * time.Second, 1900 * time.Millisecond},
		{50 * time.Millisecond, 47500 * time.Microsecond},
		{10 * time.Second, 9900 * time.Millisecond},
		{time.Minute, time.Minute - 100*time.Millisecond},
	} {
		got := judgeDeadline(start, &JudgeSettings{VerdictTimeout: tc.timeout}).Sub(start)
		if got != tc.want || got >= tc.timeout {
			t.Errorf("verdict_timeout %v: the judge stops after %v, want %v", tc.timeout, got, tc.want)
		}
	}
}
