package dbfree

import (
	pg "github.com/pganalyze/pg_query_go/v5"
)

// SAVEPOINT, RELEASE [SAVEPOINT] and ROLLBACK TO [SAVEPOINT] behave as in
// PostgreSQL, though nothing is ever written: drivers and ORMs (psycopg 3's
// nested transaction(), SQLAlchemy's begin_nested()) track the names and
// the transaction status, so the endpoint keeps a stack of names per
// connection and answers the same errors a server would:
//
//   - outside a transaction block each is 25P01 "... can only be used in
//     transaction blocks";
//   - RELEASE or ROLLBACK TO of a name not on the stack is 3B001, which
//     fails the transaction;
//   - in a failed transaction only ROLLBACK TO (of a known name) is
//     accepted, and it makes the transaction usable again ('T').

// Savepoint operations of a localQuery.
const (
	spDefine   = 'S'
	spRelease  = 'L'
	spRollback = 'K'
)

// savepointQuery is the local answer of a savepoint statement; nil for
// other transaction statements.
func savepointQuery(ts *pg.TransactionStmt) *localQuery {
	switch ts.Kind {
	case pg.TransactionStmtKind_TRANS_STMT_SAVEPOINT:
		return &localQuery{tag: "SAVEPOINT", savepoint: spDefine, spName: ts.SavepointName}
	case pg.TransactionStmtKind_TRANS_STMT_RELEASE:
		return &localQuery{tag: "RELEASE", savepoint: spRelease, spName: ts.SavepointName}
	case pg.TransactionStmtKind_TRANS_STMT_ROLLBACK_TO:
		return &localQuery{tag: "ROLLBACK", savepoint: spRollback, spName: ts.SavepointName}
	}
	return nil
}

// runSavepoint applies a savepoint statement to the connection's stack.
func (q *localQuery) runSavepoint(c *conn) *pgError {
	if c.sess.Tx.Idle() {
		what := map[byte]string{spDefine: "SAVEPOINT", spRelease: "RELEASE SAVEPOINT", spRollback: "ROLLBACK TO SAVEPOINT"}[q.savepoint]
		return errorf("25P01", "%s can only be used in transaction blocks", what)
	}
	if q.savepoint == spDefine {
		c.savepoints = append(c.savepoints, q.spName)
		return nil
	}
	i := len(c.savepoints) - 1
	for i >= 0 && c.savepoints[i] != q.spName {
		i--
	}
	if i < 0 {
		return errorf("3B001", "savepoint %q does not exist", q.spName)
	}
	if q.savepoint == spRelease {
		c.savepoints = c.savepoints[:i]
		return nil
	}
	// ROLLBACK TO keeps the savepoint itself and ends a failed state.
	c.savepoints = c.savepoints[:i+1]
	c.sess.Tx.Recover()
	return nil
}
