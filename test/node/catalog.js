// Reads catalog metadata with node-postgres, as ORMs and admin tools do
// (information_schema.columns with a parameter, pg_type by OID, the
// column types of a result), and prints one JSON object.
// proxy/dbfree/node_catalog_test.go runs it against PostgreSQL and
// against database-free mode and compares the output.
'use strict';
const { Client } = require('pg');

async function main() {
  const out = {};
  const client = new Client({ ssl: false });
  await client.connect();
  out.columns = (await client.query(
    `SELECT table_name, column_name, ordinal_position, is_nullable, data_type, udt_name
       FROM information_schema.columns WHERE table_schema = $1 ORDER BY table_name, ordinal_position`, ['public'])).rows;
  out.tables = (await client.query(
    "SELECT table_name, table_type FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1")).rows;
  out.types = (await client.query(
    `SELECT t.typname, t.typlen, t.typcategory FROM pg_catalog.pg_type t
      WHERE t.oid IN (SELECT atttypid FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_class c ON c.oid = a.attrelid
                       WHERE c.relname = 'dogs' AND a.attnum > 0) ORDER BY 1`)).rows;
  const r = await client.query({ text: 'SELECT oid, typname, typlen FROM pg_catalog.pg_type WHERE typname = $1', values: ['int4'] });
  out.int4 = r.rows;
  out.fieldTypes = r.fields.map((f) => [f.name, f.dataTypeID]);
  out.keys = (await client.query(
    `SELECT tc.table_name, tc.constraint_type, kcu.column_name
       FROM information_schema.table_constraints tc
       JOIN information_schema.key_column_usage kcu ON kcu.constraint_name = tc.constraint_name
      WHERE tc.table_schema = 'public' ORDER BY 1, 2, 3`)).rows;
  await client.end();
  process.stdout.write(JSON.stringify(out, null, 1) + '\n');
}

main().catch((e) => {
  process.stderr.write(`${e.code || ''} ${e.message}\n`);
  process.exit(1);
});
