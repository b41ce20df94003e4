package plan

// DeriverComputed is how many times d computed a node's properties.
func DeriverComputed(d *Deriver) int { return d.computed }
