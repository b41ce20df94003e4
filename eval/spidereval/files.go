// Package spidereval judges a text-to-SQL system's predictions against
// gold queries in the files the Spider and BIRD evaluation scripts read
// (gold `SQL<TAB>db_id` lines or BIRD's JSON, one prediction per line or
// BIRD's JSON), with schemas from tables.json or the SQLite databases'
// DDL, and summarizes per hardness level as those scripts do.
package spidereval

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Item is one gold query with its prediction.
type Item struct {
	Index int    // 0-based position among the items
	DB    string // db_id
	Gold  string
	Pred  string
	// Difficulty is BIRD's own level (simple, moderate, challenging)
	// when the gold file gives one.
	Difficulty string
	// GoldAt and PredAt say where each came from: "gold.sql line 12",
	// "dev.json item 3".
	GoldAt, PredAt string
}

// birdSep separates SQL from db_id in BIRD's predictions.
const birdSep = "\t----- bird -----\t"

type goldEntry struct {
	sql, db, difficulty, at string
}

type predEntry struct {
	sql, db, at string
}

// ReadFiles reads a gold and a prediction file and pairs them in order.
// Each file is JSON when its first non-space byte is '[' or '{', else
// lines. Errors name the file and the line or item.
func ReadFiles(goldPath, predPath string) ([]Item, error) {
	gold, err := readGold(goldPath)
	if err != nil {
		return nil, err
	}
	pred, err := readPred(predPath)
	if err != nil {
		return nil, err
	}
	if len(gold) != len(pred) {
		n := min(len(gold), len(pred))
		where := ""
		if len(gold) > n {
			where = fmt.Sprintf("; %s has no prediction", gold[n].at)
		} else {
			where = fmt.Sprintf("; %s has no gold query", pred[n].at)
		}
		return nil, fmt.Errorf("spidereval: %s has %d gold queries but %s has %d predictions%s", goldPath, len(gold), predPath, len(pred), where)
	}
	items := make([]Item, len(gold))
	for i, g := range gold {
		p := pred[i]
		if p.db != "" && p.db != g.db {
			return nil, fmt.Errorf("spidereval: %s is for db %q but %s is for %q", p.at, p.db, g.at, g.db)
		}
		items[i] = Item{Index: i, DB: g.db, Gold: g.sql, Pred: p.sql, Difficulty: g.difficulty, GoldAt: g.at, PredAt: p.at}
	}
	return items, nil
}

func isJSON(data []byte) bool {
	t := bytes.TrimLeft(data, " \t\r\n\ufeff")
	return len(t) > 0 && (t[0] == '[' || t[0] == '{')
}

// lines returns the non-blank lines of a text file with their numbers;
// the evaluation scripts skip blank lines too.
func lines(path string, data []byte) ([]string, []int, error) {
	var out []string
	var nums []int
	for i, l := range strings.Split(string(data), "\n") {
		l = strings.TrimRight(l, "\r")
		if strings.TrimSpace(l) == "" {
			continue
		}
		if !utf8.ValidString(l) {
			return nil, nil, fmt.Errorf("spidereval: %s line %d: not valid UTF-8", path, i+1)
		}
		out = append(out, l)
		nums = append(nums, i+1)
	}
	return out, nums, nil
}

func readGold(path string) ([]goldEntry, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("spidereval: gold: %w", err)
	}
	if isJSON(data) {
		return readGoldJSON(path, data)
	}
	ls, nums, err := lines(path, data)
	if err != nil {
		return nil, err
	}
	out := make([]goldEntry, len(ls))
	for i, l := range ls {
		at := fmt.Sprintf("%s line %d", path, nums[i])
		cut := strings.LastIndexByte(l, '\t')
		if cut < 0 {
			return nil, fmt.Errorf("spidereval: %s: want SQL<TAB>db_id, found no tab", at)
		}
		sql, db := strings.TrimSpace(l[:cut]), strings.TrimSpace(l[cut+1:])
		if sql == "" || db == "" {
			return nil, fmt.Errorf("spidereval: %s: want SQL<TAB>db_id, found an empty side", at)
		}
		out[i] = goldEntry{sql: sql, db: db, at: at}
	}
	return out, nil
}

// readGoldJSON reads a list of objects with the query in "SQL" (BIRD) or
// "query" (Spider's dev.json), "db_id", and BIRD's "difficulty".
func readGoldJSON(path string, data []byte) ([]goldEntry, error) {
	var raw []map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("spidereval: %s: want a JSON list of {SQL or query, db_id}: %w", path, jsonWhere(data, err))
	}
	out := make([]goldEntry, len(raw))
	for i, r := range raw {
		at := fmt.Sprintf("%s item %d", path, i+1)
		str := func(keys ...string) string {
			for _, k := range keys {
				var s string
				if v, ok := r[k]; ok && json.Unmarshal(v, &s) == nil && s != "" {
					return s
				}
			}
			return ""
		}
		e := goldEntry{sql: strings.TrimSpace(str("SQL", "query", "sql")), db: str("db_id"), difficulty: str("difficulty"), at: at}
		if e.sql == "" {
			return nil, fmt.Errorf("spidereval: %s: no SQL or query string", at)
		}
		if e.db == "" {
			return nil, fmt.Errorf("spidereval: %s: no db_id string", at)
		}
		out[i] = e
	}
	return out, nil
}

func readPred(path string) ([]predEntry, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("spidereval: predictions: %w", err)
	}
	if isJSON(data) {
		return readPredJSON(path, data)
	}
	ls, nums, err := lines(path, data)
	if err != nil {
		return nil, err
	}
	out := make([]predEntry, len(ls))
	for i, l := range ls {
		out[i] = splitPred(l, fmt.Sprintf("%s line %d", path, nums[i]))
	}
	return out, nil
}

// splitPred reads BIRD's "SQL\t----- bird -----\tdb_id"; otherwise the
// SQL is what precedes a tab, as Spider's script reads it.
func splitPred(s, at string) predEntry {
	if sql, db, ok := strings.Cut(s, birdSep); ok {
		return predEntry{sql: strings.TrimSpace(sql), db: strings.TrimSpace(db), at: at}
	}
	sql, _, _ := strings.Cut(s, "\t")
	return predEntry{sql: strings.TrimSpace(sql), at: at}
}

// readPredJSON reads BIRD's {"0": "SQL\t----- bird -----\tdb_id", ...}
// (keys 0..n-1) or a list of SQL strings.
func readPredJSON(path string, data []byte) ([]predEntry, error) {
	var list []string
	if err := json.Unmarshal(data, &list); err == nil {
		out := make([]predEntry, len(list))
		for i, s := range list {
			out[i] = splitPred(s, fmt.Sprintf("%s item %d", path, i+1))
		}
		return out, nil
	}
	var obj map[string]string
	if err := json.Unmarshal(data, &obj); err != nil {
		return nil, fmt.Errorf("spidereval: %s: want {\"0\": SQL, ...} or a list of SQL strings: %w", path, jsonWhere(data, err))
	}
	keys := make([]int, 0, len(obj))
	for k := range obj {
		n, err := strconv.Atoi(k)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("spidereval: %s: key %q is not an item index", path, k)
		}
		keys = append(keys, n)
	}
	sort.Ints(keys)
	out := make([]predEntry, len(keys))
	for i, k := range keys {
		if k != i {
			return nil, fmt.Errorf("spidereval: %s: no prediction for item %q", path, strconv.Itoa(i))
		}
		out[i] = splitPred(obj[strconv.Itoa(k)], fmt.Sprintf("%s item %q", path, strconv.Itoa(k)))
	}
	return out, nil
}

// jsonWhere adds the line of a JSON syntax error.
func jsonWhere(data []byte, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line := 1 + bytes.Count(data[:min(int(se.Offset), len(data))], []byte("\n"))
		return fmt.Errorf("line %d: %w", line, err)
	}
	return err
}
