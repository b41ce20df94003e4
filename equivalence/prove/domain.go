package prove

import (
	"math/big"
	"sort"
)

// val is a value in a domain: NULL, or a rank among the points of its
// class. Only order and equality of ranks matter to the interpreted
// fragment. Booleans are false 0, true 1.
type val struct {
	null bool
	r    int32
}

func (v val) isTrue() bool { return !v.null && v.r == 1 }

var (
	vNull  = val{null: true}
	vTrue  = val{r: 1}
	vFalse = val{r: 0}
)

func boolVal(b bool) val {
	if b {
		return vTrue
	}
	return vFalse
}

// domains is the finite domain of one check.
type domains struct {
	dom       [][]val // per variable of the space; nil for unused ones
	order     []int   // the variables enumerated
	constRank map[*term]int32
	zero, one int32 // ranks of 0 and 1 in clsNum, for casts of booleans
}

// maxGapPoints bounds the points of a gap; a larger need is too large.
const maxGapPoints = 6

// termScan is what domains reads off the terms: the variables they use,
// the constants of each class, whether a boolean is cast to an integer,
// and the classes of variables that may be compared with each other.
type termScan struct {
	used    map[int]bool
	consts  [clsCount][]constVal
	castInt bool
	uf      unionFind[int]
}

// varSources are the variables whose value t may take: t itself, or the
// branches of a COALESCE, NULLIF or CASE.
func varSources(t *term) []int {
	switch t.op {
	case "var":
		return []int{t.v}
	case "coalesce":
		var out []int
		for _, a := range t.args {
			out = append(out, varSources(a)...)
		}
		return out
	case "nullif":
		return varSources(t.args[0])
	case "case":
		var out []int
		for i, a := range t.args {
			if i%2 == 1 || (t.hasElse && i == len(t.args)-1) {
				out = append(out, varSources(a)...)
			}
		}
		return out
	}
	return nil
}

// scan walks t and its arguments into sc.
func (sc *termScan) scan(t *term) {
	switch t.op {
	case "var":
		sc.used[t.v] = true
	case "const":
		if !t.c.null {
			sc.consts[t.cls] = append(sc.consts[t.cls], t.c)
		}
	case "castint":
		sc.castInt = true
	case "cmp", "in", "notin", plan_isDistinct, plan_notDistinct, "nullif", "coalesce", "case":
		var vs []int
		for _, a := range t.args {
			vs = append(vs, varSources(a)...)
		}
		if t.op == "case" {
			vs = varSources(t)
		}
		if len(vs) > 1 {
			for _, v := range vs[1:] {
				sc.uf.union(v, vs[0])
			}
		}
	}
	for _, a := range t.args {
		sc.scan(a)
	}
	for _, a := range t.strictArgs {
		sc.scan(a)
	}
}

// layout places the points of one class: the rank of each constant (by
// its key) and the points of each gap between them.
type layout struct {
	constRank map[string]int32
	gaps      [][]int32
	consts    []int32
}

// layoutClass lays out class cl with its constants cs, k points a gap
// (the largest group of variables compared with each other), integral
// when all of the class's variables hold whole numbers.
func layoutClass(cl class, cs []constVal, k int, allIntegral bool) (layout, error) {
	l := layout{constRank: map[string]int32{}}
	if k > maxGapPoints {
		return l, errTooLarge
	}
	var r int32
	switch cl {
	case clsBool:
		l.constRank["\"false\""], l.constRank["\"true\""] = 0, 1
		l.consts = []int32{0, 1}
	case clsEq:
		for _, c := range sortedConsts(cs) {
			l.constRank[c.key()] = r
			l.consts = append(l.consts, r)
			r++
		}
		var gap []int32
		for i := 0; i < k; i++ {
			gap = append(gap, r)
			r++
		}
		l.gaps = [][]int32{gap}
	default:
		sorted := sortedConsts(cs)
		integral := (allIntegral || cl == clsDate) && cl != clsTime
		for _, c := range sorted {
			if !c.integral {
				integral = false
			}
		}
		gapPoints := func(lo, hi *big.Rat) []int32 {
			n := k
			if integral && lo != nil && hi != nil {
				diff := new(big.Rat).Sub(hi, lo)
				w := new(big.Int).Sub(diff.Num(), big.NewInt(1)) // whole numbers strictly between
				if w.Cmp(big.NewInt(int64(n))) < 0 {
					n = int(w.Int64())
				}
			}
			var out []int32
			for i := 0; i < n; i++ {
				out = append(out, r)
				r++
			}
			return out
		}
		var prev *big.Rat
		for _, c := range sorted {
			l.gaps = append(l.gaps, gapPoints(prev, c.num))
			l.constRank[c.key()] = r
			l.consts = append(l.consts, r)
			r++
			prev = c.num
		}
		l.gaps = append(l.gaps, gapPoints(prev, nil))
	}
	return l, nil
}

// domains builds the domain of the variables terms mention.
func (s *space) domains(terms []*term) (*domains, error) {
	sc := &termScan{used: map[int]bool{}, uf: unionFind[int]{}}
	for _, t := range terms {
		if t != nil {
			sc.scan(t)
		}
	}
	if sc.castInt {
		sc.consts[clsNum] = append(sc.consts[clsNum], constVal{num: new(big.Rat), integral: true}, constVal{num: big.NewRat(1, 1), integral: true})
	}
	groupSize := map[int]int{}
	for v := range sc.used {
		groupSize[sc.uf.find(v)]++
	}
	maxGroup := [clsCount]int{}
	allIntegral := [clsCount]bool{}
	for i := range allIntegral {
		allIntegral[i] = true
	}
	for v := range sc.used {
		info := s.vars[v]
		if g := groupSize[sc.uf.find(v)]; g > maxGroup[info.cls] {
			maxGroup[info.cls] = g
		}
		if !info.integral {
			allIntegral[info.cls] = false
		}
	}
	d := &domains{dom: make([][]val, len(s.vars)), constRank: map[*term]int32{}}
	var lay [clsCount]layout
	for cl := class(0); cl < clsCount; cl++ {
		l, err := layoutClass(cl, sc.consts[cl], maxGroup[cl], allIntegral[cl])
		if err != nil {
			return nil, err
		}
		lay[cl] = l
	}
	if sc.castInt {
		d.zero = lay[clsNum].constRank[constVal{num: new(big.Rat)}.key()]
		d.one = lay[clsNum].constRank[constVal{num: big.NewRat(1, 1)}.key()]
	}
	for _, t := range terms {
		if t != nil {
			d.rankConsts(t, &lay)
		}
	}
	total := 1
	for v := 0; v < len(s.vars); v++ {
		if !sc.used[v] {
			continue
		}
		info := s.vars[v]
		l := lay[info.cls]
		var dom []val
		if info.nullable {
			dom = append(dom, vNull)
		}
		for _, r := range l.consts {
			dom = append(dom, val{r: r})
		}
		g := groupSize[sc.uf.find(v)]
		for _, gap := range l.gaps {
			for i := 0; i < g && i < len(gap); i++ {
				dom = append(dom, val{r: gap[i]})
			}
		}
		d.dom[v] = dom
		d.order = append(d.order, v)
		total *= len(dom)
		if total > maxAssignments {
			return nil, errTooLarge
		}
	}
	return d, nil
}

// rankConsts records the rank of each non-NULL constant of t.
func (d *domains) rankConsts(t *term, lay *[clsCount]layout) {
	if t.op == "const" && !t.c.null {
		d.constRank[t] = lay[t.cls].constRank[t.c.key()]
	}
	for _, a := range t.args {
		d.rankConsts(a, lay)
	}
	for _, a := range t.strictArgs {
		d.rankConsts(a, lay)
	}
}

const (
	plan_isDistinct  = "is distinct from"
	plan_notDistinct = "is not distinct from"
)

// eval computes t under assign.
func (d *domains) eval(t *term, assign []val) val {
	switch t.op {
	case "var":
		for _, a := range t.strictArgs {
			if d.eval(a, assign).null {
				return vNull
			}
		}
		return assign[t.v]
	case "const":
		if t.c.null {
			return vNull
		}
		return val{r: d.constRank[t]}
	case "and", "or", "not", "is null", "is not null", "is true", "is not true", "is false", "is not false":
		return d.evalLogic(t, assign)
	case plan_isDistinct, plan_notDistinct, "cmp", "in", "notin":
		return d.evalCompare(t, assign)
	case "case", "coalesce", "nullif", "castint":
		return d.evalChoice(t, assign)
	}
	return vNull
}

// evalLogic computes a connective or a truth or NULL test under
// three-valued logic.
func (d *domains) evalLogic(t *term, assign []val) val {
	switch t.op {
	case "and", "or":
		stop := int32(0) // and: a false decides
		if t.op == "or" {
			stop = 1
		}
		sawNull := false
		for _, a := range t.args {
			v := d.eval(a, assign)
			if v.null {
				sawNull = true
			} else if v.r == stop {
				return val{r: stop}
			}
		}
		if sawNull {
			return vNull
		}
		return val{r: 1 - stop}
	case "not":
		v := d.eval(t.args[0], assign)
		if v.null {
			return v
		}
		return val{r: 1 - v.r}
	case "is null":
		return boolVal(d.eval(t.args[0], assign).null)
	case "is not null":
		return boolVal(!d.eval(t.args[0], assign).null)
	case "is true":
		return boolVal(d.eval(t.args[0], assign).isTrue())
	case "is not true":
		return boolVal(!d.eval(t.args[0], assign).isTrue())
	case "is false":
		v := d.eval(t.args[0], assign)
		return boolVal(!v.null && v.r == 0)
	case "is not false":
		v := d.eval(t.args[0], assign)
		return boolVal(v.null || v.r != 0)
	}
	return vNull
}

// evalCompare computes a comparison: NULL when an operand is (but IS
// [NOT] DISTINCT FROM), IN as a disjunction of equalities.
func (d *domains) evalCompare(t *term, assign []val) val {
	switch t.op {
	case plan_isDistinct, plan_notDistinct:
		a, b := d.eval(t.args[0], assign), d.eval(t.args[1], assign)
		same := a == b
		return boolVal(same == (t.op == plan_notDistinct))
	case "cmp":
		a, b := d.eval(t.args[0], assign), d.eval(t.args[1], assign)
		if a.null || b.null {
			return vNull
		}
		switch t.cmp {
		case "=":
			return boolVal(a.r == b.r)
		case "<>":
			return boolVal(a.r != b.r)
		case "<":
			return boolVal(a.r < b.r)
		case "<=":
			return boolVal(a.r <= b.r)
		case ">":
			return boolVal(a.r > b.r)
		case ">=":
			return boolVal(a.r >= b.r)
		}
	case "in", "notin":
		x := d.eval(t.args[0], assign)
		res := vNull
		if !x.null {
			res = vFalse
			for _, a := range t.args[1:] {
				v := d.eval(a, assign)
				if v.null {
					res = vNull
				} else if v.r == x.r {
					res = vTrue
					break
				}
			}
		}
		if t.op == "notin" && !res.null {
			res.r = 1 - res.r
		}
		return res
	}
	return vNull
}

// evalChoice computes the terms that pick one of their arguments (CASE,
// COALESCE, NULLIF) and a boolean cast to an integer.
func (d *domains) evalChoice(t *term, assign []val) val {
	switch t.op {
	case "case":
		n := len(t.args)
		if t.hasElse {
			n--
		}
		for i := 0; i+1 < n; i += 2 {
			if d.eval(t.args[i], assign).isTrue() {
				return d.eval(t.args[i+1], assign)
			}
		}
		if t.hasElse {
			return d.eval(t.args[len(t.args)-1], assign)
		}
		return vNull
	case "coalesce":
		for _, a := range t.args {
			if v := d.eval(a, assign); !v.null {
				return v
			}
		}
		return vNull
	case "nullif":
		a, b := d.eval(t.args[0], assign), d.eval(t.args[1], assign)
		if !a.null && !b.null && a.r == b.r {
			return vNull
		}
		return a
	case "castint":
		v := d.eval(t.args[0], assign)
		if v.null {
			return v
		}
		if v.r == 1 {
			return val{r: d.one}
		}
		return val{r: d.zero}
	}
	return vNull
}

// sortedConsts orders the distinct constants of an ordered class.
func sortedConsts(cs []constVal) []constVal {
	seen := map[string]bool{}
	var out []constVal
	for _, c := range cs {
		if c.null || seen[c.key()] {
			continue
		}
		seen[c.key()] = true
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].num != nil && out[j].num != nil {
			return out[i].num.Cmp(out[j].num) < 0
		}
		return out[i].str < out[j].str
	})
	return out
}
