package pgcatalog

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/exec"
)

// Arrays in the catalog are held in their text form: {a,b,"c d",NULL}
// (lower bound 1), [0:1]={a,b}, or an int2vector/oidvector's "1 2"
// (lower bound 0). The functions here, which the rewrite (rewrite.go)
// plans in place of array syntax, read and write that form.

// pgArray is a parsed array: its elements (nil for NULL) and lower bound.
type pgArr struct {
	elems []*string
	lower int
}

// parseArray reads an array's text form.
func parseArray(v exec.Value) (*pgArr, error) {
	if v.K != exec.KText {
		return nil, fmt.Errorf("pgcatalog: %w: array of kind %d", exec.ErrCannotExecute, v.K)
	}
	t := strings.TrimSpace(v.S)
	a := &pgArr{lower: 1}
	if !strings.HasPrefix(t, "{") && !strings.HasPrefix(t, "[") {
		// int2vector, oidvector: space-separated, from 0.
		a.lower = 0
		for _, f := range strings.Fields(t) {
			a.elems = append(a.elems, &f)
		}
		return a, nil
	}
	if strings.HasPrefix(t, "[") {
		dims, rest, ok := strings.Cut(t, "=")
		lo, _, ok2 := strings.Cut(strings.Trim(dims, "[]"), ":")
		n, err := strconv.Atoi(lo)
		if !ok || !ok2 || err != nil {
			return nil, fmt.Errorf("pgcatalog: malformed array literal %q", v.S)
		}
		a.lower, t = n, rest
	}
	if !strings.HasPrefix(t, "{") || !strings.HasSuffix(t, "}") {
		return nil, fmt.Errorf("pgcatalog: malformed array literal %q", v.S)
	}
	body := t[1 : len(t)-1]
	if strings.ContainsAny(body, "{}") {
		return nil, fmt.Errorf("pgcatalog: %w: multidimensional array", exec.ErrCannotExecute)
	}
	if strings.TrimSpace(body) == "" {
		return a, nil
	}
	var cur strings.Builder
	quoted, inQuote, escaped := false, false, false
	flush := func() {
		e := cur.String()
		if !quoted {
			e = strings.TrimSpace(e)
		}
		if !quoted && strings.EqualFold(e, "NULL") {
			a.elems = append(a.elems, nil)
		} else {
			a.elems = append(a.elems, &e)
		}
		cur.Reset()
		quoted = false
	}
	for _, c := range body {
		switch {
		case escaped:
			cur.WriteRune(c)
			escaped = false
		case c == '\\':
			escaped = true
		case c == '"':
			inQuote, quoted = !inQuote, true
		case c == ',' && !inQuote:
			flush()
		default:
			cur.WriteRune(c)
		}
	}
	flush()
	return a, nil
}

// arrayElem is an element in array output form: quoted when empty, NULL,
// or holding a delimiter, quote, backslash, brace or blank.
func arrayElem(e *string) string {
	if e == nil {
		return "NULL"
	}
	if *e == "" || strings.EqualFold(*e, "NULL") || strings.ContainsAny(*e, "{},\"\\ \t\n") {
		return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(*e) + `"`
	}
	return *e
}

func (a *pgArr) text() string {
	parts := make([]string, len(a.elems))
	for k, e := range a.elems {
		parts[k] = arrayElem(e)
	}
	t := "{" + strings.Join(parts, ",") + "}"
	if a.lower != 1 && len(a.elems) > 0 {
		t = fmt.Sprintf("[%d:%d]=%s", a.lower, a.lower+len(a.elems)-1, t)
	}
	return t
}

// arrayArg parses argument k; nil for NULL.
func arrayArg(args []exec.Value, k int) (*pgArr, error) {
	v := arg(args, k)
	if v.IsNull() {
		return nil, nil
	}
	return parseArray(v)
}

// elemValue is element e as an integer (ints) or text.
func elemValue(e *string, ints bool) (exec.Value, error) {
	if e == nil {
		return null, nil
	}
	if !ints {
		return s(*e), nil
	}
	n, err := strconv.ParseInt(*e, 10, 64)
	if err != nil {
		return null, fmt.Errorf("%w: invalid input syntax for type integer: %q", exec.ErrQuery, *e)
	}
	return exec.Int(n), nil
}

// maxExpansion bounds a walk up a partition tree.
const maxExpansion = 64

// arrayFuncs are the array functions of the registry.
var arrayFuncs = map[string]function{
	"pgcat_any":                 {catalog.Bool, anyAll(true)},
	"pgcat_all":                 {catalog.Bool, anyAll(false)},
	"pgcat_subscript":           {catalog.Int, subscript(true)},
	"pgcat_subscript_text":      {catalog.Text, subscript(false)},
	"pgcat_array_at":            {catalog.Int, arrayAt(true)},
	"pgcat_array_at_text":       {catalog.Text, arrayAt(false)},
	"pgcat_subscript_at":        {catalog.Int, subscriptAt},
	"pgcat_array_length":        {catalog.Int, arrayLength},
	"pgcat_array_elem":          {catalog.Text, func(_ *Data, a []exec.Value) (exec.Value, error) { return arrayElemOf(arg(a, 0)), nil }},
	"pgcat_array_cat":           {catalog.Text, arrayCat},
	"pgcat_series_length":       {catalog.Int, (*Data).seriesLength},
	"pgcat_partition_ancestors": {catalog.Text, (*Data).partitionAncestors},
	"pgcat_keyed":               {catalog.Text, keyed},
	"pgcat_array_sorted":        {catalog.Text, arraySorted},
	"pgcat_regtype_in":          {catalog.Int, regtypeIn},
	"array_upper":               {catalog.Int, bound(true)},
	"array_lower":               {catalog.Int, bound(false)},
	"array_length":              {catalog.Int, arrayLengthDim},
	"cardinality":               {catalog.Int, arrayLength},
}

// anyAll is x op ANY(arr) / ALL(arr) for = and <>, in three-valued logic.
func anyAll(isAny bool) func(*Data, []exec.Value) (exec.Value, error) {
	return func(_ *Data, a []exec.Value) (exec.Value, error) {
		x, op := arg(a, 0), arg(a, 1).S
		arr, err := arrayArg(a, 2)
		if err != nil || arr == nil || x.IsNull() {
			return null, err
		}
		sawNull := false
		for _, e := range arr.elems {
			if e == nil {
				sawNull = true
				continue
			}
			var eq bool
			if x.K == exec.KInt {
				n, err := strconv.ParseInt(strings.TrimSpace(*e), 10, 64)
				if err != nil {
					return null, fmt.Errorf("%w: invalid input syntax for type integer: %q", exec.ErrQuery, *e)
				}
				eq = x.I == n
			} else {
				eq = textOf(x) == *e
			}
			if (op == "=") == eq {
				if isAny {
					return bl(true), nil
				}
			} else if !isAny {
				return bl(false), nil
			}
		}
		if sawNull {
			return null, nil
		}
		return bl(!isAny), nil
	}
}

func textOf(v exec.Value) string {
	if v.K == exec.KBool {
		return map[bool]string{true: "t", false: "f"}[v.B]
	}
	return v.String()
}

func subscript(ints bool) func(*Data, []exec.Value) (exec.Value, error) {
	return func(_ *Data, a []exec.Value) (exec.Value, error) {
		arr, err := arrayArg(a, 0)
		i := arg(a, 1)
		if err != nil || arr == nil || i.K != exec.KInt {
			return null, err
		}
		k := int(i.I) - arr.lower
		if k < 0 || k >= len(arr.elems) {
			return null, nil
		}
		return elemValue(arr.elems[k], ints)
	}
}

// arrayAt is the element at position n (from 1), NULL past the end.
func arrayAt(ints bool) func(*Data, []exec.Value) (exec.Value, error) {
	return func(_ *Data, a []exec.Value) (exec.Value, error) {
		arr, err := arrayArg(a, 0)
		n := arg(a, 1)
		if err != nil || arr == nil || n.K != exec.KInt || n.I < 1 || int(n.I) > len(arr.elems) {
			return null, err
		}
		return elemValue(arr.elems[n.I-1], ints)
	}
}

func subscriptAt(_ *Data, a []exec.Value) (exec.Value, error) {
	arr, err := arrayArg(a, 0)
	n := arg(a, 1)
	if err != nil || arr == nil || n.K != exec.KInt || n.I < 1 || int(n.I) > len(arr.elems) {
		return null, err
	}
	return i(arr.lower + int(n.I) - 1), nil
}

// arrayLength is the number of elements; 0 for NULL (an SRF over NULL
// returns no rows).
func arrayLength(_ *Data, a []exec.Value) (exec.Value, error) {
	arr, err := arrayArg(a, 0)
	if err != nil || arr == nil {
		return i(0), err
	}
	return i(len(arr.elems)), nil
}

// arrayLengthDim is array_length(arr, 1): NULL for an empty array.
func arrayLengthDim(_ *Data, a []exec.Value) (exec.Value, error) {
	arr, err := arrayArg(a, 0)
	if err != nil || arr == nil || len(arr.elems) == 0 || arg(a, 1).I != 1 {
		return null, err
	}
	return i(len(arr.elems)), nil
}

func bound(upper bool) func(*Data, []exec.Value) (exec.Value, error) {
	return func(_ *Data, a []exec.Value) (exec.Value, error) {
		arr, err := arrayArg(a, 0)
		if err != nil || arr == nil || len(arr.elems) == 0 || arg(a, 1).I != 1 {
			return null, err
		}
		if upper {
			return i(arr.lower + len(arr.elems) - 1), nil
		}
		return i(arr.lower), nil
	}
}

func arrayElemOf(v exec.Value) exec.Value {
	if v.IsNull() {
		return s("NULL")
	}
	t := textOf(v)
	return s(arrayElem(&t))
}

// keyedSep separates string_agg's (key, element) pairs; keyMark
// separates a key from its element. Neither occurs in catalog text.
const (
	keyedSep = "\x01"
	keyMark  = "\x02"
)

// keyed is one (key, element) pair of an ordered array aggregate: the
// key's kind (n NULL, i integer, t text), its text, the element.
func keyed(_ *Data, a []exec.Value) (exec.Value, error) {
	k, e := arg(a, 0), arg(a, 1)
	kind := "t"
	switch k.K {
	case exec.KNull:
		kind = "n"
	case exec.KInt:
		kind = "i"
	}
	return s(kind + textOf(k) + keyMark + e.S), nil
}

// arraySorted is the array of a keyed aggregate's elements sorted by key
// (integers as numbers, text bytewise, NULL last ascending and first
// descending, as ORDER BY does; ties keep their order). No rows is {} for
// ARRAY(subquery) ("empty") and NULL for array_agg.
func arraySorted(_ *Data, a []exec.Value) (exec.Value, error) {
	v, dir, empty := arg(a, 0), arg(a, 1).S, arg(a, 2).S
	if v.IsNull() {
		if empty == "empty" {
			return s("{}"), nil
		}
		return null, nil
	}
	type pair struct {
		kind byte
		key  string
		n    int64
		elem string
	}
	var ps []pair
	for _, part := range strings.Split(v.S, keyedSep) {
		k, e, ok := strings.Cut(part, keyMark)
		if !ok || k == "" {
			return null, fmt.Errorf("pgcatalog: malformed ordered aggregate")
		}
		p := pair{kind: k[0], key: k[1:], elem: e}
		if p.kind == 'i' {
			p.n, _ = strconv.ParseInt(p.key, 10, 64)
		}
		ps = append(ps, p)
	}
	desc := dir == "desc"
	less := func(x, y pair) bool {
		if x.kind == 'n' || y.kind == 'n' {
			return (x.kind == 'n') == desc && x.kind != y.kind
		}
		if x.kind == 'i' && y.kind == 'i' {
			return x.n < y.n != desc && x.n != y.n
		}
		return x.key < y.key != desc && x.key != y.key
	}
	sort.SliceStable(ps, func(i, j int) bool { return less(ps[i], ps[j]) })
	elems := make([]string, len(ps))
	for k, p := range ps {
		elems[k] = p.elem
	}
	return s("{" + strings.Join(elems, ",") + "}"), nil
}

// regtypeIn is 'name'::regtype: a built-in type's OID by its name or
// its format_type spelling; an unknown name is 42704.
func regtypeIn(_ *Data, a []exec.Value) (exec.Value, error) {
	v := arg(a, 0)
	if v.IsNull() {
		return null, nil
	}
	name := strings.TrimPrefix(strings.TrimSpace(v.S), "pg_catalog.")
	if oid, ok := pseudoTypes[name]; ok {
		return o(oid), nil
	}
	if t, ok := typeByName[name]; ok {
		return o(t.oid), nil
	}
	for _, t := range builtinTypes {
		if strings.ReplaceAll(t.format, "%s", "") == name {
			return o(t.oid), nil
		}
	}
	return null, fmt.Errorf("%w: type %q does not exist", exec.ErrQuery, v.S)
}

// pseudoTypes are the pseudo-types clients name in catalog queries.
var pseudoTypes = map[string]uint32{"trigger": 2279, "void": 2278, "record": 2249, "event_trigger": 3838,
	"internal": 2281, "anyelement": 2283, "cstring": 2275}

// arrayCat is arr || arr: NULL is the empty array here, as array_cat
// returns the other operand.
func arrayCat(_ *Data, a []exec.Value) (exec.Value, error) {
	l, err := arrayArg(a, 0)
	if err != nil {
		return null, err
	}
	r, err := arrayArg(a, 1)
	if err != nil {
		return null, err
	}
	switch {
	case l == nil && r == nil:
		return null, nil
	case l == nil:
		return s(r.text()), nil
	case r == nil:
		return s(l.text()), nil
	}
	return s((&pgArr{elems: append(append([]*string(nil), l.elems...), r.elems...), lower: l.lower}).text()), nil
}

// seriesLength is generate_series(lo, hi)'s row count; more than the
// series table holds is an error rather than a short answer.
func (d *Data) seriesLength(a []exec.Value) (exec.Value, error) {
	lo, hi := arg(a, 0), arg(a, 1)
	if lo.K != exec.KInt || hi.K != exec.KInt || hi.I < lo.I {
		return i(0), nil
	}
	if hi.I-lo.I+1 > int64(d.seriesMax) {
		return null, fmt.Errorf("pgcatalog: %w: generate_series of more than %d rows", exec.ErrCannotExecute, d.seriesMax)
	}
	return i(int(hi.I - lo.I + 1)), nil
}

// partitionAncestors is pg_partition_ancestors(rel) as an array: the
// relation and its parents for a partition, nothing for another table.
func (d *Data) partitionAncestors(a []exec.Value) (exec.Value, error) {
	oid, ok := oidArg(a, 0)
	if !ok {
		return s("{}"), nil
	}
	r, ok := d.relByOID[oid]
	var chain []*string
	for seen := 0; ok && r.index == nil && seen < maxExpansion; seen++ {
		if seen > 0 || r.table.PartitionBound != "" {
			n := strconv.FormatUint(uint64(r.oid), 10)
			chain = append(chain, &n)
		}
		if r.table.PartitionBound == "" || len(r.table.Inherits) == 0 {
			break
		}
		r, ok = d.relByName[r.table.Inherits[0]]
	}
	return s((&pgArr{elems: chain, lower: 1}).text()), nil
}
