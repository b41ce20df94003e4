package judging

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync"
	"time"

	"github.com/pgequiv/pgequiv/config"
	"github.com/pgequiv/pgequiv/proxy"
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
	loaded  []proxy.VerdictRecord
	skipped int
	// torn: a write failed part-way; size is the end of the last whole
	// line, where the next Append cuts the file back to. midLine: the
	// file ends inside a line (a crash, or that cut failed); the next
	// verdict starts with a newline.
	torn, midLine bool
	knobs         verdictFileKnobs
}

// verdictFileKnobs are test hooks (export_test.go).
type verdictFileKnobs struct {
	// write replaces f.Write, to inject a failing disk.
	write func(f *os.File, b []byte) (int, error)
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

func toLine(v *proxy.VerdictRecord) verdictLine {
	return verdictLine{Time: v.Time.UTC(), Conn: v.ConnID, User: v.User, Database: v.Database, ReferenceID: v.ReferenceID,
		Source: v.Source, Mode: v.Mode, Label: v.Label, Score: v.Score, Action: v.Action,
		LatencyMS: float64(v.Latency.Microseconds()) / 1000, Summary: v.Summary, Query: v.Query,
		QueryFingerprint: v.QueryFingerprint, Reference: v.Reference, Counterexample: v.Counterexample}
}

func (l *verdictLine) record() proxy.VerdictRecord {
	return proxy.VerdictRecord{Time: l.Time, ConnID: l.Conn, User: l.User, Database: l.Database, ReferenceID: l.ReferenceID,
		Source: l.Source, Mode: l.Mode, Label: l.Label, Score: l.Score, Action: l.Action,
		Latency: time.Duration(l.LatencyMS * float64(time.Millisecond)), Summary: l.Summary, Query: l.Query,
		QueryFingerprint: l.QueryFingerprint, Reference: l.Reference, Counterexample: l.Counterexample}
}

// maxVerdictLine bounds a verdict line read back: the proxy writes
// lines of tens of KiB at most (texts are clipped, size.go), so a
// longer one is from an older version or not a verdict; it is skipped and
// counted, never buffered whole, and never stops the proxy from starting.
const maxVerdictLine = 1 << 20

// OpenVerdictFile reads the verdicts in path.1 and path (lines that do
// not parse, such as one cut short by a crash, and lines over 1 MiB are
// skipped and counted) and opens path for appending, creating it.
// maxSize ≤ 0 means verdict_log_max_size's default.
func OpenVerdictFile(path string, maxSize int64) (*VerdictFile, error) {
	if maxSize <= 0 {
		maxSize = config.DefaultVerdictLogMaxSize
	}
	v := &VerdictFile{path: path, maxSize: maxSize}
	for _, p := range []string{path + ".1", path} {
		if err := v.read(p); err != nil {
			return nil, err
		}
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o640)
	if err != nil {
		return nil, fmt.Errorf("proxy: verdict log: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("proxy: verdict log: %w", err)
	}
	v.f, v.size = f, st.Size()
	if v.size > 0 {
		// A crash may have left the last line torn: the next verdict
		// starts on a line of its own.
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, v.size-1); err != nil || last[0] != '\n' {
			v.midLine = true
		}
	}
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
	r := bufio.NewReaderSize(f, 64<<10)
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			if len(line)+len(chunk) > maxVerdictLine {
				line = line[:0]
				if err := skipLine(r); err != nil && !errors.Is(err, io.EOF) {
					return fmt.Errorf("proxy: verdict log %s: %w", path, err)
				}
				v.skipped++
				continue
			}
			line = append(line, chunk...)
			continue
		case err != nil && !errors.Is(err, io.EOF):
			return fmt.Errorf("proxy: verdict log %s: %w", path, err)
		}
		line = append(line, chunk...)
		if len(bytes.TrimSpace(line)) > 0 {
			v.parseLine(line)
		}
		line = line[:0]
		if err != nil { // io.EOF
			return nil
		}
	}
}

// skipLine reads past the rest of the current line without keeping it.
func skipLine(r *bufio.Reader) error {
	for {
		_, err := r.ReadSlice('\n')
		if !errors.Is(err, bufio.ErrBufferFull) {
			return err
		}
	}
}

// parseLine keeps the verdict on line, or counts it skipped.
func (v *VerdictFile) parseLine(line []byte) {
	var l verdictLine
	if len(line) > maxVerdictLine || json.Unmarshal(line, &l) != nil || l.Time.IsZero() {
		v.skipped++
		return
	}
	v.loaded = append(v.loaded, l.record())
}

// Loaded returns the verdicts read when the file was opened, oldest
// first, and how many lines were skipped; it hands them over once.
func (v *VerdictFile) Loaded() ([]proxy.VerdictRecord, int) {
	v.mu.Lock()
	defer v.mu.Unlock()
	out, n := v.loaded, v.skipped
	v.loaded, v.skipped = nil, 0
	return out, n
}

// Append writes one verdict, rotating first if the file would pass its
// size bound. After a write that failed part-way (a full disk), the file
// is cut back to the end of the last whole line before the next verdict;
// if that fails too, the next verdict starts on a new line, so that it is
// never appended to the torn one.
func (v *VerdictFile) Append(rec *proxy.VerdictRecord) error {
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
	if v.torn {
		v.torn = false
		if err := v.f.Truncate(v.size); err != nil {
			v.midLine = true
			if st, err := v.f.Stat(); err == nil {
				v.size = st.Size()
			}
		}
	}
	if v.midLine {
		b = append([]byte{'\n'}, b...)
	}
	if v.size > 0 && v.size+int64(len(b)) > v.maxSize {
		if err := v.rotate(); err != nil {
			return err
		}
		if v.midLine {
			b, v.midLine = b[1:], false // a new file has no torn line
		}
	}
	write := v.f.Write
	if v.knobs.write != nil {
		write = func(b []byte) (int, error) { return v.knobs.write(v.f, b) }
	}
	n, err := write(b)
	if err != nil || n != len(b) {
		// v.size stays at the last whole line, where Truncate cuts back
		// to; a short write without an error is an error all the same.
		v.torn = v.torn || n > 0
		if err == nil {
			err = io.ErrShortWrite
		}
		return fmt.Errorf("appending to the verdict log: %w", err)
	}
	v.size += int64(n)
	v.midLine = false
	return nil
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
	if v.torn {
		_ = v.f.Truncate(v.size) // best effort; the reader skips a torn line
	}
	err := v.f.Close()
	v.f = nil
	return err
}
