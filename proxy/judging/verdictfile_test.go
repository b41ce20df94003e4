package judging

import (
	"github.com/pgequiv/pgequiv/proxy"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestVerdictFileSurvivesRestart: verdicts judged through one proxy are
// read back by the next one, from the file and its rotated predecessor,
// and a torn last line is skipped.
func TestVerdictFileSurvivesRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "verdicts.jsonl")
	vf, err := OpenVerdictFile(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	e := startJudgeProxy(t, annotateSettings(t), JudgingOptions{VerdictFile: vf})
	ctx := testCtx(t, 60*time.Second)
	conn, _ := e.connectNotices(t, ctx, kennelDB)
	for _, q := range []string{withComment(countOwner, countStar), withComment(countOwner, countStar),
		withComment("SELECT name, age FROM dogs", "SELECT name FROM dogs")} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	e.j.Wait()
	if err := vf.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"time":"2026-01-01T00:00:00Z","label":"equiv`) // a crash mid-line
	f.Close()

	vf2, err := OpenVerdictFile(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer vf2.Close()
	j2, err := NewJudging(annotateSettings(t), JudgingOptions{VerdictFile: vf2})
	if err != nil {
		t.Fatal(err)
	}
	if got := j2.RecentVerdicts(); len(got) != 3 || got[0].Label != "not_equivalent" || got[0].Reference != "SELECT name FROM dogs" {
		t.Fatalf("recent verdicts after restart: %+v", got)
	}
	counts := map[string]uint64{}
	for _, d := range j2.Divergences() {
		counts[d.Label] = d.Count
		if d.QueryFingerprint == "" || d.FirstSeen.IsZero() || d.Example == "" {
			t.Errorf("divergence %+v", d)
		}
	}
	if counts["equivalent"] != 2 || counts["not_equivalent"] != 1 {
		t.Errorf("divergences after restart: %v", counts)
	}
}

// TestVerdictFileRotation: past its bound the file moves to .1 and both
// are read back; older history is dropped, not the newest.
func TestVerdictFileRotation(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v.jsonl")
	vf, err := OpenVerdictFile(path, 1000)
	if err != nil {
		t.Fatal(err)
	}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 40 {
		rec := proxy.VerdictRecord{Time: base.Add(time.Duration(i) * time.Second), Label: "equivalent", Query: "SELECT ?", ReferenceID: "r"}
		if err := vf.Append(&rec); err != nil {
			t.Fatal(err)
		}
	}
	vf.Close()
	for _, p := range []string{path, path + ".1"} {
		st, err := os.Stat(p)
		if err != nil || st.Size() > 1000 {
			t.Fatalf("%s: %v, %v bytes", p, err, st)
		}
	}
	vf, err = OpenVerdictFile(path, 1000)
	if err != nil {
		t.Fatal(err)
	}
	defer vf.Close()
	recs, skipped := vf.Loaded()
	if skipped != 0 || len(recs) == 0 || len(recs) >= 40 || !recs[len(recs)-1].Time.Equal(base.Add(39*time.Second)) {
		t.Fatalf("read back %d records (skipped %d), last %v", len(recs), skipped, recs[len(recs)-1].Time)
	}
	for i := 1; i < len(recs); i++ {
		if !recs[i].Time.After(recs[i-1].Time) {
			t.Fatalf("records out of order at %d", i)
		}
	}
}
