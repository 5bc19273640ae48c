// fast-check generators of hostile input: strings (injection, unicode, oversized), numbers (huge,
// negative, fractional), JSON (wrong types, prototype-pollution keys, deep nesting, known field
// names with wrong values), raw bodies, content types, query strings and headers.
import fc from 'fast-check';
import * as api from '@paydesk/shared/api';

/** Seeded runs; set PAYDESK_FUZZ_SEED to replay a failure, PAYDESK_FUZZ_RUNS for more runs. */
export const FUZZ_SEED = Number(process.env.PAYDESK_FUZZ_SEED ?? 20261121);
export const FUZZ_RUNS = Number(process.env.PAYDESK_FUZZ_RUNS ?? 15);

export function fuzzParams(): fc.Parameters<unknown> {
  return { numRuns: FUZZ_RUNS, seed: FUZZ_SEED, endOnFailure: true };
}

/** A short, printable account of a generated value for failure messages. */
export function describeInput(value: unknown, max = 300): string {
  const text = fc.stringify(value);
  return text.length <= max ? text : `${text.slice(0, max)}…(${text.length} chars)`;
}

/** Collects what a fuzz run found, so that one run reports every kind of problem with the seed. */
export class Findings {
  readonly #items = new Map<string, string[]>();
  add(kind: string, detail: string): void {
    const list = this.#items.get(kind) ?? [];
    list.push(detail);
    this.#items.set(kind, list);
  }
  get count(): number {
    let n = 0;
    for (const list of this.#items.values()) n += list.length;
    return n;
  }
  report(label: string): string {
    const lines = [
      `${label}: ${this.count} finding(s) with PAYDESK_FUZZ_SEED=${FUZZ_SEED} PAYDESK_FUZZ_RUNS=${FUZZ_RUNS}`,
    ];
    for (const [kind, list] of this.#items) {
      lines.push(`- ${kind} (${list.length}×), e.g.:`);
      for (const d of list.slice(0, 3)) lines.push(`    ${d}`);
    }
    return lines.join('\n');
  }
}

export const PAN = '4111111111111111';

/** encodeURIComponent, after replacing lone surrogates (which no URL can carry) with U+FFFD. */
export function uriEncode(value: string): string {
  return encodeURIComponent(value.toWellFormed());
}

export const INJECTIONS = [
  "' OR 1=1 --",
  "'; DROP TABLE users; --",
  '" OR ""="',
  '<script>alert(1)</script>',
  '"><img src=x onerror=alert(1)>',
  '../../etc/passwd',
  '..\\..\\windows\\win.ini',
  '%2e%2e%2f%2e%2e%2fetc%2fpasswd',
  '%00',
  '\u0000',
  'a\u0000b',
  '${jndi:ldap://127.0.0.1/x}',
  '{{7*7}}',
  '$(id)',
  '`id`',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  '\r\nSet-Cookie: injected=1',
  '\u202Egnp.exe',
  '\uFEFF',
  '\uD800',
  '𝕏𝕐ℤ',
  'ｓｕｐｐｏｒｔ',
  'ADMIN',
  'admin ',
  PAN,
  '4111 1111 1111 1111',
  'NaN',
  'Infinity',
  '-0',
  '1e309',
  '-1',
  '0.001',
  '19.999',
  '99999999999999999999999.99',
  '',
  ' ',
  'null',
  'true',
  '[]',
  '{}',
];

/** Field and parameter names the API knows: every key of every object schema in @paydesk/shared/api. */
export const KNOWN_FIELDS: readonly string[] = (() => {
  const names = new Set<string>();
  for (const value of Object.values(api) as unknown[]) {
    if (typeof value !== 'object' || value === null || !('shape' in value)) continue;
    const shape: unknown = value.shape;
    if (typeof shape === 'object' && shape !== null)
      for (const k of Object.keys(shape)) names.add(k);
  }
  return [...names].sort();
})();

const printable = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
  maxLength: 40,
});

export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...INJECTIONS) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 30 }) },
  { weight: 2, arbitrary: printable },
  { weight: 1, arbitrary: fc.integer({ min: 257, max: 20_000 }).map((n) => 'A'.repeat(n)) },
  { weight: 1, arbitrary: fc.emailAddress() },
  { weight: 1, arbitrary: fc.uuid() },
);

export const hostileNumber: fc.Arbitrary<number> = fc.oneof(
  fc.constantFrom(
    1e308,
    -1e308,
    -1,
    -0.01,
    0.001,
    1.5,
    19.999,
    Number.MAX_SAFE_INTEGER + 2,
    2 ** 64,
    0,
    -0,
  ),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

export const hostileKey: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...KNOWN_FIELDS) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '__proto__',
      'constructor',
      'prototype',
      'roles',
      'isAdmin',
      'id',
      'userId',
      'actor',
    ),
  },
  { weight: 1, arbitrary: hostileString },
);

export const hostileJson: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    hostileString,
    hostileNumber,
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(hostileKey, tie('value'), { maxKeys: 6 }),
  ),
})).value;

/** An object body: known fields with hostile values, sometimes extra keys, sometimes nothing. */
export const hostileObject: fc.Arbitrary<Record<string, unknown>> = fc.dictionary(
  hostileKey,
  hostileJson,
  { maxKeys: 6 },
);

function nested(depth: number): string {
  return '['.repeat(depth) + ']'.repeat(depth);
}

/** Raw bodies a JSON serializer would never produce. */
export const RAW_BODIES = [
  '{"email":',
  '{"a":1,}',
  "{'a':1}",
  '{"roles":["support"],"roles":["admin"]}',
  '{"name":"x","name":{"$gt":""}}',
  '{"__proto__":{"roles":["admin"],"isAdmin":true}}',
  '{"constructor":{"prototype":{"roles":["admin"]}}}',
  nested(5_000),
  `{"a":${'{"a":'.repeat(2_000)}1${'}'.repeat(2_000)}}`,
  `{"name":"${'x'.repeat(120_000)}"}`,
  `{"amount":${'9'.repeat(400)}}`,
  '{"amount":1e999}',
  '{"amount":-0.000000001}',
  'null',
  '[]',
  '"just a string"',
  '12345678901234567890',
  '',
  '\uFEFF{}',
  'email=a%40b.c&password=x&roles=admin',
  '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><x>&e;</x>',
];

export const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=zzz',
  'application/xml',
  'application/vnd.pay+json',
  'application/merge-patch+json',
  '*/*',
  'garbage',
];

export type HostileBody =
  | { kind: 'none' }
  | { kind: 'json'; value: unknown; contentType: string | null }
  | { kind: 'raw'; text: string; contentType: string | null };

/**
 * JSON text naming one known field two or three times with different values (a serializer never
 * does; parsers keep the last): `{"amount":"1.00","reason":"x","amount":"-5"}`.
 */
export const duplicatedFieldsJson: fc.Arbitrary<string> = fc
  .tuple(
    fc.constantFrom(...KNOWN_FIELDS),
    fc.array(hostileJson, { minLength: 2, maxLength: 3 }),
    hostileObject,
  )
  .map(([name, values, rest]) => {
    const parts = values.map(
      (v) => `${JSON.stringify(name)}:${(JSON.stringify(v) as string | undefined) ?? 'null'}`,
    );
    const others = Object.entries(rest).map(
      ([k, v]) => `${JSON.stringify(k)}:${(JSON.stringify(v) as string | undefined) ?? 'null'}`,
    );
    return `{${[parts[0], ...others, ...parts.slice(1)].join(',')}}`;
  });

export const hostileBody: fc.Arbitrary<HostileBody> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('json' as const),
      value: hostileObject,
      contentType: fc.constant('application/json'),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('json' as const),
      value: hostileJson,
      contentType: fc.option(fc.constantFrom(...CONTENT_TYPES), { nil: null }),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('raw' as const),
      text: fc.constantFrom(...RAW_BODIES),
      contentType: fc.option(fc.constantFrom(...CONTENT_TYPES), { nil: null }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('raw' as const),
      text: duplicatedFieldsJson,
      contentType: fc.constant('application/json'),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'none' as const }) },
);

/** `a=1&a=2`, `x[y]=z`, junk escapes: the query string as sent (already encoded where it should be). */
export const hostileQuery: fc.Arbitrary<string> = fc.oneof(
  { weight: 1, arbitrary: fc.constant('') },
  {
    weight: 4,
    arbitrary: fc
      .array(fc.tuple(hostileKey, fc.oneof(hostileString, hostileNumber.map(String))), {
        maxLength: 5,
      })
      .map((pairs) => pairs.map(([k, v]) => `${uriEncode(k)}=${uriEncode(v)}`).join('&')),
  },
  {
    // one known parameter repeated with different values (Express makes it an array)
    weight: 2,
    arbitrary: fc
      .tuple(
        fc.constantFrom(...KNOWN_FIELDS),
        fc.array(fc.oneof(hostileString, hostileNumber.map(String)), {
          minLength: 2,
          maxLength: 3,
        }),
      )
      .map(([k, values]) => values.map((v) => `${uriEncode(k)}=${uriEncode(v)}`).join('&')),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      'page=1&page=2',
      'pageSize=-1',
      'pageSize=1000000',
      'page=1e9',
      'format=xml',
      'from=not-a-date&to=2026-13-45',
      'a[b][c]=1',
      '__proto__[roles]=admin',
      'constructor[prototype][x]=1',
      '%',
      '%zz=1',
      'a=%00',
      `q=${'x'.repeat(8_000)}`,
      'status=approved&status[]=declined',
      'sort=id;DROP TABLE transactions',
    ),
  },
);

const headerValue = fc.oneof(
  fc.constantFrom(
    "' OR 1=1 --",
    '<script>',
    '../../etc/passwd',
    '%00',
    'null',
    '-1',
    'application/json',
    '*/*',
    PAN,
  ),
  printable,
  fc.integer({ min: 100, max: 6_000 }).map((n) => 'h'.repeat(n)),
);

/** Extra request headers (never CSRF or session ones: those are what makes the request allowed). */
export const hostileHeaders: fc.Arbitrary<[string, string][]> = fc.array(
  fc.oneof(
    fc.tuple(fc.constant('Accept'), headerValue),
    fc.tuple(fc.constant('X-Request-Id'), headerValue),
    fc.tuple(fc.constant('Idempotency-Key'), fc.oneof(fc.uuid(), headerValue)),
    fc.tuple(fc.constant('User-Agent'), headerValue),
    fc.tuple(
      fc.constant('X-Forwarded-For'),
      fc.constantFrom('127.0.0.1', '10.0.0.1, 1.2.3.4', 'not-an-ip'),
    ),
    fc.tuple(
      fc.constant('Content-Encoding'),
      fc.constantFrom('gzip', 'br', 'identity', 'x-unknown'),
    ),
    fc.tuple(
      fc.constant('Cookie'),
      fc.constantFrom('paydesk_session=forged', 'a=b', '__proto__=1'),
    ),
    fc.tuple(fc.constant('X-HTTP-Method-Override'), fc.constantFrom('DELETE', 'PATCH', 'GET')),
    fc.tuple(fc.constantFrom('X-Role', 'X-User-Id', 'X-Original-URL'), headerValue),
  ),
  { maxLength: 4 },
);

/** A path parameter: an existing row's id (by index into those found) or a hostile string. */
export type ParamChoice = { kind: 'known'; index: number } | { kind: 'hostile'; value: string };

export const paramChoice: fc.Arbitrary<ParamChoice> = fc.oneof(
  fc.record({ kind: fc.constant('known' as const), index: fc.nat(4) }),
  fc.record({
    kind: fc.constant('hostile' as const),
    value: fc.oneof(
      hostileString,
      fc.constantFrom('999999999', '00000000-0000-4000-8000-000000000000', PAN),
    ),
  }),
);
