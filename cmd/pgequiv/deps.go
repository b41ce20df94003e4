package main

// Blank imports pin the design card's dependencies in go.mod while the
// packages that use them are being built on parallel branches. Remove an
// import once a real package imports the module.
import (
	_ "github.com/hashicorp/golang-lru/v2"
	_ "github.com/jackc/pgx/v5"
	_ "github.com/jackc/pgx/v5/pgproto3"
	_ "github.com/lib/pq"
	_ "github.com/pganalyze/pg_query_go/v5"
	_ "go.opentelemetry.io/otel"
	_ "gonum.org/v1/gonum/mat"
	_ "gonum.org/v1/plot"
	_ "gopkg.in/yaml.v3"
)
