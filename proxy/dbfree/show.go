package dbfree

import (
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/pgequiv/pgequiv/internal/pgtypes"
)

// SHOW of a pgequiv setting (pgequiv.reference, pgequiv.reference_id)
// answers with the connection's current value, as PostgreSQL answers
// SHOW: one text column named after the setting, one row, tag SHOW. An
// unset setting is the empty string, as PostgreSQL shows a placeholder
// setting after RESET.

func showRowDescription(name string, formats []int16) *pgproto3.RowDescription {
	return &pgproto3.RowDescription{Fields: []pgproto3.FieldDescription{{
		Name: []byte(name), DataTypeOID: pgtypes.Text, DataTypeSize: -1, TypeModifier: -1, Format: formatOf(formats, 0),
	}}}
}

// showRow is the value's row; text is the same in both formats.
func (c *conn) showRow(name string) *pgproto3.DataRow {
	return &pgproto3.DataRow{Values: [][]byte{[]byte(c.session.Value(name))}}
}
