package dbfree

import (
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/pgequiv/pgequiv/internal/pgtest"
)

// TestConnectProbes: what psql, drivers and BI tools send on connect is
// answered, in the simple and the extended protocol (binary results).
func TestConnectProbes(t *testing.T) {
	s := startServer(t, Options{})
	ctx := testCtx(t)
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeCacheStatement, pgx.QueryExecModeSimpleProtocol} {
		t.Run(mode.String(), func(t *testing.T) {
			conn := s.connect(t, ctx, mode)
			var version, sv, db, user string
			var one int32
			if err := conn.QueryRow(ctx, "SELECT version(), current_database(), current_user, 1").Scan(&version, &db, &user, &one); err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(version, "PostgreSQL "+ServerVersion) || db == "" || user == "" || one != 1 {
				t.Errorf("probe: %q %q %q %d", version, db, user, one)
			}
			if err := conn.QueryRow(ctx, "SHOW server_version").Scan(&sv); err != nil || sv != ServerVersion {
				t.Errorf("SHOW server_version: %q %v", sv, err)
			}
			if _, err := conn.Exec(ctx, "SHOW no_such_setting"); pgErr(err) == nil || pgErr(err).Code != "42704" {
				t.Errorf("SHOW of an unknown setting: %v", err)
			}
			for _, sql := range []string{"SET search_path = public", "SET extra_float_digits = 3", "RESET statement_timeout"} {
				if _, err := conn.Exec(ctx, sql); err != nil {
					t.Errorf("%s: %v", sql, err)
				}
			}
			// A transaction block: the status moves, a refused statement
			// fails it until ROLLBACK, as in PostgreSQL.
			if _, err := conn.Exec(ctx, "BEGIN"); err != nil || conn.PgConn().TxStatus() != 'T' {
				t.Fatalf("BEGIN: %v, status %c", err, conn.PgConn().TxStatus())
			}
			if _, err := conn.Exec(ctx, "SELECT name FROM dogs"); pgErr(err) == nil || conn.PgConn().TxStatus() != 'E' {
				t.Fatalf("untagged in a transaction: %v, status %c", err, conn.PgConn().TxStatus())
			}
			if _, err := conn.Exec(ctx, "SELECT 1"); pgErr(err) == nil || pgErr(err).Code != "25P02" {
				t.Fatalf("in a failed transaction: %v", err)
			}
			if _, err := conn.Exec(ctx, "ROLLBACK"); err != nil || conn.PgConn().TxStatus() != 'I' {
				t.Fatalf("ROLLBACK: %v, status %c", err, conn.PgConn().TxStatus())
			}

			var name, kind, pk string
			var ncols int32
			found := false
			rows, _ := conn.Query(ctx, "SELECT * FROM pgequiv.tables")
			if _, err := pgx.ForEachRow(rows, []any{&name, &kind, &ncols, &pk}, func() error {
				if name == "dogs" {
					found = kind == "table" && ncols >= 4 && pk == "dog_id"
				}
				return nil
			}); err != nil || !found {
				t.Errorf("pgequiv.tables: dogs found %v, %v", found, err)
			}
			var cols []string
			var notNull bool
			var pos int32
			var typ string
			rows, _ = conn.Query(ctx, "SELECT column_name, ordinal_position, data_type, not_null FROM pgequiv.columns WHERE table_name = 'dogs'")
			if _, err := pgx.ForEachRow(rows, []any{&name, &pos, &typ, &notNull}, func() error {
				cols = append(cols, name+":"+strconv.Itoa(int(pos))+":"+strconv.FormatBool(notNull))
				return nil
			}); err != nil || len(cols) < 4 || cols[0] != "dog_id:1:true" {
				t.Errorf("pgequiv.columns of dogs: %v, %v", cols, err)
			}
		})
	}
}

// TestSessionReferenceAppliesToQueriesOnly: after SET pgequiv.reference,
// BEGIN and SET are answered, not judged, and a DDL statement is refused
// as untagged (not judged against the reference).
func TestSessionReferenceAppliesToQueriesOnly(t *testing.T) {
	s := startServer(t, Options{})
	ctx := testCtx(t)
	conn := s.connect(t, ctx, pgx.QueryExecModeSimpleProtocol)
	if _, err := conn.Exec(ctx, "SET pgequiv.reference = '"+countStar+"'"); err != nil {
		t.Fatal(err)
	}
	for _, sql := range []string{"BEGIN", "SET application_name = 'bi'", "COMMIT"} {
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Errorf("%s: %v", sql, err)
		}
	}
	_, err := conn.Exec(ctx, "CREATE TABLE t (a int)")
	if pe := pgErr(err); pe == nil || pe.Code != codeFeatureNotSupported || strings.Contains(pe.Message+pe.Detail, "*") {
		t.Errorf("CREATE TABLE after SET pgequiv.reference: %v", err)
	}
	v, err := scanVerdict(conn.QueryRow(ctx, countOwner))
	if err != nil || v.label != "equivalent" {
		t.Errorf("the query itself: %+v %v", v, err)
	}
}

// TestPsqlProbes: psql's -c with the probes a person types.
func TestPsqlProbes(t *testing.T) {
	psql, err := exec.LookPath("psql")
	if err != nil {
		bin, berr := pgtest.FindBinDir()
		if berr != nil {
			t.Fatalf("psql not found (run scripts/install-test-deps.sh): %v", err)
		}
		psql = bin + "/psql"
	}
	s := startServer(t, Options{})
	ctx := testCtx(t)
	host, port, _ := strings.Cut(s.addr, ":")
	out, err := exec.CommandContext(ctx, psql, "-X", "-At", "-v", "ON_ERROR_STOP=1", "-h", host, "-p", port, "-U", "me", "-d", "pgequiv",
		"-c", "SELECT version()", "-c", "SHOW server_version", "-c", "SELECT count(*) FROM dogs /*pgequiv_ref='SELECT%20count(dog_id)%20FROM%20dogs'*/",
		"-c", "SELECT table_name FROM pgequiv.tables WHERE table_type = 'table'").CombinedOutput()
	if err != nil {
		t.Fatalf("psql: %v\n%s", err, out)
	}
	for _, want := range []string{"PostgreSQL " + ServerVersion, "\n" + ServerVersion + "\n", "equivalent|", "\ndogs\n"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("psql output lacks %q:\n%s", want, out)
		}
	}
}
