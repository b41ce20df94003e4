package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRunOnALayoutOfItsOwn runs the whole benchmark, with the real judge,
// on a directory laid out as the TPC-DS one must be (a schema, one file
// per query, a file with two statements), with queries of its own.
func TestRunOnALayoutOfItsOwn(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("schema.sql", `create table item (i_item_sk integer not null primary key, i_price decimal(7,2), i_category char(50));
create table sales (s_item_sk integer not null, s_ticket integer not null, s_qty integer, primary key (s_item_sk, s_ticket));`)
	write("query2.sql", `select i_category, sum(s_qty) from sales, item where s_item_sk = i_item_sk and i_price > 10 group by i_category;`)
	write("query14.sql", `select count(*) from sales, item where s_item_sk = i_item_sk and s_qty = 3;
select i_item_sk from item where i_category = 'Books' and i_price < 5;`)
	write("query3.sql", `select nosuchcolumn from item;`)
	write("notes.txt", "not a query")

	b, err := load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, q := range b.queries {
		ids = append(ids, q.ID)
	}
	if got := strings.Join(ids, " "); got != "2 3 14a 14b" {
		t.Fatalf("queries %q, want 2 3 14a 14b in query-number order", got)
	}

	var out strings.Builder
	cfg := proxyDefaults()
	if err := run(context.Background(), dir, cfg, "", false, &out); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	got := out.String()
	for _, want := range []string{
		"verdict_timeout 2s (judge deadline 1.9s), refute_budget 20ms",
		"statements: 4 (of 3 queries), 3 plan, 1 do not",
		"identity          3: equivalent 3",
		"reordered pairs: 3, proved 3",
		"timeouts: 0; errors: 0; wrong labels: 0",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "PROVED MUTANT") {
		t.Errorf("a mutant of these queries was proved:\n%s", got)
	}
}

func TestRunWithoutQueries(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "schema.sql"), []byte("create table t (a int);"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	err := run(context.Background(), dir, proxyDefaults(), "", false, &out)
	if err == nil || !strings.Contains(err.Error(), "no query*.sql files") {
		t.Fatalf("err = %v, want no query files", err)
	}
	if err := run(context.Background(), t.TempDir(), proxyDefaults(), "", false, &out); err == nil {
		t.Fatal("a directory without schema.sql was accepted")
	}
}

func TestJudgeDeadlineMirrorsTheProxy(t *testing.T) {
	for _, c := range []struct{ timeout, want time.Duration }{
		{2 * time.Second, 1900 * time.Millisecond},
		{time.Second, 950 * time.Millisecond},
		{10 * time.Second, 9900 * time.Millisecond},
	} {
		if got := judgeDeadline(c.timeout); got != c.want {
			t.Errorf("judgeDeadline(%v) = %v, want %v", c.timeout, got, c.want)
		}
	}
}

// TestPGCheckTellsRefusals runs the -pg check on a throwaway PostgreSQL:
// a valid statement passes, one PostgreSQL refuses (an output alias
// inside an ORDER BY expression, as in TPC-DS's queries 36, 70 and 86)
// is reported.
func TestPGCheckTellsRefusals(t *testing.T) {
	ctx := context.Background()
	c, err := startPG(ctx, "", "create table item (i_item_sk integer primary key, i_category char(50));")
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	if msg := c.explain(ctx, "select i_category, count(*) from item group by i_category"); msg != "" {
		t.Errorf("a valid query refused: %s", msg)
	}
	msg := c.explain(ctx, "select i_category, count(*) as n from item group by i_category order by case when n = 0 then i_category end")
	if !strings.Contains(msg, `column "n" does not exist`) {
		t.Errorf("refusal %q, want the alias that does not exist", msg)
	}
	c.close()
	c.close() // idempotent
}
