--
-- PostgreSQL database dump
--

\restrict FH6EwGbwjPdWulKFZt8Mxe9zYhKi6AytboEc3sl3eNpJjQrk1e5PuP2EdseP2iR

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
-- Name: event; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.event (
    id integer NOT NULL,
    kind text NOT NULL,
    happened timestamp without time zone NOT NULL,
    score double precision,
    CONSTRAINT event_kind_check CHECK ((kind <> ''::text))
);


ALTER TABLE public.event OWNER TO postgres;

--
-- Name: audit_event; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.audit_event (
    actor character varying(8)
)
INHERITS (public.event);


ALTER TABLE public.audit_event OWNER TO postgres;

--
-- Name: measure; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.measure (
    id integer NOT NULL,
    region smallint NOT NULL,
    reading numeric(6,1),
    ratio real,
    taken date NOT NULL,
    CONSTRAINT measure_ratio_check CHECK ((ratio >= (0)::double precision))
)
PARTITION BY RANGE (region);


ALTER TABLE public.measure OWNER TO postgres;

--
-- Name: measure_high; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.measure_high (
    id integer NOT NULL,
    region smallint NOT NULL,
    reading numeric(6,1),
    ratio real,
    taken date NOT NULL,
    CONSTRAINT measure_ratio_check CHECK ((ratio >= (0)::double precision))
);


ALTER TABLE public.measure_high OWNER TO postgres;

--
-- Name: measure_low; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.measure_low (
    id integer NOT NULL,
    region smallint NOT NULL,
    reading numeric(6,1),
    ratio real,
    taken date NOT NULL,
    CONSTRAINT measure_ratio_check CHECK ((ratio >= (0)::double precision))
);


ALTER TABLE public.measure_low OWNER TO postgres;

--
-- Name: site; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.site (
    region smallint NOT NULL,
    label character(4) NOT NULL,
    span interval,
    opened timestamp with time zone
);


ALTER TABLE public.site OWNER TO postgres;

--
-- Name: measure_high; Type: TABLE ATTACH; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.measure ATTACH PARTITION public.measure_high FOR VALUES FROM ('10') TO ('100');


--
-- Name: measure_low; Type: TABLE ATTACH; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.measure ATTACH PARTITION public.measure_low FOR VALUES FROM ('0') TO ('10');


--
-- Name: audit_event audit_event_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.audit_event
    ADD CONSTRAINT audit_event_pkey PRIMARY KEY (id);


--
-- Name: event event_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.event
    ADD CONSTRAINT event_pkey PRIMARY KEY (id);


--
-- Name: measure_high measure_high_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.measure_high
    ADD CONSTRAINT measure_high_pkey PRIMARY KEY (id);


--
-- Name: measure_low measure_low_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.measure_low
    ADD CONSTRAINT measure_low_pkey PRIMARY KEY (id);


--
-- Name: site site_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.site
    ADD CONSTRAINT site_pkey PRIMARY KEY (region);


--
-- PostgreSQL database dump complete
--

\unrestrict FH6EwGbwjPdWulKFZt8Mxe9zYhKi6AytboEc3sl3eNpJjQrk1e5PuP2EdseP2iR

