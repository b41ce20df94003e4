package judging

import "github.com/jackc/pgx/v5/pgproto3"

// textOID is PostgreSQL's text type.
const textOID = 25

// showAnswer is PostgreSQL's answer to SHOW name: one text column named
// after the setting, one row, command tag SHOW.
func showAnswer(name, value string) []pgproto3.BackendMessage {
	return []pgproto3.BackendMessage{
		&pgproto3.RowDescription{Fields: []pgproto3.FieldDescription{{
			Name: []byte(name), DataTypeOID: textOID, DataTypeSize: -1, TypeModifier: -1,
		}}},
		&pgproto3.DataRow{Values: [][]byte{[]byte(value)}},
		&pgproto3.CommandComplete{CommandTag: []byte("SHOW")},
	}
}
