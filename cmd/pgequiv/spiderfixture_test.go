package main

import (
	"bufio"
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pgequiv/pgequiv/internal/shareddata"
	"github.com/pgequiv/pgequiv/planner/catalog"

	_ "modernc.org/sqlite" // writes the fixture's DDL-only database files
)

var (
	updateSpiderFixture = flag.Bool("update-spider-fixture", false, "rebuild testdata/spider from the shared data (testdata/shared/data at the repository root)")
	spiderFixtureOut    = flag.String("spider-fixture-out", "", "with -update-spider-fixture: build into this directory instead, from every shared pair and schema (scripts/spider-files-vs-jsonl.sh)")
)

const spiderFixture = "testdata/spider"

// spiderFixtureDBs are the fixture's databases. Their SQLite files hold
// the shared schema's DDL, except those in spiderRealDDL, which hold the
// DDL of Spider's own database file: single-quoted names and the
// composite primary key tables.json flattens.
var spiderFixtureDBs = []string{"concert_singer", "pets_1", "car_1", "flight_2"}

var spiderRealDDL = map[string]string{
	"flight_2": `CREATE TABLE 'airlines' (
	uid INTEGER PRIMARY KEY,
	Airline TEXT,
	Abbreviation TEXT,
	Country TEXT
);
CREATE TABLE 'airports' (
	City TEXT,
	AirportCode TEXT PRIMARY KEY,
	AirportName TEXT,
	Country TEXT,
	CountryAbbrev TEXT
);
CREATE TABLE 'flights' (
	Airline INTEGER,
	FlightNo INTEGER,
	SourceAirport TEXT,
	DestAirport TEXT,
	PRIMARY KEY(Airline, FlightNo),
	FOREIGN KEY (SourceAirport) REFERENCES airports(AirportCode),
	FOREIGN KEY (DestAirport) REFERENCES airports(AirportCode)
);`,
}

var sqliteSequence = regexp.MustCompile(`(?is)CREATE TABLE sqlite_sequence \(.*?\);`)

// spiderFixturePerDB is how many pairs of each database the fixture
// takes, half of them labelled equivalent.
const spiderFixturePerDB = 12

// TestBuildSpiderFixture rebuilds the Spider-layout fixture from the
// shared pairs and schemas with -update-spider-fixture; otherwise it
// checks that the committed fixture is complete.
func TestBuildSpiderFixture(t *testing.T) {
	if *updateSpiderFixture {
		buildSpiderFixture(t)
		if *spiderFixtureOut != "" {
			return
		}
	}
	for _, f := range []string{"tables.json", "gold.sql", "pred.sql", "pairs.jsonl"} {
		if _, err := os.Stat(filepath.Join(spiderFixture, f)); err != nil {
			t.Errorf("fixture: %v (rebuild with go test ./cmd/pgequiv -run TestBuildSpiderFixture -update-spider-fixture)", err)
		}
	}
	for _, db := range spiderFixtureDBs {
		if _, err := os.Stat(filepath.Join(spiderFixture, "database", db, db+".sqlite")); err != nil {
			t.Errorf("fixture: %v", err)
		}
	}
}

func buildSpiderFixture(t *testing.T) {
	t.Helper()
	out, dbs, perDB := spiderFixture, spiderFixtureDBs, spiderFixturePerDB
	if *spiderFixtureOut != "" {
		out, perDB = *spiderFixtureOut, 1<<30
		entries, err := os.ReadDir(sharedSchemas(t))
		if err != nil {
			t.Fatal(err)
		}
		dbs = nil
		for _, e := range entries {
			if name, ok := strings.CutSuffix(e.Name(), ".sql"); ok {
				dbs = append(dbs, name)
			}
		}
	}
	if err := os.RemoveAll(out); err != nil {
		t.Fatal(err)
	}
	var tables []map[string]any
	for _, db := range dbs {
		ddl, err := os.ReadFile(filepath.Join(sharedSchemas(t), db+".sql"))
		if err != nil {
			t.Fatal(err)
		}
		s, err := catalog.LoadDDL(string(ddl), catalog.SQLite)
		if err != nil {
			t.Fatal(err)
		}
		tables = append(tables, tablesEntry(db, s))
		// SQLite creates sqlite_sequence itself (for AUTOINCREMENT) and
		// refuses the name; tables.json lists it, the file hides it.
		fileDDL := sqliteSequence.ReplaceAllString(string(ddl), "")
		if real, ok := spiderRealDDL[db]; ok {
			fileDDL = real
		}
		writeSQLiteDDL(t, filepath.Join(out, "database", db, db+".sqlite"), fileDDL)
	}
	data, err := json.MarshalIndent(tables, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(out, "tables.json"), string(data)+"\n")

	f, err := os.Open(shareddata.Path(t, "data/spider_pair_dev.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	taken := map[string]int{}
	want := map[string]bool{}
	for _, db := range dbs {
		want[db] = true
	}
	var gold, pred, pairs strings.Builder
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var p map[string]any
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			t.Fatal(err)
		}
		db := p["db"].(string)
		ref, cand := singleLine(p["reference"].(string)), singleLine(p["candidate"].(string))
		// One line each, as the evaluation files hold them: a comment or
		// a tab would not survive that.
		key := fmt.Sprint(db, p["label"])
		if !want[db] || taken[key] >= perDB/2 || strings.Contains(ref+cand, "--") || strings.Contains(ref+cand, "\t") {
			continue
		}
		taken[key]++
		fmt.Fprintf(&gold, "%s\t%s\n", ref, db)
		fmt.Fprintf(&pred, "%s\n", cand)
		p["reference"], p["candidate"] = ref, cand
		line, _ := json.Marshal(p)
		pairs.Write(append(line, '\n'))
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(out, "gold.sql"), gold.String())
	writeFile(t, filepath.Join(out, "pred.sql"), pred.String())
	writeFile(t, filepath.Join(out, "pairs.jsonl"), pairs.String())
}

// singleLine joins a query's lines with spaces.
func singleLine(q string) string {
	return strings.Join(strings.Fields(strings.TrimSuffix(strings.TrimSpace(q), ";")), " ")
}

// tablesEntry describes s as Spider's tables.json does: a single-column
// key per table and one foreign-key pair per column.
func tablesEntry(db string, s *catalog.Schema) map[string]any {
	names := []string{}
	cols := [][2]any{{-1, "*"}}
	types := []string{"text"}
	first := map[string]int{}
	for ti, tb := range s.Tables {
		names = append(names, tb.Name)
		first[strings.ToLower(tb.Name)] = len(cols)
		for _, c := range tb.Columns {
			cols = append(cols, [2]any{ti, c.Name})
			ty := map[catalog.Type]string{catalog.Numeric: "number", catalog.Int: "number", catalog.Float: "number", catalog.Text: "text", catalog.Timestamp: "time", catalog.Date: "time", catalog.Bool: "boolean"}[c.Type]
			if ty == "" {
				ty = "others"
			}
			types = append(types, ty)
		}
	}
	pks := []int{}
	fks := [][2]int{}
	for _, tb := range s.Tables {
		base := first[strings.ToLower(tb.Name)]
		for _, o := range tb.PrimaryKey {
			pks = append(pks, base+o)
		}
		for _, fk := range tb.ForeignKeys {
			rb := first[strings.ToLower(fk.RefTable)]
			for i, o := range fk.Columns {
				fks = append(fks, [2]int{base + o, rb + fk.RefColumns[i]})
			}
		}
	}
	return map[string]any{
		"db_id": db, "table_names_original": names, "table_names": names,
		"column_names_original": cols, "column_names": cols, "column_types": types,
		"primary_keys": pks, "foreign_keys": fks,
	}
}

// writeSQLiteDDL creates a SQLite file holding ddl and no rows, in small
// pages so that the committed file stays small.
func writeSQLiteDDL(t *testing.T, path, ddl string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("PRAGMA page_size = 512; PRAGMA journal_mode = DELETE;"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(ddl); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
