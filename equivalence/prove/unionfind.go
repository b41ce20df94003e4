package prove

// unionFind partitions values into classes (columns equal on every row,
// variables compared with each other): each value maps toward its
// class's representative; one not in the map is alone in its class.
type unionFind[K comparable] map[K]K

// find returns x's representative, shortening the path to it.
func (uf unionFind[K]) find(x K) K {
	r, ok := uf[x]
	if !ok || r == x {
		return x
	}
	r = uf.find(r)
	uf[x] = r
	return r
}

// union joins the classes of x and y; y's representative stays one.
func (uf unionFind[K]) union(x, y K) {
	if rx, ry := uf.find(x), uf.find(y); rx != ry {
		uf[rx] = ry
	}
}
