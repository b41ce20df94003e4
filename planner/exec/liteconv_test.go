package exec_test

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/exec"
)

// TestSQLiteConverterMatchesForSQLite checks that the remembering
// converter gives ForSQLite's databases, also for rows and values it has
// seen before.
func TestSQLiteConverterMatchesForSQLite(t *testing.T) {
	num := func(s string) exec.Value {
		v, err := exec.Numeric(s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	date := func(s string) exec.Value {
		v, err := exec.Parse(catalog.Date, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	shared := num("2.50")
	rowA := []exec.Value{exec.Int(1), shared, date("2020-01-01")}
	rowB := []exec.Value{exec.Text("x"), exec.Null, exec.Float(1.5)}
	rowC := []exec.Value{num("3"), shared, num("-1.25")}
	dbs := []exec.Database{
		{"a": {rowA, rowB}, "b": {}},
		{"a": {rowB, rowA}, "b": {rowC}},
		{"a": {rowA}, "b": {rowC, []exec.Value{num("123456789012345678901234567890"), date("1999-12-31"), exec.Bool(true)}}},
	}
	var before []string // the databases as given, which no mode may change
	for _, db := range dbs {
		before = append(before, fmt.Sprint(db))
	}
	for _, mode := range []exec.SQLiteConverter{{}, {Rows: true}, {Recycle: true}, {Rows: true, Recycle: true}} {
		c := mode
		for round := 0; round < 2; round++ {
			for i, db := range dbs {
				if got, want := c.Database(db), exec.ForSQLite(db); !reflect.DeepEqual(got, want) {
					t.Errorf("rows %v, recycle %v, round %d, database %d:\n got %v\nwant %v", mode.Rows, mode.Recycle, round, i, got, want)
				}
			}
		}
	}
	for i, db := range dbs {
		if got := fmt.Sprint(db); got != before[i] {
			t.Errorf("database %d changed: %s, was %s", i, got, before[i])
		}
	}
}
