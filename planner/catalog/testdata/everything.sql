-- A schema that uses every fact the catalog reads; pg_dump'd by
-- TestPgDumpCatalog and introspected by the proxy's test.
CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy');
ALTER TYPE mood ADD VALUE 'meh' BEFORE 'ok';
ALTER TYPE mood ADD VALUE 'ecstatic' AFTER 'happy';
CREATE DOMAIN posint AS integer NOT NULL CHECK (VALUE > 0);
CREATE DOMAIN smallpos AS posint CHECK (VALUE < 1000);
CREATE DOMAIN code AS text CHECK (VALUE ~ '^[A-Z]+$');

CREATE TABLE item (
    id integer NOT NULL,
    sku text NOT NULL,
    qty integer NOT NULL CHECK (qty > 0),
    price numeric(10,2),
    discount numeric(10,2),
    total numeric(12,2) GENERATED ALWAYS AS (price * qty) STORED,
    feel mood,
    stock smallpos,
    tag code,
    active boolean NOT NULL DEFAULT true,
    CONSTRAINT price_over_discount CHECK (discount IS NULL OR price > discount)
);
ALTER TABLE item ADD PRIMARY KEY (id);
ALTER TABLE item ADD CONSTRAINT item_sku_key UNIQUE (sku);
ALTER TABLE item ALTER COLUMN price SET NOT NULL;
ALTER TABLE item ADD CONSTRAINT item_price_check CHECK (price >= 0);
CREATE UNIQUE INDEX item_lower_sku ON item (lower(sku));
CREATE UNIQUE INDEX item_active_tag ON item (tag) WHERE active;

CREATE TABLE supplier (
    sid integer PRIMARY KEY,
    name text
);
CREATE TABLE supply (
    sid integer NOT NULL,
    item_id integer NOT NULL,
    amount integer
);
ALTER TABLE supply ADD CONSTRAINT supply_pkey PRIMARY KEY (sid, item_id);
ALTER TABLE supply ADD CONSTRAINT supply_sid_fkey FOREIGN KEY (sid) REFERENCES supplier (sid);
ALTER TABLE supply ADD CONSTRAINT supply_item_fkey FOREIGN KEY (item_id) REFERENCES item (id) DEFERRABLE INITIALLY DEFERRED;
ALTER TABLE supply ADD CONSTRAINT supply_amount_key UNIQUE (amount) DEFERRABLE;
ALTER TABLE supply ADD CONSTRAINT supply_amount_check CHECK (amount <> 13) NOT VALID;

CREATE TABLE vehicle (
    vid integer PRIMARY KEY,
    wheels integer NOT NULL CHECK (wheels >= 0)
);
CREATE TABLE car (
    seats integer
) INHERITS (vehicle);
ALTER TABLE car ADD PRIMARY KEY (vid);

CREATE TABLE measure (
    city text NOT NULL,
    at date NOT NULL,
    reading integer CHECK (reading > -100)
) PARTITION BY RANGE (at);
CREATE TABLE measure_2020 PARTITION OF measure FOR VALUES FROM ('2020-01-01') TO ('2021-01-01');
CREATE TABLE measure_old PARTITION OF measure FOR VALUES FROM (MINVALUE) TO ('2020-01-01');

CREATE TABLE region (
    code text,
    pop integer
) PARTITION BY LIST (code);
CREATE TABLE region_eu PARTITION OF region FOR VALUES IN ('de', 'fr');
CREATE TABLE region_null PARTITION OF region FOR VALUES IN ('us', NULL);

CREATE VIEW cheap AS SELECT id, sku FROM item WHERE price < 10;
