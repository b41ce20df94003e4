--
-- PostgreSQL database dump
--

\restrict Eoc3wq4Q1p0huhSSXZekq8LnqU1HMM8GeAFu0uFhurL6LdYdyAMd9PraTk303nw

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

--
-- Name: ci; Type: COLLATION; Schema: public; Owner: postgres
--

CREATE COLLATION public.ci (provider = icu, deterministic = false, locale = 'und-u-ks-level2');


ALTER COLLATION public.ci OWNER TO postgres;

--
-- Name: order_status; Type: TYPE; Schema: public; Owner: postgres
--

CREATE TYPE public.order_status AS ENUM (
    'new',
    'paid',
    'shipped',
    'cancelled'
);


ALTER TYPE public.order_status OWNER TO postgres;

--
-- Name: pct; Type: DOMAIN; Schema: public; Owner: postgres
--

CREATE DOMAIN public.pct AS numeric(5,2)
	CONSTRAINT pct_check CHECK (((VALUE >= (0)::numeric) AND (VALUE <= (100)::numeric)));


ALTER DOMAIN public.pct OWNER TO postgres;

--
-- Name: posint; Type: DOMAIN; Schema: public; Owner: postgres
--

CREATE DOMAIN public.posint AS integer NOT NULL
	CONSTRAINT posint_check CHECK ((VALUE > 0));


ALTER DOMAIN public.posint OWNER TO postgres;

SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: customer; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.customer (
    id integer NOT NULL,
    name text NOT NULL COLLATE public.ci,
    email character varying(12),
    tier smallint DEFAULT 1 NOT NULL,
    code character(3),
    CONSTRAINT customer_tier_check CHECK (((tier >= 1) AND (tier <= 3)))
);


ALTER TABLE public.customer OWNER TO postgres;

--
-- Name: item; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.item (
    id integer NOT NULL,
    sku text NOT NULL,
    qty integer NOT NULL,
    price numeric(10,2),
    weight real,
    discount public.pct,
    total numeric GENERATED ALWAYS AS ((price * (qty)::numeric)) STORED,
    active boolean DEFAULT true NOT NULL,
    CONSTRAINT item_price_check CHECK ((price >= (0)::numeric)),
    CONSTRAINT item_qty_check CHECK ((qty > 0)),
    CONSTRAINT item_weight_price CHECK (((weight IS NULL) OR (price IS NOT NULL)))
);


ALTER TABLE public.item OWNER TO postgres;

--
-- Name: orders; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.orders (
    id integer NOT NULL,
    customer_id integer,
    item_id integer NOT NULL,
    amount public.posint,
    status public.order_status DEFAULT 'new'::public.order_status NOT NULL,
    placed timestamp with time zone NOT NULL,
    shipped timestamp with time zone,
    wait interval,
    note json,
    meta jsonb,
    CONSTRAINT orders_amount_status CHECK ((((amount)::integer < 100) OR (status <> 'new'::public.order_status))),
    CONSTRAINT orders_dates CHECK (((shipped IS NULL) OR (shipped >= placed)))
);


ALTER TABLE public.orders OWNER TO postgres;

--
-- Name: customer customer_code_key; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.customer
    ADD CONSTRAINT customer_code_key UNIQUE (code) DEFERRABLE INITIALLY DEFERRED;


--
-- Name: customer customer_email_key; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.customer
    ADD CONSTRAINT customer_email_key UNIQUE (email);


--
-- Name: customer customer_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.customer
    ADD CONSTRAINT customer_pkey PRIMARY KEY (id);


--
-- Name: item item_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.item
    ADD CONSTRAINT item_pkey PRIMARY KEY (id);


--
-- Name: orders orders_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.orders
    ADD CONSTRAINT orders_pkey PRIMARY KEY (id);


--
-- Name: item_sku_active; Type: INDEX; Schema: public; Owner: postgres
--

CREATE UNIQUE INDEX item_sku_active ON public.item USING btree (sku) WHERE active;


--
-- Name: item_sku_lower; Type: INDEX; Schema: public; Owner: postgres
--

CREATE UNIQUE INDEX item_sku_lower ON public.item USING btree (lower(sku));


--
-- Name: orders orders_customer_fk; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.orders
    ADD CONSTRAINT orders_customer_fk FOREIGN KEY (customer_id) REFERENCES public.customer(id);


--
-- Name: orders orders_item_fk; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.orders
    ADD CONSTRAINT orders_item_fk FOREIGN KEY (item_id) REFERENCES public.item(id) DEFERRABLE INITIALLY DEFERRED;


--
-- PostgreSQL database dump complete
--

\unrestrict Eoc3wq4Q1p0huhSSXZekq8LnqU1HMM8GeAFu0uFhurL6LdYdyAMd9PraTk303nw

