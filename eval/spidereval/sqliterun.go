package spidereval

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"
)

// Execution reads results through SQLite's C API (modernc's transpiled
// library) rather than database/sql: the driver turns TEXT stored in a
// DATE, DATETIME or TIMESTAMP column into time.Time, and the official
// script compares the text Python's sqlite3 returns. Values come back as
// Python's sqlite3 gives them: int64, float64, string (invalid UTF-8
// dropped, as its text_factory decode(errors="ignore") does), []byte, nil.

// errTimeout is a query interrupted at the per-query timeout.
var errTimeout = errors.New("timed out")

// queryFile runs one query on a database file opened read-only and
// immutable (the file is never written, nor its journal), and returns
// its rows. A query error is returned as an error; so is a second
// statement in the text, which Python's cursor.execute refuses.
func queryFile(ctx context.Context, path, query string, timeout time.Duration) (rows [][]any, err error) {
	tls := libc.NewTLS()
	defer tls.Close()
	uri := "file:" + escapeURIPath(path) + "?mode=ro&immutable=1"
	cURI, err := libc.CString(uri)
	if err != nil {
		return nil, err
	}
	defer libc.Xfree(tls, cURI)
	pp := tls.Alloc(2 * ptrSize)
	defer tls.Free(2 * ptrSize)
	libc.Xmemset(tls, pp, 0, 2*ptrSize)
	ppDB, ppTail := pp, pp+ptrSize
	rc := sqlite3.Xsqlite3_open_v2(tls, cURI, ppDB, sqlite3.SQLITE_OPEN_READONLY|sqlite3.SQLITE_OPEN_URI, 0)
	db := readPtr(ppDB)
	if db != 0 {
		defer sqlite3.Xsqlite3_close_v2(tls, db)
	}
	if rc != sqlite3.SQLITE_OK {
		return nil, fmt.Errorf("open %s: %s", path, errmsg(tls, db, rc))
	}
	// The timeout interrupts the query from another goroutine, on a TLS
	// of its own (sqlite3_interrupt is safe to call from any thread).
	var mu sync.Mutex
	done, timedOut := false, false
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	stop := context.AfterFunc(tctx, func() {
		mu.Lock()
		defer mu.Unlock()
		if !done {
			timedOut = true
			t := libc.NewTLS()
			sqlite3.Xsqlite3_interrupt(t, db)
			t.Close()
		}
	})
	defer func() {
		stop()
		mu.Lock()
		done = true
		if timedOut && err != nil {
			err = errTimeout
		}
		mu.Unlock()
	}()
	cSQL, err := libc.CString(query)
	if err != nil {
		return nil, err
	}
	defer libc.Xfree(tls, cSQL)
	ppStmt := tls.Alloc(ptrSize)
	defer tls.Free(ptrSize)
	if rc := sqlite3.Xsqlite3_prepare_v2(tls, db, cSQL, -1, ppStmt, ppTail); rc != sqlite3.SQLITE_OK {
		return nil, errors.New(errmsg(tls, db, rc))
	}
	stmt := readPtr(ppStmt)
	tail := readPtr(ppTail)
	if stmt != 0 {
		defer sqlite3.Xsqlite3_finalize(tls, stmt)
	}
	if tail != 0 && !onlyBlank(libc.GoString(tail)) {
		return nil, errors.New("You can only execute one statement at a time.")
	}
	if stmt == 0 {
		return nil, nil // blank text: Python returns no rows
	}
	n := int(sqlite3.Xsqlite3_column_count(tls, stmt))
	for {
		switch rc := sqlite3.Xsqlite3_step(tls, stmt); rc {
		case sqlite3.SQLITE_ROW:
			row := make([]any, n)
			for i := range row {
				row[i] = column(tls, stmt, int32(i))
			}
			rows = append(rows, row)
		case sqlite3.SQLITE_DONE:
			return rows, nil
		default:
			return nil, errors.New(errmsg(tls, db, rc))
		}
	}
}

func column(tls *libc.TLS, stmt uintptr, i int32) any {
	switch sqlite3.Xsqlite3_column_type(tls, stmt, i) {
	case sqlite3.SQLITE_INTEGER:
		return int64(sqlite3.Xsqlite3_column_int64(tls, stmt, i))
	case sqlite3.SQLITE_FLOAT:
		return sqlite3.Xsqlite3_column_double(tls, stmt, i)
	case sqlite3.SQLITE_TEXT:
		p := sqlite3.Xsqlite3_column_text(tls, stmt, i)
		return strings.ToValidUTF8(string(bytesAt(p, sqlite3.Xsqlite3_column_bytes(tls, stmt, i))), "")
	case sqlite3.SQLITE_BLOB:
		p := sqlite3.Xsqlite3_column_blob(tls, stmt, i)
		return bytesAt(p, sqlite3.Xsqlite3_column_bytes(tls, stmt, i))
	}
	return nil
}

// bytesAt copies n bytes of C memory at p.
func bytesAt(p uintptr, n int32) []byte {
	if p == 0 || n <= 0 {
		return []byte{}
	}
	return libc.GoBytes(p, int(n))
}

// readPtr reads the pointer SQLite stored at p (memory of tls.Alloc,
// ptrSize bytes).
func readPtr(p uintptr) uintptr {
	if ptrSize == 4 {
		return uintptr(binary.NativeEndian.Uint32(libc.GoBytes(p, 4)))
	}
	return uintptr(binary.NativeEndian.Uint64(libc.GoBytes(p, 8)))
}

// ptrSize is the size of a C pointer, a uintptr's.
const ptrSize = 4 << (^uintptr(0) >> 63)

func errmsg(tls *libc.TLS, db uintptr, rc int32) string {
	if db == 0 {
		return fmt.Sprintf("sqlite error %d", rc)
	}
	return libc.GoString(sqlite3.Xsqlite3_errmsg(tls, db))
}

// onlyBlank reports whether a statement's tail holds only white space
// and comments (what Python's sqlite3 skips before refusing a second
// statement).
func onlyBlank(s string) bool {
	for {
		s = strings.TrimLeft(s, " \t\r\n\f\v")
		switch {
		case s == "":
			return true
		case strings.HasPrefix(s, "--"):
			i := strings.IndexByte(s, '\n')
			if i < 0 {
				return true
			}
			s = s[i+1:]
		case strings.HasPrefix(s, "/*"):
			i := strings.Index(s[2:], "*/")
			if i < 0 {
				return true
			}
			s = s[i+4:]
		default:
			return false
		}
	}
}

// escapeURIPath escapes what a file: URI reads specially in a path.
func escapeURIPath(p string) string {
	r := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23")
	return r.Replace(p)
}
