-- types: equal-looking values that are not the same (issue 18 causes
-- 9-12): char(n) of two widths, varchar, unconstrained numeric, real and
-- double precision, smallint and bigint, timestamp and timestamptz,
-- interval, json and jsonb; a table that can hold no row (CHECK (false));
-- a multi-column CHECK.
CREATE TABLE val (
    id integer PRIMARY KEY,
    c3 char(3),
    c5 char(5),
    vc varchar(4),
    t text,
    n numeric,
    n52 numeric(5,2),
    r real,
    d double precision,
    s smallint,
    b bigint,
    ts timestamp,
    tz timestamptz,
    iv interval,
    j json,
    jb jsonb,
    CONSTRAINT val_range CHECK (s IS NULL OR b IS NULL OR s <= b)
);
CREATE TABLE pair (
    a integer NOT NULL,
    b integer,
    label text NOT NULL,
    UNIQUE (a, b)
);
ALTER TABLE pair ADD PRIMARY KEY (a);
CREATE TABLE never (
    id integer PRIMARY KEY,
    x integer,
    CHECK (false)
);
