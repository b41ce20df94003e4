package dbfree

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/pgequiv/pgequiv/internal/pgtest"
)

// pgjdbcJar is where Debian's libpostgresql-jdbc-java (pgjdbc 42.5) puts
// the driver.
const pgjdbcJar = "/usr/share/java/postgresql.jar"

// buildJDBCPrograms compiles the Java programs of testdata/jdbc against
// pgjdbc and returns the java command and its classpath.
func buildJDBCPrograms(t *testing.T) (java, classpath string) {
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
	srcs, err := filepath.Glob("testdata/jdbc/*.java")
	if err != nil || len(srcs) == 0 {
		t.Fatalf("no Java programs in testdata/jdbc: %v", err)
	}
	args := append([]string{"-cp", pgjdbcJar, "-d", dir}, srcs...)
	if out, err := exec.CommandContext(testCtx(t), javac, args...).CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
	return java, pgjdbcJar + string(os.PathListSeparator) + dir
}

// runJDBC runs the Java program class against host:port and returns its
// lines.
func runJDBC(t *testing.T, java, classpath, class, host string, port int, user, db string) []string {
	t.Helper()
	url := fmt.Sprintf("jdbc:postgresql://%s:%d/%s?user=%s&sslmode=disable&connectTimeout=10", host, port, db, user)
	out, err := exec.CommandContext(testCtx(t), java, "-cp", classpath, class, url).CombinedOutput()
	if err != nil {
		t.Fatalf("%s against %s:%d: %v\n%s", class, host, port, err, out)
	}
	return strings.Split(strings.TrimSpace(string(out)), "\n")
}

// TestPgJDBCMetadata runs pgjdbc's DatabaseMetaData (getCatalogs,
// getSchemas, getTables, getColumns, getPrimaryKeys, getImportedKeys,
// getExportedKeys, getIndexInfo, getTypeInfo, getProcedures, and the
// others BI tools call: getTableTypes, getCrossReference,
// getBestRowIdentifier, getVersionColumns, getTablePrivileges,
// getColumnPrivileges, getProcedureColumns, getFunctions, getUDTs) through
// the real driver against database-free mode and against a PostgreSQL with
// the example schema loaded. Each answer must hold what the schema says
// (the keys below), and be PostgreSQL's answer, except that getTypeInfo
// lists the built-in types the catalog models, a subset of PostgreSQL's
// (it has no array, range or extension types), and getCatalogs names
// the connection's database.
func TestPgJDBCMetadata(t *testing.T) {
	java, cp := buildJDBCPrograms(t)
	p := newIntrospectPair(t)
	host, port := p.free.hostPort(t)
	free := runJDBC(t, java, cp, "MetaDump", host, port, "postgres", "kennel")
	real := runJDBC(t, java, cp, "MetaDump", p.real.Host, p.real.Port, pgtest.SuperUser, pgtest.Database)

	// What the example schema declares (planner/catalog/example.sql).
	schema := []string{
		"catalogs TABLE_CAT=kennel",
		"schemas TABLE_SCHEM=public",
		"tables TABLE_SCHEM=public TABLE_NAME=dogs TABLE_TYPE=TABLE",
		"columns TABLE_NAME=dogs ORDINAL_POSITION=1 COLUMN_NAME=dog_id TYPE_NAME=int4 DATA_TYPE=4 NULLABLE=0",
		"columns TABLE_NAME=dogs ORDINAL_POSITION=6 COLUMN_NAME=weight TYPE_NAME=numeric DATA_TYPE=2 NULLABLE=1",
		"primaryKeys dogs TABLE_NAME=dogs COLUMN_NAME=dog_id KEY_SEQ=1 PK_NAME=dogs_pkey",
		"primaryKeys breeds TABLE_NAME=breeds COLUMN_NAME=breed_code KEY_SEQ=1 PK_NAME=breeds_pkey",
		"importedKeys dogs PKTABLE_NAME=owners PKCOLUMN_NAME=owner_id FKTABLE_NAME=dogs FKCOLUMN_NAME=owner_id KEY_SEQ=1 FK_NAME=dogs_owner_id_fkey PK_NAME=owners_pkey",
		"importedKeys dogs PKTABLE_NAME=breeds PKCOLUMN_NAME=breed_code FKTABLE_NAME=dogs FKCOLUMN_NAME=breed_code KEY_SEQ=1 FK_NAME=dogs_breed_code_fkey PK_NAME=breeds_pkey",
		"importedKeys owners (no rows)",
		"exportedKeys owners PKTABLE_NAME=owners PKCOLUMN_NAME=owner_id FKTABLE_NAME=dogs FKCOLUMN_NAME=owner_id KEY_SEQ=1 FK_NAME=dogs_owner_id_fkey",
		"exportedKeys dogs PKTABLE_NAME=dogs PKCOLUMN_NAME=dog_id FKTABLE_NAME=treatments FKCOLUMN_NAME=dog_id KEY_SEQ=1 FK_NAME=treatments_dog_id_fkey",
		"exportedKeys treatments (no rows)",
		"indexInfo owners TABLE_NAME=owners NON_UNIQUE=f INDEX_NAME=owners_email_key ORDINAL_POSITION=1 COLUMN_NAME=email",
		"indexInfo owners TABLE_NAME=owners NON_UNIQUE=f INDEX_NAME=owners_pkey ORDINAL_POSITION=1 COLUMN_NAME=owner_id",
		"typeInfo TYPE_NAME=int4 DATA_TYPE=4",
		"typeInfo TYPE_NAME=text DATA_TYPE=12",
		"typeInfo TYPE_NAME=numeric DATA_TYPE=2",
		"typeInfo TYPE_NAME=date DATA_TYPE=91",
		"procedures (no rows)",
		"procedures public (no rows)",
	}
	has := func(lines []string) map[string]bool {
		m := map[string]bool{}
		for _, l := range lines {
			m[l] = true
		}
		return m
	}
	freeHas, realHas := has(free), has(real)
	for _, want := range schema {
		if !freeHas[want] {
			t.Errorf("database-free mode lacks %q", want)
		}
		// The expectation itself is PostgreSQL's answer (but for the
		// database's name).
		if !realHas[strings.Replace(want, "TABLE_CAT=kennel", "TABLE_CAT="+pgtest.Database, 1)] {
			t.Errorf("PostgreSQL lacks %q: the expectation is wrong", want)
		}
	}
	var freeTypes, freeRest, realRest []string
	for _, l := range free {
		if strings.Contains(l, " ERROR ") {
			t.Errorf("database-free mode: %s", l)
		}
		switch {
		case strings.HasPrefix(l, "typeInfo "):
			freeTypes = append(freeTypes, l)
			if !realHas[l] {
				t.Errorf("database-free getTypeInfo has %q, PostgreSQL does not", l)
			}
		case !strings.HasPrefix(l, "catalogs "):
			freeRest = append(freeRest, l)
		}
	}
	for _, l := range real {
		if !strings.HasPrefix(l, "typeInfo ") && !strings.HasPrefix(l, "catalogs ") {
			realRest = append(realRest, l)
		}
	}
	if len(freeTypes) < 20 {
		t.Errorf("database-free getTypeInfo lists %d types:\n%s", len(freeTypes), strings.Join(freeTypes, "\n"))
	}
	sort.Strings(freeRest)
	sort.Strings(realRest)
	if got, want := strings.Join(freeRest, "\n"), strings.Join(realRest, "\n"); got != want {
		t.Errorf("DatabaseMetaData differs from PostgreSQL's\ndatabase-free:\n%s\n\nPostgreSQL:\n%s", got, want)
	}
}

func (s *testServer) hostPort(t *testing.T) (string, int) {
	t.Helper()
	host, portText, err := net.SplitHostPort(s.addr)
	if err != nil {
		t.Fatal(err)
	}
	port, err := strconv.Atoi(portText)
	if err != nil {
		t.Fatal(err)
	}
	return host, port
}

// TestDBeaverNavigatorQueries runs the catalog queries DBeaver sends to
// fill its navigator (testdata/jdbc/NavigatorQueries.java: search_path,
// the database, schemas, a schema's tables and columns with its OID bound
// by setLong, a type by OID), and Metabase's table listing (with
// pg_stat_user_tables' row counts), through pgjdbc against database-free mode
// and PostgreSQL: the answers must be the same, but for what the
// emulated catalog does not hold, which is left out of the comparison:
// the pg_toast schema and the system columns (ctid, xmin, ...; attnum
// below 0). pgjdbc sends a setLong parameter in binary format: a catalog
// query must read it (it was refused before).
func TestDBeaverNavigatorQueries(t *testing.T) {
	java, cp := buildJDBCPrograms(t)
	p := newIntrospectPair(t)
	host, port := p.free.hostPort(t)
	keep := func(lines []string) []string {
		var out []string
		for _, l := range lines {
			if strings.Contains(l, "nspname=pg_toast") || strings.Contains(l, " attnum=-") {
				continue
			}
			out = append(out, l)
		}
		return out
	}
	free := runJDBC(t, java, cp, "NavigatorQueries", host, port, pgtest.SuperUser, pgtest.Database)
	real := keep(runJDBC(t, java, cp, "NavigatorQueries", p.real.Host, p.real.Port, pgtest.SuperUser, pgtest.Database))
	for _, l := range free {
		if strings.Contains(l, " ERROR ") || strings.HasSuffix(l, "(no rows)") {
			t.Errorf("database-free mode: %s", l)
		}
	}
	for _, want := range []string{
		`searchPath reset_val="$user", public`,
		"tables relname=dogs relkind=r relnatts=7 relhasindex=t relpersistence=p description=null partition_expr=null partition_key=null",
		"columns relname=dogs attnum=1 attname=dog_id atttypid=23 atttypmod=-1 attnotnull=t def_value=null description=null objid=null",
		"metabaseTables schema=public name=dogs type=TABLE description=null estimated_row_count=0",
	} {
		if !slices.Contains(free, want) {
			t.Errorf("database-free mode lacks %q", want)
		}
	}
	if got, want := strings.Join(keep(free), "\n"), strings.Join(real, "\n"); got != want {
		t.Errorf("navigator queries differ from PostgreSQL's\ndatabase-free:\n%s\n\nPostgreSQL:\n%s", got, want)
	}
}
