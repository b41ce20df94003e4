package campaign

import "testing"

// TestOrderDiffers: sqlgen orders by one column; the campaign found a
// true not_equivalent (ORDER BY 1 vs ORDER BY 2, no ties in either key)
// that the oracle, comparing bags, called wrong. With no tie in the
// reference's key its order is the only one (one NULL included: it sorts
// first or last); with a tie (two NULLs, or values a NOCASE/RTRIM
// collation sorts alike) the bags decide.
func TestOrderDiffers(t *testing.T) {
	rows := func(vals ...[2]string) result {
		var r result
		for _, v := range vals {
			r.rows = append(r.rows, []cell{{v[0], v[0]}, {v[1], v[1]}})
		}
		return r
	}
	p := Pair{Reference: "SELECT * FROM tag ORDER BY 1 ASC", Candidate: "SELECT * FROM tag ORDER BY 2 ASC"}
	cases := []struct {
		name      string
		p         Pair
		ref, cand result
		want      bool
	}{
		{"the campaign's find", p, rows([2]string{"-1", "a"}, [2]string{"0", ""}), rows([2]string{"0", ""}, [2]string{"-1", "a"}), true},
		{"same order", p, rows([2]string{"-1", "a"}, [2]string{"0", ""}), rows([2]string{"-1", "a"}, [2]string{"0", ""}), false},
		{"tie in the key", p, rows([2]string{"1", "a"}, [2]string{"1", "b"}), rows([2]string{"1", "b"}, [2]string{"1", "a"}), false},
		{"NOCASE tie", Pair{Reference: "SELECT * FROM t ORDER BY 2", Candidate: "SELECT * FROM t ORDER BY 2 DESC"}, rows([2]string{"1", "a"}, [2]string{"2", "A"}), rows([2]string{"2", "A"}, [2]string{"1", "a"}), false},
		{"NULLs tie", p, rows([2]string{"NULL", "a"}, [2]string{"NULL", "b"}), rows([2]string{"NULL", "b"}, [2]string{"NULL", "a"}), false},
		{"a NULL and the text null tie", p, rows([2]string{"NULL", "a"}, [2]string{"null", "b"}), rows([2]string{"null", "b"}, [2]string{"NULL", "a"}), false},
		{"one NULL sorts in one place", p, rows([2]string{"NULL", "a"}, [2]string{"1", "b"}), rows([2]string{"1", "b"}, [2]string{"NULL", "a"}), true},
		// The campaign's second find (seed 1129): sqlgen's NULLS LAST.
		{"NULLS LAST", Pair{Reference: "SELECT num, max(label) FROM reading GROUP BY num ORDER BY 1 DESC NULLS LAST", Candidate: "SELECT num, max(label) FROM reading GROUP BY num ORDER BY 2 DESC NULLS LAST"},
			rows([2]string{"0", "NULL"}, [2]string{"NULL", ""}), rows([2]string{"NULL", ""}, [2]string{"0", "NULL"}), true},
		{"candidate unordered", Pair{Reference: p.Reference, Candidate: "SELECT * FROM tag"}, rows([2]string{"-1", "a"}, [2]string{"0", ""}), rows([2]string{"0", ""}, [2]string{"-1", "a"}), false},
	}
	for _, c := range cases {
		_, got := orderDiffers(c.p, c.ref, c.cand)
		if got != c.want {
			t.Errorf("%s: orderDiffers %v, want %v", c.name, got, c.want)
		}
		o, _ := compareResults(c.p, c.ref, c.cand)
		if (o == differ) != c.want {
			t.Errorf("%s: compareResults %v", c.name, o)
		}
	}
}
