CREATE TABLE customer (
  id integer PRIMARY KEY,
  name text NOT NULL,
  city text
);

CREATE TABLE orders (
  id integer PRIMARY KEY,
  customer_id integer NOT NULL REFERENCES customer (id),
  amount integer NOT NULL,
  status text NOT NULL
);
