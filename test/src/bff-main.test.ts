// The built BFF entry point: a bad configuration stops it with the key and the rule, never the value.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const main = join(root, 'bff', 'dist', 'main.js');

describe('bff main', () => {
  it('when the configuration is bad, then it exits 2 naming each key and rule but no value', () => {
    expect(existsSync(main), 'bff/dist/main.js is missing: run pnpm -r build').toBe(true);
    const result = spawnSync(process.execPath, [main], {
      env: {
        PATH: process.env.PATH ?? '',
        PORT: 'not-a-port',
        GATEWAY_BASE_URL: 'gopher://SECRET-GATEWAY',
        MERCHANT_LOGIN: 'shop',
        MERCHANT_CONTROL_KEY: 'VERY-SECRET-CONTROL-KEY',
        MERCHANT_ENDPOINTS: 'x',
        DATABASE_URL: 'postgres://user:DBPASSWORD@127.0.0.1:1/none',
      },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('PORT: must be a whole number from 0 to 65535');
    expect(result.stderr).toContain('GATEWAY_BASE_URL: must be an http(s) URL');
    expect(result.stderr).toContain('MERCHANT_ENDPOINTS: must be a comma-separated list');
    for (const value of ['not-a-port', 'SECRET-GATEWAY', 'VERY-SECRET-CONTROL-KEY', 'DBPASSWORD']) {
      expect(result.stderr + result.stdout).not.toContain(value);
    }
  });

  it('when the BFF is run as documented, then it gets its own node flags: its start script and the README’s deployment name every one of bff/package.json paydesk.nodeFlags, and npm start’s launcher reads them from there', () => {
    const manifest = JSON.parse(readFileSync(join(root, 'bff', 'package.json'), 'utf8')) as {
      scripts: { start: string };
      paydesk: { nodeFlags: string[] };
    };
    const flags = manifest.paydesk.nodeFlags;
    // the export's memory depends on it (test/bench/RESULTS-payments.md)
    expect(flags).toContain('--max-semi-space-size=16');
    expect(manifest.scripts.start).toBe(`node ${flags.join(' ')} dist/main.js`);
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const runs = readme.split('\n').filter((line) => /^node .*bff\/dist\/main\.js/.test(line));
    expect(runs.length).toBeGreaterThan(0);
    for (const line of runs) expect(line).toContain(`node ${flags.join(' ')} bff/dist/main.js`);
    const launcher = readFileSync(join(root, 'scripts', 'start.mjs'), 'utf8');
    expect(launcher).toMatch(/startChild\('bff', [^;]*bffNodeFlags\(\)\)/);
  });
});
