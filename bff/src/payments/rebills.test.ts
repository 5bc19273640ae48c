// POST /api/rebills: make-rebill on a stored card as a new order, through the BFF's HTTP API
// against the real sandbox process, on both databases.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  OperationResultSchema,
  TransactionDetailSchema,
  TransactionPageSchema,
  type ErrorEnvelope,
  type TransactionDetail,
} from '@paydesk/shared/api';
import { DB_VARIANTS, errorCode } from '../test-support/harness.js';
import { payDb } from './db.js';
import { key, learnedOrder, post, startFixture, type Fixture } from './test-support/fixture.js';

const CLIENT_ORDERID = /^rb-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

interface Delivery {
  params: Record<string, string>;
  state: string;
}

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(`payments rebills (${variant.name})`, () => {
    let f: Fixture;
    let cardRefId: string;
    const detail = async (id: string): Promise<TransactionDetail> =>
      TransactionDetailSchema.parse((await f.support.get(`/api/transactions/${id}`)).json);
    const body = (extra: Record<string, unknown> = {}) => ({
      cardRefId,
      amount: '12.34',
      currency: 'EUR',
      orderDesc: 'monthly top-up',
      reason: 'customer asked by phone',
      ...extra,
    });
    /** the sandbox's own delivery log: every callback of every order it holds */
    const deliveries = async (): Promise<Delivery[]> => {
      const r = await f.sandbox.control('/sandbox/callbacks');
      return (r.json as { callbacks: Delivery[] }).callbacks;
    };

    beforeAll(async () => {
      f = await startFixture(variant);
      const { tx } = await learnedOrder(f, 'sale', '10.00');
      const res = await post(f.finance, `/api/transactions/${tx.id}/card-ref`, {});
      const ref = OperationResultSchema.parse(res.json).transaction.cardRefId;
      if (ref === null) throw new Error('no card reference');
      cardRefId = ref;
    });
    afterAll(async () => {
      await f.close();
    });
    afterEach(async () => {
      await f.sandbox.faults({});
    });

    it('when finance rebills a stored card, then a new rebill order with a new rb- client_orderid is sent once, learned through its callback, listed and audited with the reason', async () => {
      const res = await post(f.finance, '/api/rebills', body());
      expect(res.status).toBe(200);
      const result = OperationResultSchema.parse(res.json);
      expect(result.operation).toMatchObject({
        kind: 'rebill',
        state: 'processing',
        amount: '12.34',
        comment: 'customer asked by phone',
      });
      const tx = result.transaction;
      expect(tx).toMatchObject({
        type: 'rebill',
        status: 'processing',
        amount: '12.34',
        currency: 'EUR',
        endpointId: '1001',
        cardRefId,
      });
      expect(tx.clientOrderId).toMatch(CLIENT_ORDERID);
      expect(tx.orderid).toMatch(/^\d+$/);
      const sent = tx.timeline.find((e) => e.title.startsWith('make-rebill'));
      const request = (sent?.data as { request: Record<string, string> }).request;
      expect(request).toMatchObject({
        client_orderid: tx.clientOrderId,
        cardrefid: cardRefId,
        amount: '12.34',
        currency: 'EUR',
        order_desc: 'monthly top-up',
        server_callback_url: `${f.bff.url}/gateway/callback?endpoint=1001`,
      });

      await f.sandbox.advance(61);
      const after = await detail(tx.id);
      expect(after).toMatchObject({ status: 'approved', type: 'rebill', orderid: tx.orderid });
      expect(after.card?.lastFour).toBe('1111');
      expect(after.timeline.some((e) => e.kind === 'callback')).toBe(true);
      expect(after.operations.filter((o) => o.kind === 'rebill')).toEqual([
        expect.objectContaining({ state: 'approved', origin: 'paydesk', id: result.operation.id }),
      ]);
      const atGateway = await f.sandbox.order(tx.orderid);
      expect(atGateway.status).toBe('approved');
      expect(atGateway.operations.map((o) => o.type)).toEqual(['rebill']);

      const list = TransactionPageSchema.parse(
        (await f.support.get(`/api/transactions?type=rebill&q=${tx.clientOrderId}`)).json,
      );
      expect(list.items.map((i) => i.id)).toEqual([tx.id]);

      const audit = await f.bff.db.k
        .selectFrom('audit_log')
        .selectAll()
        .where('action', '=', 'transaction.rebill')
        .where('target', '=', `transaction:${tx.id}`)
        .execute();
      expect(audit.map((a) => a.outcome)).toEqual(['success']);
      expect(audit[0]?.summary).toContain('customer asked by phone');
    });

    it('when the body is invalid, then 400 names the field and nothing reaches the gateway', async () => {
      const before = (await deliveries()).length;
      const cases: [Record<string, unknown>, string][] = [
        [{ cardRefId: undefined }, '"path":"cardRefId"'],
        [{ amount: '1.234' }, '"path":"amount"'],
        [{ amount: '0.00' }, '"path":"amount"'],
        [{ currency: 'euro' }, '"path":"currency"'],
        [{ orderDesc: '' }, '"path":"orderDesc"'],
        [{ reason: undefined }, '"path":"reason"'],
        // The rule of every reason for a money step (card info, a payout's rejection): 3 to 255.
        [{ reason: 'x'.repeat(256) }, '"path":"reason","rule":"too_big"'],
        [{ endpointId: 'abc' }, '"path":"endpointId"'],
        [{ surprise: 1 }, 'surprise'],
      ];
      for (const [extra, path] of cases) {
        const res = await post(f.finance, '/api/rebills', body(extra));
        expect(res.status, JSON.stringify(extra)).toBe(400);
        const env = res.json as ErrorEnvelope;
        expect(env.error.code).toBe('VALIDATION_FAILED');
        expect(JSON.stringify(env.error.details)).toContain(path);
      }
      const wrongEndpoint = await post(f.finance, '/api/rebills', body({ endpointId: '1002' }));
      expect(wrongEndpoint.status).toBe(400);
      expect(JSON.stringify(wrongEndpoint.json)).toContain('currency');
      const noKey = await post(f.finance, '/api/rebills', body(), null);
      expect(noKey.status).toBe(400);
      expect(errorCode(noKey)).toBe('IDEMPOTENCY_KEY_MISSING');
      await f.sandbox.advance(61);
      expect((await deliveries()).length).toBe(before);
      const rows = await payDb(f.bff.db)
        .selectFrom('transactions')
        .select('id')
        .where('type', '=', 'rebill')
        .where('amount_minor', '=', 1234)
        .execute();
      expect(rows.length).toBe(1);
    });

    it('when support, ops or an auditor asks for a rebill, then 403 and nothing is sent', async () => {
      for (const role of ['support', 'ops', 'auditor'] as const) {
        const client = await f.bff.userWithRoles([role]);
        const res = await post(client, '/api/rebills', body({ amount: '7.77' }));
        expect(res.status, role).toBe(403);
      }
      const rows = await payDb(f.bff.db)
        .selectFrom('transactions')
        .select('id')
        .where('amount_minor', '=', 777)
        .execute();
      expect(rows).toEqual([]);
    });

    it('when the same Idempotency-Key comes again, then the stored reply is repeated and the gateway charged once; with another body, 422', async () => {
      const k = key();
      const first = await post(f.finance, '/api/rebills', body({ amount: '3.21' }), k);
      const again = await post(f.finance, '/api/rebills', body({ amount: '3.21' }), k);
      expect(first.status).toBe(200);
      expect(again.status).toBe(200);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.json).toEqual(first.json);
      const other = await post(f.finance, '/api/rebills', body({ amount: '3.22' }), k);
      expect(other.status).toBe(422);
      const rows = await payDb(f.bff.db)
        .selectFrom('transactions')
        .select(['orderid', 'client_orderid'])
        .where('type', '=', 'rebill')
        .where('amount_minor', 'in', [321, 322])
        .execute();
      expect(rows).toHaveLength(1);
      await f.sandbox.advance(61);
      const log = (await deliveries()).filter(
        (d) => d.params.client_orderid === rows[0]?.client_orderid,
      );
      expect(log.map((d) => d.params.orderid)).toEqual([rows[0]?.orderid]);
    });

    it('when the gateway does not know the card reference, then 404 names cardRefId, nothing is charged or recorded, and the refused attempt is audited', async () => {
      const before = (await deliveries()).length;
      const res = await post(f.finance, '/api/rebills', body({ cardRefId: '999999999' }));
      expect(res.status).toBe(404);
      const env = res.json as ErrorEnvelope;
      expect(env.error.code).toBe('NOT_FOUND');
      expect(env.error.details).toMatchObject({
        gatewayHttpStatus: 404,
        fields: [{ path: 'cardRefId', rule: 'card_ref_unknown' }],
      });
      const audit = await f.bff.db.k
        .selectFrom('audit_log')
        .selectAll()
        .where('action', '=', 'transaction.rebill')
        .where('error_code', '=', 'NOT_FOUND')
        .execute();
      expect(audit.map((a) => a.outcome)).toEqual(['refused']);
      // No order, operation or timeline: the reference was looked up, nothing was charged.
      const k = payDb(f.bff.db);
      expect(
        await k
          .selectFrom('transactions')
          .select('id')
          .where('card_ref_id', '=', '999999999')
          .execute(),
      ).toEqual([]);
      expect(
        await k
          .selectFrom('transaction_operations')
          .select('id')
          .where('kind', '=', 'rebill')
          .where('state', '=', 'refused')
          .execute(),
      ).toEqual([]);
      await f.sandbox.advance(61);
      expect((await deliveries()).length).toBe(before);
    });

    it('when the reply to a rebill is dropped, then the order is unknown, and the reconciler finds it by client_orderid without sending it again', async () => {
      await f.sandbox.faults({ dropResponseRate: 1, operations: ['make-rebill'] });
      const res = await post(f.finance, '/api/rebills', body({ amount: '45.67' }));
      expect(res.status).toBe(200);
      const result = OperationResultSchema.parse(res.json);
      expect(result.operation).toMatchObject({ state: 'unknown', gatewaySerial: null });
      expect(result.transaction.status).toBe('unknown');
      expect(result.transaction.orderid).toBe(`pending:${result.transaction.clientOrderId}`);
      expect(result.message).toContain('will not send it again');
      await f.sandbox.faults({});

      f.bff.clock.advance(5_000);
      expect(await f.bff.payments.reconciler.runOnce()).toBeGreaterThanOrEqual(1);
      const found = await detail(result.transaction.id);
      expect(found.orderid).toMatch(/^\d+$/);
      expect(found.operations).toEqual([
        expect.objectContaining({
          id: result.operation.id,
          kind: 'rebill',
          origin: 'paydesk',
          state: 'processing',
        }),
      ]);
      expect(found.operations[0]?.gatewaySerial).not.toBeNull();
      const audit = await f.bff.db.k
        .selectFrom('audit_log')
        .selectAll()
        .where('action', '=', 'transaction.reconcile')
        .where('target', '=', `transaction:${found.id}`)
        .execute();
      expect(audit.map((a) => a.outcome)).toEqual(['success']);

      await f.sandbox.advance(61);
      const final = await detail(found.id);
      expect(final.status).toBe('approved');
      const rows = await payDb(f.bff.db)
        .selectFrom('transactions')
        .select('id')
        .where('client_orderid', '=', found.clientOrderId)
        .execute();
      expect(rows).toHaveLength(1);
      const atGateway = await f.sandbox.order(found.orderid);
      expect(atGateway.operations.map((o) => o.type)).toEqual(['rebill']);
      const log = (await deliveries()).filter(
        (d) => d.params.client_orderid === found.clientOrderId,
      );
      expect(new Set(log.map((d) => d.params.orderid))).toEqual(new Set([found.orderid]));
    });

    it('when the gateway fails a rebill with a 500 before applying it, then the order is unknown, and once status still does not know it the reconciler settles it as not created, without sending it again', async () => {
      await f.sandbox.faults({ errorRate: 1, operations: ['make-rebill'] });
      const res = await post(f.finance, '/api/rebills', body({ amount: '56.78' }));
      expect(res.status).toBe(200);
      const result = OperationResultSchema.parse(res.json);
      expect(result.operation.state).toBe('unknown');
      expect(result.transaction.status).toBe('unknown');
      await f.sandbox.faults({});

      f.bff.clock.advance(5_000);
      await f.bff.payments.reconciler.runOnce();
      expect((await detail(result.transaction.id)).status).toBe('unknown');
      f.bff.clock.advance(61_000);
      expect(await f.bff.payments.reconciler.runOnce()).toBeGreaterThanOrEqual(1);
      const settled = await detail(result.transaction.id);
      expect(settled).toMatchObject({ status: 'error', stage: 'not_created' });
      expect(settled.operations).toEqual([
        expect.objectContaining({ id: result.operation.id, state: 'not_applied' }),
      ]);
      const audit = await f.bff.db.k
        .selectFrom('audit_log')
        .selectAll()
        .where('action', '=', 'transaction.reconcile')
        .where('target', '=', `transaction:${settled.id}`)
        .execute();
      expect(audit.map((a) => [a.outcome, a.error_code])).toEqual([['failed', 'NOT_APPLIED']]);
      const job = await payDb(f.bff.db)
        .selectFrom('reconcile_jobs')
        .select('transaction_id')
        .where('transaction_id', '=', settled.id)
        .execute();
      expect(job).toEqual([]);
      await f.sandbox.advance(61);
      const log = (await deliveries()).filter(
        (d) => d.params.client_orderid === settled.clientOrderId,
      );
      expect(log).toEqual([]);
    });
  });
}
