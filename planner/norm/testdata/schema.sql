-- The schema of the normalizer's rule files: the bundled example schema
-- (planner/catalog/example.sql, a dog kennel) and tables with what it
-- lacks: a composite primary key, a nullable UNIQUE column, a NOT NULL
-- UNIQUE column, a unique index, float, real and numeric columns.
CREATE TABLE breeds (
  breed_code text PRIMARY KEY,
  breed_name text NOT NULL UNIQUE
);
CREATE TABLE owners (
  owner_id   integer PRIMARY KEY,
  first_name text NOT NULL,
  last_name  text NOT NULL,
  city       text,
  email      text UNIQUE
);
CREATE TABLE dogs (
  dog_id        integer PRIMARY KEY,
  owner_id      integer NOT NULL REFERENCES owners (owner_id),
  breed_code    text REFERENCES breeds (breed_code),
  name          text,
  age           integer,
  weight        numeric,
  date_of_birth date
);
CREATE TABLE professionals (
  professional_id integer PRIMARY KEY,
  role_code       text NOT NULL,
  first_name      text,
  city            text
);
CREATE TABLE treatments (
  treatment_id    integer PRIMARY KEY,
  dog_id          integer NOT NULL REFERENCES dogs (dog_id),
  professional_id integer REFERENCES professionals (professional_id),
  cost            numeric NOT NULL,
  treated_on      date
);
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
