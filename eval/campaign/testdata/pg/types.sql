--
-- PostgreSQL database dump
--

\restrict 9XshReEQyXVfxr2gpjS1jcPdBV1DZSFIPUaaiFAbNnLD6yyXwCk8WRmJsOEoOsK

-- Dumped from database version 15.18 (Debian 15.18-0+deb12u1)
-- Dumped by pg_dump version 15.18 (Debian 15.18-0+deb12u1)

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: never; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.never (
    id integer NOT NULL,
    x integer,
    CONSTRAINT never_check CHECK (false)
);


ALTER TABLE public.never OWNER TO postgres;

--
-- Name: pair; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.pair (
    a integer NOT NULL,
    b integer,
    label text NOT NULL
);


ALTER TABLE public.pair OWNER TO postgres;

--
-- Name: val; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.val (
    id integer NOT NULL,
    c3 character(3),
    c5 character(5),
    vc character varying(4),
    t text,
    n numeric,
    n52 numeric(5,2),
    r real,
    d double precision,
    s smallint,
    b bigint,
    ts timestamp without time zone,
    tz timestamp with time zone,
    iv interval,
    j json,
    jb jsonb,
    CONSTRAINT val_range CHECK (((s IS NULL) OR (b IS NULL) OR (s <= b)))
);


ALTER TABLE public.val OWNER TO postgres;

--
-- Name: never never_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.never
    ADD CONSTRAINT never_pkey PRIMARY KEY (id);


--
-- Name: pair pair_a_b_key; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.pair
    ADD CONSTRAINT pair_a_b_key UNIQUE (a, b);


--
-- Name: pair pair_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.pair
    ADD CONSTRAINT pair_pkey PRIMARY KEY (a);


--
-- Name: val val_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.val
    ADD CONSTRAINT val_pkey PRIMARY KEY (id);


--
-- PostgreSQL database dump complete
--

\unrestrict 9XshReEQyXVfxr2gpjS1jcPdBV1DZSFIPUaaiFAbNnLD6yyXwCk8WRmJsOEoOsK

