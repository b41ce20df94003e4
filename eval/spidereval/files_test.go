package spidereval

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Each gold format with each prediction format gives the same items.
func TestReadFilesFormats(t *testing.T) {
	dir := t.TempDir()
	golds := map[string]string{
		"spider lines": writeFile(t, dir, "gold.sql", "SELECT a FROM t\tdb1\r\n\nSELECT b FROM s\tdb2\n"),
		"bird json":    writeFile(t, dir, "dev.json", `[{"question_id": 0, "db_id": "db1", "SQL": "SELECT a FROM t", "difficulty": "simple"}, {"db_id": "db2", "SQL": "SELECT b FROM s", "difficulty": "challenging"}]`),
		"spider json":  writeFile(t, dir, "dev_spider.json", `[{"db_id": "db1", "query": "SELECT a FROM t"}, {"db_id": "db2", "query": "SELECT b FROM s"}]`),
	}
	preds := map[string]string{
		"lines":      writeFile(t, dir, "pred.sql", "SELECT a FROM t\nSELECT b FROM s\tdb2\n"),
		"bird json":  writeFile(t, dir, "predict_dev.json", "{\"1\": \"SELECT b FROM s\\t----- bird -----\\tdb2\", \"0\": \"SELECT a FROM t\\t----- bird -----\\tdb1\"}"),
		"json list":  writeFile(t, dir, "pred.json", `["SELECT a FROM t", "SELECT b FROM s"]`),
		"bird lines": writeFile(t, dir, "pred_bird.sql", "SELECT a FROM t\t----- bird -----\tdb1\nSELECT b FROM s\t----- bird -----\tdb2\n"),
	}
	for gn, g := range golds {
		for pn, p := range preds {
			items, err := ReadFiles(g, p)
			if err != nil {
				t.Errorf("%s + %s: %v", gn, pn, err)
				continue
			}
			if len(items) != 2 || items[0].DB != "db1" || items[1].DB != "db2" || items[0].Gold != "SELECT a FROM t" || items[1].Pred != "SELECT b FROM s" || items[1].Index != 1 {
				t.Errorf("%s + %s: items %+v", gn, pn, items)
			}
			if wantBird := gn == "bird json"; (items[0].Difficulty == "simple") != wantBird {
				t.Errorf("%s + %s: difficulty %q", gn, pn, items[0].Difficulty)
			}
		}
	}
}

func TestReadFilesErrors(t *testing.T) {
	dir := t.TempDir()
	gold := writeFile(t, dir, "gold.sql", "SELECT a FROM t\tdb1\nSELECT b FROM s\tdb2\n")
	for _, tc := range []struct{ name, gold, pred, want string }{
		{"bad gold json", writeFile(t, dir, "g.json", "[{\"db_id\": \"x\",\n \"SQL\": }]"), gold, "g.json: want a JSON list of {SQL or query, db_id}: line 2"},
		{"gold json without SQL", writeFile(t, dir, "g2.json", `[{"db_id": "x"}]`), gold, "g2.json item 1: no SQL or query"},
		{"gold json without db", writeFile(t, dir, "g3.json", `[{"SQL": "SELECT 1"}]`), gold, "g3.json item 1: no db_id"},
		{"empty db", writeFile(t, dir, "g4.sql", "SELECT 1\t \n"), gold, "g4.sql line 1: want SQL<TAB>db_id, found an empty side"},
		{"bird keys with a gap", gold, writeFile(t, dir, "p.json", `{"0": "SELECT 1", "2": "SELECT 2"}`), `p.json: no prediction for item "1"`},
		{"bird key not a number", gold, writeFile(t, dir, "p2.json", `{"zero": "SELECT 1"}`), `key "zero" is not an item index`},
		{"prediction for another db", gold, writeFile(t, dir, "p3.sql", "SELECT a FROM t\t----- bird -----\tdb9\nSELECT 2\n"), `p3.sql line 1 is for db "db9" but`},
		{"more predictions", gold, writeFile(t, dir, "p4.sql", "SELECT 1\nSELECT 2\nSELECT 3\n"), "p4.sql line 3 has no gold query"},
		{"missing file", filepath.Join(dir, "nope.sql"), gold, "nope.sql"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadFiles(tc.gold, tc.pred)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}
