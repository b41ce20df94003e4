package prove_test

import (
	"testing"
)

// TestSortKeysUnderEqualities: a sort key may be any column equal to it
// on every row of the sort's input, and an ordered or limited derived
// table's conditions (and its self-join on a key) hold in the block above
// it. Each "false" row differs on some database (the equality is padded
// by an outer join or holds under OR only, the self-join is not on a
// key), so a proof of it would be wrong. (The planner already writes
// keys equal under a block's own equalities alike; these pairs differ
// only after a rewrite of the prover.)
func TestSortKeysUnderEqualities(t *testing.T) {
	cases := []ruleCase{
		{name: "self-join on a key under a sort",
			a:    "SELECT a.id, a.w FROM o a JOIN o b ON a.id = b.id ORDER BY b.id",
			b:    "SELECT id, w FROM o ORDER BY id",
			want: true, rule: "self-join-on-key"},
		{name: "self-join on a key under a limit",
			a:    "SELECT a.id, a.w FROM o a JOIN o b ON a.id = b.id ORDER BY b.id DESC LIMIT 3",
			b:    "SELECT id, w FROM o ORDER BY id DESC LIMIT 3",
			want: true, rule: "self-join-on-key"},
		{name: "self-join on another column",
			a:    "SELECT a.id, a.w FROM o a JOIN o b ON a.w = b.w ORDER BY b.id",
			b:    "SELECT id, w FROM o ORDER BY id",
			want: false},
		{name: "left join pads the equal column",
			a:    "SELECT o.id, l.lid FROM o LEFT JOIN l ON l.oid = o.id ORDER BY o.id, l.lid",
			b:    "SELECT o.id, l.lid FROM o LEFT JOIN l ON l.oid = o.id ORDER BY l.oid, l.lid",
			want: false},
		{name: "equality under or",
			a:    "SELECT o.id, l.lid FROM o JOIN l ON l.oid = o.id OR l.k = 1 ORDER BY o.id, l.lid",
			b:    "SELECT o.id, l.lid FROM o JOIN l ON l.oid = o.id OR l.k = 1 ORDER BY l.oid, l.lid",
			want: false},
		{name: "left-joined derived table",
			a:    "SELECT x.id, x.oid FROM (SELECT o.id, l.oid FROM o LEFT JOIN l ON l.oid = o.id ORDER BY o.id LIMIT 4) x",
			b:    "SELECT x.id, x.id FROM (SELECT o.id, l.oid FROM o LEFT JOIN l ON l.oid = o.id ORDER BY o.id LIMIT 4) x",
			want: false},
	}
	runRuleCases(t, unnestDDL, cases)
}
