package exec

// jsonbDelete evaluates jsonb - integer as PostgreSQL 15's
// jsonb_delete_idx does: it removes an array's element at that index
// (negative: from the end), and an index out of range leaves the array
// as it is; a scalar document raises "cannot delete from scalar", an
// object "cannot delete from object using integer index". jsonb - text
// (a key, or string elements) is not modelled: the planner gives its
// operand no type of its own (an unknown literal beside a jsonb), and
// the executor would read it as a jsonb.
func jsonbDelete(a, b Value) (Value, error) {
	if b.K != KInt {
		return Null, cannot("jsonb - %s", kindName(b.K))
	}
	doc, err := parseJSON(a.S)
	if err != nil {
		return Null, err
	}
	switch {
	case doc.scalar():
		return Null, queryErr("cannot delete from scalar")
	case doc.kind == 'o':
		return Null, queryErr("cannot delete from object using integer index")
	}
	n, i := int64(len(doc.vals)), b.I
	if i < 0 {
		i += n
	}
	if i < 0 || i >= n {
		return a, nil
	}
	out := &jnode{kind: 'a'}
	out.vals = append(append(out.vals, doc.vals[:i]...), doc.vals[i+1:]...)
	return Value{K: KJSON, S: out.text()}, nil
}
