package refute

import (
	"encoding/json"
	"strconv"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/exec"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// A jsonb column read through -> and ->> (metadata->>'status' =
// 'published', (payload->>'total')::numeric > 100, profile ? 'avatar')
// passes a filter only with a document that holds the key path read,
// and the value compared: a document drawn from a small pool almost
// never does. The seeds here are documents built from the queries: one
// holding every path read on the column (each leaf the constant it is
// compared with, as a string and, where it reads as one, as a number),
// and one per path, with the leaf, a JSON null, and the path missing.

// jstep is one step of a path: a key, or an array index.
type jstep struct {
	key   string
	index int64
	isIdx bool
}

// jsonRead is a path read on a column, with the constant its end is
// compared with (nil: none).
type jsonRead struct {
	path []jstep
	lit  *string
}

// jsonPath reads e (under casts) as a chain of -> and ->> with constant
// keys over a jsonb base column.
func jsonPath(p *plan.Plan, alias map[plan.ColumnID]plan.ColumnID, e *plan.Expr) (colKey, []jstep, bool) {
	for e != nil && e.Kind == plan.Cast && len(e.Args) == 1 {
		e = e.Args[0]
	}
	if e == nil || e.Kind != plan.Op || e.Name != plan.OpJSONField && e.Name != plan.OpJSONText || len(e.Args) != 2 {
		return colKey{}, nil, false
	}
	k := e.Args[1]
	if k.Kind != plan.Const || k.Null {
		return colKey{}, nil, false
	}
	step := jstep{key: k.Value}
	if k.Typ == catalog.Int {
		i, err := strconv.ParseInt(k.Value, 10, 64)
		if err != nil {
			return colKey{}, nil, false
		}
		step = jstep{index: i, isIdx: true}
	}
	if key, c, ok := base(p, alias, e.Args[0]); ok {
		if c.Type != catalog.JSON {
			return colKey{}, nil, false
		}
		return key, []jstep{step}, true
	}
	if e.Args[0].Kind == plan.Op && e.Args[0].Name == plan.OpJSONField {
		key, path, ok := jsonPath(p, alias, e.Args[0])
		return key, append(path, step), ok
	}
	return colKey{}, nil, false
}

// jsonExpr records the paths x reads: a path op, a path compared with a
// constant, and a key tested with ?.
func (l *literals) jsonExpr(p *plan.Plan, alias map[plan.ColumnID]plan.ColumnID, x *plan.Expr) {
	if x.Kind != plan.Op {
		return
	}
	record := func(key colKey, r jsonRead) {
		if l.jsonReads == nil {
			l.jsonReads = map[colKey][]jsonRead{}
		}
		if len(l.jsonReads[key]) < maxJSONReads {
			l.jsonReads[key] = append(l.jsonReads[key], r)
		}
	}
	if key, path, ok := jsonPath(p, alias, x); ok {
		record(key, jsonRead{path: path})
		return
	}
	if x.Name == plan.OpJSONExists && len(x.Args) == 2 && x.Args[1].Kind == plan.Const && !x.Args[1].Null {
		if key, c, ok := base(p, alias, x.Args[0]); ok && c.Type == catalog.JSON {
			lit := "1"
			record(key, jsonRead{path: []jstep{{key: x.Args[1].Value}}, lit: &lit})
		}
		return
	}
	if len(x.Args) < 2 {
		return
	}
	// A comparison (=, <, IN, LIKE, ...) of a path with constants.
	key, path, ok := jsonPath(p, alias, x.Args[0])
	if !ok {
		return
	}
	for _, a := range x.Args[1:] {
		if a.Kind == plan.Const && !a.Null {
			v := a.Value
			record(key, jsonRead{path: path, lit: &v})
		}
	}
}

// maxJSONReads bounds the paths kept per column.
const maxJSONReads = 12

// addJSONSeeds builds the documents for each column read by paths.
func (l *literals) addJSONSeeds() {
	for key, reads := range l.jsonReads {
		var docs []any
		all := map[string]any{}
		for _, r := range reads {
			leaves := []any{"x"}
			if r.lit != nil {
				leaves = []any{*r.lit}
				if _, err := strconv.ParseFloat(*r.lit, 64); err == nil && jsonNumberText(*r.lit) {
					leaves = append(leaves, json.Number(*r.lit))
				}
			}
			for _, leaf := range leaves {
				docs = append(docs, buildDoc(r.path, leaf))
			}
			docs = append(docs, buildDoc(r.path, nil))
			mergeDoc(all, buildDoc(r.path, leaves[len(leaves)-1]))
		}
		docs = append(docs, all, map[string]any{})
		for _, d := range docs {
			text, err := json.Marshal(d)
			if err != nil {
				continue
			}
			v, err := exec.ParseJSONB(string(text))
			if err != nil {
				continue
			}
			l.exact[key] = append(l.exact[key], v)
			l.compared[key] = append(l.compared[key], v)
			l.byCol[key] = append(l.byCol[key], v)
		}
	}
}

// jsonNumberText reports whether s is written as JSON writes a number
// without an exponent (what exec.ParseJSONB reads).
func jsonNumberText(s string) bool {
	var n json.Number
	if err := json.Unmarshal([]byte(s), &n); err != nil {
		return false
	}
	for _, c := range s {
		if c == 'e' || c == 'E' || c == '+' {
			return false
		}
	}
	return true
}

// buildDoc writes the document that holds leaf at path (an index i as an
// array of i+1 elements, or -i for a negative one).
func buildDoc(path []jstep, leaf any) any {
	if len(path) == 0 {
		return leaf
	}
	inner := buildDoc(path[1:], leaf)
	st := path[0]
	if !st.isIdx {
		return map[string]any{st.key: inner}
	}
	n, at := st.index+1, st.index
	if st.index < 0 {
		n, at = -st.index, 0
	}
	if n > 8 {
		return inner
	}
	arr := make([]any, n)
	for i := range arr {
		arr[i] = "x"
	}
	arr[at] = inner
	return arr
}

// mergeDoc adds src's keys into dst where they do not conflict.
func mergeDoc(dst map[string]any, src any) {
	m, ok := src.(map[string]any)
	if !ok {
		return
	}
	for k, v := range m {
		old, has := dst[k]
		if !has {
			dst[k] = v
			continue
		}
		if om, ok := old.(map[string]any); ok {
			mergeDoc(om, v)
		}
	}
}
