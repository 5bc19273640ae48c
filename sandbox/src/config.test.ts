import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  ConfigError,
  DEMO_MERCHANT_DIR,
  demoConfig,
  loadStartupConfig,
  parseSandboxConfig,
} from './config.js';

const dir = mkdtempSync(join(tmpdir(), 'sandbox-config-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('configuration', () => {
  it('when no SANDBOX_CONFIG is set, then the demo merchant serves on 127.0.0.1:8081 in memory', () => {
    const c = loadStartupConfig({});
    expect(c).toMatchObject({ port: 8081, host: '127.0.0.1', dbPath: undefined });
    expect(c.sandbox.merchants).toHaveLength(1);
    expect(c.sandbox.merchants[0]).toMatchObject({
      login: 'paydesk-demo',
      controlKey: 'DEMO-0F0E0D0C-0B0A-4908-8706-050403020100',
      endpoints: [
        { id: 1001, currency: 'EUR' },
        { id: 1002, currency: 'USD' },
      ],
      endpointGroups: [{ id: 2001, endpoints: [1001, 1002] }],
    });
    expect(c.sandbox.merchants[0]?.publicKeyPem).toContain('BEGIN PUBLIC KEY');
    expect(demoConfig().processingDelayMs).toBe(300);
  });

  it('when the environment is bad, then start-up fails naming every bad key', () => {
    expect(() => loadStartupConfig({ SANDBOX_PORT: 'eighty', LOG_LEVEL: 'loud' })).toThrow(
      /SANDBOX_PORT.*LOG_LEVEL/,
    );
  });

  it('when a config file is given, then its merchants and timings are used and key paths resolve against it', () => {
    const path = join(dir, 'sandbox.json');
    writeFileSync(
      path,
      JSON.stringify({
        merchants: [
          {
            login: 'acme',
            controlKey: 'ACME-KEY-123456',
            publicKeyFile: join(DEMO_MERCHANT_DIR, 'public-key.pem'),
            endpoints: [{ id: 7, currency: 'GBP' }],
          },
        ],
        processingDelayMs: 0,
        callbackMaxAttempts: 3,
      }),
    );
    const c = loadStartupConfig({
      SANDBOX_CONFIG: path,
      SANDBOX_PORT: '0',
      SANDBOX_DB: join(dir, 'x.sqlite'),
    });
    expect(c.port).toBe(0);
    expect(c.dbPath).toBe(join(dir, 'x.sqlite'));
    expect(c.sandbox).toMatchObject({
      processingDelayMs: 0,
      callbackMaxAttempts: 3,
      callbackBackoffSeconds: 5,
    });
    expect(c.sandbox.merchants[0]?.login).toBe('acme');
  });

  it('when the config is invalid, then the error names the problem', () => {
    expect(() => parseSandboxConfig('{', dir)).toThrow(ConfigError);
    expect(() => parseSandboxConfig('{"merchants":[]}', dir)).toThrow(/merchants/);
    const twice = {
      merchants: ['a', 'b'].map((login) => ({
        login,
        controlKey: 'KEY-12345678',
        publicKeyFile: join(DEMO_MERCHANT_DIR, 'public-key.pem'),
        endpoints: [{ id: 1, currency: 'EUR' }],
      })),
    };
    expect(() => parseSandboxConfig(JSON.stringify(twice), dir)).toThrow(
      /endpoint id 1 is used twice/,
    );
    const missingKey = { merchants: [{ ...twice.merchants[0], publicKeyFile: 'nope.pem' }] };
    expect(() => parseSandboxConfig(JSON.stringify(missingKey), dir)).toThrow(
      /cannot read publicKeyFile/,
    );
  });
});
