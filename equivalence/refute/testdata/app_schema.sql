-- An application schema as an ORM (Django, SQLAlchemy) declares it:
-- surrogate keys, foreign keys, NOT NULL timestamptz and jsonb columns,
-- CHECK-constrained parents, an enum, a domain, arrays, uuid and
-- interval columns. Used by TestAppSchemaBugs (app_pg_test.go).
CREATE TYPE order_state AS ENUM ('new', 'paid', 'shipped', 'cancelled');
CREATE DOMAIN money_cents AS bigint CHECK (VALUE >= 0);

CREATE TABLE users (
    id bigint PRIMARY KEY,
    username varchar(150) NOT NULL UNIQUE,
    email varchar(254) NOT NULL,
    is_active boolean NOT NULL,
    is_staff boolean NOT NULL,
    date_joined timestamptz NOT NULL,
    last_login timestamptz,
    profile jsonb NOT NULL,
    external_id uuid NOT NULL
);

CREATE TABLE posts (
    id bigint PRIMARY KEY,
    author_id bigint NOT NULL REFERENCES users (id),
    title varchar(200) NOT NULL,
    slug varchar(50) NOT NULL UNIQUE,
    body text NOT NULL,
    status varchar(10) NOT NULL CHECK (status IN ('draft', 'published', 'archived')),
    created_at timestamptz NOT NULL,
    published_at timestamptz,
    metadata jsonb NOT NULL,
    tags_cache text[] NOT NULL,
    views integer NOT NULL CHECK (views >= 0)
);

CREATE TABLE comments (
    id bigint PRIMARY KEY,
    post_id bigint NOT NULL REFERENCES posts (id),
    author_id bigint REFERENCES users (id),
    body text NOT NULL,
    approved boolean NOT NULL,
    created_at timestamptz NOT NULL,
    extra jsonb NOT NULL
);

CREATE TABLE tags (
    id bigint PRIMARY KEY,
    name varchar(50) NOT NULL UNIQUE
);

CREATE TABLE post_tags (
    id bigint PRIMARY KEY,
    post_id bigint NOT NULL REFERENCES posts (id),
    tag_id bigint NOT NULL REFERENCES tags (id),
    UNIQUE (post_id, tag_id)
);

CREATE TABLE orders (
    id bigint PRIMARY KEY,
    user_id bigint NOT NULL REFERENCES users (id),
    state order_state NOT NULL,
    total money_cents NOT NULL,
    placed_at timestamptz NOT NULL,
    delivery_window interval NOT NULL,
    payload jsonb NOT NULL
);
