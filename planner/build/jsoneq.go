package build

import (
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// refuseJSONEquality refuses, in the postgres dialect, what PostgreSQL
// refuses: json (unlike jsonb) has no equality operator, so DISTINCT,
// GROUP BY and a UNION, INTERSECT or EXCEPT without ALL over a json
// column fail there ("could not identify an equality operator for type
// json", SQLSTATE 42883). Without this, a rule that drops a DISTINCT made
// redundant by a key proved a query the engine rejects equivalent to one
// it runs (the soundness campaign found it).
func (b *builder) refuseJSONEquality(p *plan.Plan) error {
	if b.schema.Dialect != catalog.Postgres {
		return nil
	}
	isJSON := func(c plan.ColumnID) bool {
		d := p.Meta.Domain(c)
		return d.Type == catalog.JSON && d.Base == "json"
	}
	var err error
	p.Root.WalkNodes(func(n *plan.Node) {
		if err != nil {
			return
		}
		var cols []plan.ColumnID
		switch {
		case n.Op == plan.OpDistinct:
			cols = n.OutCols()
		case n.Op == plan.OpAggregate:
			cols = n.GroupBy
		case n.Op == plan.OpSetOp && !n.All:
			cols = n.OutCols()
			for _, s := range n.SetCols {
				cols = append(cols, s...)
			}
		}
		for _, c := range cols {
			if isJSON(c) {
				err = b.errf(-1, "could not identify an equality operator for type json")
				return
			}
		}
	})
	return err
}
