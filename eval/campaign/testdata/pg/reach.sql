-- reach: issue 33's forms that pg_dump's output cannot hold, written by
-- hand (pg_dump writes a view's columns out and drops rolled-back DDL;
-- there is deliberately no testdata/pgsrc/reach.sql, so TestDumpSchemas
-- leaves this file alone):
--   * views whose SELECT * was frozen before ALTER TABLE ADD COLUMN;
--   * DDL inside BEGIN ... ROLLBACK (a key, a NOT NULL and a CHECK that
--     never existed);
--   * tables sharing column names at other positions (USING, NATURAL);
--   * typed columns whose literals have several spellings (date, time,
--     timestamp, uuid, bytea, int4range, inet).
-- The campaign sends the file as one simple query, where a ROLLBACK
-- would undo every statement before its BEGIN: the tables are created in
-- a block of their own, as psql would commit them one by one.
BEGIN;
CREATE TABLE dept (
    region text,
    code integer PRIMARY KEY,
    title text
);
CREATE TABLE staff (
    id integer PRIMARY KEY,
    code integer REFERENCES dept (code),
    region text,
    pay integer,
    grade integer,
    hired date,
    shift time,
    seen timestamp,
    tag uuid,
    blob bytea,
    span int4range,
    addr inet
);
CREATE VIEW staff_v AS SELECT * FROM staff;
CREATE VIEW dept_v AS SELECT * FROM dept;
ALTER TABLE staff ADD COLUMN bonus integer;
ALTER TABLE dept ADD COLUMN head integer;
COMMIT;
BEGIN;
ALTER TABLE dept ADD CONSTRAINT dept_title_key UNIQUE (title);
ALTER TABLE staff ALTER COLUMN grade SET NOT NULL;
ALTER TABLE staff ADD CONSTRAINT staff_pay_check CHECK (pay > 0);
ROLLBACK;
