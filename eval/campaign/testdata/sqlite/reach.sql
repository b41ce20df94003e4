-- reach: issue 33's SQLite declarations. Primary keys that are not the
-- rowid (INTEGER(11), UNSIGNED INTEGER, a WITHOUT ROWID table's INTEGER
-- key: each may hold 5.5 or NULL), type names whose affinity surprises
-- (STRING and MONEY are NUMERIC, FLOATING POINT and CHARINT are
-- INTEGER; not DATETIME, which the Go driver reads back as a time), and
-- tables sharing column names at other positions (USING,
-- NATURAL, compound arms of other affinities).
CREATE TABLE team (
  label STRING,
  tid INTEGER(11) PRIMARY KEY,
  score FLOATING POINT,
  code CHARINT,
  born MONEY
);
CREATE TABLE player (
  pid UNSIGNED INTEGER PRIMARY KEY,
  tid INTEGER REFERENCES team (tid),
  label TEXT,
  pts INTEGER,
  year INTEGER
);
CREATE TABLE tally (
  k INTEGER PRIMARY KEY,
  tid INTEGER,
  year TEXT,
  pts REAL
) WITHOUT ROWID;
