package build

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgequiv/pgequiv/internal/pgtest"
	"github.com/pgequiv/pgequiv/internal/sqltext/pggen"
)

var updatePgNames = flag.Bool("update-pgnames", false, "rewrite "+pgNamesFile+" from the test PostgreSQL's pg_proc and pg_type")

// pgNamesFile is the generated list of PostgreSQL 15's function and type
// names (pgnames.go reads it).
const pgNamesFile = "pgnames_pg15.go"

// pgNamesQueries give each generated list from pg_catalog: its functions
// by kind (plain, aggregate, window) and its types, every volatility and
// type kind included. Only pg_catalog's: it is the one schema on every
// search_path (information_schema's are not found unqualified).
var pgNamesQueries = []struct {
	name, doc, query string
	file             []string
}{
	{"pgPlainFuncs", "pgPlainFuncs are pg_catalog's plain functions (prokind f).",
		"SELECT DISTINCT proname::text FROM pg_proc WHERE pronamespace = 'pg_catalog'::regnamespace AND prokind = 'f'", pgPlainFuncs},
	{"pgAggFuncs", "pgAggFuncs are pg_catalog's aggregates (prokind a).",
		"SELECT DISTINCT proname::text FROM pg_proc WHERE pronamespace = 'pg_catalog'::regnamespace AND prokind = 'a'", pgAggFuncs},
	{"pgWindowFuncs", "pgWindowFuncs are pg_catalog's window functions (prokind w).",
		"SELECT DISTINCT proname::text FROM pg_proc WHERE pronamespace = 'pg_catalog'::regnamespace AND prokind = 'w'", pgWindowFuncs},
	{"pgTypeNames", "pgTypeNames are pg_catalog's type names (typname), arrays and pseudo-types included.",
		"SELECT typname::text FROM pg_type WHERE typnamespace = 'pg_catalog'::regnamespace", pgTypeNames},
}

// TestPgNamesMatchCatalog: the names the planner tells apart from a
// misspelling (a function or type PostgreSQL has but the planner does
// not model is unsupported, not missing) are the test PostgreSQL 15's,
// so a catalog that drifted from the file fails here. With
// -update-pgnames it rewrites the file.
func TestPgNamesMatchCatalog(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	ctx := context.Background()
	pg := pgtest.New(t, pgtest.Options{})
	conn, err := pgx.Connect(ctx, pg.ConnString(pgtest.SuperUser, ""))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if err := pggen.CheckVersion(ctx, conn, pgNamesFile); err != nil {
		t.Fatal(err)
	}
	lists := make([][]string, len(pgNamesQueries))
	for i, q := range pgNamesQueries {
		names, err := pggen.Names(ctx, conn, q.query)
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(names) // byte order, which the lookups search in
		lists[i] = names
	}
	// Sanity, both ways.
	want := []struct {
		list int
		name string
		has  bool
	}{
		{0, "upper", true}, {0, "to_tsvector", true}, {0, "random", true}, {0, "nextval", true}, {0, "json_agg", false},
		{1, "json_agg", true}, {1, "count", true}, {1, "percentile_cont", true}, {1, "upper", false},
		{2, "row_number", true}, {2, "lag", true}, {2, "count", false},
		{3, "inet", true}, {3, "int4range", true}, {3, "tsvector", true}, {3, "xml", true}, {3, "money", true},
		{3, "point", true}, {3, "cidr", true}, {3, "_int4", true}, {3, "integer", false}, {3, "inett", false},
	}
	for _, w := range want {
		if _, ok := slices.BinarySearch(lists[w.list], w.name); ok != w.has {
			t.Errorf("%s has %s: %v, want %v", pgNamesQueries[w.list].name, w.name, ok, w.has)
		}
	}
	arities := pgArities(t, ctx, conn)
	if *updatePgNames {
		writePgNames(t, lists, arities)
		return
	}
	if !maps.Equal(arities, pgArgCounts) {
		for n, a := range arities {
			if pgArgCounts[n] != a {
				t.Errorf("pg_proc's argument counts of %s are %q, %s says %q", n, a, pgNamesFile, pgArgCounts[n])
			}
		}
		for n := range pgArgCounts {
			if _, ok := arities[n]; !ok {
				t.Errorf("%s gives argument counts of %s, which pg_proc lacks", pgNamesFile, n)
			}
		}
	}
	for i, q := range pgNamesQueries {
		if !slices.Equal(lists[i], q.file) {
			t.Errorf("pg_catalog's %s differ from %s (go test ./planner/build -run TestPgNamesMatchCatalog -update-pgnames):\n%s",
				q.name, pgNamesFile, pggen.Diff(lists[i], q.file))
		}
	}
}

// pgArities reads, for each function name of pg_catalog callable in a
// query (procedures left out), the argument counts some form of it takes
// (pgArgCounts' encoding). A form takes pronargs arguments, down to
// pronargs - pronargdefaults with defaults, and any number from pronargs
// up when variadic (PostgreSQL's FuncnameGetCandidates: a variadic form
// needs at least one variadic argument unless the call says VARIADIC).
func pgArities(t *testing.T, ctx context.Context, conn *pgx.Conn) map[string]string {
	t.Helper()
	rows, err := conn.Query(ctx, `SELECT proname::text, pronargs::int, pronargdefaults::int, provariadic <> 0
		FROM pg_proc WHERE pronamespace = 'pg_catalog'::regnamespace AND prokind <> 'p'`)
	if err != nil {
		t.Fatal(err)
	}
	type span struct{ lo, hi int } // hi -1: no bound
	spans := map[string][]span{}
	for rows.Next() {
		var name string
		var n, defaults int
		var variadic bool
		if err := rows.Scan(&name, &n, &defaults, &variadic); err != nil {
			t.Fatal(err)
		}
		sp := span{n - defaults, n}
		if variadic {
			sp.hi = -1
		}
		spans[name] = append(spans[name], sp)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	out := make(map[string]string, len(spans))
	for name, ss := range spans {
		slices.SortFunc(ss, func(a, b span) int { return a.lo - b.lo })
		var merged []span
		for _, sp := range ss {
			if k := len(merged) - 1; k >= 0 && (merged[k].hi == -1 || sp.lo <= merged[k].hi+1) {
				if merged[k].hi != -1 && (sp.hi == -1 || sp.hi > merged[k].hi) {
					merged[k].hi = sp.hi
				}
				continue
			}
			merged = append(merged, sp)
		}
		var enc []string
		for _, sp := range merged {
			switch {
			case sp.hi == -1:
				enc = append(enc, fmt.Sprintf("%d-", sp.lo))
			case sp.hi == sp.lo:
				enc = append(enc, fmt.Sprint(sp.lo))
			default:
				enc = append(enc, fmt.Sprintf("%d-%d", sp.lo, sp.hi))
			}
		}
		out[name] = strings.Join(enc, ",")
	}
	return out
}

func writePgNames(t *testing.T, lists [][]string, arities map[string]string) {
	t.Helper()
	f := pggen.File{
		Header:  "Code generated by go test ./planner/build -run TestPgNamesMatchCatalog -update-pgnames; DO NOT EDIT.",
		Package: "build",
		Maps: []pggen.Map{{Name: "pgArgCounts", Entries: arities, Doc: []string{
			"pgArgCounts gives, for each function name of pg_catalog, the argument",
			"counts some form of it takes: n, lo-hi, or lo- (variadic), comma-separated.",
		}}},
	}
	for i, q := range pgNamesQueries {
		f.Lists = append(f.Lists, pggen.List{Name: q.name, Doc: q.doc, Names: lists[i]})
	}
	if err := f.Write(pgNamesFile); err != nil {
		t.Fatal(err)
	}
}

// TestPgArityMatchesEngine: a call of a function PostgreSQL has, with an
// argument count pgArgCounts gives no form of, fails on the engine with
// undefined_function (42883), so the planner may call it an error rather
// than unsupported. EXPLAIN resolves each call without running it.
func TestPgArityMatchesEngine(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	ctx := context.Background()
	pg := pgtest.New(t, pgtest.Options{})
	conn, err := pgx.Connect(ctx, pg.ConnString(pgtest.SuperUser, ""))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	call := func(name string, n int) string {
		args := strings.TrimSuffix(strings.Repeat("NULL, ", n), ", ")
		return "EXPLAIN SELECT " + pgx.Identifier{"pg_catalog", name}.Sanitize() + "(" + args + ")"
	}
	checked, slots, taken := 0, 0, 0
	for _, name := range slices.Sorted(maps.Keys(pgArgCounts)) {
		for n := 0; n <= 6; n++ {
			_, err := conn.Exec(ctx, call(name, n))
			var pe *pgconn.PgError
			undefined := errors.As(err, &pe) && pe.Code == "42883"
			if !pgTakesArgs(name, n) {
				checked++
				// name(x) is also the cast x::name, which PostgreSQL
				// tries when no function takes the one argument.
				if n == 1 && pgHasType(name) {
					continue
				}
				if !undefined {
					t.Errorf("%s with %d arguments: %v, want 42883 (no form takes them)", name, n, err)
				}
			} else {
				slots++
				if !undefined {
					taken++
				}
			}
		}
	}
	// Both ways at once: the counts some form takes mostly resolve with
	// NULL arguments (those that do not take an internal or other
	// pseudo-type no NULL literal becomes).
	if checked < 10000 || taken < slots/2 {
		t.Errorf("checked %d refused counts, and %d of %d taken ones resolved; the list looks wrong", checked, taken, slots)
	}
	t.Logf("%d counts no form takes, all 42883; %d of %d counts taken resolved", checked, taken, slots)
}
