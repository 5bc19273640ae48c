// Preload for the BFF (`--import`, added by the benches' startBff when BENCH_STATEMENTS_FILE is
// set, e.g. `BENCH_STATEMENTS_FILE=/tmp/statements.json node bench/load.ts --db postgres --only
// capture`): counts the SQL statements the BFF sends to PostgreSQL,
// by statement text (first 70 characters). On SIGUSR2 it writes the counts since the last signal
// as JSON to the file named by BENCH_STATEMENTS_FILE and starts counting afresh. Investigation
// only; it changes nothing in what the BFF does.
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(new URL('../../bff/package.json', import.meta.url));
const pg = require('pg');
const file = process.env.BENCH_STATEMENTS_FILE ?? '/dev/null';
let counts = new Map();
const original = pg.Client.prototype.query;
pg.Client.prototype.query = function query(config, ...rest) {
  const text = typeof config === 'string' ? config : (config?.text ?? '?');
  const key = text.replace(/\s+/g, ' ').slice(0, 70);
  counts.set(key, (counts.get(key) ?? 0) + 1);
  return original.call(this, config, ...rest);
};
process.on('SIGUSR2', () => {
  writeFileSync(file, JSON.stringify(Object.fromEntries(counts)));
  counts = new Map();
});
