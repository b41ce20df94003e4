package refute

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pgequiv/pgequiv/internal/pgtest"
)

// regexPairs are ORM queries with regular expression filters (Django's
// __regex and __iregex lookups write ~ and ~*; SIMILAR TO by hand) and a
// realistic bug, or a rewrite that keeps the result.
var regexPairs = []appPair{
	{"regex alternative changed", sel("posts", `WHERE "posts"."slug"::text ~ '^(news|blog)-\d+$'`),
		sel("posts", `WHERE "posts"."slug"::text ~ '^(news|blag)-\d+$'`), true},
	{"regex for iregex", sel("users", `WHERE "users"."email"::text ~* '^admin@'`),
		sel("users", `WHERE "users"."email"::text ~ '^admin@'`), true},
	{"regex negated", sel("users", `WHERE "users"."email"::text ~ '@example\.(com|org)$'`),
		sel("users", `WHERE "users"."email"::text !~ '@example\.(com|org)$'`), true},
	{"regex dot left unescaped", sel("users", `WHERE "users"."email"::text ~ '^[a-z0-9._%+-]+@example\.com$'`),
		sel("users", `WHERE "users"."email"::text ~ '^[a-z0-9._%+-]+@example.com$'`), true},
	{"regex anchor dropped", sel("posts", `WHERE "posts"."title"::text ~ '^Re: '`),
		sel("posts", `WHERE "posts"."title"::text ~ 'Re: '`), true},
	{"SIMILAR TO alternative changed", sel("posts", `WHERE "posts"."slug"::text SIMILAR TO '(news|blog)-[0-9]+'`),
		sel("posts", `WHERE "posts"."slug"::text SIMILAR TO '(news|blag)-[0-9]+'`), true},
	{"SIMILAR TO for LIKE with _", sel("posts", `WHERE "posts"."slug"::text SIMILAR TO 'v_-%'`),
		sel("posts", `WHERE "posts"."slug"::text SIMILAR TO 'v1-%'`), true},
	{"regex and LIKE on one column", sel("users", `WHERE ("users"."email"::text ~ '^[a-z]+@' AND "users"."email"::text LIKE '%.org')`),
		sel("users", `WHERE ("users"."email"::text ~ '^[a-z]+@' AND "users"."email"::text LIKE '%.com')`), true},
	{"second regex changed", sel("users", `WHERE ("users"."email"::text ~ '^[a-z]+@' AND "users"."email"::text ~ '\.org$')`),
		sel("users", `WHERE ("users"."email"::text ~ '^[a-z]+@' AND "users"."email"::text ~ '\.com$')`), true},

	{"regexp_replace without g", sel("users", `WHERE regexp_replace("users"."username", '[^0-9]', '', 'g') = '555'`),
		sel("users", `WHERE regexp_replace("users"."username", '[^0-9]', '') = '555'`), true},
	{"substring pattern + for *", `SELECT "users"."id", substring("users"."email" from '@(.*)$') FROM "users"`,
		`SELECT "users"."id", substring("users"."email" from '@(.+)$') FROM "users"`, true},
	{"regexp_like flags dropped", sel("users", `WHERE regexp_like("users"."email", '^admin', 'i')`),
		sel("users", `WHERE regexp_like("users"."email", '^admin')`), true},

	{"regexp_replace of a literal as replace", `SELECT "users"."id", regexp_replace("users"."username", 'a', 'b', 'g') FROM "users"`,
		`SELECT "users"."id", replace("users"."username", 'a', 'b') FROM "users"`, false},
	{"regexp_like as ~", sel("users", `WHERE regexp_like("users"."email", '^[a-z]+@')`),
		sel("users", `WHERE "users"."email"::text ~ '^[a-z]+@'`), false},
	{"anchored regex as LIKE", sel("posts", `WHERE "posts"."title"::text ~ '^Re: '`),
		sel("posts", `WHERE "posts"."title"::text LIKE 'Re: %'`), false},
	{"SIMILAR TO as LIKE", sel("posts", `WHERE "posts"."slug"::text SIMILAR TO 'news-%'`),
		sel("posts", `WHERE "posts"."slug"::text LIKE 'news-%'`), false},
	{"iregex as ILIKE", sel("users", `WHERE "users"."email"::text ~* 'admin'`),
		sel("users", `WHERE "users"."email"::text ILIKE '%admin%'`), false},
	{"regex class as bracket", sel("posts", `WHERE "posts"."slug"::text ~ '^\d+$'`),
		sel("posts", `WHERE "posts"."slug"::text ~ '^[0-9]+$'`), false},
}

// instantPairs compare timestamptz columns with instants written as
// JavaScript and Rails write them (Z, UTC).
var instantPairs = []appPair{
	{"Z instant, >= for >", sel("posts", `WHERE "posts"."created_at" > '2024-01-01T10:00:00.000Z'::timestamptz`),
		sel("posts", `WHERE "posts"."created_at" >= '2024-01-01T10:00:00.000Z'::timestamptz`), true},
	{"UTC instant, hour off", sel("orders", `WHERE "orders"."placed_at" < '2024-03-01 00:00:00 UTC'`),
		sel("orders", `WHERE "orders"."placed_at" < '2024-03-01 01:00:00 UTC'`), true},
	{"Z and +00:00 spellings", sel("posts", `WHERE "posts"."created_at" > '2024-01-01T10:00:00Z'::timestamptz`),
		sel("posts", `WHERE "posts"."created_at" > '2024-01-01 10:00:00+00:00'::timestamptz`), false},
}

// uuidPairs filter and order by a uuid column, with uuids spelled as
// Django (32 hex digits) and by hand (upper case, braces).
var uuidPairs = []appPair{
	{"uuid literal changed", sel("users", `WHERE "users"."external_id" = 'a0eebc999c0b4ef8bb6d6bb9bd380a11'::uuid`),
		sel("users", `WHERE "users"."external_id" = 'a0eebc999c0b4ef8bb6d6bb9bd380a12'::uuid`), true},
	{"uuid IN list item dropped", sel("users", `WHERE "users"."external_id" IN ('a0eebc999c0b4ef8bb6d6bb9bd380a11'::uuid, '00000000000000000000000000000001'::uuid)`),
		sel("users", `WHERE "users"."external_id" IN ('a0eebc999c0b4ef8bb6d6bb9bd380a11'::uuid)`), true},
	{"uuid order reversed", sel("users", `ORDER BY "users"."external_id" ASC LIMIT 1`),
		sel("users", `ORDER BY "users"."external_id" DESC LIMIT 1`), true},
	{"uuid > for >=", sel("users", `WHERE "users"."external_id" > 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'`),
		sel("users", `WHERE "users"."external_id" >= 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'`), true},

	{"uuid spelled apart", sel("users", `WHERE "users"."external_id" = 'a0eebc999c0b4ef8bb6d6bb9bd380a11'::uuid`),
		sel("users", `WHERE "users"."external_id" = '{A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11}'`), false},
	{"uuid cast to text compared", sel("users", `WHERE "users"."external_id"::text = 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'`),
		sel("users", `WHERE "users"."external_id" = 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'`), false},
}

// jsonbPairs read jsonb columns as Django's JSONField lookups write
// them (key transforms, has_key, contains).
var jsonbPairs = []appPair{
	{"jsonb key value changed", sel("posts", `WHERE ("posts"."metadata" -> 'seo' ->> 'lang') = 'en'`),
		sel("posts", `WHERE ("posts"."metadata" -> 'seo' ->> 'lang') = 'de'`), true},
	{"jsonb number > for >=", sel("orders", `WHERE ("orders"."payload" ->> 'amount')::numeric > 100`),
		sel("orders", `WHERE ("orders"."payload" ->> 'amount')::numeric >= 100`), true},
	{"has_key changed", sel("users", `WHERE "users"."profile" ? 'avatar'`),
		sel("users", `WHERE "users"."profile" ? 'bio'`), true},
	{"contains changed", sel("posts", `WHERE "posts"."metadata" @> '{"featured": true}'`),
		sel("posts", `WHERE "posts"."metadata" @> '{"featured": false}'`), true},
	{"two keys, one dropped", sel("posts", `WHERE ("posts"."metadata" ->> 'lang' = 'en' AND "posts"."metadata" ->> 'kind' = 'news')`),
		sel("posts", `WHERE "posts"."metadata" ->> 'lang' = 'en'`), true},
	{"DISTINCT dropped over jsonb", `SELECT DISTINCT "posts"."metadata" FROM "posts"`, `SELECT "posts"."metadata" FROM "posts"`, true},

	{"contains as key transform", sel("posts", `WHERE "posts"."metadata" @> '{"lang": "en"}'`),
		sel("posts", `WHERE "posts"."metadata" ->> 'lang' = 'en'`), false},
}

// limitPairs count a sliced queryset, as Django's count() writes it: a
// LIMIT without ORDER BY whose kept rows reach the result only through
// their number.
var limitPairs = []appPair{
	{"sliced count, slice changed", `SELECT COUNT(*) FROM (SELECT "posts"."id" AS "col1" FROM "posts" LIMIT 2) subquery`,
		`SELECT COUNT(*) FROM (SELECT "posts"."id" AS "col1" FROM "posts" LIMIT 3) subquery`, true},
	{"sliced count, offset added", `SELECT COUNT(*) FROM (SELECT "posts"."id" AS "col1" FROM "posts" WHERE "posts"."views" > 1 LIMIT 2) subquery`,
		`SELECT COUNT(*) FROM (SELECT "posts"."id" AS "col1" FROM "posts" WHERE "posts"."views" > 1 LIMIT 2 OFFSET 1) subquery`, true},

	{"sliced count as least", `SELECT COUNT(*) FROM (SELECT "posts"."id" AS "col1" FROM "posts" LIMIT 2) subquery`,
		`SELECT least(COUNT(*), 2) FROM "posts"`, false},
}

// TestBuiltinBugs refutes each bug of regexPairs, instantPairs,
// uuidPairs, jsonbPairs and limitPairs on the application schema, replaying every counterexample
// on PostgreSQL (whose session TimeZone is far from UTC), and never
// refutes the rewrites that keep the result.
func TestBuiltinBugs(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	s, ddl := appSchema(t)
	ctx := context.Background()
	pg := pgtest.New(t, pgtest.Options{})
	conn, err := pgx.Connect(ctx, pg.ConnString(pgtest.SuperUser, ""))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, ddl+"; SET TimeZone = 'Pacific/Chatham'"); err != nil {
		t.Fatal(err)
	}
	var pairs []appPair
	for _, ps := range [][]appPair{regexPairs, instantPairs, uuidPairs, jsonbPairs, limitPairs} {
		pairs = append(pairs, ps...)
	}
	refuted := judgeAndReplay(ctx, t, conn, s, pairs)
	if want := countDiffer(pairs); refuted != want {
		t.Errorf("refuted %d of %d bugs", refuted, want)
	}
}
