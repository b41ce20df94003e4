-- shop: keys and foreign keys added by ALTER TABLE (as pg_dump writes
-- them), column, table and multi-column CHECKs, domains with NOT NULL and
-- CHECK, an enum, a nondeterministic ICU collation, a generated column,
-- expression and partial unique indexes, a deferrable foreign key and
-- unique key, and the types of issue 18.
CREATE COLLATION ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
CREATE TYPE order_status AS ENUM ('new', 'paid', 'shipped', 'cancelled');
CREATE DOMAIN posint AS integer NOT NULL CHECK (VALUE > 0);
CREATE DOMAIN pct AS numeric(5,2) CHECK (VALUE >= 0 AND VALUE <= 100);
CREATE TABLE customer (
    id integer,
    name text COLLATE ci NOT NULL,
    email varchar(12),
    tier smallint NOT NULL DEFAULT 1 CHECK (tier BETWEEN 1 AND 3),
    code char(3)
);
ALTER TABLE customer ADD PRIMARY KEY (id);
ALTER TABLE customer ADD CONSTRAINT customer_email_key UNIQUE (email);
ALTER TABLE customer ADD CONSTRAINT customer_code_key UNIQUE (code) DEFERRABLE INITIALLY DEFERRED;
CREATE TABLE item (
    id integer,
    sku text NOT NULL,
    qty integer NOT NULL CHECK (qty > 0),
    price numeric(10,2) CHECK (price >= 0),
    weight real,
    discount pct,
    total numeric GENERATED ALWAYS AS (price * qty) STORED,
    active boolean NOT NULL DEFAULT true,
    CONSTRAINT item_weight_price CHECK (weight IS NULL OR price IS NOT NULL)
);
ALTER TABLE item ADD PRIMARY KEY (id);
CREATE UNIQUE INDEX item_sku_lower ON item (lower(sku));
CREATE UNIQUE INDEX item_sku_active ON item (sku) WHERE active;
CREATE TABLE orders (
    id integer NOT NULL,
    customer_id integer,
    item_id integer,
    amount posint,
    status order_status NOT NULL DEFAULT 'new',
    placed timestamptz NOT NULL,
    shipped timestamptz,
    wait interval,
    note json,
    meta jsonb,
    CONSTRAINT orders_dates CHECK (shipped IS NULL OR shipped >= placed)
);
ALTER TABLE orders ADD CONSTRAINT orders_pkey PRIMARY KEY (id);
ALTER TABLE orders ALTER COLUMN item_id SET NOT NULL;
ALTER TABLE orders ADD CONSTRAINT orders_customer_fk FOREIGN KEY (customer_id) REFERENCES customer (id);
ALTER TABLE orders ADD CONSTRAINT orders_item_fk FOREIGN KEY (item_id) REFERENCES item (id) DEFERRABLE INITIALLY DEFERRED;
ALTER TABLE orders ADD CONSTRAINT orders_amount_status CHECK (amount < 100 OR status <> 'new');
