package proxy

import (
	"context"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pgequiv/pgequiv/planner/catalog"
)

// TestJudgingAnswersAtTheDeadline: a judgement that is still running at
// its deadline (a hung judge, here a knob that ignores its context), or
// still queued for a judge slot behind such judgements, is answered at
// the deadline: enforce refuses under enforce_unknown at once. Ordering,
// not timing: every answer comes while the hung judges are still held.
func TestJudgingAnswersAtTheDeadline(t *testing.T) {
	s, err := catalog.LoadDDL(catalog.ExampleDDL(), catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	j, err := NewJudging(JudgeSettings{Mode: ModeEnforce, EnforceUnknown: true, VerdictTimeout: 50 * time.Millisecond,
		Schemas: SchemaSettings{Default: s}},
		JudgingOptions{Logger: slog.New(slog.DiscardHandler), VerdictLog: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	var released sync.Once
	free := func() { released.Do(func() { close(release) }) }
	defer j.Wait()
	defer free()
	j.setTestingKnobs(judgingKnobs{judge: func() { <-release }})
	observe := func() Action {
		ev := &QueryEvent{Kind: KindQuery, SQL: []byte("SELECT count(owner_id) FROM dogs /*pgequiv_ref='SELECT%20count(*)%20FROM%20dogs'*/"),
			Session: &Session{Database: "d"}}
		return j.ObserveQuery(context.Background(), ev)
	}
	check := func(what string, v Action, want string) {
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
	for range cap(j.sem) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			check("hung judgement", observe(), "no verdict in time")
		}()
	}
	for len(j.sem) < cap(j.sem) {
		runtime.Gosched()
	}
	// Queued behind them, this one's deadline passes while it waits.
	check("queued judgement", observe(), "waiting for a free judge")
	wg.Wait()
	free()
	j.Wait()
	if st := statMap(j); st["timeouts"] != uint64(cap(j.sem))+1 || st["refusals"] != uint64(cap(j.sem))+1 {
		t.Errorf("stats %v", st)
	}
}
