-- shop, as a SQLite database declares it: INTEGER PRIMARY KEY, NOCASE
-- and RTRIM collations, column and table CHECKs, generated columns
-- (stored and virtual), expression and partial unique indexes, a
-- WITHOUT ROWID table, and columns whose affinity holds other types.
CREATE TABLE customer (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL COLLATE NOCASE,
  email TEXT UNIQUE,
  tier INT NOT NULL DEFAULT 1 CHECK (tier BETWEEN 1 AND 3)
);
CREATE TABLE item (
  id INTEGER NOT NULL PRIMARY KEY,
  sku TEXT NOT NULL,
  qty INTEGER NOT NULL CHECK (qty > 0),
  price NUMERIC,
  weight REAL,
  code TEXT COLLATE RTRIM,
  total REAL GENERATED ALWAYS AS (price * qty) STORED,
  half INTEGER AS (qty / 2),
  active INTEGER NOT NULL DEFAULT 1,
  CHECK (price >= 0)
);
CREATE UNIQUE INDEX item_sku_lower ON item (lower(sku));
CREATE UNIQUE INDEX item_code_active ON item (code) WHERE active;
CREATE TABLE orders (
  id INTEGER PRIMARY KEY,
  customer_id INTEGER REFERENCES customer (id),
  item_id INTEGER NOT NULL REFERENCES item (id),
  amount INTEGER NOT NULL CHECK (amount > 0),
  status TEXT NOT NULL CHECK (status IN ('new', 'paid', 'shipped', 'cancelled')),
  placed TEXT NOT NULL,
  note TEXT,
  CHECK (amount < 100 OR status <> 'new')
);
CREATE TABLE tag (
  item_id INTEGER NOT NULL,
  label TEXT NOT NULL COLLATE NOCASE,
  score INT,
  PRIMARY KEY (item_id, label)
) WITHOUT ROWID;
