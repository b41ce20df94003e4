-- The schema of the normalizer's rule files ("schema schema.sql") and
-- tests: the bundled example schema (planner/catalog/example.sql, a dog
-- kennel) followed by these tables, with what it lacks: a composite
-- primary key, a nullable UNIQUE column, a NOT NULL UNIQUE column, a
-- unique index, float, real and numeric columns.
CREATE TABLE visits (
  dog_id   integer NOT NULL REFERENCES dogs,
  visit_no integer NOT NULL,
  note     text,
  code     text NOT NULL UNIQUE,
  tag      text UNIQUE,
  PRIMARY KEY (dog_id, visit_no)
);
CREATE TABLE tags (label text NOT NULL, grp text);
CREATE UNIQUE INDEX tags_label ON tags (label);
CREATE TABLE readings (id integer PRIMARY KEY, f double precision, r real, d numeric(10,2));
CREATE TABLE events (id integer PRIMARY KEY, at timestamp, atz timestamptz, at3 timestamp(3));
