// Reads the pgequiv admin console (PGHOST/PGPORT/PGUSER/PGPASSWORD,
// database pgequiv) with node-postgres: the simple protocol, the extended
// protocol (a query with parameters) and a transaction block. Prints one
// JSON object; proxy/admin_drivers_test.go checks it.
'use strict';
const { Client } = require('pg');

async function main() {
  const client = new Client({ ssl: false, database: 'pgequiv' });
  await client.connect();
  const out = {};
  const types = (r) => Object.fromEntries(r.fields.map((f) => [f.name, f.dataTypeID]));
  await client.query('BEGIN');
  const stats = await client.query('SHOW STATS');
  out.stats = Object.fromEntries(stats.rows.map((r) => [r.name, r.value]));
  out.statsTypes = types(stats);
  const verdicts = await client.query('SHOW VERDICTS');
  out.verdicts = verdicts.rows.map((r) => ({ label: r.label, score: r.score, scoreType: typeof r.score,
    timeIsDate: r.time instanceof Date, reference: r.reference, conn: r.conn }));
  out.verdictTypes = types(verdicts);
  await client.query('COMMIT');
  // With parameters node-postgres uses the extended protocol.
  const ne = await client.query('SHOW VERDICTS WHERE label = $1 LIMIT $2', ['not_equivalent', '10']);
  out.notEquivalent = ne.rows.map((r) => r.label);
  const div = await client.query({ text: 'SHOW DIVERGENCES WHERE label = $1', values: ['equivalent'], name: 'div' });
  out.divergences = div.rows.map((r) => ({ count: r.count, label: r.label, example: r.example, firstIsDate: r.first_seen instanceof Date }));
  await client.end();
  process.stdout.write(JSON.stringify(out));
}

main().catch((e) => { process.stderr.write(String(e.stack || e) + '\n'); process.exit(1); });
