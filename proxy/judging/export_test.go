package judging

import (
	"log/slog"
	"os"
	"testing"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/proxy/judgepool"
)

// setTestingKnobs installs knobs on j and returns a function restoring the
// previous ones. Call it before the first query.
func (j *Judging) setTestingKnobs(k judgingKnobs) (restore func()) {
	old := j.knobs
	j.knobs = k
	return func() { j.knobs = old }
}

// setWriteKnob makes v write through write (a failing disk) and returns
// a function restoring the plain write.
func (v *VerdictFile) setWriteKnob(write func(f *os.File, b []byte) (int, error)) (restore func()) {
	v.mu.Lock()
	defer v.mu.Unlock()
	old := v.knobs
	v.knobs.write = write
	return func() {
		v.mu.Lock()
		defer v.mu.Unlock()
		v.knobs = old
	}
}

// StartTestDBFree serves database-free mode with judger on schema on a
// free port and returns its connection string (TestIsolationFatalJudge
// runs it beside the relay). dbfree_test.go, in package judging_test, sets
// it: proxy/dbfree imports this package, so its internal tests cannot.
var StartTestDBFree func(t testing.TB, schema *catalog.Schema, judger judgepool.Backend, logger *slog.Logger) string
