package judging

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pgequiv/pgequiv/internal/pgtest"
)

// pgjdbcJar is where Debian's libpostgresql-jdbc-java (pgjdbc 42.5) puts
// the driver (scripts/install-test-deps.sh installs it and a JDK).
const pgjdbcJar = "/usr/share/java/postgresql.jar"

// buildJava compiles the Java program testdata/jdbc/<class>.java against
// pgjdbc and returns the java command and the classpath to run it with.
func buildJava(t *testing.T, class string) (java, classpath string) {
	t.Helper()
	javac, err := exec.LookPath("javac")
	if err != nil {
		t.Fatalf("javac not found (run scripts/install-test-deps.sh): %v", err)
	}
	if java, err = exec.LookPath("java"); err != nil {
		t.Fatalf("java not found (run scripts/install-test-deps.sh): %v", err)
	}
	if _, err := os.Stat(pgjdbcJar); err != nil {
		t.Fatalf("pgjdbc not found (run scripts/install-test-deps.sh): %v", err)
	}
	dir := t.TempDir()
	src := filepath.Join("testdata", "jdbc", class+".java")
	if out, err := exec.CommandContext(testCtx(t, 2*time.Minute), javac, "-cp", pgjdbcJar, "-d", dir, src).CombinedOutput(); err != nil {
		t.Fatalf("javac %s: %v\n%s", src, err, out)
	}
	return java, pgjdbcJar + string(os.PathListSeparator) + dir
}

// TestAnnotateCountsJDBCExecutions (issue 37, acceptance 3): pgjdbc runs
// a tagged PreparedStatement 8 times through an annotating proxy. From
// the 5th execution (prepareThreshold) it uses a named server-side
// statement, and from the 6th it sends only Bind and Execute; every
// execution must still get its NOTICE (an SQLWarning on the statement)
// and its verdict record, and the tagged counter counts executions.
// PostgreSQL's pg_prepared_statements shows that the named statement ran
// the last executions, so the cached path was taken.
func TestAnnotateCountsJDBCExecutions(t *testing.T) {
	java, cp := buildJava(t, "RepeatTagged")
	e := startJudgeProxy(t, annotateSettings(t), JudgingOptions{})
	url := fmt.Sprintf("jdbc:postgresql://%s:%d/%s?user=%s&sslmode=disable&connectTimeout=10&prepareThreshold=5",
		e.Host, e.Port, kennelDB, pgtest.SuperUser)
	const runs, threshold = 8, 5
	for _, tc := range []struct {
		name, sql string
		param     string // the int parameter's value, if the query has one
		notice    string // how each notice starts
		count     int
	}{
		{name: "no parameters", sql: withComment(countOwner, countStar), notice: equivNotice, count: 1},
		{name: "a parameter", sql: withComment("SELECT count(owner_id) FROM dogs WHERE age > ?", "SELECT count(*) FROM dogs WHERE age > $1"),
			param: "5", notice: equivNotice, count: 1},
		{name: "a parameter, other value", sql: withComment("SELECT count(owner_id) FROM dogs WHERE age > ?", "SELECT count(*) FROM dogs WHERE age > $1"),
			param: "2", notice: equivNotice, count: 2},
		{name: "not equivalent", sql: withComment(countOwner, "SELECT count(*) FROM dogs WHERE age > 6"),
			notice: "pgequiv: not_equivalent", count: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"-cp", cp, "RepeatTagged", url, tc.sql, strconv.Itoa(runs)}
			if tc.param != "" {
				args = append(args, tc.param)
			}
			before, records := e.j.stats.tagged.Load(), len(e.j.RecentVerdicts())
			out, err := exec.CommandContext(testCtx(t, 2*time.Minute), java, args...).CombinedOutput()
			if err != nil {
				t.Fatalf("RepeatTagged: %v\n%s", err, out)
			}
			e.j.Wait()
			var execs, prepared []string
			for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
				switch {
				case strings.HasPrefix(l, "exec "):
					execs = append(execs, l)
				case strings.HasPrefix(l, "prepared "):
					prepared = append(prepared, l)
				default:
					t.Errorf("unexpected output line %q", l)
				}
			}
			if len(execs) != runs {
				t.Fatalf("%d executions reported, want %d:\n%s", len(execs), runs, out)
			}
			for i, l := range execs {
				want := fmt.Sprintf("exec %d server=%t count=%d notices=1 %s", i+1, i+1 >= threshold, tc.count, tc.notice)
				if !strings.HasPrefix(l, want) {
					t.Errorf("got  %q\nwant %q...", l, want)
				}
				// The same statement gets the same verdict each time.
				if i > 0 && noticeOf(l) != noticeOf(execs[0]) {
					t.Errorf("execution %d's notice %q differs from the first's %q", i+1, noticeOf(l), noticeOf(execs[0]))
				}
			}
			// The named statement ran executions threshold..runs: those
			// after the first of them sent no Parse.
			wantPrep := fmt.Sprintf("executions=%d %s", runs-threshold+1, strings.ReplaceAll(tc.sql, "?", "$1"))
			if len(prepared) != 1 || !strings.HasSuffix(prepared[0], wantPrep) {
				t.Errorf("pg_prepared_statements: %q, want one named statement with %q", prepared, wantPrep)
			}
			if got := e.j.stats.tagged.Load() - before; got != runs {
				t.Errorf("tagged counter grew by %d for %d executions", got, runs)
			}
			if got := len(e.j.RecentVerdicts()) - records; got != runs {
				t.Errorf("%d verdict records for %d executions", got, runs)
			}
		})
	}
}

// noticeOf is the notice text of a RepeatTagged "exec" line.
func noticeOf(line string) string {
	_, note, _ := strings.Cut(line, " notices=1 ")
	return note
}
