// The BFF's whole configuration, parsed once from the environment. `process.env` is read nowhere
// else. A bad value stops the process with the key and the rule, never the value.
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createPrivateKey } from 'node:crypto';
import { dirname, isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import {
  AmountSchema,
  hasCents,
  isIsoCurrency,
  type LargeAmountSettings,
  type OrderAmountLimits,
} from '@paydesk/shared/api';
import { formatMinorUnits, toMinorUnits } from '@paydesk/shared/protocol';

export type EndpointConfig =
  | { kind: 'endpoint'; id: string; currency: string }
  | {
      kind: 'group';
      id: string;
      /**
       * The currencies of the group's endpoints (`group:2001:EUR/USD`); absent when the entry does
       * not say (`group:2001`): the gateway then decides whether the group takes a currency.
       */
      currencies?: string[];
    };

export interface Config {
  port: number;
  host: string;
  publicOrigin: string;
  /** true when PUBLIC_ORIGIN is https: `__Host-` cookie, Secure, HSTS */
  secureCookies: boolean;
  devOrigin: string | null;
  database:
    | { kind: 'sqlite'; file: string }
    | {
        kind: 'postgres';
        url: string;
        /** named prepared statements for repeated statements (off behind a transaction-pooling proxy) */
        preparedStatements?: boolean;
      };
  gatewayBaseUrl: string;
  merchant: {
    login: string;
    controlKey: string;
    rsaPrivateKeyPem: string | null;
    endpoints: EndpointConfig[];
  };
  sessionSecret: Uint8Array;
  bootstrapAdmin: { email: string; password: string } | null;
  webDistDir: string;
  trustProxy: boolean;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  argon2: { memoryKib: number; timeCost: number; parallelism: number };
  session: { idleSeconds: number; absoluteSeconds: number };
  login: { maxFailuresPerAccount: number; maxFailuresPerIp: number; windowSeconds: number };
  readyGatewayTimeoutMs: number;
  /** how long a gateway operation may take before its outcome is recorded as unknown */
  gatewayTimeoutMs: number;
  /** create-card-ref through v2 (control value) or v4 (OAuth RSA-SHA256) */
  cardRefVersion: 'v2' | 'v4';
  /** longer than gatewayTimeoutMs (default: gatewayTimeoutMs + SHUTDOWN_MARGIN_MS) */
  shutdownTimeoutMs: number;
  /**
   * Timings of the reconciler and the payout status poller (both follow the same schedule). Absent
   * means the built-in defaults (tests that build a Config by hand leave it out).
   */
  reconcile?: ReconcileConfig;
  /**
   * `LIVE_EVENTS_HEARTBEAT_MS`: a comment line on each open `GET /api/events` stream this often,
   * and its session checked again (absent: the payments default, 15 s)
   */
  liveEventsHeartbeatMs?: number;
  /** `CALLBACK_*`: the callback receiver's database steps at once, and callbacks that may wait for a turn (absent: defaults) */
  callbacks?: { concurrency: number; queueLimit: number };
  /**
   * `PAYMENT_LINK_FOLLOW_*`: when a sent payment link whose order Paydesk has not learned is
   * checked with `status` (absent: the payouts defaults, 5 min, every 15 min, for 24 h)
   */
  paymentLinkFollow?: { firstAfterMs: number; intervalMs: number; horizonMs: number };
  /**
   * `SETTLEMENT_CHECK_AFTER_MS`: an approved sale, rebill or capture is checked with `status` this
   * long after its approval, when the gateway has settled it (absent: the payments default, 24 h 5 min)
   */
  settlementCheckAfterMs?: number;
  /**
   * `PAYOUT_HOLD_MAX_AGE_MS`: a held single payout or payout-form link not approved this long after
   * it was prepared lapses, its sealed data erased (absent: the payouts default, 7 days)
   */
  payoutHoldMaxAgeMs?: number;
  /**
   * `LARGE_AMOUNT_CONFIRM_ABOVE`: a rebill, subscription, payment link or payout above its
   * currency's threshold needs `confirmLargeAmount: true` (absent: above 10000.00 in every currency)
   */
  largeAmount?: LargeAmountSettings;
  /**
   * `ORDER_AMOUNT_LIMIT`: a rebill, subscription, payment link or payout above its currency's limit
   * is refused, confirmed or not (absent: above 1000000.00 in every currency)
   */
  orderAmountLimit?: OrderAmountLimits;
}

/** `RECONCILE_*`: how fast an unknown outcome is chased with `status`. */
export interface ReconcileConfig {
  /** how often the loops look for due work */
  pollIntervalMs: number;
  /** first phase: the next `status` check after fastMinMs–fastMaxMs */
  fastMinMs: number;
  fastMaxMs: number;
  /** how long one instance holds a claimed job (and how long a stale `sending` payout waits) */
  leaseMs: number;
  /** a lost request that `status` still does not show after this long was not applied */
  notAppliedAfterMs: number;
}

/** One bad key: the key and the rule it broke (never the value). */
export interface ConfigIssue {
  key: string;
  rule: string;
}

export class ConfigError extends Error {
  readonly issues: ConfigIssue[];
  constructor(issues: ConfigIssue[]) {
    super(`invalid configuration:\n${issues.map((i) => `  ${i.key}: ${i.rule}`).join('\n')}`);
    this.name = 'ConfigError';
    this.issues = issues;
  }
}

/** The repository root (bff/src/config.ts or bff/dist/config.js -> ../..). */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

const wholeIn = (min: number, max: number) =>
  z
    .string()
    .trim()
    .regex(/^\d+$/, `must be a whole number from ${min} to ${max}`)
    .transform(Number)
    .pipe(z.number().int().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`));

const intIn = (min: number, max: number, fallback: number) =>
  wholeIn(min, max)
    .optional()
    .transform((v) => v ?? fallback);

/**
 * How much longer than GATEWAY_TIMEOUT_MS the shutdown waits by default: a request's gateway
 * exchange may take that long, and its outcome is recorded after it.
 */
export const SHUTDOWN_MARGIN_MS = 5_000;

const nonEmpty = z.string().trim().min(1, 'must not be empty');

const origin = z
  .string()
  .trim()
  .refine((v) => {
    try {
      const u = new URL(v);
      return (
        (u.protocol === 'http:' || u.protocol === 'https:') && u.origin === v.replace(/\/$/, '')
      );
    } catch {
      return false;
    }
  }, 'must be an origin such as https://paydesk.example.com (scheme, host, optional port, no path)');

const ENDPOINT_ENTRY =
  /^(?:(\d{1,12}):([A-Z]{3})|group:(\d{1,12})(?::([A-Z]{3}(?:\/[A-Z]{3})*))?)$/;

/** Every currency `MERCHANT_ENDPOINTS` names (of endpoints and of groups). */
function currenciesOf(entries: string): string[] {
  return entries.split(',').flatMap((entry) => {
    const m = ENDPOINT_ENTRY.exec(entry.trim());
    if (m === null) return [];
    return [...(m[2] === undefined ? [] : [m[2]]), ...(m[4]?.split('/') ?? [])];
  });
}

/** `LARGE_AMOUNT_CONFIRM_ABOVE` unset (or without a bare amount): for every other currency. */
const LARGE_AMOUNT_UNSET = '10000.00';
/** `ORDER_AMOUNT_LIMIT` unset (or without a bare amount): for every other currency. */
const ORDER_AMOUNT_LIMIT_UNSET = '1000000.00';

const AMOUNTS_PER_CURRENCY_FORM =
  'must be off, or a comma-separated list of CUR:amount entries (an ISO 4217 code with 2 decimals, an amount such as 10000.00) and at most one bare amount for the other currencies (e.g. EUR:10000.00,USD:12000.00,5000.00)';

/** Amounts as two-decimal text per currency, and `default` for the others (null: none). */
interface AmountsPerCurrency {
  default: string | null;
  currencies: Record<string, string>;
}

/**
 * `LARGE_AMOUNT_CONFIRM_ABOVE` and `ORDER_AMOUNT_LIMIT`: `off`, or `CUR:amount` entries and at most
 * one bare amount (or `off`) for the other currencies (without one: `otherwise`, the key's
 * default). The rule broken, or the amounts per currency (two-decimal text).
 */
export function parseAmountsPerCurrency(
  text: string,
  otherwise: string,
): { ok: true; settings: AmountsPerCurrency } | { ok: false; rule: string } {
  const value = text.trim();
  if (value.toLowerCase() === 'off')
    return { ok: true, settings: { default: null, currencies: {} } };
  const normal = (amount: string) => formatMinorUnits(toMinorUnits(amount));
  const currencies: Record<string, string> = {};
  let fallback: string | null | undefined;
  for (const raw of value.split(',')) {
    const entry = raw.trim();
    const m = /^([A-Za-z]{3}):(.*)$/.exec(entry);
    if (m === null) {
      if (fallback !== undefined)
        return {
          ok: false,
          rule: 'must have at most one bare amount (or off) for the other currencies',
        };
      if (entry.toLowerCase() === 'off') fallback = null;
      else if (AmountSchema.safeParse(entry).success) fallback = normal(entry);
      else return { ok: false, rule: AMOUNTS_PER_CURRENCY_FORM };
      continue;
    }
    const code = (m[1] ?? '').toUpperCase();
    const amount = (m[2] ?? '').trim();
    if (!isIsoCurrency(code) || !hasCents(code))
      return { ok: false, rule: 'names a currency that is not an ISO 4217 code with 2 decimals' };
    if (currencies[code] !== undefined) return { ok: false, rule: `names ${code} more than once` };
    if (!AmountSchema.safeParse(amount).success)
      return {
        ok: false,
        rule: `the amount for ${code} must be a decimal amount above zero with at most 2 decimals (e.g. 10000.00)`,
      };
    currencies[code] = normal(amount);
  }
  return {
    ok: true,
    settings: { default: fallback === undefined ? otherwise : fallback, currencies },
  };
}

const envSchema = z.object({
  PORT: intIn(0, 65535, 8080),
  HOST: z.string().trim().min(1).optional(),
  PUBLIC_ORIGIN: origin.optional(),
  DEV_ORIGIN: origin.optional(),
  DATABASE_URL: z
    .string()
    .trim()
    .regex(/^(sqlite:.+|postgres(ql)?:\/\/.+)$/, 'must be sqlite:<file> or postgres://...')
    .optional(),
  GATEWAY_BASE_URL: z
    .string({ error: 'is required' })
    .trim()
    .refine(
      (v) => URL.canParse(v) && /^https?:$/.test(new URL(v).protocol),
      'must be an http(s) URL',
    ),
  MERCHANT_LOGIN: z.string({ error: 'is required' }).trim().min(1, 'must not be empty'),
  MERCHANT_CONTROL_KEY: nonEmpty.optional(),
  MERCHANT_CONTROL_KEY_FILE: nonEmpty.optional(),
  MERCHANT_RSA_KEY_FILE: nonEmpty.optional(),
  MERCHANT_ENDPOINTS: z
    .string({ error: 'is required' })
    .trim()
    .refine(
      (v) => v.split(',').every((e) => ENDPOINT_ENTRY.test(e.trim())),
      'must be a comma-separated list of ID:CUR (e.g. 1001:EUR), group:ID or group:ID:CUR/CUR/... (e.g. group:2001:EUR/USD) entries',
    )
    .refine(
      (v) => currenciesOf(v).every(isIsoCurrency),
      'names a currency that is not an ISO 4217 code',
    ),
  SESSION_SECRET_FILE: nonEmpty.optional(),
  PAYDESK_ADMIN_EMAIL: z
    .string()
    .trim()
    .toLowerCase()
    .check(z.email('must be an e-mail address'))
    .optional(),
  PAYDESK_ADMIN_PASSWORD: z.string().min(12, 'must be at least 12 characters').max(256).optional(),
  WEB_DIST_DIR: nonEmpty.optional(),
  TRUST_PROXY: z.enum(['true', 'false'], { error: 'must be true or false' }).optional(),
  DATABASE_PREPARED_STATEMENTS: z.enum(['on', 'off'], { error: 'must be on or off' }).optional(),
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
      error: 'must be one of fatal, error, warn, info, debug, trace, silent',
    })
    .optional(),
  ARGON2_MEMORY_KIB: intIn(64, 4_194_304, 19_456),
  ARGON2_TIME_COST: intIn(1, 100, 2),
  ARGON2_PARALLELISM: intIn(1, 16, 1),
  SESSION_IDLE_SECONDS: intIn(10, 86_400, 1_800),
  SESSION_ABSOLUTE_SECONDS: intIn(60, 7 * 86_400, 43_200),
  LOGIN_MAX_FAILURES_PER_ACCOUNT: intIn(1, 10_000, 5),
  LOGIN_MAX_FAILURES_PER_IP: intIn(1, 100_000, 50),
  LOGIN_FAILURE_WINDOW_SECONDS: intIn(1, 86_400, 900),
  READY_GATEWAY_TIMEOUT_MS: intIn(1, 60_000, 2_000),
  GATEWAY_TIMEOUT_MS: intIn(100, 120_000, 15_000),
  CARD_REF_VERSION: z.enum(['v2', 'v4']).default('v2'),
  // unset: GATEWAY_TIMEOUT_MS + SHUTDOWN_MARGIN_MS
  SHUTDOWN_TIMEOUT_MS: wholeIn(0, 600_000).optional(),
  RECONCILE_POLL_INTERVAL_MS: intIn(10, 60_000, 1_000),
  RECONCILE_FAST_MIN_MS: intIn(10, 600_000, 3_000),
  RECONCILE_FAST_MAX_MS: intIn(10, 600_000, 5_000),
  RECONCILE_LEASE_MS: intIn(100, 3_600_000, 30_000),
  RECONCILE_NOT_APPLIED_AFTER_MS: intIn(100, 86_400_000, 60_000),
  LIVE_EVENTS_HEARTBEAT_MS: intIn(1_000, 60_000, 15_000),
  CALLBACK_CONCURRENCY: intIn(1, 256, 8),
  CALLBACK_QUEUE_LIMIT: intIn(0, 100_000, 1_000),
  PAYMENT_LINK_FOLLOW_FIRST_AFTER_MS: intIn(1_000, 86_400_000, 300_000),
  PAYMENT_LINK_FOLLOW_INTERVAL_MS: intIn(1_000, 86_400_000, 900_000),
  PAYMENT_LINK_FOLLOW_HORIZON_MS: intIn(60_000, 2_592_000_000, 86_400_000),
  SETTLEMENT_CHECK_AFTER_MS: intIn(1_000, 604_800_000, 86_700_000),
  // 1 minute to 30 days, default 7 days
  PAYOUT_HOLD_MAX_AGE_MS: intIn(60_000, 2_592_000_000, 604_800_000),
  // unset: above 10000.00 in every currency; `off`: never
  LARGE_AMOUNT_CONFIRM_ABOVE: z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined) return { default: LARGE_AMOUNT_UNSET, currencies: {} };
      const parsed = parseAmountsPerCurrency(v, LARGE_AMOUNT_UNSET);
      if (parsed.ok) return parsed.settings;
      ctx.addIssue({ code: 'custom', message: parsed.rule });
      return z.NEVER;
    }),
  // unset: at most 1000000.00 per order in every currency; `off`: no limit
  ORDER_AMOUNT_LIMIT: z
    .string()
    .optional()
    .transform((v, ctx): OrderAmountLimits => {
      if (v === undefined) return { default: ORDER_AMOUNT_LIMIT_UNSET, currencies: {} };
      const parsed = parseAmountsPerCurrency(v, ORDER_AMOUNT_LIMIT_UNSET);
      if (parsed.ok) return parsed.settings;
      ctx.addIssue({ code: 'custom', message: parsed.rule });
      return z.NEVER;
    }),
});

export type Env = Readonly<Record<string, string | undefined>>;

export interface LoadConfigOptions {
  /** paths in the env are relative to this directory (default: the repository root) */
  baseDir?: string;
}

/** Parses `env` (default `process.env`); throws ConfigError listing every bad key. */
export function loadConfig(env: Env = process.env, options: LoadConfigOptions = {}): Config {
  const baseDir = options.baseDir ?? REPO_ROOT;
  const at = (p: string) => (isAbsolute(p) ? p : resolve(baseDir, p));
  // Empty strings count as unset (a blank line in .env).
  const cleaned: Record<string, string> = {};
  for (const key of Object.keys(envSchema.shape)) {
    const v = env[key];
    if (v !== undefined && v !== '') cleaned[key] = v;
  }
  const parsed = envSchema.safeParse(cleaned);
  const issues: ConfigIssue[] = [];
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const key = typeof issue.path[0] === 'string' ? issue.path[0] : 'environment';
      const rule =
        issue.code === 'invalid_type' && cleaned[key] === undefined ? 'is required' : issue.message;
      issues.push({ key, rule });
    }
    throw new ConfigError(issues);
  }
  const e = parsed.data;
  const port = e.PORT;

  const publicOrigin = (e.PUBLIC_ORIGIN ?? `http://localhost:${port}`).replace(/\/$/, '');
  const publicUrl = new URL(publicOrigin);
  const secureCookies = publicUrl.protocol === 'https:';
  if (!secureCookies && !LOCAL_HOSTS.has(publicUrl.hostname)) {
    issues.push({
      key: 'PUBLIC_ORIGIN',
      rule: 'must be https unless the host is localhost or 127.0.0.1',
    });
  }

  const databaseUrl = e.DATABASE_URL ?? 'sqlite:data/paydesk.sqlite';
  const database: Config['database'] = databaseUrl.startsWith('sqlite:')
    ? {
        kind: 'sqlite',
        file:
          databaseUrl === 'sqlite::memory:' ? ':memory:' : at(databaseUrl.slice('sqlite:'.length)),
      }
    : {
        kind: 'postgres',
        url: databaseUrl,
        preparedStatements: e.DATABASE_PREPARED_STATEMENTS !== 'off',
      };

  const readSecretFile = (key: string, file: string): string | null => {
    try {
      return readFileSync(at(file), 'utf8');
    } catch {
      issues.push({ key, rule: 'must name a readable file' });
      return null;
    }
  };

  let controlKey = '';
  if (e.MERCHANT_CONTROL_KEY !== undefined && e.MERCHANT_CONTROL_KEY_FILE !== undefined) {
    issues.push({
      key: 'MERCHANT_CONTROL_KEY',
      rule: 'set either MERCHANT_CONTROL_KEY or MERCHANT_CONTROL_KEY_FILE, not both',
    });
  } else if (e.MERCHANT_CONTROL_KEY !== undefined) {
    controlKey = e.MERCHANT_CONTROL_KEY;
  } else if (e.MERCHANT_CONTROL_KEY_FILE !== undefined) {
    const text = readSecretFile('MERCHANT_CONTROL_KEY_FILE', e.MERCHANT_CONTROL_KEY_FILE);
    if (text !== null) {
      controlKey = text.trim();
      if (controlKey === '')
        issues.push({ key: 'MERCHANT_CONTROL_KEY_FILE', rule: 'the file must not be empty' });
    }
  } else {
    issues.push({
      key: 'MERCHANT_CONTROL_KEY',
      rule: 'is required (or MERCHANT_CONTROL_KEY_FILE)',
    });
  }

  let rsaPrivateKeyPem: string | null = null;
  if (e.MERCHANT_RSA_KEY_FILE !== undefined) {
    const pem = readSecretFile('MERCHANT_RSA_KEY_FILE', e.MERCHANT_RSA_KEY_FILE);
    if (pem !== null) {
      try {
        const key = createPrivateKey(pem);
        const bits = key.asymmetricKeyDetails?.modulusLength ?? 0;
        if (key.asymmetricKeyType !== 'rsa') {
          issues.push({ key: 'MERCHANT_RSA_KEY_FILE', rule: 'must hold an RSA private key' });
        } else if (bits < 2048) {
          issues.push({
            key: 'MERCHANT_RSA_KEY_FILE',
            rule: 'the RSA key must have at least 2048 bits',
          });
        } else {
          rsaPrivateKeyPem = pem;
        }
      } catch {
        issues.push({
          key: 'MERCHANT_RSA_KEY_FILE',
          rule: 'must hold a PKCS#1 or PKCS#8 PEM private key',
        });
      }
    }
  }

  const endpoints: EndpointConfig[] = e.MERCHANT_ENDPOINTS.split(',').map((entry) => {
    const m = ENDPOINT_ENTRY.exec(entry.trim());
    if (m?.[3] !== undefined) {
      return m[4] === undefined
        ? { kind: 'group', id: m[3] }
        : { kind: 'group', id: m[3], currencies: [...new Set(m[4].split('/'))] };
    }
    return { kind: 'endpoint', id: m?.[1] ?? '', currency: m?.[2] ?? '' };
  });

  let sessionSecret: Uint8Array = new Uint8Array();
  if (e.SESSION_SECRET_FILE !== undefined) {
    const text = readSecretFile('SESSION_SECRET_FILE', e.SESSION_SECRET_FILE);
    if (text !== null) {
      sessionSecret = new TextEncoder().encode(text.trim());
      if (sessionSecret.length < 32) {
        issues.push({ key: 'SESSION_SECRET_FILE', rule: 'the secret must be at least 32 bytes' });
      }
    }
  } else if (database.kind === 'postgres') {
    issues.push({
      key: 'SESSION_SECRET_FILE',
      rule: 'is required with PostgreSQL (every instance must share it)',
    });
  } else if (database.file === ':memory:') {
    sessionSecret = randomBytes(32);
  } else {
    const file = resolve(dirname(database.file), 'session-secret');
    sessionSecret = new TextEncoder().encode(generatedSecret(file));
  }

  if ((e.PAYDESK_ADMIN_EMAIL === undefined) !== (e.PAYDESK_ADMIN_PASSWORD === undefined)) {
    issues.push({
      key: 'PAYDESK_ADMIN_PASSWORD',
      rule: 'PAYDESK_ADMIN_EMAIL and PAYDESK_ADMIN_PASSWORD go together',
    });
  }
  if (e.RECONCILE_FAST_MIN_MS > e.RECONCILE_FAST_MAX_MS) {
    issues.push({ key: 'RECONCILE_FAST_MIN_MS', rule: 'must not exceed RECONCILE_FAST_MAX_MS' });
  }
  if (e.PAYMENT_LINK_FOLLOW_INTERVAL_MS <= 2 * e.GATEWAY_TIMEOUT_MS) {
    // A check's claim is its lease: it must outlast the check (and a late reply to it).
    issues.push({
      key: 'PAYMENT_LINK_FOLLOW_INTERVAL_MS',
      rule: 'must be more than twice GATEWAY_TIMEOUT_MS',
    });
  }
  if (e.SHUTDOWN_TIMEOUT_MS !== undefined && e.SHUTDOWN_TIMEOUT_MS <= e.GATEWAY_TIMEOUT_MS) {
    // A stop must not cut a request in the middle of its gateway exchange.
    issues.push({
      key: 'SHUTDOWN_TIMEOUT_MS',
      rule: `must be longer than GATEWAY_TIMEOUT_MS, so that a stop does not cut a gateway exchange under way (unset: GATEWAY_TIMEOUT_MS + ${SHUTDOWN_MARGIN_MS})`,
    });
  }
  if (e.SESSION_IDLE_SECONDS > e.SESSION_ABSOLUTE_SECONDS) {
    issues.push({ key: 'SESSION_IDLE_SECONDS', rule: 'must not exceed SESSION_ABSOLUTE_SECONDS' });
  }

  if (issues.length > 0) throw new ConfigError(issues);

  return {
    port,
    host: e.HOST ?? '0.0.0.0',
    publicOrigin,
    secureCookies,
    devOrigin: e.DEV_ORIGIN?.replace(/\/$/, '') ?? null,
    database,
    gatewayBaseUrl: e.GATEWAY_BASE_URL,
    merchant: { login: e.MERCHANT_LOGIN, controlKey, rsaPrivateKeyPem, endpoints },
    sessionSecret,
    bootstrapAdmin:
      e.PAYDESK_ADMIN_EMAIL !== undefined && e.PAYDESK_ADMIN_PASSWORD !== undefined
        ? { email: e.PAYDESK_ADMIN_EMAIL, password: e.PAYDESK_ADMIN_PASSWORD }
        : null,
    webDistDir: at(e.WEB_DIST_DIR ?? 'web/dist'),
    trustProxy: e.TRUST_PROXY === 'true',
    logLevel: e.LOG_LEVEL ?? 'info',
    argon2: {
      memoryKib: e.ARGON2_MEMORY_KIB,
      timeCost: e.ARGON2_TIME_COST,
      parallelism: e.ARGON2_PARALLELISM,
    },
    session: { idleSeconds: e.SESSION_IDLE_SECONDS, absoluteSeconds: e.SESSION_ABSOLUTE_SECONDS },
    login: {
      maxFailuresPerAccount: e.LOGIN_MAX_FAILURES_PER_ACCOUNT,
      maxFailuresPerIp: e.LOGIN_MAX_FAILURES_PER_IP,
      windowSeconds: e.LOGIN_FAILURE_WINDOW_SECONDS,
    },
    readyGatewayTimeoutMs: e.READY_GATEWAY_TIMEOUT_MS,
    gatewayTimeoutMs: e.GATEWAY_TIMEOUT_MS,
    cardRefVersion: e.CARD_REF_VERSION,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS ?? e.GATEWAY_TIMEOUT_MS + SHUTDOWN_MARGIN_MS,
    reconcile: {
      pollIntervalMs: e.RECONCILE_POLL_INTERVAL_MS,
      fastMinMs: e.RECONCILE_FAST_MIN_MS,
      fastMaxMs: e.RECONCILE_FAST_MAX_MS,
      leaseMs: e.RECONCILE_LEASE_MS,
      notAppliedAfterMs: e.RECONCILE_NOT_APPLIED_AFTER_MS,
    },
    liveEventsHeartbeatMs: e.LIVE_EVENTS_HEARTBEAT_MS,
    callbacks: { concurrency: e.CALLBACK_CONCURRENCY, queueLimit: e.CALLBACK_QUEUE_LIMIT },
    paymentLinkFollow: {
      firstAfterMs: e.PAYMENT_LINK_FOLLOW_FIRST_AFTER_MS,
      intervalMs: e.PAYMENT_LINK_FOLLOW_INTERVAL_MS,
      horizonMs: e.PAYMENT_LINK_FOLLOW_HORIZON_MS,
    },
    settlementCheckAfterMs: e.SETTLEMENT_CHECK_AFTER_MS,
    payoutHoldMaxAgeMs: e.PAYOUT_HOLD_MAX_AGE_MS,
    largeAmount: e.LARGE_AMOUNT_CONFIRM_ABOVE,
    orderAmountLimit: e.ORDER_AMOUNT_LIMIT,
  };
}

/** Reads the generated session secret, creating it (0600) on first start. */
function generatedSecret(file: string): string {
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dirname(file), { recursive: true });
  const secret = randomBytes(48).toString('base64url');
  writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
  chmodSync(file, 0o600);
  return secret;
}
