-- The part of everything.sql that needs a server with ICU.
CREATE COLLATION ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
CREATE TABLE person (
    pid integer PRIMARY KEY,
    name text COLLATE ci NOT NULL,
    nick text COLLATE "C"
);
