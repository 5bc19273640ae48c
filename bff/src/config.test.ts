import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, type Env } from './config.js';

const dir = mkdtempSync(join(tmpdir(), 'paydesk-config-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});
const base: Env = {
  GATEWAY_BASE_URL: 'http://127.0.0.1:8081/paynet',
  MERCHANT_LOGIN: 'shop',
  MERCHANT_CONTROL_KEY: 'SUPER-SECRET-CONTROL-KEY',
  MERCHANT_ENDPOINTS: '1001:EUR,1002:USD,group:2001',
  DATABASE_URL: `sqlite:${join(dir, 'db', 'paydesk.sqlite')}`,
};

function issuesOf(env: Env): { key: string; rule: string }[] {
  try {
    loadConfig(env, { baseDir: dir });
  } catch (err) {
    if (err instanceof ConfigError) return err.issues;
    throw err;
  }
  return [];
}

describe('config', () => {
  it('when only the required keys are set, then the documented defaults apply', () => {
    const c = loadConfig(base, { baseDir: dir });
    expect(c.port).toBe(8080);
    expect(c.publicOrigin).toBe('http://localhost:8080');
    expect(c.secureCookies).toBe(false);
    expect(c.merchant.endpoints).toEqual([
      { kind: 'endpoint', id: '1001', currency: 'EUR' },
      { kind: 'endpoint', id: '1002', currency: 'USD' },
      { kind: 'group', id: '2001' },
    ]);
    expect(c.session).toEqual({ idleSeconds: 1800, absoluteSeconds: 43_200 });
    expect(c.argon2.memoryKib).toBe(19_456);
    expect(c.webDistDir).toBe(join(dir, 'web', 'dist'));
    expect(c.bootstrapAdmin).toBeNull();
  });

  it('when an endpoint group names its currencies, then they are kept (without repeats); without them the group takes any', () => {
    const c = loadConfig(
      { ...base, MERCHANT_ENDPOINTS: '1001:EUR, group:2001:EUR/USD/EUR,group:2002' },
      { baseDir: dir },
    );
    expect(c.merchant.endpoints).toEqual([
      { kind: 'endpoint', id: '1001', currency: 'EUR' },
      { kind: 'group', id: '2001', currencies: ['EUR', 'USD'] },
      { kind: 'group', id: '2002' },
    ]);
  });

  it('when an endpoint entry is malformed or names a code that is not an ISO 4217 currency, then MERCHANT_ENDPOINTS is named with the rule', () => {
    for (const [entries, rule] of [
      ['group:2001:', 'must be a comma-separated list'],
      ['group:2001:EUR/', 'must be a comma-separated list'],
      ['group:2001:eur', 'must be a comma-separated list'],
      ['group:2001:EUR/ZZZ', 'names a currency that is not an ISO 4217 code'],
      ['1001:XXX', 'names a currency that is not an ISO 4217 code'],
    ] as const) {
      const issues = issuesOf({ ...base, MERCHANT_ENDPOINTS: entries });
      expect(issues, entries).toEqual([
        { key: 'MERCHANT_ENDPOINTS', rule: expect.stringContaining(rule) as string },
      ]);
    }
  });

  it('when the SQLite default is used without SESSION_SECRET_FILE, then a secret is generated once (0600) and reused', () => {
    const first = loadConfig(base, { baseDir: dir });
    const file = join(dir, 'db', 'session-secret');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8').trim().length).toBeGreaterThanOrEqual(48);
    const second = loadConfig(base, { baseDir: dir });
    expect(Buffer.from(second.sessionSecret).equals(Buffer.from(first.sessionSecret))).toBe(true);
  });

  it('when required keys are missing, then every one is named with "is required"', () => {
    const issues = issuesOf({});
    const keys = issues.map((i) => i.key);
    expect(keys).toEqual(
      expect.arrayContaining(['GATEWAY_BASE_URL', 'MERCHANT_LOGIN', 'MERCHANT_ENDPOINTS']),
    );
    expect(issues.find((i) => i.key === 'GATEWAY_BASE_URL')?.rule).toBe('is required');
  });

  it('when values are bad, then the error names the key and the rule but never the value', () => {
    const env: Env = {
      ...base,
      PORT: 'eighty',
      MERCHANT_ENDPOINTS: '1001:euro',
      GATEWAY_BASE_URL: 'ftp://SECRET-HOST',
      PUBLIC_ORIGIN: 'https://x.example/path',
    };
    let message = '';
    try {
      loadConfig(env, { baseDir: dir });
    } catch (err) {
      message = err instanceof Error ? err.message : '';
    }
    expect(message).toContain('PORT: must be a whole number');
    expect(message).toContain('MERCHANT_ENDPOINTS: must be a comma-separated list');
    expect(message).toContain('GATEWAY_BASE_URL: must be an http(s) URL');
    expect(message).toContain('PUBLIC_ORIGIN: must be an origin');
    for (const value of ['eighty', '1001:euro', 'SECRET-HOST', 'x.example/path'])
      expect(message).not.toContain(value);
  });

  it('when PostgreSQL is used without SESSION_SECRET_FILE, then start-up refuses', () => {
    const issues = issuesOf({ ...base, DATABASE_URL: 'postgres://u:PGPASSWORD@db/paydesk' });
    expect(issues).toEqual([
      {
        key: 'SESSION_SECRET_FILE',
        rule: 'is required with PostgreSQL (every instance must share it)',
      },
    ]);
  });

  it('when the control key is missing, doubled, or its file unreadable, then the key is named', () => {
    const { MERCHANT_CONTROL_KEY: _omit, ...noKey } = base;
    expect(issuesOf(noKey).map((i) => i.key)).toEqual(['MERCHANT_CONTROL_KEY']);
    expect(issuesOf({ ...base, MERCHANT_CONTROL_KEY_FILE: 'x' })[0]?.rule).toContain('not both');
    expect(issuesOf({ ...noKey, MERCHANT_CONTROL_KEY_FILE: 'nope/missing' })).toEqual([
      { key: 'MERCHANT_CONTROL_KEY_FILE', rule: 'must name a readable file' },
    ]);
    writeFileSync(join(dir, 'control-key'), 'FILE-CONTROL-KEY\n');
    expect(
      loadConfig({ ...noKey, MERCHANT_CONTROL_KEY_FILE: 'control-key' }, { baseDir: dir }).merchant
        .controlKey,
    ).toBe('FILE-CONTROL-KEY');
  });

  it('when the RSA key file is not a key or too short, then it is refused; a PKCS#1 2048-bit key is accepted', () => {
    writeFileSync(join(dir, 'junk.pem'), 'not a key');
    expect(issuesOf({ ...base, MERCHANT_RSA_KEY_FILE: 'junk.pem' })[0]?.rule).toBe(
      'must hold a PKCS#1 or PKCS#8 PEM private key',
    );
    const small = generateKeyPairSync('rsa', { modulusLength: 1024 })
      .privateKey.export({ type: 'pkcs8', format: 'pem' })
      .toString();
    writeFileSync(join(dir, 'small.pem'), small);
    expect(issuesOf({ ...base, MERCHANT_RSA_KEY_FILE: 'small.pem' })[0]?.rule).toContain(
      'at least 2048 bits',
    );
    const good = generateKeyPairSync('rsa', { modulusLength: 2048 })
      .privateKey.export({ type: 'pkcs1', format: 'pem' })
      .toString();
    writeFileSync(join(dir, 'good.pem'), good);
    expect(
      loadConfig({ ...base, MERCHANT_RSA_KEY_FILE: 'good.pem' }, { baseDir: dir }).merchant
        .rsaPrivateKeyPem,
    ).toBe(good);
  });

  it('when PUBLIC_ORIGIN is plain http on a non-local host, then it is refused; https gives secure cookies', () => {
    expect(issuesOf({ ...base, PUBLIC_ORIGIN: 'http://paydesk.example.com' })[0]?.key).toBe(
      'PUBLIC_ORIGIN',
    );
    expect(
      loadConfig({ ...base, PUBLIC_ORIGIN: 'https://paydesk.example.com' }, { baseDir: dir })
        .secureCookies,
    ).toBe(true);
  });

  it('when the admin e-mail comes without a password or a weak one, then it is refused', () => {
    expect(issuesOf({ ...base, PAYDESK_ADMIN_EMAIL: 'a@b.example' })[0]?.key).toBe(
      'PAYDESK_ADMIN_PASSWORD',
    );
    expect(
      issuesOf({ ...base, PAYDESK_ADMIN_EMAIL: 'a@b.example', PAYDESK_ADMIN_PASSWORD: 'short' }),
    ).toEqual([{ key: 'PAYDESK_ADMIN_PASSWORD', rule: 'must be at least 12 characters' }]);
  });

  it('when test-tunable numbers are out of range, then the rule names the bounds', () => {
    expect(issuesOf({ ...base, ARGON2_MEMORY_KIB: '1' })).toEqual([
      { key: 'ARGON2_MEMORY_KIB', rule: 'must be at least 64' },
    ]);
    expect(issuesOf({ ...base, SESSION_IDLE_SECONDS: '90000' })[0]?.key).toBe(
      'SESSION_IDLE_SECONDS',
    );
  });

  it('when RECONCILE_* are set, then the reconciler and payout poller timings follow; unset, the defaults; min above max is refused', () => {
    expect(loadConfig(base, { baseDir: dir }).reconcile).toEqual({
      pollIntervalMs: 1_000,
      fastMinMs: 3_000,
      fastMaxMs: 5_000,
      leaseMs: 30_000,
      notAppliedAfterMs: 60_000,
    });
    const c = loadConfig(
      {
        ...base,
        RECONCILE_POLL_INTERVAL_MS: '100',
        RECONCILE_FAST_MIN_MS: '200',
        RECONCILE_FAST_MAX_MS: '400',
        RECONCILE_LEASE_MS: '1500',
        RECONCILE_NOT_APPLIED_AFTER_MS: '2500',
      },
      { baseDir: dir },
    );
    expect(c.reconcile).toEqual({
      pollIntervalMs: 100,
      fastMinMs: 200,
      fastMaxMs: 400,
      leaseMs: 1_500,
      notAppliedAfterMs: 2_500,
    });
    expect(
      issuesOf({ ...base, RECONCILE_FAST_MIN_MS: '5000', RECONCILE_FAST_MAX_MS: '4000' }),
    ).toEqual([{ key: 'RECONCILE_FAST_MIN_MS', rule: 'must not exceed RECONCILE_FAST_MAX_MS' }]);
    expect(issuesOf({ ...base, RECONCILE_LEASE_MS: '5' })).toEqual([
      { key: 'RECONCILE_LEASE_MS', rule: 'must be at least 100' },
    ]);
  });

  it('when SHUTDOWN_TIMEOUT_MS is unset, then it is GATEWAY_TIMEOUT_MS + 5 s; set, it must be longer than GATEWAY_TIMEOUT_MS, or the start is refused naming both', () => {
    expect(loadConfig(base, { baseDir: dir }).shutdownTimeoutMs).toBe(20_000);
    expect(
      loadConfig({ ...base, GATEWAY_TIMEOUT_MS: '30000' }, { baseDir: dir }).shutdownTimeoutMs,
    ).toBe(35_000);
    expect(
      loadConfig({ ...base, SHUTDOWN_TIMEOUT_MS: '15001' }, { baseDir: dir }).shutdownTimeoutMs,
    ).toBe(15_001);
    for (const [shutdown, gateway] of [
      ['10000', undefined],
      ['15000', undefined],
      ['20000', '20000'],
    ] as const) {
      expect(
        issuesOf({ ...base, SHUTDOWN_TIMEOUT_MS: shutdown, GATEWAY_TIMEOUT_MS: gateway }),
      ).toEqual([
        {
          key: 'SHUTDOWN_TIMEOUT_MS',
          rule: 'must be longer than GATEWAY_TIMEOUT_MS, so that a stop does not cut a gateway exchange under way (unset: GATEWAY_TIMEOUT_MS + 5000)',
        },
      ]);
    }
  });

  it('when PAYMENT_LINK_FOLLOW_* are set, then sent links are checked on that schedule; unset, 5 min, every 15 min, for 24 h; an interval a check could outlast is refused', () => {
    expect(loadConfig(base, { baseDir: dir }).paymentLinkFollow).toEqual({
      firstAfterMs: 300_000,
      intervalMs: 900_000,
      horizonMs: 86_400_000,
    });
    expect(
      loadConfig(
        {
          ...base,
          GATEWAY_TIMEOUT_MS: '1000',
          PAYMENT_LINK_FOLLOW_FIRST_AFTER_MS: '2000',
          PAYMENT_LINK_FOLLOW_INTERVAL_MS: '3000',
          PAYMENT_LINK_FOLLOW_HORIZON_MS: '60000',
        },
        { baseDir: dir },
      ).paymentLinkFollow,
    ).toEqual({ firstAfterMs: 2_000, intervalMs: 3_000, horizonMs: 60_000 });
    expect(issuesOf({ ...base, PAYMENT_LINK_FOLLOW_INTERVAL_MS: '30000' })).toEqual([
      {
        key: 'PAYMENT_LINK_FOLLOW_INTERVAL_MS',
        rule: 'must be more than twice GATEWAY_TIMEOUT_MS',
      },
    ]);
    expect(issuesOf({ ...base, PAYMENT_LINK_FOLLOW_HORIZON_MS: '1000' })).toEqual([
      { key: 'PAYMENT_LINK_FOLLOW_HORIZON_MS', rule: 'must be at least 60000' },
    ]);
  });

  it('when SETTLEMENT_CHECK_AFTER_MS is set, then approved charges are checked for settlement that long after approval; unset, 24 h 5 min; out of range is refused', () => {
    expect(loadConfig(base, { baseDir: dir }).settlementCheckAfterMs).toBe(86_700_000);
    expect(
      loadConfig({ ...base, SETTLEMENT_CHECK_AFTER_MS: '90000000' }, { baseDir: dir })
        .settlementCheckAfterMs,
    ).toBe(90_000_000);
    expect(issuesOf({ ...base, SETTLEMENT_CHECK_AFTER_MS: '500' })).toEqual([
      { key: 'SETTLEMENT_CHECK_AFTER_MS', rule: 'must be at least 1000' },
    ]);
    expect(issuesOf({ ...base, SETTLEMENT_CHECK_AFTER_MS: '1h' })[0]?.key).toBe(
      'SETTLEMENT_CHECK_AFTER_MS',
    );
  });

  it('when PAYOUT_HOLD_MAX_AGE_MS is set, then held payouts lapse that long after they were prepared; unset, 7 days; out of range is refused', () => {
    expect(loadConfig(base, { baseDir: dir }).payoutHoldMaxAgeMs).toBe(604_800_000);
    expect(
      loadConfig({ ...base, PAYOUT_HOLD_MAX_AGE_MS: '86400000' }, { baseDir: dir })
        .payoutHoldMaxAgeMs,
    ).toBe(86_400_000);
    expect(issuesOf({ ...base, PAYOUT_HOLD_MAX_AGE_MS: '59999' })).toEqual([
      { key: 'PAYOUT_HOLD_MAX_AGE_MS', rule: 'must be at least 60000' },
    ]);
    expect(issuesOf({ ...base, PAYOUT_HOLD_MAX_AGE_MS: '2592000001' })).toEqual([
      { key: 'PAYOUT_HOLD_MAX_AGE_MS', rule: 'must be at most 2592000000' },
    ]);
  });

  it('when LARGE_AMOUNT_CONFIRM_ABOVE is unset, then amounts above 10000.00 need confirming in every currency; set, per currency with a bare default; off, never', () => {
    const largeAmount = (value: string) =>
      loadConfig({ ...base, LARGE_AMOUNT_CONFIRM_ABOVE: value }, { baseDir: dir }).largeAmount;
    expect(loadConfig(base, { baseDir: dir }).largeAmount).toEqual({
      default: '10000.00',
      currencies: {},
    });
    expect(largeAmount('EUR:5000.00, usd:12000.5 ,2500')).toEqual({
      default: '2500.00',
      currencies: { EUR: '5000.00', USD: '12000.50' },
    });
    // Without a bare amount the other currencies keep the default; a bare `off` drops them.
    expect(largeAmount('GBP:800.00')).toEqual({
      default: '10000.00',
      currencies: { GBP: '800.00' },
    });
    expect(largeAmount('GBP:800.00,off')).toEqual({ default: null, currencies: { GBP: '800.00' } });
    expect(largeAmount('off')).toEqual({ default: null, currencies: {} });
    expect(largeAmount(' OFF ')).toEqual({ default: null, currencies: {} });
    expect(largeAmount('750')).toEqual({ default: '750.00', currencies: {} });
    // An empty value counts as unset, as for every key.
    expect(largeAmount('')).toEqual({ default: '10000.00', currencies: {} });
  });

  it('when LARGE_AMOUNT_CONFIRM_ABOVE is malformed, then start-up is refused naming the key and the rule, never the value', () => {
    const rule = (value: string) => {
      const issues = issuesOf({ ...base, LARGE_AMOUNT_CONFIRM_ABOVE: value });
      expect(issues.map((i) => i.key)).toEqual(['LARGE_AMOUNT_CONFIRM_ABOVE']);
      return issues[0]?.rule;
    };
    const form: unknown = expect.stringContaining(
      'must be off, or a comma-separated list of CUR:amount',
    );
    expect(rule('ten thousand')).toEqual(form);
    expect(rule('EUR:31337.77x')).not.toContain('31337');
    expect(rule('EUR:5000.00,')).toEqual(form); // an empty entry
    expect(rule('EUR=5000.00')).toEqual(form);
    expect(rule('-5')).toEqual(form);
    expect(rule('0')).toEqual(form);
    expect(rule('1e4')).toEqual(form);
    expect(rule('1000,2000')).toBe(
      'must have at most one bare amount (or off) for the other currencies',
    );
    expect(rule('off,EUR:5000.00,off')).toBe(
      'must have at most one bare amount (or off) for the other currencies',
    );
    expect(rule('ZZZ:100.00')).toBe(
      'names a currency that is not an ISO 4217 code with 2 decimals',
    );
    // A currency without cents (JPY) cannot be charged by the gateway: refused as in requests.
    expect(rule('JPY:100000')).toBe(
      'names a currency that is not an ISO 4217 code with 2 decimals',
    );
    expect(rule('EUR:100.00,eur:200.00')).toBe('names EUR more than once');
    expect(rule('EUR:12.345')).toBe(
      'the amount for EUR must be a decimal amount above zero with at most 2 decimals (e.g. 10000.00)',
    );
    expect(rule('EUR:0.00')).toContain('the amount for EUR must be');
    expect(rule('EUR:')).toContain('the amount for EUR must be');
    expect(rule('EUR:99999999999999.00')).toContain('the amount for EUR must be');
  });

  it('when ORDER_AMOUNT_LIMIT is unset, then an order may be at most 1000000.00 in every currency; set, per currency with a bare default; off, no limit', () => {
    const limit = (value: string) =>
      loadConfig({ ...base, ORDER_AMOUNT_LIMIT: value }, { baseDir: dir }).orderAmountLimit;
    expect(loadConfig(base, { baseDir: dir }).orderAmountLimit).toEqual({
      default: '1000000.00',
      currencies: {},
    });
    expect(limit('EUR:500000, usd:750000.5 ,2000000')).toEqual({
      default: '2000000.00',
      currencies: { EUR: '500000.00', USD: '750000.50' },
    });
    // Without a bare amount the other currencies keep the default (not the large-amount one); a
    // bare `off` drops them.
    expect(limit('GBP:800000.00')).toEqual({
      default: '1000000.00',
      currencies: { GBP: '800000.00' },
    });
    expect(limit('GBP:800000.00,off')).toEqual({
      default: null,
      currencies: { GBP: '800000.00' },
    });
    expect(limit('off')).toEqual({ default: null, currencies: {} });
    expect(limit(' Off ')).toEqual({ default: null, currencies: {} });
    expect(limit('')).toEqual({ default: '1000000.00', currencies: {} });
    // The two settings are read apart: one does not move the other.
    const both = loadConfig(
      { ...base, ORDER_AMOUNT_LIMIT: '50000.00', LARGE_AMOUNT_CONFIRM_ABOVE: 'off' },
      { baseDir: dir },
    );
    expect(both.orderAmountLimit).toEqual({ default: '50000.00', currencies: {} });
    expect(both.largeAmount).toEqual({ default: null, currencies: {} });
  });

  it('when ORDER_AMOUNT_LIMIT is malformed, then start-up is refused naming the key and the rule, never the value', () => {
    const rule = (value: string) => {
      const issues = issuesOf({ ...base, ORDER_AMOUNT_LIMIT: value });
      expect(issues.map((i) => i.key)).toEqual(['ORDER_AMOUNT_LIMIT']);
      return issues[0]?.rule;
    };
    const form: unknown = expect.stringContaining(
      'must be off, or a comma-separated list of CUR:amount',
    );
    expect(rule('one million')).toEqual(form);
    expect(rule('EUR:31337.77x')).toBe(
      'the amount for EUR must be a decimal amount above zero with at most 2 decimals (e.g. 10000.00)',
    );
    expect(rule('1e6')).toEqual(form);
    expect(rule('0')).toEqual(form);
    expect(rule('1000000,2000000')).toBe(
      'must have at most one bare amount (or off) for the other currencies',
    );
    expect(rule('ZZZ:100.00')).toBe(
      'names a currency that is not an ISO 4217 code with 2 decimals',
    );
    expect(rule('EUR:100.00,eur:200.00')).toBe('names EUR more than once');
    expect(rule('EUR:12.345')).toContain('the amount for EUR must be');
    // Both keys wrong: each is named with its own rule.
    expect(
      issuesOf({ ...base, ORDER_AMOUNT_LIMIT: 'lots', LARGE_AMOUNT_CONFIRM_ABOVE: 'some' }).map(
        (i) => i.key,
      ),
    ).toEqual(['LARGE_AMOUNT_CONFIRM_ABOVE', 'ORDER_AMOUNT_LIMIT']);
  });

  it('when LIVE_EVENTS_HEARTBEAT_MS is set, then event streams beat (and re-check their session) that often; unset, every 15 s; out of range is refused', () => {
    expect(loadConfig(base, { baseDir: dir }).liveEventsHeartbeatMs).toBe(15_000);
    expect(
      loadConfig({ ...base, LIVE_EVENTS_HEARTBEAT_MS: '5000' }, { baseDir: dir })
        .liveEventsHeartbeatMs,
    ).toBe(5_000);
    expect(issuesOf({ ...base, LIVE_EVENTS_HEARTBEAT_MS: '500' })).toEqual([
      { key: 'LIVE_EVENTS_HEARTBEAT_MS', rule: 'must be at least 1000' },
    ]);
    expect(issuesOf({ ...base, LIVE_EVENTS_HEARTBEAT_MS: '120000' })).toEqual([
      { key: 'LIVE_EVENTS_HEARTBEAT_MS', rule: 'must be at most 60000' },
    ]);
  });

  it('when CALLBACK_* are set, then the callback receiver limits follow; unset, the defaults; out of range is refused', () => {
    expect(loadConfig(base, { baseDir: dir }).callbacks).toEqual({
      concurrency: 8,
      queueLimit: 1_000,
    });
    expect(
      loadConfig(
        { ...base, CALLBACK_CONCURRENCY: '2', CALLBACK_QUEUE_LIMIT: '0' },
        { baseDir: dir },
      ).callbacks,
    ).toEqual({ concurrency: 2, queueLimit: 0 });
    expect(issuesOf({ ...base, CALLBACK_CONCURRENCY: '0' })).toEqual([
      { key: 'CALLBACK_CONCURRENCY', rule: 'must be at least 1' },
    ]);
  });
});
