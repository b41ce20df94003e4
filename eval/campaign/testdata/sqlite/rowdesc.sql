-- rowdesc: INTEGER PRIMARY KEY DESC is not a rowid alias in SQLite (it
-- may hold 5.5 or NULL, like any INTEGER column), and a text reader that
-- fails on it should fail alone, not take reach.sql's tables with it.
CREATE TABLE stamp (
  s INTEGER PRIMARY KEY DESC,
  tid INTEGER,
  pts INTEGER,
  label TEXT
);
