-- The bundled example schema: a dog kennel. pgequiv uses it when no
-- schema is given, so every command can be tried without a database.
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
