package dbfree

import (
	"encoding/binary"
	"math"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgproto3"
	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/pgequiv/pgequiv/internal/pgtypes"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/proxy/tag"
)

// What psql, drivers and BI tools send on connect is answered here, from
// the connection and the loaded schema, so that they can connect and show
// what is judged against:
//
//   - BEGIN / START TRANSACTION, COMMIT / END, ROLLBACK / ABORT: they move
//     the transaction status only (nothing is ever written);
//   - SET / RESET of other settings: accepted and ignored (RESET ALL also
//     clears the pgequiv settings);
//   - SHOW of a startup parameter (server_version, TimeZone, ...) or
//     transaction_isolation;
//   - SELECT without FROM of constants, version(), current_database(),
//     current_schema(), current_user, session_user, user;
//   - SELECT * or columns FROM pgequiv.tables / pgequiv.columns, with an
//     optional WHERE column = 'value' [AND ...].

// localCol is a column of a local answer: text, int4 or bool.
type localCol struct {
	name string
	oid  uint32
}

// localQuery is a statement the endpoint answers itself.
type localQuery struct {
	cols []localCol
	// rows returns the rows' values in text form (nil: NULL).
	rows func(c *conn) [][]*string
	// bound, when set, answers an Execute from its Bind's parameters
	// (text format) instead of rows: a catalog query with $n.
	bound func(c *conn, params [][]byte) ([][]*string, *pgError)
	// tag is the command tag; empty: SELECT n.
	tag string
	// tx moves the transaction status: 'B' begin, 'C' commit, 'R'
	// rollback; 0 none.
	tx byte
	// resetAll: RESET ALL / DISCARD ALL clears the pgequiv settings.
	resetAll bool
	// show names the setting of a SHOW, which must exist.
	show string
	// savepoint is SAVEPOINT, RELEASE or ROLLBACK TO of spName
	// (savepoint.go); 0 none.
	savepoint byte
	spName    string
}

func strp(s string) *string { return &s }

// localParams are the values SHOW answers, beyond the startup parameters.
var localParams = map[string]string{"transaction_isolation": "read committed", "transaction_read_only": "on",
	"search_path": `"$user", public`, "max_identifier_length": "63", "lc_collate": "C", "lc_ctype": "C",
	"standard_conforming_strings": "on"}

// analyzeLocal returns the local answer of one parsed statement, or nil.
func analyzeLocal(sql string, n *pg.Node) *localQuery {
	switch {
	case n.GetTransactionStmt() != nil:
		switch n.GetTransactionStmt().Kind {
		case pg.TransactionStmtKind_TRANS_STMT_BEGIN, pg.TransactionStmtKind_TRANS_STMT_START:
			return &localQuery{tag: "BEGIN", tx: 'B'}
		case pg.TransactionStmtKind_TRANS_STMT_COMMIT:
			return &localQuery{tag: "COMMIT", tx: 'C'}
		case pg.TransactionStmtKind_TRANS_STMT_ROLLBACK:
			return &localQuery{tag: "ROLLBACK", tx: 'R'}
		}
		return savepointQuery(n.GetTransactionStmt())
	case n.GetVariableSetStmt() != nil:
		vs := n.GetVariableSetStmt()
		if vs.Kind == pg.VariableSetKind_VAR_RESET || vs.Kind == pg.VariableSetKind_VAR_RESET_ALL {
			return &localQuery{tag: "RESET", resetAll: vs.Kind == pg.VariableSetKind_VAR_RESET_ALL}
		}
		return &localQuery{tag: "SET"}
	case n.GetDiscardStmt() != nil:
		all := n.GetDiscardStmt().Target == pg.DiscardMode_DISCARD_ALL
		return &localQuery{tag: "DISCARD " + strings.ToUpper(strings.TrimPrefix(n.GetDiscardStmt().Target.String(), "DISCARD_")), resetAll: all}
	case n.GetVariableShowStmt() != nil:
		name := strings.ToLower(n.GetVariableShowStmt().Name)
		return &localQuery{cols: []localCol{{name, pgtypes.Text}}, tag: "SHOW", show: name, rows: func(c *conn) [][]*string {
			v, _ := c.parameter(name)
			return [][]*string{{strp(v)}}
		}}
	case n.GetSelectStmt() != nil:
		if c, found, _ := tag.FindComment(sql); found {
			if _, has := c.Get(tag.KeyRef); has {
				return nil // a tagged query is judged
			}
			if _, has := c.Get(tag.KeyRefID); has {
				return nil
			}
		}
		return analyzeLocalSelect(n.GetSelectStmt())
	}
	return nil
}

// parameter is a setting's value for SHOW.
func (c *conn) parameter(name string) (string, bool) {
	for _, p := range c.greeting {
		if strings.EqualFold(p[0], name) {
			return p[1], true
		}
	}
	v, ok := localParams[name]
	return v, ok
}

func analyzeLocalSelect(sel *pg.SelectStmt) *localQuery {
	if sel.Op != pg.SetOperation_SETOP_NONE || sel.WithClause != nil || sel.IntoClause != nil || len(sel.GroupClause) > 0 ||
		sel.HavingClause != nil || len(sel.DistinctClause) > 0 || len(sel.ValuesLists) > 0 || sel.LimitCount != nil {
		return nil
	}
	if len(sel.FromClause) == 0 {
		if sel.WhereClause != nil {
			return nil
		}
		return probeSelect(sel.TargetList)
	}
	if len(sel.FromClause) != 1 {
		return nil
	}
	rv := sel.FromClause[0].GetRangeVar()
	if rv == nil || !strings.EqualFold(rv.Schemaname, "pgequiv") || rv.Catalogname != "" {
		return nil
	}
	var cols []localCol
	var all func(s *catalog.Schema) [][]*string
	switch strings.ToLower(rv.Relname) {
	case "tables":
		cols = []localCol{{"table_name", pgtypes.Text}, {"table_type", pgtypes.Text}, {"columns", pgtypes.Int4}, {"primary_key", pgtypes.Text}}
		all = tableRows
	case "columns":
		cols = []localCol{{"table_name", pgtypes.Text}, {"column_name", pgtypes.Text}, {"ordinal_position", pgtypes.Int4},
			{"data_type", pgtypes.Text}, {"not_null", pgtypes.Bool}}
		all = columnRows
	default:
		return nil
	}
	pick, ok := pickColumns(sel.TargetList, cols)
	if !ok {
		return nil
	}
	conds, ok := equalities(sel.WhereClause, cols)
	if !ok {
		return nil
	}
	out := make([]localCol, len(pick))
	for i, p := range pick {
		out[i] = cols[p]
	}
	return &localQuery{cols: out, rows: func(c *conn) [][]*string {
		var rows [][]*string
	row:
		for _, r := range all(c.opts.Schema) {
			for ci, v := range conds {
				if r[ci] == nil || *r[ci] != v {
					continue row
				}
			}
			picked := make([]*string, len(pick))
			for i, p := range pick {
				picked[i] = r[p]
			}
			rows = append(rows, picked)
		}
		return rows
	}}
}

func tableRows(s *catalog.Schema) [][]*string {
	var rows [][]*string
	for _, t := range s.Tables {
		kind := "table"
		if t.IsView() {
			kind = "view"
		}
		var pk []string
		for _, o := range t.PrimaryKey {
			pk = append(pk, t.Columns[o].Name)
		}
		rows = append(rows, []*string{strp(t.Name), strp(kind), strp(strconv.Itoa(len(t.Columns))), strp(strings.Join(pk, ", "))})
	}
	return rows
}

func columnRows(s *catalog.Schema) [][]*string {
	var rows [][]*string
	for _, t := range s.Tables {
		for _, col := range t.Columns {
			typ := col.TypeSQL
			if typ == "" {
				typ = col.Type.String()
			}
			rows = append(rows, []*string{strp(t.Name), strp(col.Name), strp(strconv.Itoa(col.Ordinal + 1)), strp(typ),
				strp(map[bool]string{true: "t", false: "f"}[col.NotNull])})
		}
	}
	return rows
}

// pickColumns maps a target list of * or column names to cols.
func pickColumns(targets []*pg.Node, cols []localCol) ([]int, bool) {
	var pick []int
	for _, t := range targets {
		rt := t.GetResTarget()
		cr := rt.GetVal().GetColumnRef()
		if cr == nil || len(cr.Fields) != 1 || rt.Name != "" {
			return nil, false
		}
		if cr.Fields[0].GetAStar() != nil {
			for i := range cols {
				pick = append(pick, i)
			}
			continue
		}
		i := localColumn(cols, cr.Fields[0].GetString_().GetSval())
		if i < 0 {
			return nil, false
		}
		pick = append(pick, i)
	}
	return pick, len(pick) > 0
}

func localColumn(cols []localCol, name string) int {
	for i, c := range cols {
		if c.name == strings.ToLower(name) {
			return i
		}
	}
	return -1
}

// equalities reads WHERE column = 'value' [AND ...] into column → value.
func equalities(where *pg.Node, cols []localCol) (map[int]string, bool) {
	out := map[int]string{}
	if where == nil {
		return out, true
	}
	var walk func(n *pg.Node) bool
	walk = func(n *pg.Node) bool {
		if b := n.GetBoolExpr(); b != nil {
			if b.Boolop != pg.BoolExprType_AND_EXPR {
				return false
			}
			for _, a := range b.Args {
				if !walk(a) {
					return false
				}
			}
			return true
		}
		e := n.GetAExpr()
		if e == nil || e.Kind != pg.A_Expr_Kind_AEXPR_OP || len(e.Name) != 1 || e.Name[0].GetString_().GetSval() != "=" {
			return false
		}
		cr := e.Lexpr.GetColumnRef()
		if cr == nil || len(cr.Fields) != 1 {
			return false
		}
		ci := localColumn(cols, cr.Fields[0].GetString_().GetSval())
		v, ok := constText(e.Rexpr)
		if ci < 0 || !ok {
			return false
		}
		out[ci] = v
		return true
	}
	return out, walk(where)
}

func constText(n *pg.Node) (string, bool) {
	c := n.GetAConst()
	if c == nil || c.Isnull {
		return "", false
	}
	switch v := c.Val.(type) {
	case *pg.A_Const_Sval:
		return v.Sval.Sval, true
	case *pg.A_Const_Ival:
		return strconv.Itoa(int(v.Ival.Ival)), true
	case *pg.A_Const_Boolval:
		return map[bool]string{true: "t", false: "f"}[v.Boolval.Boolval], true
	}
	return "", false
}

// probeSelect answers SELECT of constants and connection functions.
func probeSelect(targets []*pg.Node) *localQuery {
	type value func(c *conn) *string
	var cols []localCol
	var vals []value
	for _, t := range targets {
		rt := t.GetResTarget()
		if rt == nil {
			return nil
		}
		x := rt.GetVal()
		var col localCol
		var val value
		switch {
		case x.GetAConst() != nil:
			s, ok := constText(x)
			if !ok {
				return nil
			}
			col = localCol{"?column?", pgtypes.Text}
			if _, isInt := x.GetAConst().Val.(*pg.A_Const_Ival); isInt {
				col.oid = pgtypes.Int4
			}
			val = func(*conn) *string { return strp(s) }
		case x.GetSqlvalueFunction() != nil:
			switch x.GetSqlvalueFunction().Op {
			case pg.SQLValueFunctionOp_SVFOP_CURRENT_USER, pg.SQLValueFunctionOp_SVFOP_SESSION_USER, pg.SQLValueFunctionOp_SVFOP_USER,
				pg.SQLValueFunctionOp_SVFOP_CURRENT_ROLE:
				name := strings.ToLower(strings.TrimPrefix(x.GetSqlvalueFunction().Op.String(), "SVFOP_"))
				col, val = localCol{name, pgtypes.Text}, func(c *conn) *string { return strp(c.user) }
			case pg.SQLValueFunctionOp_SVFOP_CURRENT_CATALOG:
				col, val = localCol{"current_catalog", pgtypes.Text}, func(c *conn) *string { return strp(c.database) }
			case pg.SQLValueFunctionOp_SVFOP_CURRENT_SCHEMA:
				col, val = localCol{"current_schema", pgtypes.Text}, func(*conn) *string { return strp("public") }
			default:
				return nil
			}
		case x.GetFuncCall() != nil:
			fc := x.GetFuncCall()
			if len(fc.Args) != 0 || len(fc.Funcname) == 0 || len(fc.Funcname) > 2 ||
				len(fc.Funcname) == 2 && !strings.EqualFold(fc.Funcname[0].GetString_().GetSval(), "pg_catalog") {
				return nil
			}
			name := strings.ToLower(fc.Funcname[len(fc.Funcname)-1].GetString_().GetSval())
			switch name {
			case "version":
				val = func(*conn) *string {
					return strp("PostgreSQL " + ServerVersion + ", pgequiv: judging against the loaded schema, no data")
				}
			case "current_database":
				val = func(c *conn) *string { return strp(c.database) }
			case "current_schema":
				val = func(*conn) *string { return strp("public") }
			case "current_user", "session_user":
				val = func(c *conn) *string { return strp(c.user) }
			default:
				return nil
			}
			col = localCol{name, pgtypes.Text}
		default:
			return nil
		}
		if rt.Name != "" {
			col.name = rt.Name
		}
		cols, vals = append(cols, col), append(vals, val)
	}
	if len(cols) == 0 {
		return nil
	}
	return &localQuery{cols: cols, rows: func(c *conn) [][]*string {
		row := make([]*string, len(vals))
		for i, v := range vals {
			row[i] = v(c)
		}
		return [][]*string{row}
	}}
}

// encodeLocal is a text value in the column's text or binary format.
func encodeLocal(v *string, oid uint32, bin bool) []byte {
	if v == nil {
		return nil
	}
	if !bin {
		return []byte(*v)
	}
	switch oid {
	case pgtypes.Int4:
		n, _ := strconv.Atoi(*v)
		return binary.BigEndian.AppendUint32(nil, uint32(int32(n)))
	case pgtypes.Bool:
		if *v == "t" {
			return []byte{1}
		}
		return []byte{0}
	case pgtypes.Int2:
		n, _ := strconv.Atoi(*v)
		return binary.BigEndian.AppendUint16(nil, uint16(int16(n)))
	case pgtypes.Int8:
		n, _ := strconv.ParseInt(*v, 10, 64)
		return binary.BigEndian.AppendUint64(nil, uint64(n))
	case pgtypes.OID:
		n, _ := strconv.ParseUint(*v, 10, 32)
		return binary.BigEndian.AppendUint32(nil, uint32(n))
	case pgtypes.Float4, pgtypes.Float8:
		f, _ := strconv.ParseFloat(*v, 64)
		if oid == pgtypes.Float4 {
			return binary.BigEndian.AppendUint32(nil, math.Float32bits(float32(f)))
		}
		return binary.BigEndian.AppendUint64(nil, math.Float64bits(f))
	}
	return []byte(*v)
}

// run applies the statement's effects and returns its rows, or an error.
func (q *localQuery) run(c *conn) ([][]*string, *pgError) {
	if q.show != "" {
		if _, ok := c.parameter(q.show); !ok {
			return nil, errorf("42704", "unrecognized configuration parameter %q", q.show)
		}
	}
	if q.savepoint != 0 {
		if err := q.runSavepoint(c); err != nil {
			return nil, err
		}
	}
	// COMMIT of a failed transaction rolls it back and says so.
	c.commitRolledBack = false
	switch q.tx {
	case 'B':
		c.sess.Tx.Begin()
	case 'C', 'R':
		c.commitRolledBack = c.sess.Tx.End() && q.tx == 'C'
		c.savepoints = nil
	}
	if q.resetAll {
		c.session = tag.Session{}
	}
	if q.rows == nil {
		return nil, nil
	}
	return q.rows(c), nil
}

// commandTag is the statement's tag after it ran on c and returned n
// rows.
func (q *localQuery) commandTag(c *conn, n int) string {
	if c.commitRolledBack && q.tx == 'C' {
		return "ROLLBACK"
	}
	if q.tag != "" {
		return q.tag
	}
	return "SELECT " + strconv.Itoa(n)
}

func (q *localQuery) rowDescription(formats []int16) *pgproto3.RowDescription {
	rd := &pgproto3.RowDescription{Fields: make([]pgproto3.FieldDescription, len(q.cols))}
	for i, col := range q.cols {
		size := int16(-1)
		switch col.oid {
		case pgtypes.Int4:
			size = 4
		case pgtypes.Bool:
			size = 1
		}
		rd.Fields[i] = pgproto3.FieldDescription{Name: []byte(col.name), DataTypeOID: col.oid, DataTypeSize: size,
			TypeModifier: -1, Format: formatOf(formats, i)}
	}
	return rd
}

func (q *localQuery) dataRow(row []*string, formats []int16) *pgproto3.DataRow {
	dr := &pgproto3.DataRow{Values: make([][]byte, len(row))}
	for i, v := range row {
		dr.Values[i] = encodeLocal(v, q.cols[i].oid, formatOf(formats, i) == 1)
	}
	return dr
}
