package judging

import (
	"bytes"
	"errors"
	"github.com/pgequiv/pgequiv/proxy"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestVerdictFileOversizedLine: a line far over maxVerdictLine (a 20 MB
// query logged whole by an older version) is skipped and counted; the
// verdicts around it are read back and the proxy starts.
func TestVerdictFileOversizedLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v.jsonl")
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	line := func(i int, query string) string {
		return `{"time":"` + base.Add(time.Duration(i)*time.Second).Format(time.RFC3339) + `","label":"equivalent","query":"` + query + "\"}\n"
	}
	var b strings.Builder
	b.WriteString(line(0, "SELECT ?"))
	b.WriteString(line(1, strings.Repeat("x", 20<<20))) // 20 MB: valid JSON, too long
	b.WriteString(line(2, "SELECT ?"))
	b.WriteString(strings.Repeat("y", 3<<20) + "\n") // 3 MB of garbage
	b.WriteString(line(3, "SELECT ?"))
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	vf, err := OpenVerdictFile(path, 0)
	if err != nil {
		t.Fatalf("open after a 20 MB line: %v", err)
	}
	defer vf.Close()
	recs, skipped := vf.Loaded()
	if len(recs) != 3 || skipped != 2 {
		t.Fatalf("read %d verdicts, skipped %d; want 3 and 2", len(recs), skipped)
	}
	for i, want := range []int{0, 2, 3} {
		if !recs[i].Time.Equal(base.Add(time.Duration(want) * time.Second)) {
			t.Errorf("verdict %d at %v, want second %d", i, recs[i].Time, want)
		}
	}
}

// enospcAfter writes the first n bytes of a write, then fails as a full
// disk does (the fault injector: a wrapper around the real file).
func enospcAfter(n int) func(f *os.File, b []byte) (int, error) {
	return func(f *os.File, b []byte) (int, error) {
		if len(b) <= n {
			return f.Write(b)
		}
		m, err := f.Write(b[:n])
		if err != nil {
			return m, err
		}
		return m, &os.PathError{Op: "write", Path: f.Name(), Err: syscall.ENOSPC}
	}
}

// TestVerdictFileTornWrite: after a write that stopped part-way with
// ENOSPC, the next verdict is not appended to the torn line; every
// whole verdict is read back after a restart. A crash-torn last line
// (found at open) is handled likewise.
func TestVerdictFileTornWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v.jsonl")
	vf, err := OpenVerdictFile(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	rec := func(i int) *proxy.VerdictRecord {
		return &proxy.VerdictRecord{Time: base.Add(time.Duration(i) * time.Second), Label: "equivalent", Query: "SELECT ?"}
	}
	if err := vf.Append(rec(0)); err != nil {
		t.Fatal(err)
	}
	restore := vf.setWriteKnob(enospcAfter(20))
	if err := vf.Append(rec(1)); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("append on a full disk: %v, want ENOSPC", err)
	}
	restore()
	if err := vf.Append(rec(2)); err != nil {
		t.Fatal(err)
	}
	// The disk fills again and the proxy stops; Close cuts the torn
	// bytes off. Then a crash-torn line: the next proxy finds the file
	// ending mid-line and starts its first verdict on a new line.
	restore = vf.setWriteKnob(enospcAfter(7))
	if err := vf.Append(rec(3)); err == nil {
		t.Fatal("append on a full disk succeeded")
	}
	restore()
	vf.Close()
	// A crash mid-line after the last whole verdict.
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"time":"2026-01-01T00:00:09Z","lab`)
	f.Close()

	vf, err = OpenVerdictFile(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := vf.Append(rec(4)); err != nil {
		t.Fatal(err)
	}
	vf.Close()
	vf, err = OpenVerdictFile(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer vf.Close()
	recs, skipped := vf.Loaded()
	var got []int
	for _, r := range recs {
		got = append(got, int(r.Time.Sub(base)/time.Second))
	}
	if want := []int{0, 2, 4}; !equalInts(got, want) {
		raw, _ := os.ReadFile(path)
		t.Fatalf("read back verdicts %v (skipped %d), want %v; file:\n%s", got, skipped, want, raw)
	}
	raw, _ := os.ReadFile(path)
	if skipped != 1 || !bytes.HasSuffix(raw, []byte("}\n")) {
		t.Errorf("skipped %d torn lines (want 1: the crash's); file:\n%s", skipped, raw)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
