-- metrics: SQLite affinities (an INTEGER column holds 5.5 and 'x', a
-- column without a type holds anything), a nullable TEXT primary key,
-- NUMERIC and REAL columns, a multi-column CHECK.
CREATE TABLE sensor (
  name TEXT PRIMARY KEY COLLATE NOCASE,
  site TEXT,
  lo INT,
  hi INT,
  CHECK (lo <= hi)
);
CREATE TABLE reading (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  sensor TEXT NOT NULL REFERENCES sensor (name),
  val INTEGER,
  ratio REAL CHECK (ratio IS NULL OR ratio BETWEEN 0 AND 1),
  raw,
  num NUMERIC,
  label VARCHAR(5),
  flag BOOLEAN
);
