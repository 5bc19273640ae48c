// Initial JavaScript per route of the SPA, gzip-compressed, from the Vite manifest of web/dist.
// "Initial" = the entry chunk and everything it imports statically, plus the lazy chunks the route
// renders at once (with their static imports). Run: node test/bench/web-bundle-size.mjs [--build]
// [--dist DIR] (a build elsewhere, e.g. `vite build --outDir DIR`, so parallel builds do not clash).
// Home's charts (MUI X Charts) must stay out of the sign-in and home initial JS: checked too.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const distArg = process.argv.indexOf('--dist');
const dist = distArg > 0 ? resolve(process.argv[distArg + 1] ?? '') : join(root, 'web/dist');
const manifestPath = join(dist, '.vite/manifest.json');
const LIMIT_KB = 250;

if (process.argv.includes('--build') || !existsSync(manifestPath)) {
  execFileSync('pnpm', ['--filter', '@paydesk/web', 'run', 'build'], {
    cwd: root,
    stdio: 'inherit',
  });
}

/** @type {Record<string, { file: string, isEntry?: boolean, imports?: string[], dynamicImports?: string[] }>} */
const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));

/** Chunk files loaded for `keys`, following static imports only. */
function closure(keys) {
  const files = new Set();
  const seen = new Set();
  const visit = (key) => {
    if (seen.has(key)) return;
    seen.add(key);
    const chunk = manifest[key];
    if (!chunk) throw new Error(`manifest has no chunk ${key}`);
    if (chunk.file.endsWith('.js')) files.add(chunk.file);
    for (const next of chunk.imports ?? []) visit(next);
  };
  keys.forEach(visit);
  return files;
}

function gzipKb(files) {
  let raw = 0;
  let gz = 0;
  for (const file of files) {
    const bytes = readFileSync(join(dist, file));
    raw += bytes.length;
    gz += gzipSync(bytes, { level: 9 }).length;
  }
  return { raw: raw / 1024, gzip: gz / 1024 };
}

const entryKey = Object.keys(manifest).find((key) => manifest[key].isEntry);
if (!entryKey) throw new Error('manifest has no entry');
const route = (name) => {
  const key = Object.keys(manifest).find((k) => k.endsWith(`/${name}.tsx`));
  if (!key) throw new Error(`manifest has no route module ${name}`);
  return key;
};

const scenarios = [
  { name: 'entry only', keys: [entryKey] },
  { name: '/sign-in', keys: [entryKey, route('sign-in-route')], required: true },
  {
    name: '/ (Home: the first screen after sign-in)',
    keys: [entryKey, route('shell-route'), route('home-route')],
    required: true,
  },
  {
    name: '/audit',
    keys: [entryKey, route('shell-route'), route('audit-route')],
  },
  {
    name: '/users',
    keys: [entryKey, route('shell-route'), route('users-route')],
  },
  {
    name: '/transactions',
    keys: [entryKey, route('shell-route'), route('transactions-route')],
  },
  {
    name: '/transactions/:id (an order)',
    keys: [entryKey, route('shell-route'), route('transaction-detail-route')],
  },
  {
    name: '/account',
    keys: [entryKey, route('shell-route'), route('account-route')],
  },
];

/** A class name only MUI X Charts' code holds: its presence means the charts came along. */
const CHARTS_MARKER = 'MuiChartsSurface';
const holdsCharts = (files) =>
  [...files].some((file) => readFileSync(join(dist, file), 'utf8').includes(CHARTS_MARKER));
if (!holdsCharts(closure(Object.keys(manifest)))) {
  throw new Error(`no chunk holds ${CHARTS_MARKER}: the charts check would prove nothing`);
}

let failed = false;
// The budget is for the routes a browser opens first: sign-in, and Home after it (every
// role lands there). The other routes are measured for information.
const rows = scenarios.map(({ name, keys, required = false }) => {
  const files = closure(keys);
  const size = gzipKb(files);
  const ok = size.gzip <= LIMIT_KB;
  if (!ok && required) failed = true;
  if (required && holdsCharts(files)) {
    console.error(`${name}: the initial JavaScript holds MUI X Charts (must load lazily)`);
    failed = true;
  }
  return {
    name: required ? `**${name}**` : name,
    chunks: files.size,
    raw: size.raw.toFixed(1),
    gzip: size.gzip.toFixed(1),
    ok,
  };
});

console.log(`| route | chunks | raw KB | gzip KB | ≤ ${LIMIT_KB} KB gzip |`);
console.log('| --- | ---: | ---: | ---: | :---: |');
for (const row of rows) {
  console.log(
    `| ${row.name} | ${row.chunks} | ${row.raw} | ${row.gzip} | ${row.ok ? 'yes' : 'NO'} |`,
  );
}
if (failed) {
  console.error(`sign-in or Home: initial JavaScript above ${LIMIT_KB} KB gzip, or charts in it`);
  process.exitCode = 1;
}
