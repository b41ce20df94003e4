package catalog

import (
	"fmt"

	pg "github.com/pganalyze/pg_query_go/v5"
)

// committed returns the statements of a DDL file that the engine keeps
// once the file has run: DDL is transactional in PostgreSQL and in
// SQLite, so what BEGIN ... ROLLBACK or ROLLBACK TO SAVEPOINT undoes
// never happened, and neither does what a transaction left open at the
// end of the file (psql and sqlite3 roll it back when the session ends).
// The transaction statements themselves are not returned. What was
// undone is reported in dropped; an error is a ROLLBACK TO or RELEASE
// of a savepoint the transaction does not have, which the engine
// refuses.
func committed(stmts []*pg.RawStmt, d Dialect, lineOf func(*pg.RawStmt) int) ([]*pg.RawStmt, []Dropped, error) {
	type mark struct {
		name string // "" for the transaction's start
		at   int    // len(out) when it was set
		line int
	}
	var (
		out      []*pg.RawStmt
		dropped  []Dropped
		marks    []mark // nil outside a transaction block
		prepared = map[string][]*pg.RawStmt{}
	)
	undo := func(to mark, line int, why string) {
		if n := len(out) - to.at; n > 0 {
			dropped = append(dropped, Dropped{Line: line, What: fmt.Sprintf("%s: the %d statement(s) from line %d are undone, not loaded", why, n, to.line)})
		}
		out = out[:to.at]
	}
	find := func(name string) int {
		for i := len(marks) - 1; i > 0; i-- {
			if marks[i].name == name {
				return i
			}
		}
		return -1
	}
	for _, raw := range stmts {
		ts := raw.Stmt.GetTransactionStmt()
		if ts == nil {
			out = append(out, raw)
			continue
		}
		line := lineOf(raw)
		switch ts.Kind {
		case pg.TransactionStmtKind_TRANS_STMT_BEGIN, pg.TransactionStmtKind_TRANS_STMT_START:
			// A BEGIN inside a transaction is a warning in PostgreSQL
			// (and an error in SQLite): the transaction goes on.
			if marks == nil {
				marks = []mark{{at: len(out), line: line}}
			}
		case pg.TransactionStmtKind_TRANS_STMT_COMMIT:
			marks = nil
			if ts.Chain {
				marks = []mark{{at: len(out), line: line}}
			}
		case pg.TransactionStmtKind_TRANS_STMT_ROLLBACK:
			if marks != nil {
				undo(marks[0], line, "ROLLBACK")
			}
			marks = nil
			if ts.Chain {
				marks = []mark{{at: len(out), line: line}}
			}
		case pg.TransactionStmtKind_TRANS_STMT_SAVEPOINT:
			if marks == nil {
				if d != SQLite {
					// PostgreSQL refuses a SAVEPOINT outside a
					// transaction block; nothing changes.
					continue
				}
				// SQLite's SAVEPOINT outside a transaction begins one,
				// which the savepoint's RELEASE commits.
				marks = []mark{{name: "\x00sqlite", at: len(out), line: line}}
			}
			marks = append(marks, mark{name: savepointName(ts.SavepointName, d), at: len(out), line: line})
		case pg.TransactionStmtKind_TRANS_STMT_RELEASE, pg.TransactionStmtKind_TRANS_STMT_ROLLBACK_TO:
			i := -1
			if marks != nil {
				i = find(savepointName(ts.SavepointName, d))
			}
			if i < 0 {
				return nil, nil, fmt.Errorf("catalog: line %d: savepoint %q does not exist", line, ts.SavepointName)
			}
			if ts.Kind == pg.TransactionStmtKind_TRANS_STMT_ROLLBACK_TO {
				undo(marks[i], line, "ROLLBACK TO SAVEPOINT "+ts.SavepointName)
				marks = marks[:i+1] // the savepoint stays
				continue
			}
			marks = marks[:i]
			if len(marks) == 1 && marks[0].name == "\x00sqlite" {
				marks = nil // releasing SQLite's outermost savepoint commits
			}
		case pg.TransactionStmtKind_TRANS_STMT_PREPARE:
			// A prepared transaction's changes are seen only once COMMIT
			// PREPARED commits it.
			if marks != nil {
				prepared[ts.Gid] = append([]*pg.RawStmt(nil), out[marks[0].at:]...)
				undo(marks[0], line, "PREPARE TRANSACTION "+ts.Gid+" (until COMMIT PREPARED)")
			}
			marks = nil
		case pg.TransactionStmtKind_TRANS_STMT_COMMIT_PREPARED:
			out = append(out, prepared[ts.Gid]...)
			delete(prepared, ts.Gid)
		case pg.TransactionStmtKind_TRANS_STMT_ROLLBACK_PREPARED:
			delete(prepared, ts.Gid)
		}
	}
	if marks != nil {
		undo(marks[0], marks[0].line, "a transaction left open at the end (the session's end rolls it back)")
	}
	return out, dropped, nil
}

// savepointName folds a savepoint's name as the dialect matches it.
func savepointName(s string, d Dialect) string {
	if d == SQLite {
		return lower(s)
	}
	return s
}
