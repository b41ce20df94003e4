-- ledger: inheritance (a scan of event reads audit_event's rows too; each
-- table has its own key) and a range-partitioned table, with timestamp,
-- double precision, numeric(6,1), real and date columns.
CREATE TABLE event (
    id integer NOT NULL,
    kind text NOT NULL CHECK (kind <> ''),
    happened timestamp NOT NULL,
    score double precision,
    PRIMARY KEY (id)
);
CREATE TABLE audit_event (
    actor varchar(8)
) INHERITS (event);
ALTER TABLE audit_event ADD PRIMARY KEY (id);
CREATE TABLE measure (
    id integer NOT NULL,
    region smallint NOT NULL,
    reading numeric(6,1),
    ratio real CHECK (ratio >= 0),
    taken date NOT NULL
) PARTITION BY RANGE (region);
CREATE TABLE measure_low PARTITION OF measure FOR VALUES FROM (0) TO (10);
CREATE TABLE measure_high PARTITION OF measure FOR VALUES FROM (10) TO (100);
ALTER TABLE measure_low ADD PRIMARY KEY (id);
ALTER TABLE measure_high ADD PRIMARY KEY (id);
CREATE TABLE site (
    region smallint NOT NULL,
    label char(4) NOT NULL,
    span interval,
    opened timestamptz,
    PRIMARY KEY (region)
);
