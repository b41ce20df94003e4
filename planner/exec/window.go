package exec

import (
	"strconv"
	"strings"

	"github.com/pgequiv/pgequiv/planner/plan"
)

// window computes window functions: rows are partitioned, ordered within
// each partition, and each function sees its frame (by default the whole
// partition without ORDER BY, else up to the current row's last peer).
func (x *executor) window(n *plan.Node, outer *env) (*rel, error) {
	in, err := x.node(n.Inputs[0], outer)
	if err != nil {
		return nil, err
	}
	out := x.newRel(n.OutCols())
	extra := make([][]Value, len(in.rows))
	for i := range extra {
		extra[i] = make([]Value, len(n.Proj))
	}
	for p, item := range n.Proj {
		w := item.Expr
		if w.Kind != plan.WinFunc {
			return nil, cannot("window output that is a %s expression", w.Kind)
		}
		if err := x.windowFunc(w, in, outer, func(row int, v Value) { extra[row][p] = v }); err != nil {
			return nil, err
		}
	}
	for i, row := range in.rows {
		out.rows = append(out.rows, x.concatRow(row, extra[i]))
	}
	return out, nil
}

// PostgreSQL's frame option bits (nodes/parsenodes.h), as the planner
// records them in a window call's Value ("frame=<bits> [offset...]").
const (
	frameRows             = 0x00004
	frameGroups           = 0x00008
	frameStartUnbounded   = 0x00020
	frameEndUnboundedPrec = 0x00040
	frameStartUnbFollow   = 0x00080
	frameEndUnbounded     = 0x00100
	frameStartCurrent     = 0x00200
	frameEndCurrent       = 0x00400
	frameStartPreceding   = 0x00800
	frameEndPreceding     = 0x01000
	frameStartFollowing   = 0x02000
	frameEndFollowing     = 0x04000
	frameExclude          = 0x08000 | 0x10000 | 0x20000
)

// frame is a decoded frame clause: the rows of the sorted partition that
// an aggregate or value function sees from position pos.
type frame struct {
	rows                   bool // ROWS; else RANGE over peers
	startKind, endKind     int  // one of the frame*Unbounded/Current/Preceding/Following bits
	startOffset, endOffset int
}

func defaultFrame() frame {
	return frame{startKind: frameStartUnbounded, endKind: frameEndCurrent}
}

// parseFrame reads w.Value; a frame the executor does not model exactly
// (GROUPS, EXCLUDE, RANGE with offsets) is ErrCannotExecute.
func parseFrame(w *plan.Expr) (frame, error) {
	if w.Value == "" {
		return defaultFrame(), nil
	}
	fields := strings.Fields(strings.TrimPrefix(w.Value, "frame="))
	if len(fields) == 0 {
		return frame{}, cannot("window frame %q", w.Value)
	}
	bits, err := strconv.Atoi(fields[0])
	if err != nil {
		return frame{}, cannot("window frame %q", w.Value)
	}
	offs := fields[1:]
	if bits&(frameGroups|frameExclude|frameEndUnboundedPrec|frameStartUnbFollow) != 0 {
		return frame{}, cannot("window %s with a GROUPS or EXCLUDE frame", w.Name)
	}
	f := frame{rows: bits&frameRows != 0}
	next := func() (int, error) {
		if len(offs) == 0 {
			return 0, cannot("window frame %q lacks an offset", w.Value)
		}
		n, err := strconv.Atoi(offs[0])
		offs = offs[1:]
		if err != nil || n < 0 {
			return 0, cannot("window frame offset %q", w.Value)
		}
		return n, nil
	}
	switch {
	case bits&frameStartUnbounded != 0:
		f.startKind = frameStartUnbounded
	case bits&frameStartCurrent != 0:
		f.startKind = frameStartCurrent
	case bits&frameStartPreceding != 0:
		f.startKind = frameStartPreceding
		if f.startOffset, err = next(); err != nil {
			return frame{}, err
		}
	case bits&frameStartFollowing != 0:
		f.startKind = frameStartFollowing
		if f.startOffset, err = next(); err != nil {
			return frame{}, err
		}
	default:
		return frame{}, cannot("window frame start %q", w.Value)
	}
	switch {
	case bits&frameEndUnbounded != 0:
		f.endKind = frameEndUnbounded
	case bits&frameEndCurrent != 0:
		f.endKind = frameEndCurrent
	case bits&frameEndPreceding != 0:
		f.endKind = frameEndPreceding
		if f.endOffset, err = next(); err != nil {
			return frame{}, err
		}
	case bits&frameEndFollowing != 0:
		f.endKind = frameEndFollowing
		if f.endOffset, err = next(); err != nil {
			return frame{}, err
		}
	default:
		// "ROWS x" without BETWEEN ends at the current row.
		f.endKind = frameEndCurrent
	}
	if !f.rows && (f.startKind == frameStartPreceding || f.startKind == frameStartFollowing ||
		f.endKind == frameEndPreceding || f.endKind == frameEndFollowing) {
		return frame{}, cannot("window %s with a RANGE offset frame", w.Name)
	}
	return f, nil
}

// bounds returns the frame [lo, hi] (inclusive, possibly empty when
// lo > hi) at sorted position pos of n rows; first and last are the
// positions of pos's first and last peer.
func (f frame) bounds(pos, first, last, n int) (int, int) {
	lo, hi := 0, n-1
	switch f.startKind {
	case frameStartCurrent:
		lo = pos
		if !f.rows {
			lo = first
		}
	case frameStartPreceding:
		lo = pos - f.startOffset
	case frameStartFollowing:
		lo = pos + f.startOffset
	}
	switch f.endKind {
	case frameEndCurrent:
		hi = pos
		if !f.rows {
			hi = last
		}
	case frameEndPreceding:
		hi = pos - f.endOffset
	case frameEndFollowing:
		hi = pos + f.endOffset
	}
	return max(lo, 0), min(hi, n-1)
}

// windowFunc computes window call w for every row of in, handing each
// result to set with the row's index.
func (x *executor) windowFunc(w *plan.Expr, in *rel, outer *env, set func(int, Value)) error {
	fr, err := parseFrame(w)
	if err != nil {
		return err
	}
	order, parts, err := x.partitions(w, in, outer)
	if err != nil {
		return err
	}
	for _, k := range order {
		if err := x.windowPartition(w, fr, in, parts[k], outer, set); err != nil {
			return err
		}
	}
	return nil
}

// partitions groups the rows of in by w's partition key: parts maps a
// key to its rows' indexes, order lists the keys by first appearance.
func (x *executor) partitions(w *plan.Expr, in *rel, outer *env) (order []string, parts map[string][]int, err error) {
	parts = map[string][]int{}
	reps := map[string]string{}
	for i, row := range in.rows {
		e := &env{r: in, row: row, outer: outer}
		key := make([]Value, len(w.Partition))
		for j, p := range w.Partition {
			v, err := x.eval(p, e)
			if err != nil {
				return nil, nil, err
			}
			key[j] = v
		}
		k := rowKey(key)
		if x.coll {
			var err error
			if k, err = looseRowKey(key, reps); err != nil {
				return nil, nil, err
			}
		}
		if _, ok := parts[k]; !ok {
			order = append(order, k)
		}
		parts[k] = append(parts[k], i)
	}
	return order, parts, nil
}

// windowPartition computes w over one partition, the rows idx of in,
// sorted by w's ORDER BY, and hands each row's value to set.
func (x *executor) windowPartition(w *plan.Expr, fr frame, in *rel, idx []int, outer *env, set func(int, Value)) error {
	sub := x.newRel(in.cols)
	for _, i := range idx {
		sub.rows = append(sub.rows, in.rows[i])
	}
	perm, ties, err := x.sortRows(w.Order, sub, outer)
	if err != nil {
		return err
	}
	n := len(perm)
	// Functions that see single rows by position (ROWS frames, value
	// and navigation functions, row_number, ntile) depend on how the
	// database orders peers; with peers in the partition the result
	// may differ between runs of the same query. Peers that are the
	// same row in every column (a table without a key holding a row
	// twice) are interchangeable: every order of them gives the same
	// bag of rows, so they leave the result determined.
	hasPeers := false
	for p := 1; p < n; p++ {
		if ties[p] == ties[p-1] && !identicalRows(sub.rows[perm[p]], sub.rows[perm[p-1]]) {
			hasPeers = true
		}
	}
	for pos, j := range perm {
		first, last := pos, pos
		for first > 0 && ties[first-1] == ties[pos] {
			first--
		}
		for last+1 < n && ties[last+1] == ties[pos] {
			last++
		}
		rowEnv := &env{r: sub, row: sub.rows[j], outer: outer}
		var v Value
		switch w.Name {
		case "row_number":
			if first != last && hasPeers {
				x.nondet = true
			}
			v = Int(int64(pos + 1))
		case "rank":
			v = Int(int64(first + 1))
		case "dense_rank":
			v = Int(int64(ties[pos] + 1))
		case "percent_rank":
			v = Float(0)
			if n > 1 {
				v = Float(float64(first) / float64(n-1))
			}
		case "cume_dist":
			v = Float(float64(last+1) / float64(n))
		case "ntile":
			if v, err = x.ntile(w, rowEnv, pos, n); err != nil {
				return err
			}
			if hasPeers {
				x.nondet = true
			}
		case "lag", "lead":
			if v, err = x.lagLead(w, sub, perm, pos, rowEnv, outer); err != nil {
				return err
			}
			if hasPeers {
				x.nondet = true
			}
		case "first_value", "last_value", "nth_value":
			lo, hi := fr.bounds(pos, first, last, n)
			if v, err = x.valueAt(w, sub, perm, lo, hi, rowEnv, outer); err != nil {
				return err
			}
			if hasPeers {
				x.nondet = true
			}
		case "count", "sum", "avg", "min", "max", "bool_and", "bool_or", "every", "bit_and", "bit_or", "bit_xor":
			lo, hi := fr.bounds(pos, first, last, n)
			if fr.rows && hasPeers && !(lo == 0 && hi == n-1) {
				x.nondet = true
			}
			frameRows := make([][]Value, 0, max(hi-lo+1, 0))
			for p := lo; p <= hi; p++ {
				frameRows = append(frameRows, sub.rows[perm[p]])
			}
			agg := &plan.Expr{Kind: plan.Agg, Name: w.Name, Typ: w.Typ, Args: w.Args, Star: w.Star, Distinct: w.Distinct, Filter: w.Filter}
			if v, err = x.aggCall(agg, sub, frameRows, outer); err != nil {
				return err
			}
		default:
			return cannot("window function %s", w.Name)
		}
		set(idx[j], v)
	}
	return nil
}

// intArg evaluates argument i of w as an integer on the current row, or
// def when w has no such argument.
func (x *executor) intArg(w *plan.Expr, i int, e *env, def int64) (int64, bool, error) {
	if len(w.Args) <= i {
		return def, true, nil
	}
	v, err := x.eval(w.Args[i], e)
	if err != nil {
		return 0, false, err
	}
	if v.IsNull() {
		return 0, false, nil
	}
	if v.K != KInt {
		return 0, false, cannot("%s with a %s argument", w.Name, kindName(v.K))
	}
	return v.I, true, nil
}

// ntile: PostgreSQL gives the first n % buckets buckets one row more.
func (x *executor) ntile(w *plan.Expr, e *env, pos, n int) (Value, error) {
	b, ok, err := x.intArg(w, 0, e, 0)
	if err != nil || !ok {
		return Null, err
	}
	if b <= 0 {
		return Null, queryErr("argument of ntile must be greater than zero")
	}
	size, extra := int64(n)/b, int64(n)%b
	p := int64(pos)
	if size == 0 {
		return Int(p + 1), nil
	}
	if p < extra*(size+1) {
		return Int(p/(size+1) + 1), nil
	}
	return Int(extra + (p-extra*(size+1))/size + 1), nil
}

// lagLead reads its argument on the row offset rows before (lag) or after
// (lead) the current one in the partition's order, or the default.
func (x *executor) lagLead(w *plan.Expr, sub *rel, perm []int, pos int, e *env, outer *env) (Value, error) {
	if len(w.Args) == 0 || len(w.Args) > 3 {
		return Null, cannot("%s of %d arguments", w.Name, len(w.Args))
	}
	if len(w.Args) == 3 && (x.mentionsBp(w.Args[0]) || x.mentionsBp(w.Args[2])) {
		// The result type is resolved from the value and the default
		// (see bpchar.go).
		return Null, cannot("%s with a default beside a char(n) value", w.Name)
	}
	off, ok, err := x.intArg(w, 1, e, 1)
	if err != nil || !ok {
		return Null, err
	}
	if w.Name == "lag" {
		off = -off
	}
	t := int64(pos) + off
	if t < 0 || t >= int64(len(perm)) {
		if len(w.Args) < 3 {
			return Null, nil
		}
		return x.eval(w.Args[2], e)
	}
	return x.eval(w.Args[0], &env{r: sub, row: sub.rows[perm[t]], outer: outer})
}

// valueAt evaluates first_value, last_value or nth_value over the frame
// [lo, hi] of the sorted partition.
func (x *executor) valueAt(w *plan.Expr, sub *rel, perm []int, lo, hi int, e *env, outer *env) (Value, error) {
	if len(w.Args) == 0 || (w.Name == "nth_value") != (len(w.Args) == 2) || len(w.Args) > 2 {
		return Null, cannot("%s of %d arguments", w.Name, len(w.Args))
	}
	at := lo
	switch w.Name {
	case "last_value":
		at = hi
	case "nth_value":
		k, ok, err := x.intArg(w, 1, e, 1)
		if err != nil || !ok {
			return Null, err
		}
		if k <= 0 {
			return Null, queryErr("argument of nth_value must be greater than zero")
		}
		if k > int64(hi-lo+1) {
			return Null, nil
		}
		at = lo + int(k) - 1
	}
	if lo > hi || at > hi {
		return Null, nil
	}
	return x.eval(w.Args[0], &env{r: sub, row: sub.rows[perm[at]], outer: outer})
}

// identicalRows reports whether a and b hold the same values, told apart
// as the output would (1 and 1.0, -0 and 0, 'a' and 'A' under NOCASE are
// different): rows no later operator can distinguish.
func identicalRows(a, b []Value) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if x.K != y.K || x.B != y.B || x.Scale != y.Scale || x.String() != y.String() {
			return false
		}
	}
	return true
}
