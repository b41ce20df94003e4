package prove

import "context"

// The checker of fragment "predicates" (pred.go): whether hypotheses
// imply a goal, or two terms agree, on every assignment of the finite
// domain (domain.go), splitting a question too large to enumerate.

// checker decides facts over one space.
type checker struct {
	ctx    context.Context
	s      *space
	steps  int // assignments evaluated, for the budget
	splits int // case splits made, for the budget
}

// implies reports whether every assignment that makes all of hyps TRUE
// makes goal TRUE (goal nil: no assignment makes hyps TRUE).
func (c *checker) implies(hyps []*term, goal *term) (bool, error) {
	return c.impliesSplit(hyps, goal, 0)
}

// maxSplitDepth bounds nested case splits; maxSplits all of one check's.
const (
	maxSplitDepth = 4
	maxSplits     = 500
)

// impliesSplit is implies that, when the domain is too large, divides
// the question: a conjunctive goal goal by goal; a disjunctive hypothesis
// case by case ((d1 OR d2) AND rest implies g exactly when each di AND
// rest does); a disjunctive goal by one of its disjuncts (sufficient, not
// necessary). Each part connects fewer variables.
func (c *checker) impliesSplit(hyps []*term, goal *term, depth int) (bool, error) {
	ok, err := c.forAll(hyps, []*term{goal}, func(vals []val) bool {
		if goal == nil {
			return false
		}
		return vals[0].isTrue()
	})
	if err != errTooLarge || depth >= maxSplitDepth || goal == nil {
		return ok, err
	}
	c.splits++
	if c.splits > maxSplits {
		return false, errTooLarge
	}
	if err := c.ctx.Err(); err != nil {
		return false, err
	}
	// Without the disjunctive hypotheses (a weaker premise) the domain
	// may be small enough.
	var atoms []*term
	for _, h := range hyps {
		if h.op != "or" {
			atoms = append(atoms, h)
		}
	}
	if len(atoms) < len(hyps) {
		if ok, err := c.forAll(atoms, []*term{goal}, func(vals []val) bool { return vals[0].isTrue() }); err == nil && ok {
			return true, nil
		} else if err != nil && err != errTooLarge {
			return false, err
		}
	}
	if goal.op == "and" {
		for _, g := range goal.args {
			if ok, err := c.impliesSplit(hyps, g, depth+1); err != nil || !ok {
				return false, err
			}
		}
		return true, nil
	}
	for _, h := range relevant(hyps, []*term{goal}) {
		if h.op != "or" {
			continue
		}
		for _, d := range h.args {
			var cases []*term
			for _, x := range hyps {
				if x != h {
					cases = append(cases, x)
				}
			}
			if d.op == "and" {
				cases = append(cases, d.args...)
			} else {
				cases = append(cases, d)
			}
			ok, err := c.impliesSplit(cases, goal, depth+1)
			if err != nil && err != errTooLarge {
				return false, err
			}
			if !ok {
				return false, errTooLarge
			}
		}
		return true, nil
	}
	if goal.op == "or" {
		for _, g := range goal.args {
			ok, err := c.impliesSplit(hyps, g, depth+1)
			if err != nil && err != errTooLarge {
				return false, err
			}
			if ok {
				return true, nil
			}
		}
	}
	return false, errTooLarge
}

// sameValue reports whether a and b take the same value (NULL alike)
// under every assignment that makes all of hyps TRUE.
func (c *checker) sameValue(hyps []*term, a, b *term) (bool, error) {
	if !sameClass(a, b) {
		return false, nil
	}
	// As one term, so that the domain puts a's and b's values in one
	// group: compared values need points enough to differ.
	return c.implies(hyps, &term{op: plan_notDistinct, cls: clsBool, args: []*term{a, b}})
}

// sameTruth reports whether a is TRUE exactly when b is, under hyps.
func (c *checker) sameTruth(hyps []*term, a, b *term) (bool, error) {
	return c.forAll(hyps, []*term{a, b}, func(vals []val) bool { return vals[0].isTrue() == vals[1].isTrue() })
}

// relevant returns the hypotheses connected to the goals' variables
// through shared variables: the others constrain unrelated values and
// cannot change the answer once the connected ones are satisfiable...
// they are dropped, which only weakens the hypotheses and so stays sound.
func relevant(hyps, goals []*term) []*term {
	seen := map[int]bool{}
	for _, g := range goals {
		if g != nil {
			g.vars(seen)
		}
	}
	hv := make([]map[int]bool, len(hyps))
	for i, h := range hyps {
		hv[i] = map[int]bool{}
		h.vars(hv[i])
	}
	used := make([]bool, len(hyps))
	for changed := true; changed; {
		changed = false
		for i := range hyps {
			if used[i] {
				continue
			}
			touch := len(hv[i]) == 0 && len(seen) == 0
			for v := range hv[i] {
				if seen[v] {
					touch = true
					break
				}
			}
			if touch {
				used[i] = true
				changed = true
				for v := range hv[i] {
					seen[v] = true
				}
			}
		}
	}
	var out []*term
	for i, h := range hyps {
		if used[i] {
			out = append(out, h)
		}
	}
	return out
}

func (c *checker) forAll(hyps, goals []*term, ok func([]val) bool) (bool, error) {
	var live []*term
	for _, g := range goals {
		if g != nil {
			live = append(live, g)
		}
	}
	hyps = relevant(hyps, live)
	all := append(append([]*term(nil), hyps...), live...)
	d, err := c.s.domains(all)
	if err != nil {
		return false, err
	}
	assign := make([]val, len(c.s.vars))
	idx := make([]int, len(d.order))
	for _, v := range d.order {
		assign[v] = d.dom[v][0]
	}
	vals := make([]val, len(live))
	for {
		c.steps++
		if c.steps&1023 == 0 {
			if err := c.ctx.Err(); err != nil {
				return false, err
			}
		}
		holds := true
		for _, h := range hyps {
			if !d.eval(h, assign).isTrue() {
				holds = false
				break
			}
		}
		if holds {
			for i, g := range live {
				vals[i] = d.eval(g, assign)
			}
			if !ok(vals) {
				return false, nil
			}
		}
		// next assignment
		i := 0
		for ; i < len(d.order); i++ {
			v := d.order[i]
			idx[i]++
			if idx[i] < len(d.dom[v]) {
				assign[v] = d.dom[v][idx[i]]
				break
			}
			idx[i] = 0
			assign[v] = d.dom[v][0]
		}
		if i == len(d.order) {
			return true, nil
		}
	}
}
