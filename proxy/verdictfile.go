package proxy

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"
	"time"
)

// VerdictFile is an append-only JSON Lines file of verdicts (verdict_log
// in proxy.yaml), one object per verdict in every mode, kept apart from
// the text log on stderr so that verdicts survive a restart: the proxy
// reads it back when it starts. When appending would pass MaxSize the
// file is renamed to PATH.1 (replacing an older one) and a new one is
// started, so the two hold at most about twice MaxSize.
type VerdictFile struct {
	mu      sync.Mutex
	path    string
	maxSize int64
	f       *os.File
	size    int64
	loaded  []VerdictRecord
	skipped int
}

// verdictLine is a verdict as the file holds it.
type verdictLine struct {
	Time             time.Time `json:"time"`
	Conn             uint64    `json:"conn"`
	User             string    `json:"user"`
	Database         string    `json:"database"`
	ReferenceID      string    `json:"reference_id"`
	Source           string    `json:"source"`
	Mode             string    `json:"mode"`
	Label            string    `json:"label"`
	Score            float64   `json:"score"`
	Action           string    `json:"action"`
	LatencyMS        float64   `json:"latency_ms"`
	Summary          string    `json:"summary"`
	Query            string    `json:"query"`
	QueryFingerprint string    `json:"query_fingerprint"`
	Reference        string    `json:"reference"`
	Counterexample   string    `json:"counterexample,omitempty"`
}

func toLine(v *VerdictRecord) verdictLine {
	return verdictLine{Time: v.Time.UTC(), Conn: v.ConnID, User: v.User, Database: v.Database, ReferenceID: v.ReferenceID,
		Source: v.Source, Mode: v.Mode, Label: v.Label, Score: v.Score, Action: v.Action,
		LatencyMS: float64(v.Latency.Microseconds()) / 1000, Summary: v.Summary, Query: v.Query,
		QueryFingerprint: v.QueryFingerprint, Reference: v.Reference, Counterexample: v.Counterexample}
}

func (l *verdictLine) record() VerdictRecord {
	return VerdictRecord{Time: l.Time, ConnID: l.Conn, User: l.User, Database: l.Database, ReferenceID: l.ReferenceID,
		Source: l.Source, Mode: l.Mode, Label: l.Label, Score: l.Score, Action: l.Action,
		Latency: time.Duration(l.LatencyMS * float64(time.Millisecond)), Summary: l.Summary, Query: l.Query,
		QueryFingerprint: l.QueryFingerprint, Reference: l.Reference, Counterexample: l.Counterexample}
}

// OpenVerdictFile reads the verdicts in path.1 and path (lines that do
// not parse, such as one cut short by a crash, are skipped and counted)
// and opens path for appending, creating it. maxSize ≤ 0 means 64 MiB.
func OpenVerdictFile(path string, maxSize int64) (*VerdictFile, error) {
	if maxSize <= 0 {
		maxSize = 64 << 20
	}
	v := &VerdictFile{path: path, maxSize: maxSize}
	for _, p := range []string{path + ".1", path} {
		if err := v.read(p); err != nil {
			return nil, err
		}
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o640)
	if err != nil {
		return nil, fmt.Errorf("proxy: verdict log: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("proxy: verdict log: %w", err)
	}
	v.f, v.size = f, st.Size()
	return v, nil
}

func (v *VerdictFile) read(path string) error {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("proxy: verdict log: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		var l verdictLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil || l.Time.IsZero() {
			v.skipped++
			continue
		}
		v.loaded = append(v.loaded, l.record())
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("proxy: verdict log %s: %w", path, err)
	}
	return nil
}

// Loaded returns the verdicts read when the file was opened, oldest
// first, and how many lines were skipped; it hands them over once.
func (v *VerdictFile) Loaded() ([]VerdictRecord, int) {
	v.mu.Lock()
	defer v.mu.Unlock()
	out, n := v.loaded, v.skipped
	v.loaded, v.skipped = nil, 0
	return out, n
}

// Append writes one verdict, rotating first if the file would pass its
// size bound.
func (v *VerdictFile) Append(rec *VerdictRecord) error {
	b, err := json.Marshal(toLine(rec))
	if err != nil {
		return err
	}
	b = append(b, '\n')
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.f == nil {
		return errors.New("verdict log is closed")
	}
	if v.size > 0 && v.size+int64(len(b)) > v.maxSize {
		if err := v.rotate(); err != nil {
			return err
		}
	}
	n, err := v.f.Write(b)
	v.size += int64(n)
	return err
}

func (v *VerdictFile) rotate() error {
	if err := v.f.Close(); err != nil {
		return err
	}
	v.f = nil
	flags := os.O_WRONLY | os.O_APPEND | os.O_CREATE | os.O_TRUNC
	renameErr := os.Rename(v.path, v.path+".1")
	if renameErr != nil {
		flags &^= os.O_TRUNC // keep appending to the file we have
	}
	f, err := os.OpenFile(v.path, flags, 0o640)
	if err != nil {
		return fmt.Errorf("rotating the verdict log: %w", err)
	}
	v.f = f
	if renameErr != nil {
		return fmt.Errorf("rotating the verdict log: %w", renameErr)
	}
	v.size = 0
	return nil
}

// Close closes the file.
func (v *VerdictFile) Close() error {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.f == nil {
		return nil
	}
	err := v.f.Close()
	v.f = nil
	return err
}
