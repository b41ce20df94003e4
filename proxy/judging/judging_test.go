package judging

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/internal/pgtest"
	"github.com/pgequiv/pgequiv/proxy/tag"
)

// TestJudgePsqlTagForms: psql through an annotating proxy, with the
// reference given by a comment, by SET pgequiv.reference and by a catalog
// match; each verdict is a NOTICE psql prints.
func TestJudgePsqlTagForms(t *testing.T) {
	set := annotateSettings(t)
	cat, err := tag.ParseCatalog([]byte(kennelCatalg))
	if err != nil {
		t.Fatal(err)
	}
	set.Catalog = cat
	e := startJudgeProxy(t, set, JudgingOptions{})
	ctx := testCtx(t, 60*time.Second)
	psql := clientBin(t, "psql")
	out := runTool(t, ctx, []string{"PGSSLMODE=disable", "PGCONNECT_TIMEOUT=10"}, psql,
		"-X", "-v", "ON_ERROR_STOP=1", "-h", e.Host, "-p", strconv.Itoa(e.Port), "-U", pgtest.SuperUser, "-d", kennelDB,
		"-c", withComment(countOwner, countStar), // 1: comment
		"-c", "SET pgequiv.reference = '"+countStar+"'",
		"-c", countOwner, // 2: session setting
		"-c", "RESET pgequiv.reference",
		"-c", "SELECT count(owner_id) FROM dogs WHERE age > 1 AND owner_id > 0", // 3: catalog match by fingerprint
		"-c", "SELECT count(*), 1 AS extra FROM dogs "+tag.Encode(tag.KV{Key: tag.KeyRefID, Value: "old-dogs"}), // not equivalent
		"-c", "SELECT 'untagged'",
	)
	if n := strings.Count(out, "NOTICE:  "+equivNotice); n != 3 {
		t.Errorf("%d equivalence notices, want 3:\n%s", n, out)
	}
	if !strings.Contains(out, "count-star-not-null)") {
		t.Errorf("notice does not name the rule:\n%s", out)
	}
	if !strings.Contains(out, "NOTICE:  pgequiv: not_equivalent") {
		t.Errorf("no not_equivalent notice:\n%s", out)
	}
	if strings.Count(out, "NOTICE:") != 4 {
		t.Errorf("want exactly 4 notices (none for SET, RESET or untagged):\n%s", out)
	}
	// psql prints the proxy's own command tags for the pgequiv settings.
	for _, want := range []string{"\nSET\n", "\nRESET\n", "untagged"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	vs := e.j.RecentVerdicts()
	if len(vs) != 4 || vs[0].Label != "not_equivalent" || vs[1].Source != "catalog" || vs[2].Source != "session" || vs[3].Source != "comment" {
		t.Errorf("recent verdicts: %+v", vs)
	}
}

// TestJudgePgxAnnotate: results through an annotating proxy equal direct
// results in every pgx query mode, and the notice arrives before the
// query returns.
func TestJudgePgxAnnotate(t *testing.T) {
	e := startJudgeProxy(t, annotateSettings(t), JudgingOptions{})
	ctx := testCtx(t, 60*time.Second)
	conn, notices := e.connectNotices(t, ctx, kennelDB)
	direct, err := pgx.Connect(ctx, dbConnString(pg.Host, pg.Port, pgtest.SuperUser, "", kennelDB))
	if err != nil {
		t.Fatal(err)
	}
	defer direct.Close(ctx)
	ref := "SELECT name, age FROM dogs WHERE age > 1 ORDER BY name"
	for i, mode := range []pgx.QueryExecMode{pgx.QueryExecModeSimpleProtocol, pgx.QueryExecModeExec,
		pgx.QueryExecModeCacheStatement, pgx.QueryExecModeCacheDescribe, pgx.QueryExecModeDescribeExec} {
		t.Run(mode.String(), func(t *testing.T) {
			// A distinct text per mode, so cached statements are parsed anew.
			cand := withComment("SELECT name, age FROM dogs WHERE 1 < age AND "+strconv.Itoa(i)+" = "+strconv.Itoa(i)+" ORDER BY name", ref)
			read := func(c *pgx.Conn) []string {
				rows, err := c.Query(ctx, cand, mode)
				if err != nil {
					t.Fatal(err)
				}
				var out []string
				for rows.Next() {
					var name string
					var age int
					if err := rows.Scan(&name, &age); err != nil {
						t.Fatal(err)
					}
					out = append(out, name+":"+strconv.Itoa(age))
				}
				if err := rows.Err(); err != nil {
					t.Fatal(err)
				}
				return out
			}
			want, got := read(direct), read(conn)
			if strings.Join(got, ",") != strings.Join(want, ",") || len(got) != 2 {
				t.Fatalf("through proxy %v, direct %v", got, want)
			}
			// One notice per Parse (cache_describe parses twice).
			ns := notices()
			if len(ns) == 0 {
				t.Fatal("no notice")
			}
			for _, n := range ns {
				if !strings.HasPrefix(n, equivNotice) {
					t.Fatalf("notices %q", ns)
				}
			}
		})
	}
}

// TestJudgeSessionSettings: SET/RESET of pgequiv settings are answered by
// the proxy (the server never sees them) in the simple protocol; RESET
// ALL clears them and still reaches the server.
func TestJudgeSessionSettings(t *testing.T) {
	e := startJudgeProxy(t, annotateSettings(t), JudgingOptions{})
	ctx := testCtx(t, 60*time.Second)
	conn, notices := e.connectNotices(t, ctx, kennelDB)
	simple := pgx.QueryExecModeSimpleProtocol
	exec := func(sql string, mode pgx.QueryExecMode) string {
		t.Helper()
		tag, err := conn.Exec(ctx, sql, mode)
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		return tag.String()
	}
	if got := exec("SET pgequiv.reference = '"+countStar+"'", simple); got != "SET" {
		t.Fatalf("SET answered %q", got)
	}
	// The proxy answers SHOW with the session's setting, as PostgreSQL
	// would, one text column named after it ...
	show := func(name string) string {
		t.Helper()
		rows, err := conn.Query(ctx, "SHOW "+name, simple)
		if err != nil {
			t.Fatalf("SHOW %s: %v", name, err)
		}
		var got []string
		for rows.Next() {
			var v string
			if err := rows.Scan(&v); err != nil {
				t.Fatalf("SHOW %s: %v", name, err)
			}
			got = append(got, v)
		}
		if err := rows.Err(); err != nil || len(got) != 1 || len(rows.FieldDescriptions()) != 1 ||
			rows.FieldDescriptions()[0].Name != name || rows.CommandTag().String() != "SHOW" {
			t.Fatalf("SHOW %s: %q %v %+v %q", name, got, err, rows.FieldDescriptions(), rows.CommandTag())
		}
		return got[0]
	}
	if got := show("pgequiv.reference"); got != countStar {
		t.Fatalf("SHOW pgequiv.reference = %q, want %q", got, countStar)
	}
	if got := show("pgequiv.reference_id"); got != "" {
		t.Fatalf("SHOW pgequiv.reference_id = %q, want empty", got)
	}
	// ... while the server never saw the setting (a Parse is forwarded).
	res := conn.PgConn().ExecParams(ctx, "SHOW pgequiv.reference", nil, nil, nil, nil).Read()
	var pgErr *pgconn.PgError
	if !errors.As(res.Err, &pgErr) || pgErr.Code != "42704" {
		t.Fatalf("SHOW pgequiv.reference reached the server's setting: %v", res.Err)
	}
	exec("BEGIN", simple) // not a query: not judged
	exec(countOwner, simple)
	exec("COMMIT", simple)
	if ns := notices(); len(ns) != 1 || !strings.HasPrefix(ns[0], equivNotice) {
		t.Fatalf("notices with the setting: %q", ns)
	}
	if got := exec("RESET pgequiv.reference", simple); got != "RESET" {
		t.Fatalf("RESET answered %q", got)
	}
	exec(countOwner, simple)
	if ns := notices(); len(ns) != 0 {
		t.Fatalf("notices after RESET: %q", ns)
	}
	exec("SET pgequiv.reference TO '"+countStar+"'", simple)
	if got := exec("RESET ALL", simple); got != "RESET" {
		t.Fatalf("RESET ALL answered %q", got)
	}
	exec(countOwner, simple)
	if ns := notices(); len(ns) != 0 {
		t.Fatalf("notices after RESET ALL: %q", ns)
	}
	// In the extended protocol the setting is applied and forwarded; the
	// server keeps it as a placeholder.
	extended := func(sql string) {
		t.Helper()
		if res := conn.PgConn().ExecParams(ctx, sql, nil, nil, nil, nil).Read(); res.Err != nil {
			t.Fatalf("%s: %v", sql, res.Err)
		}
	}
	extended("SET pgequiv.reference = '" + countStar + "'")
	extended(countOwner)
	if ns := notices(); len(ns) != 1 || !strings.HasPrefix(ns[0], equivNotice) {
		t.Fatalf("notices after an extended-protocol SET: %q", ns)
	}
	var shown string
	if err := conn.QueryRow(ctx, "SHOW pgequiv.reference", simple).Scan(&shown); err != nil || shown != countStar {
		t.Fatalf("server's placeholder: %q, %v", shown, err)
	}
	if got := statMap(e.j)["session_commands"]; got != 5 {
		t.Errorf("%d session commands, want 5 (SET, RESET, SET, RESET ALL, extended SET)", got)
	}
	notices()
	// An id the catalog lacks: queries report it, other statements are
	// left alone.
	exec("RESET pgequiv.reference", simple)
	exec("SET pgequiv.reference_id = 'nope'", simple)
	exec("BEGIN", simple)
	exec(countOwner, simple)
	exec("ROLLBACK", simple)
	if ns := notices(); len(ns) != 1 || !strings.Contains(ns[0], `unknown reference id "nope"`) {
		t.Fatalf("notices with an unknown id: %q", ns)
	}
}

// TestJudgeEnforce: refused statements get the documented SQLSTATE and
// never reach the server; equivalent ones run.
func TestJudgeEnforce(t *testing.T) {
	set := annotateSettings(t)
	set.Mode = ModeEnforce
	set.EnforceUnknown = true
	e := startJudgeProxy(t, set, JudgingOptions{})
	ctx := testCtx(t, 60*time.Second)
	conn, notices := e.connectNotices(t, ctx, kennelDB)
	direct, err := pgx.Connect(ctx, dbConnString(pg.Host, pg.Port, pgtest.SuperUser, "", kennelDB))
	if err != nil {
		t.Fatal(err)
	}
	defer direct.Close(ctx)

	for i, mode := range []pgx.QueryExecMode{pgx.QueryExecModeSimpleProtocol, pgx.QueryExecModeExec} {
		t.Run(mode.String(), func(t *testing.T) {
			var n int
			if err := conn.QueryRow(ctx, withComment(countOwner, countStar), mode).Scan(&n); err != nil || n != 1 {
				t.Fatalf("equivalent query: %d, %v", n, err)
			}
			_, err := conn.Exec(ctx, withComment("SELECT count(*), 1 FROM dogs WHERE age > 5", countStar), mode)
			var pgErr *pgconn.PgError
			if !errors.As(err, &pgErr) || pgErr.Code != SQLStateNotEquivalent || !strings.Contains(pgErr.Message, "not_equivalent") {
				t.Fatalf("not equivalent query: %v", err)
			}
			id := 100 + i
			insert := withComment("INSERT INTO owners (owner_id, first_name, last_name) VALUES ("+strconv.Itoa(id)+", 'Eve', 'Mallory')",
				"SELECT owner_id FROM owners")
			_, err = conn.Exec(ctx, insert, mode)
			if !errors.As(err, &pgErr) || pgErr.Code != SQLStateUnverified {
				t.Fatalf("unverifiable INSERT: %v", err)
			}
			var rows int
			if err := direct.QueryRow(ctx, "SELECT count(*) FROM owners WHERE owner_id = $1", id).Scan(&rows); err != nil || rows != 0 {
				t.Fatalf("the refused INSERT ran: %d rows, %v", rows, err)
			}
			if err := conn.QueryRow(ctx, "SELECT 7", mode).Scan(&n); err != nil || n != 7 {
				t.Fatalf("after refusals: %d, %v", n, err)
			}
		})
	}
	if ns := notices(); len(ns) != 0 {
		t.Errorf("enforce mode sent notices %q", ns)
	}
	if st := statMap(e.j); st["refusals"] != 4 || st["not_equivalent"] != 2 || st["equivalent"] != 2 {
		t.Errorf("stats %v", st)
	}

	// Equivalent only if treatments is not empty: refused unless that
	// assumption kind is accepted.
	maxRef, topCand := "SELECT max(cost) FROM treatments", "SELECT cost FROM treatments ORDER BY cost DESC LIMIT 1"
	_, err = conn.Exec(ctx, withComment(topCand, maxRef))
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != SQLStateNotEquivalent || !strings.Contains(pgErr.Message, "treatments is not empty") {
		t.Fatalf("assumption not accepted: %v", err)
	}
	set.Options.AcceptAssumptions = []equivalence.AssumptionKind{equivalence.AssumeNonEmpty}
	if err := e.j.Reload(set); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, withComment(topCand, maxRef)); err != nil {
		t.Fatalf("assumption accepted: %v", err)
	}
}

// TestJudgeLogMode: the client sees nothing; each verdict is one JSON
// line with literals redacted unless configured.
func TestJudgeLogMode(t *testing.T) {
	set := annotateSettings(t)
	set.Mode = ModeLog
	e := startJudgeProxy(t, set, JudgingOptions{})
	ctx := testCtx(t, 60*time.Second)
	conn, notices := e.connectNotices(t, ctx, kennelDB)
	cand := withComment("SELECT count(owner_id) FROM dogs WHERE name = 'Rex'", "SELECT count(*) FROM dogs WHERE name = 'Rex'")
	var n int
	if err := conn.QueryRow(ctx, cand).Scan(&n); err != nil || n != 1 {
		t.Fatalf("%d, %v", n, err)
	}
	e.j.Wait()
	if ns := notices(); len(ns) != 0 {
		t.Fatalf("log mode sent notices %q", ns)
	}
	line := lastJSONLine(t, e.vlog.String())
	if line["msg"] != "pgequiv verdict" || line["label"] != "equivalent" || line["reference_fingerprint"] == "" ||
		line["query_fingerprint"] == "" || line["database"] != kennelDB {
		t.Fatalf("verdict line %v", line)
	}
	if q := line["query"].(string); strings.Contains(q, "Rex") || !strings.Contains(q, "name = ?") || strings.Contains(q, "pgequiv_ref") {
		t.Fatalf("query not redacted: %q", q)
	}
	if _, ok := line["latency_ms"].(float64); !ok {
		t.Fatalf("no latency: %v", line)
	}

	// Differences are redacted too, and kept with log.literals.
	set.LogLiterals = false
	diff := withComment("SELECT name FROM dogs WHERE age > 6", "SELECT name FROM dogs WHERE age > 5")
	if _, err := conn.Exec(ctx, diff); err != nil {
		t.Fatal(err)
	}
	e.j.Wait()
	line = lastJSONLine(t, e.vlog.String())
	diffs, _ := json.Marshal(line["differences"])
	if line["label"] == "equivalent" || !strings.Contains(string(diffs), "?") || strings.Contains(string(diffs), "7") {
		t.Fatalf("differences not redacted: %s (%v)", diffs, line)
	}
	set.LogLiterals = true
	if err := e.j.Reload(set); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, diff); err != nil {
		t.Fatal(err)
	}
	e.j.Wait()
	line = lastJSONLine(t, e.vlog.String())
	diffs, _ = json.Marshal(line["differences"])
	if !strings.Contains(line["query"].(string), "age > 6") || !strings.Contains(string(diffs), "7") {
		t.Fatalf("literals dropped with log.literals: %v", line)
	}
}

// TestJudgeCatalogEntryModes: a catalog entry's mode overrides the global
// one, and an entry for another database does not apply.
func TestJudgeCatalogEntryModes(t *testing.T) {
	set := annotateSettings(t)
	cat, err := tag.ParseCatalog([]byte(`
references:
  - id: strict
    reference: SELECT count(*) FROM dogs WHERE age > 5
    mode: enforce
  - id: elsewhere
    match: SELECT count(owner_id) FROM dogs WHERE age > 5
    reference: SELECT 1
    database: shop
`))
	if err != nil {
		t.Fatal(err)
	}
	set.Catalog = cat
	e := startJudgeProxy(t, set, JudgingOptions{})
	ctx := testCtx(t, 60*time.Second)
	conn, notices := e.connectNotices(t, ctx, kennelDB)
	strict := tag.Encode(tag.KV{Key: tag.KeyRefID, Value: "strict"})
	_, err = conn.Exec(ctx, "SELECT count(*), 1 FROM dogs WHERE age > 5 "+strict)
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != SQLStateNotEquivalent || !strings.Contains(pgErr.Detail, "reference id: strict") {
		t.Fatalf("entry in enforce mode under a global annotate: %v", err)
	}
	if _, err := conn.Exec(ctx, countOwner+" "+strict); err != nil {
		t.Fatalf("equivalent query refused: %v", err)
	}
	if ns := notices(); len(ns) != 0 {
		t.Fatalf("enforce entry sent notices %q", ns)
	}
	// The match entry is for database shop: nothing happens in kennel,
	// and naming it by id there is an error the notice reports.
	if _, err := conn.Exec(ctx, countOwner); err != nil {
		t.Fatal(err)
	}
	if ns := notices(); len(ns) != 0 {
		t.Fatalf("another database's entry applied: %q", ns)
	}
	if _, err := conn.Exec(ctx, countOwner+" "+tag.Encode(tag.KV{Key: tag.KeyRefID, Value: "elsewhere"})); err != nil {
		t.Fatal(err)
	}
	if ns := notices(); len(ns) != 1 || !strings.Contains(ns[0], `is for database "shop"`) {
		t.Fatalf("notices %q", ns)
	}
}
