package refute

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgequiv/pgequiv/internal/pgtest"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

// appPair is a query an ORM sends (Django's quoting and column lists) and
// the same query with a realistic bug, or a rewrite that keeps it.
type appPair struct {
	name      string
	ref, cand string
	differ    bool
}

// appCols are the columns Django lists for each model.
var appCols = map[string]string{
	"users":    `"users"."id", "users"."username", "users"."email", "users"."is_active", "users"."is_staff", "users"."date_joined", "users"."last_login", "users"."profile", "users"."external_id"`,
	"posts":    `"posts"."id", "posts"."author_id", "posts"."title", "posts"."slug", "posts"."body", "posts"."status", "posts"."created_at", "posts"."published_at", "posts"."metadata", "posts"."tags_cache", "posts"."views"`,
	"comments": `"comments"."id", "comments"."post_id", "comments"."author_id", "comments"."body", "comments"."approved", "comments"."created_at", "comments"."extra"`,
	"orders":   `"orders"."id", "orders"."user_id", "orders"."state", "orders"."total", "orders"."placed_at", "orders"."delivery_window", "orders"."payload"`,
}

func sel(model, rest string) string {
	return "SELECT " + appCols[model] + ` FROM "` + model + `" ` + rest
}

var appPairs = []appPair{
	{"dropped filter", sel("posts", `WHERE "posts"."status" = 'published' ORDER BY "posts"."id" ASC`),
		sel("posts", `ORDER BY "posts"."id" ASC`), true},
	{">= for >", sel("posts", `WHERE "posts"."views" > 100 ORDER BY "posts"."id" ASC`),
		sel("posts", `WHERE "posts"."views" >= 100 ORDER BY "posts"."id" ASC`), true},
	{"timestamptz >= for >", sel("posts", `WHERE "posts"."created_at" > '2024-01-01T00:00:00+00:00'::timestamptz`),
		sel("posts", `WHERE "posts"."created_at" >= '2024-01-01T00:00:00+00:00'::timestamptz`), true},
	{"timestamptz range edges", sel("orders", `WHERE ("orders"."placed_at" >= '2024-03-01T00:00:00+00:00'::timestamptz AND "orders"."placed_at" < '2024-04-01T00:00:00+00:00'::timestamptz)`),
		sel("orders", `WHERE ("orders"."placed_at" > '2024-03-01T00:00:00+00:00'::timestamptz AND "orders"."placed_at" <= '2024-04-01T00:00:00+00:00'::timestamptz)`), true},
	{"| for &", sel("comments", `INNER JOIN "posts" ON ("comments"."post_id" = "posts"."id") WHERE ("comments"."approved" AND "posts"."status" = 'published')`),
		sel("comments", `INNER JOIN "posts" ON ("comments"."post_id" = "posts"."id") WHERE ("comments"."approved" OR "posts"."status" = 'published')`), true},
	{"LEFT for INNER", `SELECT "users"."id", "users"."username", COUNT("posts"."id") AS "n" FROM "users" LEFT OUTER JOIN "posts" ON ("users"."id" = "posts"."author_id") GROUP BY "users"."id", "users"."username"`,
		`SELECT "users"."id", "users"."username", COUNT("posts"."id") AS "n" FROM "users" INNER JOIN "posts" ON ("users"."id" = "posts"."author_id") GROUP BY "users"."id", "users"."username"`, true},
	{"wrong join column", sel("comments", `INNER JOIN "users" ON ("comments"."author_id" = "users"."id") WHERE "users"."is_staff"`),
		sel("comments", `INNER JOIN "users" ON ("comments"."post_id" = "users"."id") WHERE "users"."is_staff"`), true},
	{"off-by-one OFFSET", sel("posts", `ORDER BY "posts"."id" ASC LIMIT 2 OFFSET 2`),
		sel("posts", `ORDER BY "posts"."id" ASC LIMIT 2 OFFSET 3`), true},
	{"enum IN widened", sel("orders", `WHERE "orders"."state" = 'paid'`),
		sel("orders", `WHERE "orders"."state" IN ('paid', 'shipped')`), true},
	{"dropped exclusion in sum", `SELECT "orders"."user_id", SUM("orders"."total") AS "spent" FROM "orders" WHERE NOT ("orders"."state" = 'cancelled') GROUP BY "orders"."user_id"`,
		`SELECT "orders"."user_id", SUM("orders"."total") AS "spent" FROM "orders" GROUP BY "orders"."user_id"`, true},
	{"AND for OR", sel("users", `WHERE ("users"."is_active" AND "users"."is_staff")`),
		sel("users", `WHERE ("users"."is_active" OR "users"."is_staff")`), true},
	{"count distinct", `SELECT COUNT(DISTINCT "comments"."author_id") FROM "comments" WHERE "comments"."approved"`,
		`SELECT COUNT("comments"."author_id") FROM "comments" WHERE "comments"."approved"`, true},
	{"IS NULL dropped", sel("users", `WHERE "users"."last_login" IS NULL`), sel("users", ""), true},
	{"interval >= for >", sel("orders", `WHERE "orders"."delivery_window" > '2 days'::interval`),
		sel("orders", `WHERE "orders"."delivery_window" >= '2 days'::interval`), true},
	{"negated boolean (parent reached by FK only)", sel("comments", `WHERE "comments"."approved"`),
		sel("comments", `WHERE NOT "comments"."approved"`), true},
	{"uncorrelated EXISTS", sel("posts", `WHERE EXISTS(SELECT 1 AS "a" FROM "post_tags" U1 INNER JOIN "tags" U2 ON (U1."tag_id" = U2."id") WHERE (U2."name" = 'go' AND U1."post_id" = ("posts"."id")) LIMIT 1)`),
		sel("posts", `WHERE EXISTS(SELECT 1 AS "a" FROM "post_tags" U1 INNER JOIN "tags" U2 ON (U1."tag_id" = U2."id") WHERE U2."name" = 'go' LIMIT 1)`), true},
	{"published after, wrong column", sel("posts", `WHERE "posts"."published_at" > '2024-01-01T00:00:00+00:00'::timestamptz`),
		sel("posts", `WHERE "posts"."created_at" > '2024-01-01T00:00:00+00:00'::timestamptz`), true},
	// Several LIKE patterns on one column: a row must match them all.
	{"multi-pattern LIKE", sel("posts", `WHERE ("posts"."title"::text LIKE '%(voice)%' AND "posts"."title"::text LIKE '%(uncredited)%')`),
		sel("posts", `WHERE ("posts"."title"::text LIKE '%(voice)%' AND "posts"."title"::text LIKE '%(uncredited)%' AND NOT ("posts"."title"::text LIKE '%(voice)%(uncredited)%'))`), true},
	{"prefix, infix and suffix LIKE, one case changed", sel("posts", `WHERE ("posts"."title"::text LIKE 'Re: %' AND "posts"."title"::text LIKE '%[draft]%' AND "posts"."title"::text LIKE '%?')`),
		sel("posts", `WHERE ("posts"."title"::text LIKE 'Re: %' AND "posts"."title"::text LIKE '%[Draft]%' AND "posts"."title"::text LIKE '%?')`), true},
	{"dropped ILIKE of three", sel("posts", `WHERE ("posts"."title"::text ILIKE 're: %' AND "posts"."title"::text ILIKE '%[draft]%' AND "posts"."title"::text ILIKE '%?')`),
		sel("posts", `WHERE ("posts"."title"::text ILIKE 're: %' AND "posts"."title"::text ILIKE '%?')`), true},

	// Thresholds and multiplicities.
	{"HAVING threshold off by one", `SELECT "posts"."author_id", COUNT("posts"."id") AS "n" FROM "posts" GROUP BY "posts"."author_id" HAVING COUNT("posts"."id") > 5`,
		`SELECT "posts"."author_id", COUNT("posts"."id") AS "n" FROM "posts" GROUP BY "posts"."author_id" HAVING COUNT("posts"."id") >= 5`, true},
	{"sum for count", `SELECT "orders"."user_id", COUNT("orders"."id") AS "n" FROM "orders" GROUP BY "orders"."user_id"`,
		`SELECT "orders"."user_id", SUM("orders"."total") AS "n" FROM "orders" GROUP BY "orders"."user_id"`, true},
	// A six-way join: one matching row per alias before anything shows.
	{"six-way join, flipped filter", `SELECT "comments"."id" FROM "comments" INNER JOIN "posts" ON ("comments"."post_id" = "posts"."id") INNER JOIN "users" ON ("posts"."author_id" = "users"."id") INNER JOIN "post_tags" ON ("post_tags"."post_id" = "posts"."id") INNER JOIN "tags" ON ("post_tags"."tag_id" = "tags"."id") INNER JOIN "orders" ON ("orders"."user_id" = "users"."id") WHERE ("tags"."name" = 'go' AND "orders"."state" = 'paid' AND "posts"."status" = 'published' AND "users"."is_staff")`,
		`SELECT "comments"."id" FROM "comments" INNER JOIN "posts" ON ("comments"."post_id" = "posts"."id") INNER JOIN "users" ON ("posts"."author_id" = "users"."id") INNER JOIN "post_tags" ON ("post_tags"."post_id" = "posts"."id") INNER JOIN "tags" ON ("post_tags"."tag_id" = "tags"."id") INNER JOIN "orders" ON ("orders"."user_id" = "users"."id") WHERE ("tags"."name" = 'go' AND "orders"."state" <> 'paid' AND "posts"."status" = 'published' AND "users"."is_staff")`, true},

	// Rewrites that keep the result: never refuted, and searched on
	// databases that gave every table read a row.
	{"commuted equality", sel("posts", `WHERE "posts"."status" = 'published'`),
		sel("posts", `WHERE 'published' = "posts"."status"`), false},
	{"join order", sel("comments", `INNER JOIN "posts" ON ("comments"."post_id" = "posts"."id") WHERE "posts"."status" = 'draft'`),
		`SELECT ` + appCols["comments"] + ` FROM "posts" INNER JOIN "comments" ON ("posts"."id" = "comments"."post_id") WHERE "posts"."status" = 'draft'`, false},
	{"timestamptz bounds as BETWEEN", sel("orders", `WHERE ("orders"."placed_at" >= '2024-03-01T00:00:00+00:00'::timestamptz AND "orders"."placed_at" <= '2024-04-01T00:00:00+00:00'::timestamptz)`),
		sel("orders", `WHERE "orders"."placed_at" BETWEEN '2024-03-01T00:00:00+00:00'::timestamptz AND '2024-04-01T00:00:00+00:00'::timestamptz`), false},
}

func appSchema(t *testing.T) (*catalog.Schema, string) {
	t.Helper()
	ddl, err := os.ReadFile("testdata/app_schema.sql")
	if err != nil {
		t.Fatal(err)
	}
	s, err := catalog.LoadDDL(string(ddl), catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	return s, string(ddl)
}

// appOpts are the judge's defaults (256 databases), with a budget the
// clock does not cut on a loaded machine.
func appOpts() Options {
	return Options{Budget: 5 * time.Second, ShrinkBudget: 2 * time.Second, MaxInstances: 256, TrustForeignKeys: true, Seed: 1, Dialect: catalog.Postgres}
}

// chainDDL is eight tables, each referencing the one before: a join of
// all eight returns a row only when every alias has a matching row.
const chainDDL = `CREATE TABLE c1 (id integer PRIMARY KEY, note text NOT NULL, created_at timestamptz NOT NULL, extra jsonb NOT NULL);
CREATE TABLE c2 (id integer PRIMARY KEY, prev_id integer NOT NULL REFERENCES c1 (id), kind varchar(10) NOT NULL CHECK (kind IN ('a', 'b')));
CREATE TABLE c3 (id integer PRIMARY KEY, prev_id integer NOT NULL REFERENCES c2 (id), n integer NOT NULL);
CREATE TABLE c4 (id integer PRIMARY KEY, prev_id integer NOT NULL REFERENCES c3 (id), n integer NOT NULL);
CREATE TABLE c5 (id integer PRIMARY KEY, prev_id integer NOT NULL REFERENCES c4 (id), n integer NOT NULL);
CREATE TABLE c6 (id integer PRIMARY KEY, prev_id integer NOT NULL REFERENCES c5 (id), n integer NOT NULL);
CREATE TABLE c7 (id integer PRIMARY KEY, prev_id integer NOT NULL REFERENCES c6 (id), n integer NOT NULL);
CREATE TABLE c8 (id integer PRIMARY KEY, prev_id integer NOT NULL REFERENCES c7 (id), country_code varchar(5) NOT NULL);`

const chainJoin = `SELECT min(c1.note) FROM c1 JOIN c2 ON c2.prev_id = c1.id JOIN c3 ON c3.prev_id = c2.id JOIN c4 ON c4.prev_id = c3.id
JOIN c5 ON c5.prev_id = c4.id JOIN c6 ON c6.prev_id = c5.id JOIN c7 ON c7.prev_id = c6.id JOIN c8 ON c8.prev_id = c7.id
WHERE c1.note LIKE '%(voice)%' AND c1.note LIKE '%(uncredited)%' AND c2.kind = 'b' AND c8.country_code `

var chainPairs = []appPair{
	{"eight-way join, flipped filter", chainJoin + `= '[ru]'`, chainJoin + `<> '[ru]'`, true},
	{"eight-way join, same filter commuted", chainJoin + `= '[ru]'`, strings.Replace(chainJoin, "c2.kind = 'b'", "'b' = c2.kind", 1) + `= '[ru]'`, false},
}

// TestAppSchemaBugs judges ORM queries over an application schema with
// NOT NULL timestamptz, jsonb, uuid, array and interval columns, an enum,
// a domain and CHECK-constrained parents, and joins of eight tables:
// every bug is refuted, and each counterexample, loaded into a real
// PostgreSQL whose session TimeZone is far from UTC, makes the two
// queries return the row counts the refuter says, which differ as bags.
// Rewrites that keep the result are never refuted, and are searched on
// databases that gave every table read a row.
func TestAppSchemaBugs(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	s, ddl := appSchema(t)
	chain, err := catalog.LoadDDL(chainDDL, catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	pg := pgtest.New(t, pgtest.Options{})
	conn, err := pgx.Connect(ctx, pg.ConnString(pgtest.SuperUser, ""))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, c := range []struct {
		name, ddl string
		s         *catalog.Schema
		pairs     []appPair
	}{{"app", ddl, s, appPairs}, {"chain", chainDDL, chain, chainPairs}} {
		t.Run(c.name, func(t *testing.T) {
			setup := fmt.Sprintf("CREATE SCHEMA %s; SET search_path TO %s; %s; SET TimeZone = 'Pacific/Chatham'", c.name, c.name, c.ddl)
			if _, err := conn.Exec(ctx, setup); err != nil {
				t.Fatal(err)
			}
			refuted := judgeAndReplay(ctx, t, conn, c.s, c.pairs)
			t.Logf("refuted %d of %d bugs", refuted, countDiffer(c.pairs))
		})
	}
}

// judgeAndReplay refutes each pair of s and replays every counterexample
// on conn, whose search_path holds s's tables; it returns the number
// refuted.
func judgeAndReplay(ctx context.Context, t *testing.T, conn *pgx.Conn, s *catalog.Schema, pairs []appPair) int {
	var tables []string
	for _, tb := range s.Tables {
		tables = append(tables, quoteIdent(tb.Name))
	}
	refuted := 0
	for _, p := range pairs {
		res, err := Refute(ctx, s, mustPlan(t, s, p.ref), mustPlan(t, s, p.cand), appOpts())
		if err != nil {
			t.Fatalf("%s: %v", p.name, err)
		}
		if !p.differ {
			if res.Found {
				t.Errorf("%s: refuted a rewrite that keeps the result:\n%s", p.name, describe(res))
			}
			if res.CannotExecute || len(res.Unpopulated) > 0 {
				t.Errorf("%s: searched no database with rows in every table read: %s (unpopulated %v)", p.name, res.Reason, res.Unpopulated)
			}
			continue
		}
		if !res.Found {
			t.Errorf("%s: not refuted: %s (unpopulated %v)", p.name, res.Reason, res.Unpopulated)
			continue
		}
		refuted++
		ce := res.Counterexample
		if _, err := conn.Exec(ctx, "TRUNCATE "+strings.Join(tables, ", ")+" CASCADE"); err != nil {
			t.Fatal(err)
		}
		if _, err := conn.Exec(ctx, strings.Join(ce.Inserts, "\n")); err != nil {
			t.Errorf("%s: counterexample does not load: %v\n%s", p.name, err, strings.Join(ce.Inserts, "\n"))
			continue
		}
		r, c := pgRows(ctx, t, conn, p.ref), pgRows(ctx, t, conn, p.cand)
		if len(r) != ce.Reference.Count || len(c) != ce.Candidate.Count {
			t.Errorf("%s: PostgreSQL returns %d and %d rows, the refuter said %d and %d\n%s", p.name, len(r), len(c), ce.Reference.Count, ce.Candidate.Count, describe(res))
		}
		if sameBag(r, c) {
			t.Errorf("%s: PostgreSQL returns the same rows on the counterexample\n%s\nref %v\ncand %v", p.name, describe(res), r, c)
		}
		if len(ce.Needs) > 0 {
			t.Logf("%s: needs %v", p.name, ce.Needs)
		}
	}
	return refuted
}

func countDiffer(ps []appPair) int {
	n := 0
	for _, p := range ps {
		if p.differ {
			n++
		}
	}
	return n
}

// pgRows runs q and returns its rows as text, NULL as "NULL".
func pgRows(ctx context.Context, t *testing.T, conn *pgx.Conn, q string) []string {
	t.Helper()
	rows, err := conn.Query(ctx, q, pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var cells []string
		for _, b := range rows.RawValues() {
			if b == nil {
				cells = append(cells, "NULL")
			} else {
				cells = append(cells, string(b))
			}
		}
		out = append(out, strings.Join(cells, "|"))
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return out
}

func sameBag(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}
