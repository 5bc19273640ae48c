// The one place that reads process.env and the SANDBOX_CONFIG file, parsed with zod.
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

const endpointSchema = z.object({
  id: z.number().int().positive(),
  currency: z.string().regex(/^[A-Z]{3}$/, 'ISO 4217 alpha-3 code'),
});

const merchantFileSchema = z.object({
  login: z.string().min(1),
  controlKey: z.string().min(8),
  publicKeyFile: z.string().min(1),
  privateKeyFile: z.string().optional(),
  endpoints: z.array(endpointSchema).min(1),
  endpointGroups: z
    .array(z.object({ id: z.number().int().positive(), endpoints: z.array(z.number().int()) }))
    .default([]),
});

const configFileSchema = z.object({
  merchants: z.array(merchantFileSchema).min(1),
  processingDelayMs: z.number().int().min(0).default(300),
  callbackMaxAttempts: z.number().int().min(1).max(50).default(10),
  callbackBackoffSeconds: z.number().min(0).default(5),
});

export interface MerchantConfig {
  login: string;
  controlKey: string;
  publicKeyPem: string;
  endpoints: { id: number; currency: string }[];
  endpointGroups: { id: number; endpoints: number[] }[];
}

export interface SandboxConfig {
  merchants: MerchantConfig[];
  /** How long an operation stays `processing` before its final status. */
  processingDelayMs: number;
  callbackMaxAttempts: number;
  /** First retry delay of a callback; doubled on each further attempt. */
  callbackBackoffSeconds: number;
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

function issuesText(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
}

/** Checks cross-references: unique endpoint and group ids, groups naming known endpoints. */
function checkReferences(merchants: MerchantConfig[]): void {
  const ids = new Set<number>();
  for (const m of merchants) {
    for (const e of m.endpoints) {
      if (ids.has(e.id)) throw new ConfigError(`endpoint id ${e.id} is used twice`);
      ids.add(e.id);
    }
    for (const g of m.endpointGroups) {
      if (ids.has(g.id)) throw new ConfigError(`endpoint group id ${g.id} clashes with another id`);
      ids.add(g.id);
      for (const member of g.endpoints) {
        if (!m.endpoints.some((e) => e.id === member)) {
          throw new ConfigError(
            `endpoint group ${g.id} names endpoint ${member} of another merchant or none`,
          );
        }
      }
    }
  }
  const logins = new Set(merchants.map((m) => m.login));
  if (logins.size !== merchants.length) throw new ConfigError('merchant logins must be unique');
}

/** Parses a config JSON text; key files are resolved against `baseDir`. */
export function parseSandboxConfig(text: string, baseDir: string): SandboxConfig {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new ConfigError('SANDBOX_CONFIG is not valid JSON');
  }
  const parsed = configFileSchema.safeParse(raw);
  if (!parsed.success) throw new ConfigError(`SANDBOX_CONFIG: ${issuesText(parsed.error)}`);
  const merchants = parsed.data.merchants.map((m): MerchantConfig => {
    const keyPath = isAbsolute(m.publicKeyFile) ? m.publicKeyFile : join(baseDir, m.publicKeyFile);
    let publicKeyPem: string;
    try {
      publicKeyPem = readFileSync(keyPath, 'utf8');
    } catch {
      throw new ConfigError(`merchant ${m.login}: cannot read publicKeyFile ${keyPath}`);
    }
    return {
      login: m.login,
      controlKey: m.controlKey,
      publicKeyPem,
      endpoints: m.endpoints,
      endpointGroups: m.endpointGroups,
    };
  });
  checkReferences(merchants);
  return {
    merchants,
    processingDelayMs: parsed.data.processingDelayMs,
    callbackMaxAttempts: parsed.data.callbackMaxAttempts,
    callbackBackoffSeconds: parsed.data.callbackBackoffSeconds,
  };
}

/** The folder of the documented demo merchant (public test material). */
export const DEMO_MERCHANT_DIR = resolve(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  'demo-merchant',
);

/** The demo merchant used without SANDBOX_CONFIG. */
export function demoConfig(): SandboxConfig {
  const merchant = readFileSync(join(DEMO_MERCHANT_DIR, 'merchant.json'), 'utf8');
  return parseSandboxConfig(`{"merchants":[${merchant}]}`, DEMO_MERCHANT_DIR);
}

const envSchema = z.object({
  SANDBOX_PORT: z.coerce.number().int().min(0).max(65535).default(8081),
  SANDBOX_HOST: z.string().min(1).default('127.0.0.1'),
  SANDBOX_CONFIG: z.string().min(1).optional(),
  SANDBOX_DB: z.string().min(1).optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export interface StartupConfig {
  port: number;
  host: string;
  dbPath: string | undefined;
  logLevel: string;
  sandbox: SandboxConfig;
}

/** Reads the environment once, failing with the list of bad keys. */
export function loadStartupConfig(env: NodeJS.ProcessEnv = process.env): StartupConfig {
  // An empty variable counts as unset (`SANDBOX_DB= node dist/main.js` keeps state in memory).
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== ''));
  const parsed = envSchema.safeParse(present);
  if (!parsed.success) throw new ConfigError(`environment: ${issuesText(parsed.error)}`);
  const e = parsed.data;
  let sandbox: SandboxConfig;
  if (e.SANDBOX_CONFIG === undefined) {
    sandbox = demoConfig();
  } else {
    let text: string;
    try {
      text = readFileSync(e.SANDBOX_CONFIG, 'utf8');
    } catch {
      throw new ConfigError(`SANDBOX_CONFIG: cannot read ${e.SANDBOX_CONFIG}`);
    }
    sandbox = parseSandboxConfig(text, dirname(resolve(e.SANDBOX_CONFIG)));
  }
  return {
    port: e.SANDBOX_PORT,
    host: e.SANDBOX_HOST,
    dbPath: e.SANDBOX_DB,
    logLevel: e.LOG_LEVEL,
    sandbox,
  };
}
