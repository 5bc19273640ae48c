// Hostile input against every operation of the protocol library's catalog (`operations`), as the
// sandbox gateway serves them (`POST /paynet/api/...`): plausible bodies (from the sandbox's own
// OpenAPI schema) with fields dropped, replaced by hostile values, added or repeated with another
// value; bad Accept and Content-Type; unknown, foreign and malformed endpoint ids; a control or an
// OAuth signature that is right, of the other merchant, garbage or missing. Only 200 or 400 (naming
// fields), 401, 404, 406, 409; never 5xx; a refused request creates no order, card reference or
// recurring plan; a bad signature is never accepted.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  GATEWAY_CONTENT_TYPE,
  controlValue,
  formEncode,
  operationPath,
  operations,
  signOAuth,
  type OperationSpec,
} from '@paydesk/shared/protocol';
import { GatewayClient } from '@paydesk/sandbox/dist/storefront/gateway-client.js';
import {
  describeInput,
  Findings,
  fuzzParams,
  hostileKey,
  hostileString,
  PAN,
  RAW_BODIES,
  uriEncode,
} from './support/arbitraries.js';
import { findLeaks } from './support/checks.js';
import { pemSecrets } from './support/bff.js';
import { OTHER_CONTROL_KEY, startGateway, type Gateway } from './support/sandbox.js';

const LOGIN = 'hostile-gateway-merchant';
const CONTROL_KEY = 'HOSTILE-GATEWAY-CONTROL-KEY-91c4e2';
const OTHER_LOGIN = 'other-merchant';
const CARD_FIELDS = new Set(['credit_card_number', 'destination-card-no']);
const ALLOWED = new Set([200, 400, 401, 404, 406, 409]);

type Endpoint = '1001' | '1002' | '2001' | '3001' | '9999' | { hostile: string };
type Auth = 'valid' | 'foreign' | 'garbage' | 'missing';

interface Input {
  axis: 'clean' | 'fields' | 'auth' | 'accept' | 'content-type' | 'endpoint' | 'raw' | 'chaos';
  drop: string[];
  replace: [string, string][];
  extra: [string, string][];
  repeat: [string, string] | null;
  accept: string | null;
  contentType: string | null;
  endpoint: Endpoint;
  auth: Auth;
  raw: string | null;
}

interface Schema {
  properties: Record<string, { enum?: unknown[]; pattern?: string }>;
  required: string[];
}

let counter = 0;
function unique(prefix: string): string {
  counter += 1;
  return `${prefix}-${Date.now().toString(36)}-${counter}`;
}

const year = String(new Date().getUTCFullYear() + 3);

/** Values that pass validation for the fields the operations share; anything else gets 'x'. */
function plausible(name: string, seeds: Seeds): string {
  const table: Record<string, () => string> = {
    client_orderid: () => unique('hz'),
    'client-order-id': () => unique('hz'),
    order_desc: () => 'Hostile order',
    amount: () => '10.42',
    currency: () => 'EUR',
    address1: () => '1 Test Street',
    city: () => 'Testville',
    zip_code: () => '10115',
    country: () => 'DE',
    phone: () => '+49 30 1234567',
    email: () => 'jane@example.com',
    ipaddress: () => '192.0.2.10',
    credit_card_number: () => PAN,
    'destination-card-no': () => PAN,
    card_printed_name: () => 'JANE DOE',
    expire_month: () => '12',
    expire_year: () => year,
    cvv2: () => '123',
    redirect_url: () => 'https://shop.example/return',
    orderid: () => seeds.orderid,
    login: () => LOGIN,
    cardrefid: () => seeds.cardrefid,
    'card-ref-id': () => seeds.cardrefid,
    comment: () => 'hostile',
    period: () => 'month',
    interval: () => '1',
  };
  return (table[name] ?? (() => 'x'))();
}

/** A valid value for a required field: a known one, else the schema's first enum value, else one matching its pattern. */
function baselineValue(name: string, schema: Schema, seeds: Seeds): string {
  const known = plausible(name, seeds);
  if (known !== 'x') return known;
  const prop = schema.properties[name];
  const first = prop?.enum?.[0];
  if (typeof first === 'string') return first;
  if (prop?.pattern !== undefined)
    return (
      fc.sample(fc.stringMatching(new RegExp(prop.pattern)), { numRuns: 1, seed: 1 })[0] ?? 'x'
    );
  return 'x';
}

interface Seeds {
  orderid: string;
  cardrefid: string;
}

const headerText = fc.oneof(
  fc.constantFrom(
    '*/*',
    'application/json',
    'text/html',
    'application/vnd.pay+json;q=0',
    'application/vnd.pay+jsonx',
    '',
    "' OR 1=1 --",
  ),
  fc.string({
    unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
    maxLength: 30,
  }),
);

const CLEAN: Input = {
  axis: 'clean',
  drop: [],
  replace: [],
  extra: [],
  repeat: null,
  accept: GATEWAY_CONTENT_TYPE,
  contentType: 'application/x-www-form-urlencoded',
  endpoint: '1001',
  auth: 'valid',
  raw: null,
};

/** One axis of hostility per run (so each is reached past the checks before it), or all at once. */
function inputFor(fieldNames: string[]): fc.Arbitrary<Input> {
  const name =
    fieldNames.length === 0 ? hostileKey : fc.oneof(fc.constantFrom(...fieldNames), hostileKey);
  const ourEndpoint = fc.constantFrom<Endpoint>('1001', '1002', '2001');
  const drop =
    fieldNames.length === 0
      ? fc.constant<string[]>([])
      : fc.subarray(fieldNames, { maxLength: Math.min(3, fieldNames.length) });
  const replace = fc.array(fc.tuple(name, hostileString), { maxLength: 3 });
  const extra = fc.array(fc.tuple(hostileKey, hostileString), { maxLength: 2 });
  const repeat = fc.option(fc.tuple(name, hostileString), { nil: null });
  const accept = fc.option(headerText, { nil: null });
  const contentType = fc.option(
    fc.constantFrom(
      'application/json',
      'text/plain',
      'multipart/form-data; boundary=x',
      'application/x-www-form-urlencoded; charset=utf-16',
    ),
    { nil: null },
  );
  const endpoint = fc.oneof(
    fc.constantFrom<Endpoint>('3001', '9999'),
    fc.record({ hostile: hostileString }),
  );
  const badAuth = fc.constantFrom<Auth>('foreign', 'garbage', 'missing');
  const raw = fc.oneof(
    fc.constantFrom(...RAW_BODIES),
    fc.constantFrom(
      '%',
      '%zz=1',
      'a=1&a=2',
      '=&=&',
      'amount=10.42&amount=99.99',
      `amount=${'9'.repeat(300)}`,
    ),
  );
  return fc.oneof(
    { weight: 2, arbitrary: ourEndpoint.map((e): Input => ({ ...CLEAN, endpoint: e })) },
    {
      weight: 4,
      arbitrary: fc
        .record({ drop, replace, extra, repeat, endpoint: ourEndpoint })
        .map((r): Input => ({ ...CLEAN, ...r, axis: 'fields' })),
    },
    {
      weight: 3,
      arbitrary: fc
        .record({ auth: badAuth, endpoint: ourEndpoint })
        .map((r): Input => ({ ...CLEAN, ...r, axis: 'auth' })),
    },
    { weight: 1, arbitrary: accept.map((a): Input => ({ ...CLEAN, accept: a, axis: 'accept' })) },
    {
      weight: 1,
      arbitrary: contentType.map((c): Input => ({
        ...CLEAN,
        contentType: c,
        axis: 'content-type',
      })),
    },
    {
      weight: 2,
      arbitrary: endpoint.map((e): Input => ({ ...CLEAN, endpoint: e, axis: 'endpoint' })),
    },
    { weight: 1, arbitrary: raw.map((r): Input => ({ ...CLEAN, raw: r, axis: 'raw' })) },
    {
      weight: 2,
      arbitrary: fc
        .record({
          drop,
          replace,
          extra,
          repeat,
          accept: fc.oneof(fc.constant(GATEWAY_CONTENT_TYPE), accept),
          contentType: fc.oneof(fc.constant(CLEAN.contentType), contentType),
          endpoint: fc.oneof(ourEndpoint, endpoint),
          auth: fc.oneof(fc.constant<Auth>('valid'), badAuth),
          raw: fc.option(raw, { nil: null, freq: 4 }),
        })
        .map((r): Input => ({ ...r, axis: 'chaos' })),
    },
  );
}

/**
 * What a request could have created. A recurring plan's scheduled charges are orders the sandbox
 * creates by itself (on any request's due-work pass), so they are not counted.
 */
function stateOf(gw: Gateway): { orders: number; cardRefs: number; recurring: number } {
  let orders = 0;
  for (const o of gw.sandbox.store.orders.values())
    if (o.recurringPaymentId === undefined) orders += 1;
  return {
    orders,
    cardRefs: gw.sandbox.store.cardRefs.size,
    recurring: gw.sandbox.store.recurring.size,
  };
}

function pathOf(op: OperationSpec, endpoint: Endpoint): string {
  return typeof endpoint === 'string'
    ? operationPath(op.name, endpoint)
    : op.path.replace('{endpointId}', uriEncode(endpoint.hostile) || 'x');
}

function ownerOf(endpoint: Endpoint): { login: string; key: string } {
  return endpoint === '3001'
    ? { login: OTHER_LOGIN, key: OTHER_CONTROL_KEY }
    : { login: LOGIN, key: CONTROL_KEY };
}

function foreignOf(endpoint: Endpoint): { login: string; key: string } {
  return endpoint === '3001'
    ? { login: LOGIN, key: CONTROL_KEY }
    : { login: OTHER_LOGIN, key: OTHER_CONTROL_KEY };
}

describe('sandbox hostile input on every operation of the catalog', () => {
  let gw: Gateway;
  let schemas: Record<string, Schema>;
  let seeds: Seeds;
  const replies: { where: string; text: string; panAsIdentifier: boolean }[] = [];

  beforeAll(async () => {
    gw = await startGateway({ login: LOGIN, controlKey: CONTROL_KEY });
    const doc = (await (await fetch(`${gw.baseUrl}/openapi.json`)).json()) as {
      components: { schemas: Record<string, Partial<Schema>> };
    };
    schemas = {};
    for (const [name, s] of Object.entries(doc.components.schemas))
      schemas[name] = { properties: s.properties ?? {}, required: s.required ?? [] };
    const client = new GatewayClient(gw.baseUrl, {
      login: LOGIN,
      controlKey: CONTROL_KEY,
      privateKeyPem: gw.privateKeyPem,
    });
    const sale = await client.call('sale', 1001, {
      client_orderid: unique('seed'),
      order_desc: 'Seed',
      amount: '10.42',
      currency: 'EUR',
      address1: '1 Test Street',
      city: 'Testville',
      zip_code: '10115',
      country: 'DE',
      phone: '+49 30 1234567',
      email: 'jane@example.com',
      ipaddress: '192.0.2.10',
      credit_card_number: PAN,
      card_printed_name: 'JANE DOE',
      expire_month: '12',
      expire_year: year,
      cvv2: '123',
      redirect_url: 'https://shop.example/return',
    });
    const orderid = sale.reply.fields['paynet-order-id'] ?? '';
    expect(sale.httpStatus, JSON.stringify(sale.reply.fields)).toBe(200);
    await fetch(`${gw.origin}/sandbox/clock/advance`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"seconds":5}',
    });
    const ref = await client.call('create-card-ref', 1001, {
      client_orderid: sale.reply.fields['merchant-order-id'],
      orderid,
      login: LOGIN,
    });
    seeds = { orderid, cardrefid: ref.reply.fields['card-ref-id'] ?? '1' };
  });
  afterAll(async () => {
    await gw.close();
  });

  it('when the catalog is read, then every operation has a request schema', () => {
    expect(operations.length).toBeGreaterThan(20);
    for (const op of operations) expect(schemas[op.requestType], op.name).toBeDefined();
  });

  for (const op of operations) {
    it(`when ${op.name} (${op.path}) gets hostile fields, headers, endpoints and signatures, then only 200/400/401/404/406/409 and a refusal creates nothing`, async () => {
      const schema = schemas[op.requestType] ?? { properties: {}, required: [] };
      // The required fields, plus one source of funds or destination where the schema offers them
      // as alternatives (card reference, else card fields).
      const alternatives =
        'cardrefid' in schema.properties
          ? ['cardrefid']
          : ['credit_card_number', 'card_printed_name', 'expire_month', 'expire_year'];
      const fieldNames = [
        ...new Set([...schema.required, ...alternatives.filter((n) => n in schema.properties)]),
      ].filter((n) => n !== 'control');
      const baseline = new Map(fieldNames.map((n) => [n, baselineValue(n, schema, seeds)]));
      const findings = new Findings();
      const statuses = new Set<number>();
      const send = async (input: Input) => {
        const fields = new Map(baseline);
        // A fresh merchant order id per request: a repeated one is (rightly) a 400.
        for (const n of ['client_orderid', 'client-order-id'])
          if (fields.has(n)) fields.set(n, plausible(n, seeds));
        for (const n of input.drop) fields.delete(n);
        for (const [n, v] of input.replace) fields.set(n, v);
        for (const [n, v] of input.extra) fields.set(n, v);
        // UTF-8 cannot carry a lone surrogate: the protocol library's encoder (rightly) throws on one.
        const pairs: [string, string][] = [...fields].map(([n, v]) => [
          n.toWellFormed(),
          v.toWellFormed(),
        ]);
        if (input.repeat !== null)
          pairs.push([input.repeat[0].toWellFormed(), input.repeat[1].toWellFormed()]);
        const path = pathOf(op, input.endpoint);
        const url = gw.baseUrl + path;
        const headers = new Headers();
        if (input.accept !== null) headers.set('Accept', input.accept);
        if (input.contentType !== null) headers.set('Content-Type', input.contentType);
        const signer =
          input.auth === 'foreign' ? foreignOf(input.endpoint) : ownerOf(input.endpoint);
        const endpointId =
          typeof input.endpoint === 'string' ? input.endpoint : input.endpoint.hostile;
        if (op.auth.scheme === 'control') {
          if (input.auth === 'garbage') pairs.push(['control', 'deadbeef'.repeat(5)]);
          else if (input.auth !== 'missing') {
            let control = 'not-computable';
            try {
              control = controlValue(
                op.name,
                { ...Object.fromEntries(pairs), endpointId },
                signer.key,
              );
            } catch {
              // a field the formula needs is not valid text for it (e.g. a hostile amount)
            }
            pairs.push(['control', control]);
          }
        } else if (input.auth === 'garbage') {
          headers.set(
            'Authorization',
            'OAuth oauth_consumer_key="x", oauth_signature="bm9wZQ==", oauth_signature_method="HMAC-SHA1"',
          );
        } else if (input.auth !== 'missing') {
          const signed = signOAuth({
            url,
            body: pairs,
            consumerKey: signer.login,
            signatureMethod: op.auth.method,
            merchantControlKey: signer.key,
            privateKeyPem: gw.privateKeyPem,
          });
          headers.set('Authorization', signed.authorization);
        }
        const body = input.raw ?? formEncode(pairs);
        const before = stateOf(gw);
        const res = await fetch(url, { method: 'POST', headers, body: Buffer.from(body, 'utf8') });
        const text = await res.text();
        return { res, text, before, pairs, path };
      };
      // Whether a clean, well-signed request passes validation (some need an order in a given state).
      const probe = await send(CLEAN);
      const baselineValid = probe.res.status !== 400;
      await fc.assert(
        fc.asyncProperty(inputFor(fieldNames), async (input) => {
          const { res, text, before, pairs, path } = await send(input);
          // A card number the client put in an identifier (endpoint, order ids) may come back to it in
          // that identifier's echo; one sent as card data must never come back.
          const panAsIdentifier =
            path.includes(PAN) ||
            (input.raw ?? '').includes(PAN) ||
            pairs.some(([n, v]) => v.includes(PAN) && !CARD_FIELDS.has(n));
          replies.push({
            where: `reply to ${op.name}`,
            text: text + JSON.stringify([...res.headers]),
            panAsIdentifier,
          });
          statuses.add(res.status);
          const example = `${res.status} ${text.slice(0, 160)} ← ${describeInput({ path, ...input })}`;
          // Node's HTTP parser refuses a request line + headers over 16 KiB before the app sees it.
          if (res.status === 431 && text === '') return;
          if (!ALLOWED.has(res.status)) findings.add(`status ${res.status}`, example);
          if (!(res.headers.get('content-type') ?? '').startsWith(GATEWAY_CONTENT_TYPE))
            findings.add('a reply that is not application/vnd.pay+json', example);
          if (res.status === 200) {
            const wellSigned = input.auth === 'valid' && input.raw === null;
            if (!wellSigned)
              findings.add(
                `accepted with a ${input.raw === null ? input.auth : 'replaced'} signature`,
                example,
              );
            if (
              input.accept !== GATEWAY_CONTENT_TYPE &&
              !(input.accept ?? '').includes(GATEWAY_CONTENT_TYPE)
            )
              findings.add('accepted without Accept: application/vnd.pay+json', example);
            if (
              input.endpoint === '3001' &&
              pairs.some(([n, v]) => n === 'orderid' && v === seeds.orderid)
            )
              findings.add("another merchant's order answered", example);
            return;
          }
          let reply: Record<string, unknown> = {};
          try {
            reply = JSON.parse(text) as Record<string, unknown>;
          } catch {
            findings.add('an error reply that is not JSON', example);
          }
          if (typeof reply['error-code'] !== 'string' || typeof reply['error-message'] !== 'string')
            findings.add('an error reply without error-code and error-message', example);
          if (res.status === 400) {
            const named = Array.isArray(reply.fields)
              ? (reply.fields as { name?: unknown; message?: unknown }[])
              : [];
            if (
              named.length === 0 ||
              named.some(
                (f) => typeof f.name !== 'string' || f.name === '' || typeof f.message !== 'string',
              )
            )
              findings.add('a 400 naming no field', example);
          }
          if (input.accept === null && res.status !== 406)
            findings.add('no Accept header but not 406', example);
          if (
            baselineValid &&
            input.axis === 'auth' &&
            res.status !== 401 &&
            !(res.status === 400 && text.includes('"control"'))
          )
            findings.add('a bad signature on a well-formed request not refused with 401', example);
          const after = stateOf(gw);
          if (JSON.stringify(after) !== JSON.stringify(before))
            findings.add(
              'a refused request created state',
              `${JSON.stringify({ before, after })} ${example}`,
            );
        }),
        fuzzParams(),
      );
      expect(findings.count, findings.report(op.name)).toBe(0);
      expect(
        [...statuses].some((s) => s !== 200),
        `${op.name}: nothing was refused`,
      ).toBe(true);
    });
  }

  it('when an endpoint id in the path is a card number, then 404 and the request log does not hold it', async () => {
    const from = gw.logs.length;
    const res = await fetch(`${gw.baseUrl}/api/v2/sale/${PAN}`, {
      method: 'POST',
      headers: {
        Accept: GATEWAY_CONTENT_TYPE,
        'Content-Type': 'application/x-www-form-urlencoded',
      },
      body: 'amount=10.42',
    });
    expect(res.status).toBe(404);
    await res.text();
    const lines = gw.logs.slice(from);
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.filter((l) => l.includes(PAN))).toEqual([]);
  });

  it('when the fuzz runs are over, then no reply or log line of the sandbox holds a card number, a control key or key material', () => {
    expect(replies.length).toBeGreaterThan(100);
    const secrets = [CONTROL_KEY, OTHER_CONTROL_KEY, ...pemSecrets(gw.privateKeyPem)];
    const leaks = [
      ...findLeaks(
        replies.filter((r) => r.panAsIdentifier),
        secrets,
      ),
      ...findLeaks(
        [
          ...replies.filter((r) => !r.panAsIdentifier),
          ...gw.logs.map((text) => ({ where: 'sandbox log', text })),
        ],
        [...secrets, PAN],
      ),
    ];
    expect(leaks, JSON.stringify(leaks.slice(0, 10), null, 2)).toEqual([]);
  });
});
