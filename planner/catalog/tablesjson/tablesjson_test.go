package tablesjson

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pgequiv/pgequiv/planner/catalog"
)

// flight2 is Spider's flight_2 entry (original names), plus a tickets
// table with a composite foreign key and BIRD's nested primary key form.
const flight2 = `[{
 "db_id": "flight_2",
 "table_names_original": ["airlines", "airports", "flights", "tickets"],
 "column_names_original": [[-1, "*"], [0, "uid"], [0, "Airline"], [1, "City"], [1, "AirportCode"],
   [2, "Airline"], [2, "FlightNo"], [2, "SourceAirport"], [2, "DestAirport"],
   [3, "id"], [3, "airline"], [3, "flightno"]],
 "column_types": ["text", "number", "text", "text", "text", "number", "number", "text", "text", "number", "number", "number"],
 "primary_keys": [1, 4, 5, 6, [9]],
 "foreign_keys": [[8, 4], [7, 4], [10, 5], [11, 6]]
}]`

func write(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "tables.json")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestSchema(t *testing.T) {
	f, err := Read(write(t, flight2))
	if err != nil {
		t.Fatal(err)
	}
	if !f.Has("flight_2") || !reflect.DeepEqual(f.DBs(), []string{"flight_2"}) {
		t.Fatalf("dbs %v", f.DBs())
	}
	s, err := f.Schema("flight_2", catalog.SQLite)
	if err != nil {
		t.Fatal(err)
	}
	fl := s.Table("flights")
	if !reflect.DeepEqual(fl.PrimaryKey, []int{0, 1}) {
		t.Errorf("flights key %v: two integers of one table are one composite key", fl.PrimaryKey)
	}
	if len(fl.ForeignKeys) != 2 || fl.ForeignKeys[0].RefTable != "airports" || len(fl.ForeignKeys[1].Columns) != 1 {
		t.Errorf("flights foreign keys %+v: two single keys to the same parent stay apart", fl.ForeignKeys)
	}
	tk := s.Table("tickets")
	want := []catalog.ForeignKey{{Columns: []int{1, 2}, RefTable: "flights", RefColumns: []int{0, 1}}}
	if !reflect.DeepEqual(tk.ForeignKeys, want) || !reflect.DeepEqual(tk.PrimaryKey, []int{0}) {
		t.Errorf("tickets: key %v foreign keys %+v, want %+v", tk.PrimaryKey, tk.ForeignKeys, want)
	}
	// A SQLite key column may hold NULL unless it is the INTEGER rowid
	// alias, which tables.json's "number" does not say: nullable, and a
	// key only as UNIQUE is (catalog.Keys).
	if c := s.Table("airlines").Columns[0]; c.Type != catalog.Numeric || c.NotNull || len(s.Table("airlines").Keys()) != 0 {
		t.Errorf("airlines.uid %+v", c)
	}
}

func TestErrors(t *testing.T) {
	for _, tc := range []struct{ name, text, db, want string }{
		{"not a list", `{"db_id": "x"}`, "", "want a JSON list"},
		{"no db_id", `[{}]`, "", "database 1 has no db_id"},
		{"duplicate", `[{"db_id": "a"}, {"db_id": "a"}]`, "", `"a" listed twice`},
		{"missing db", `[{"db_id": "a"}]`, "b", `no database "b"`},
		{"bad column", `[{"db_id": "a", "table_names_original": ["t"], "column_names_original": [[3, "c"]]}]`, "a", "table index 3 out of range"},
		{"bad key", `[{"db_id": "a", "table_names_original": ["t"], "column_names_original": [[0, "c"]], "primary_keys": [7]}]`, "a", "column index 7"},
		{"bad fk", `[{"db_id": "a", "table_names_original": ["t"], "column_names_original": [[0, "c"]], "foreign_keys": [[0, 9]]}]`, "a", "column index 9"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Read(write(t, tc.text))
			if err == nil && tc.db != "" {
				_, err = f.Schema(tc.db, catalog.SQLite)
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}
