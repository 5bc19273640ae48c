// Ids of another endpoint. Paydesk has no per-user endpoint scoping: every staff member works on
// the merchant's configured endpoints (the demo merchant: 1001 EUR, 1002 USD, group 2001), and the
// sandbox also serves another merchant's endpoint 3001. What can cross an endpoint boundary is an
// order, a card reference or a callback of one endpoint named on another, or an endpoint that is
// not configured (another merchant's, or none): every one is refused with a 4xx naming what is
// wrong, nothing written, no order moved to another endpoint, nothing charged on the wrong one.
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callbackControl } from '@paydesk/shared/protocol';
import {
  auditRowsFor,
  businessState,
  CONTROL_KEY,
  startBff,
  type Account,
  type HostileBff,
  type Reply,
} from './support/bff.js';
import {
  describeInput,
  Findings,
  fuzzParams,
  hostileString,
  uriEncode,
} from './support/arbitraries.js';
import { envelopeProblems, leaksOf } from './support/checks.js';
import { DB_VARIANTS } from './support/databases.js';
import { OTHER_CONTROL_KEY } from './support/sandbox.js';
import { seedOrder } from './support/seed.js';

/** The callback parameters a valid one needs intact (the control covers the first four). */
const SIGNED = ['status', 'orderid', 'client_orderid', 'control', 'endpoint'];

interface Fields {
  path?: string;
}

function fieldPaths(reply: Reply): string[] {
  const fields =
    (reply.json as { error?: { details?: { fields?: Fields[] } } } | null)?.error?.details
      ?.fields ?? [];
  return fields.map((f) => f.path ?? '');
}

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(`ids of another endpoint (${variant.name})`, () => {
    let bff: HostileBff;
    let finance: Account;
    let support: Account;
    let ops: Account;
    let order: { id: string; orderid: string; clientOrderId: string };
    let cardRefId: string;

    beforeAll(async () => {
      bff = await startBff(variant);
      finance = await bff.account(['finance']);
      support = await bff.account(['support']);
      ops = await bff.account(['ops']);
      // A storefront's sale on endpoint 1001, learned by a lookup, and a card reference of it.
      const seeded = await seedOrder(bff, support, finance, '1001');
      order = seeded;
      cardRefId = seeded.cardRefId;
    });
    afterAll(async () => {
      await bff.close();
    });

    const k = (): [string, string][] => [['Idempotency-Key', randomUUID()]];
    /** Every order Paydesk knows: where it is, its state and its amounts. */
    const transactionRows = async () =>
      (
        await sql`select id, endpoint_id, orderid, type, status, stage, currency, amount_minor,
          captured_minor, returned_minor, card_ref_id from transactions order by id`.execute(
          bff.db.k,
        )
      ).rows;
    /** Sandbox requests that would charge a card reference. */
    const charges = () =>
      bff.gateway.requests.filter((r) => /make-rebill|recurring-payment/.test(r)).length;

    /** A refusal: the status, the field named, one refused audit row, nothing written or charged. */
    async function refused(
      who: Account,
      path: string,
      body: unknown,
      status: number,
      field: string | null,
    ): Promise<Reply> {
      const before = await businessState(bff.db);
      const sent = charges();
      const reply = await who.client.send('POST', path, { headers: k(), body: { json: body } });
      expect(reply.status, reply.text).toBe(status);
      expect(envelopeProblems(reply)).toEqual([]);
      if (field !== null) expect(fieldPaths(reply), reply.text).toContain(field);
      expect(await businessState(bff.db), reply.text).toEqual(before);
      expect(charges(), 'a refused request charged the card reference').toBe(sent);
      const rows = await auditRowsFor(bff.db, reply.requestId);
      expect(rows.map((r) => r.outcome)).toEqual(['refused']);
      return reply;
    }

    const rebill = (extra: object) => ({
      cardRefId,
      amount: '1.00',
      currency: 'USD',
      orderDesc: 'Hostile rebill',
      reason: 'hostile test',
      ...extra,
    });
    const subscription = (extra: object) => ({
      cardRefId,
      amount: '1.00',
      currency: 'USD',
      period: 'month',
      interval: 1,
      orderDesc: 'Hostile plan',
      email: 'buyer@example.com',
      ...extra,
    });

    it("when endpoint 1001's card reference is rebilled or subscribed on endpoint 1002, or in USD with no endpoint named, then 400 naming cardRefId (the endpoint) or currency (its endpoint takes EUR), nothing recorded, nothing sent to the gateway", async () => {
      // Named on 1002: the reference is not charged there. None named: it goes to its own
      // endpoint, 1001, which does not take USD.
      for (const [extra, field] of [
        [{ endpointId: '1002' }, 'cardRefId'],
        [{}, 'currency'],
      ] as const) {
        const r1 = await refused(finance, '/api/rebills', rebill(extra), 400, field);
        expect(r1.text).toContain('endpoint 1001');
        await refused(finance, '/api/subscriptions', subscription(extra), 400, field);
      }
      // On its own endpoint the reference is charged (the refusal above was about the endpoint).
      const sent = charges();
      const ok = await finance.client.send('POST', '/api/rebills', {
        headers: k(),
        body: { json: rebill({ currency: 'EUR', endpointId: '1001' }) },
      });
      expect(ok.status, ok.text).toBe(200);
      expect(charges()).toBe(sent + 1);
    });

    it('when a rebill, subscription, payout, payment link or card info names an endpoint that is not configured (another merchant’s 3001, an unconfigured group, none) or one of another currency, then 400 naming endpointId or currency, nothing written', async () => {
      const payout = (extra: object) => ({
        destination: {
          kind: 'bank',
          accountNumber: 'DE89370400440532013000',
          bankName: 'Test Bank',
          bankBic: 'COBADEFFXXX',
        },
        amount: '1.00',
        currency: 'EUR',
        orderDesc: 'Hostile payout',
        ...extra,
      });
      const link = (extra: object) => ({
        kind: 'payout-form',
        amount: '1.00',
        currency: 'EUR',
        orderDesc: 'Hostile link',
        ...extra,
      });
      const cases: [Account, string, (extra: object) => unknown][] = [
        [finance, '/api/rebills', rebill],
        [finance, '/api/subscriptions', subscription],
        [ops, '/api/payouts', payout],
        [ops, '/api/payment-links', link],
        [support, `/api/cards/${cardRefId}/info`, (extra) => ({ reason: 'hostile', ...extra })],
      ];
      for (const [who, path, body] of cases) {
        for (const endpointId of ['3001', '2001', '9999', '0'])
          await refused(who, path, body({ endpointId }), 400, 'endpointId');
        if (!path.startsWith('/api/cards'))
          await refused(who, path, body({ endpointId: '1002', currency: 'EUR' }), 400, 'currency');
      }
    });

    it("when a lookup names endpoint 1001's order on 1002 or on an unconfigured endpoint, then 404 or 400 naming endpointId, and the order keeps its endpoint and status", async () => {
      const before = await transactionRows();
      const r404 = await refused(
        support,
        '/api/transactions/lookup',
        { orderid: order.orderid, client_orderid: order.clientOrderId, endpointId: '1002' },
        404,
        null,
      );
      expect(r404.text).toContain('Endpoint 1002 has no order');
      await refused(
        support,
        '/api/transactions/lookup',
        { orderid: order.orderid, endpointId: '3001' },
        400,
        'endpointId',
      );
      expect(await transactionRows()).toEqual(before);
    });

    it("when card info asks for endpoint 1001's reference on 1002, then 404 and nothing about the card comes back", async () => {
      const reply = await refused(
        support,
        `/api/cards/${cardRefId}/info`,
        { reason: 'hostile', endpointId: '1002' },
        404,
        null,
      );
      expect(reply.text).not.toMatch(/411111|1111|VISA/);
    });

    describe('the gateway callback receiver', () => {
      const callback = async (params: [string, string][]) => {
        const query = params.map(([n, v]) => `${uriEncode(n)}=${uriEncode(v)}`).join('&');
        const res = await fetch(`${bff.url}/gateway/callback?${query}`);
        const text = await res.text();
        bff.captured.push({
          request: `GET /gateway/callback?${query}`,
          status: res.status,
          headers: res.headers,
          text,
        });
        return { status: res.status, text };
      };
      const signed = (endpoint: string, status: string, key: string): [string, string][] => [
        ['endpoint', endpoint],
        ['status', status],
        ['orderid', order.orderid],
        ['client_orderid', order.clientOrderId],
        ['serial-number', randomUUID()],
        ['type', 'sale'],
        ['amount', '20.00'],
        ['currency', 'EUR'],
        ['control', callbackControl(status, order.orderid, order.clientOrderId, key)],
      ];
      it("when a well-signed callback for endpoint 1001's order names endpoint 1002, then the order keeps its endpoint and status, no other order appears, and the callback is confirmed on the order's own endpoint", async () => {
        const before = await transactionRows();
        for (const status of ['declined', 'approved']) {
          const res = await callback(signed('1002', status, CONTROL_KEY));
          expect(res.status, res.text).toBe(200);
          // past the window in which an order whose callback status did not confirm is not asked
          // again (replays), so that each callback is confirmed on its own
          bff.clock.advance(11_000);
        }
        expect(await transactionRows()).toEqual(before);
        const titles = (
          await sql<{
            title: string;
          }>`select title from transaction_timeline where transaction_id = ${order.id} order by id`.execute(
            bff.db.k,
          )
        ).rows.map((r) => r.title);
        expect(
          titles.filter((t) => t.includes("status asked on the order's endpoint 1001")),
        ).toHaveLength(2);
        expect(titles.filter((t) => t.startsWith('status after callback'))).toEqual([]);
      });

      it('when a callback names an unconfigured endpoint, or is signed with another merchant’s key, or its control is missing, then 400 naming query.endpoint or 403, and nothing is stored', async () => {
        const stored = async () => (await businessState(bff.db)).gateway_callbacks;
        const before = await stored();
        for (const endpoint of ['3001', '2001', '9999'])
          expect((await callback(signed(endpoint, 'approved', CONTROL_KEY))).status).toBe(400);
        expect((await callback(signed('1001', 'declined', OTHER_CONTROL_KEY))).status).toBe(403);
        expect(
          (await callback(signed('1001', 'declined', CONTROL_KEY).filter(([n]) => n !== 'control')))
            .status,
        ).toBe(403);
        expect(await stored()).toBe(before);
      });

      it('when callbacks get generated hostile and duplicated parameters and bad controls, then 200 only for a valid control, else 400 naming a query field or 403, never 5xx, and nothing is stored without a valid control', async () => {
        const findings = new Findings();
        const names = [
          'endpoint',
          'status',
          'orderid',
          'client_orderid',
          'serial-number',
          'control',
          'type',
          'amount',
        ];
        const input = fc.record({
          base: fc.constantFrom('1001', '1002', '3001'),
          status: fc.constantFrom('approved', 'declined', 'processing'),
          key: fc.constantFrom(CONTROL_KEY, OTHER_CONTROL_KEY, 'garbage'),
          drop: fc.subarray(names, { maxLength: 2 }),
          replace: fc.array(fc.tuple(fc.constantFrom(...names), hostileString), { maxLength: 2 }),
          duplicate: fc.array(fc.tuple(fc.constantFrom(...names), hostileString), { maxLength: 2 }),
        });
        await fc.assert(
          fc.asyncProperty(input, async (i) => {
            const replaced = new Map(i.replace);
            const params = signed(i.base, i.status, i.key)
              .filter(([n]) => !i.drop.includes(n))
              .map(([n, v]): [string, string] => [n, replaced.get(n) ?? v]);
            params.push(...i.duplicate);
            const before = await businessState(bff.db);
            const res = await callback(params);
            const example = `${res.status} ${res.text.slice(0, 160)} ← ${describeInput(i)}`;
            // What the control covers, plus a configured endpoint and a serial number: a callback
            // with these intact is genuine (type, amount and the serial's value are not signed).
            const touched = new Set([
              ...i.drop,
              ...i.replace.map(([n]) => n),
              ...i.duplicate.map(([n]) => n),
            ]);
            const valid =
              i.key === CONTROL_KEY &&
              i.base !== '3001' &&
              SIGNED.every((n) => !touched.has(n)) &&
              !i.drop.includes('serial-number') &&
              !i.duplicate.some(([n]) => n === 'serial-number');
            if (res.status >= 500) findings.add('a 5xx', example);
            if (res.status === 200 && !valid)
              findings.add('accepted without a valid control', example);
            if (res.status === 400 && !res.text.includes('"path":"query.'))
              findings.add('a 400 naming no query field', example);
            if (!valid && JSON.stringify(await businessState(bff.db)) !== JSON.stringify(before))
              findings.add('a refused callback stored something', example);
          }),
          fuzzParams(),
        );
        expect(findings.count, findings.report('GET /gateway/callback')).toBe(0);
      });
    });

    it('when the suite is over, then no reply, log line (BFF or sandbox) or audit row holds a card number or a secret', async () => {
      expect(bff.captured.length).toBeGreaterThan(10);
      const leaks = await leaksOf(bff);
      expect(leaks, JSON.stringify(leaks.slice(0, 10), null, 2)).toEqual([]);
    });
  });
}
