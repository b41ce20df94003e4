// Runs a fixed set of node-postgres operations against PGHOST/PGPORT
// (PGUSER, PGPASSWORD, PGDATABASE from the environment) and prints one JSON
// object with the results. proxy/node_test.go runs it directly and through
// the proxy and compares the output.
'use strict';
const { Client } = require('pg');

async function main() {
  const out = {};
  const client = new Client({ ssl: false });
  const notices = [];
  client.on('notice', (n) => notices.push(`${n.severity}: ${n.message}`));
  await client.connect();

  out.simple = (await client.query('SELECT 1 + 1 AS two, current_user AS who')).rows;
  out.params = (await client.query('SELECT $1::int * 2 AS doubled, $2::text AS s', [21, 'x'])).rows;
  // Named prepared statement, executed twice (parsed once).
  const named = { name: 'add_one', text: 'SELECT $1::int + 1 AS n' };
  out.named = [];
  for (const v of [1, 41]) {
    out.named.push((await client.query({ ...named, values: [v] })).rows[0].n);
  }
  out.types = (await client.query(
    "SELECT '2024-01-02'::date::text AS d, 1.5::numeric AS n, ARRAY[1,2] AS a, '{\"k\": 1}'::jsonb AS j, NULL AS z")).rows;
  await client.query("DO $$ BEGIN RAISE NOTICE 'from node'; END $$");
  out.notices = notices;

  await client.query('BEGIN');
  try {
    await client.query('SELECT 1/0');
  } catch (e) {
    out.txError = e.code;
  }
  try {
    await client.query('SELECT 1');
  } catch (e) {
    out.failedTx = e.code;
  }
  await client.query('ROLLBACK');

  await client.query('LISTEN node_chan');
  const got = new Promise((resolve) => client.once('notification', (m) => resolve(m.payload)));
  await client.query("SELECT pg_notify('node_chan', 'node payload')");
  out.notification = await got;

  const big = await client.query('SELECT g, repeat(md5(g::text), 20) AS r FROM generate_series(1, 5000) g');
  out.bigRows = big.rowCount;
  out.bigLast = big.rows[big.rows.length - 1].r.length;

  await client.end();
  process.stdout.write(JSON.stringify(out) + '\n');
}

main().catch((e) => {
  process.stderr.write(`node client failed: ${e.stack || e}\n`);
  process.exit(1);
});
