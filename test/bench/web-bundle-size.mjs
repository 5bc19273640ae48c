// Initial JavaScript per route of the SPA, gzip-compressed, from the Vite manifest of web/dist.
// "Initial" = the entry chunk and everything it imports statically, plus the lazy chunks the route
// renders at once (with their static imports). Run: node test/bench/web-bundle-size.mjs [--build]
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const dist = join(root, 'web/dist');
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
  { name: '/sign-in', keys: [entryKey, route('sign-in-route')] },
  {
    name: '/audit (first screen of auditors)',
    keys: [entryKey, route('shell-route'), route('audit-route')],
  },
  {
    name: '/users (first screen of admins)',
    keys: [entryKey, route('shell-route'), route('users-route')],
  },
  {
    name: '/transactions (first screen of support, finance, ops)',
    keys: [entryKey, route('shell-route'), route('transactions-route')],
  },
  {
    name: '/transactions/:id (an order)',
    keys: [entryKey, route('shell-route'), route('transaction-detail-route')],
  },
  {
    name: '/account (first screen of other roles)',
    keys: [entryKey, route('shell-route'), route('account-route')],
  },
];

let failed = false;
const rows = scenarios.map(({ name, keys }) => {
  const files = closure(keys);
  const size = gzipKb(files);
  const ok = size.gzip <= LIMIT_KB;
  if (!ok && name !== 'entry only') failed = true;
  return { name, chunks: files.size, raw: size.raw.toFixed(1), gzip: size.gzip.toFixed(1), ok };
});

console.log(`| route | chunks | raw KB | gzip KB | ≤ ${LIMIT_KB} KB gzip |`);
console.log('| --- | ---: | ---: | ---: | :---: |');
for (const row of rows) {
  console.log(
    `| ${row.name} | ${row.chunks} | ${row.raw} | ${row.gzip} | ${row.ok ? 'yes' : 'NO'} |`,
  );
}
if (failed) {
  console.error(`initial JavaScript above ${LIMIT_KB} KB gzip`);
  process.exitCode = 1;
}
