// `pnpm bench` (root) → `pnpm --filter @paydesk/test bench`: every benchmark in turn, each in its
// own process, PostgreSQL variants too when PAYDESK_TEST_PG_URL is set. Needs `pnpm -r build`
// first (the benches start bff/dist and sandbox/dist). Figures are printed; they go into the
// RESULTS-*.md files by hand, except sandbox-load.ts, which rewrites RESULTS-sandbox.md itself.
// BENCH_QUICK=1 runs every bench with small sizes (a smoke test of the scripts, not figures).
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const pg = (process.env.PAYDESK_TEST_PG_URL ?? '') !== '';
const quick = process.env.BENCH_QUICK === '1';

const runs: [string, ...string[]][] = [
  ['protocol.bench.ts'],
  ['audit-bench.mjs', ...(quick ? ['500', '20000'] : [])],
  ['payments.bench.ts', 'capture', ...(quick ? ['--c1', '20', '--c32', '64'] : [])],
  [
    'payments.bench.ts',
    'list',
    '--db',
    'sqlite',
    ...(quick ? ['--rows', '20000', '--samples', '5'] : []),
  ],
  ['load.ts', '--db', 'sqlite', ...(quick ? ['--duration', '2', '--rows', '5000'] : [])],
  ['payments.bench.ts', 'callback-burst', ...(quick ? ['--orders', '300'] : [])],
];
if (pg) {
  runs.push(
    [
      'payments.bench.ts',
      'capture',
      '--db',
      'postgres',
      ...(quick ? ['--c1', '20', '--c32', '64'] : []),
    ],
    [
      'payments.bench.ts',
      'list',
      '--db',
      'postgres',
      ...(quick ? ['--rows', '20000', '--samples', '5'] : []),
    ],
    ['load.ts', '--db', 'postgres', ...(quick ? ['--duration', '2', '--rows', '5000'] : [])],
    ['audit-filter-bench.mjs', ...(quick ? ['20000', '5'] : [])],
    [
      'payments.bench.ts',
      'callback-burst',
      '--db',
      'postgres',
      ...(quick ? ['--orders', '300'] : []),
    ],
  );
}
// Rewrites RESULTS-sandbox.md: only in a full run.
if (!quick) runs.push(['sandbox-load.ts']);

let failed = 0;
for (const [script, ...args] of runs) {
  process.stdout.write(`\n## ${script} ${args.join(' ')}\n\n`);
  const result = spawnSync(process.execPath, [join(here, script), ...args], { stdio: 'inherit' });
  if (result.status !== 0) {
    failed += 1;
    process.stdout.write(`(${script} exited with ${String(result.status ?? result.signal)})\n`);
  }
}
if (!pg) process.stdout.write('\n(PostgreSQL variants skipped: PAYDESK_TEST_PG_URL is not set)\n');
process.exit(failed === 0 ? 0 : 1);
