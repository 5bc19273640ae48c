// capture / return / void / card-ref through the BFF's HTTP API against the real sandbox process.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  OperationResultSchema,
  TransactionDetailSchema,
  type ErrorEnvelope,
} from '@paydesk/shared/api';
import { DB_VARIANTS, errorCode } from '../test-support/harness.js';
import { payDb } from './db.js';
import { key, learnedOrder, post, startFixture, type Fixture } from './test-support/fixture.js';

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(`payments operations (${variant.name})`, () => {
    let f: Fixture;
    /** The audit rows of one action on one order, oldest first. */
    const auditOf = (action: string, transactionId: string) =>
      f.bff.db.k
        .selectFrom('audit_log')
        .selectAll()
        .where('action', '=', action)
        .where('target', '=', `transaction:${transactionId}`)
        .orderBy('seq', 'asc')
        .execute();
    beforeAll(async () => {
      f = await startFixture(variant);
    });
    afterAll(async () => {
      await f.close();
    });
    afterEach(async () => {
      await f.sandbox.faults({});
    });

    it('when finance returns part of an approved sale, then the gateway gets the original ids and the explicit amount, and the record shows it', async () => {
      const { order, tx } = await learnedOrder(f, 'sale', '100.00');
      expect(tx).toMatchObject({
        status: 'approved',
        amounts: { captured: '100.00', remainingReturnable: '100.00', net: '100.00' },
      });
      expect(tx.allowedActions).toEqual(expect.arrayContaining(['return', 'void']));
      const res = await post(f.finance, `/api/transactions/${tx.id}/return`, {
        amount: '25.50',
        reasonCode: 'customer_request',
        comment: 'damaged',
      });
      expect(res.status).toBe(200);
      const result = OperationResultSchema.parse(res.json);
      expect(result.operation).toMatchObject({
        kind: 'return',
        state: 'processing',
        amount: '25.50',
      });
      expect(result.transaction.amounts).toMatchObject({
        returned: '25.50',
        remainingReturnable: '74.50',
        reserved: '0.00',
        // what the order kept: captured less returned
        net: '74.50',
      });
      const sent = result.transaction.timeline.find(
        (e) => e.kind === 'gateway' && e.title.startsWith('return'),
      );
      const request = (sent?.data as { request: Record<string, string> }).request;
      expect(request).toMatchObject({
        orderid: order.orderid,
        client_orderid: order.clientOrderId,
        amount: '25.50',
        currency: 'EUR',
        control: '[redacted]',
      });
      const atGateway = await f.sandbox.order(order.orderid);
      expect(atGateway.returnedMinor).toBe('2550');
      expect(atGateway.operations.filter((o) => o.type === 'return')).toHaveLength(1);
      const audit = await auditOf('transaction.return', tx.id);
      expect(audit.map((a) => a.outcome)).toEqual(['success']);
    });

    it('when a return exceeds what is left, then 409 CAP_EXCEEDED with the remaining amount, nothing is sent, and the refusal is audited', async () => {
      const { order, tx } = await learnedOrder(f, 'sale', '40.00');
      expect(
        (
          await post(f.finance, `/api/transactions/${tx.id}/return`, {
            amount: '30.00',
            reasonCode: 'other',
            comment: 'first',
          })
        ).status,
      ).toBe(200);
      const res = await post(f.finance, `/api/transactions/${tx.id}/return`, {
        amount: '10.01',
        reasonCode: 'other',
        comment: 'second',
      });
      expect(res.status).toBe(409);
      const env = res.json as ErrorEnvelope;
      expect(env.error.code).toBe('CAP_EXCEEDED');
      expect(env.error.details).toMatchObject({ remaining: '10.00', currency: 'EUR' });
      expect(
        (await f.sandbox.order(order.orderid)).operations.filter((o) => o.type === 'return'),
      ).toHaveLength(1);
      const refused = (await auditOf('transaction.return', tx.id)).filter(
        (a) => a.outcome === 'refused',
      );
      expect(refused.map((r) => r.error_code)).toEqual(['CAP_EXCEEDED']);
    });

    it('when five returns race for one order, then their sum never exceeds the captured amount, at Paydesk or at the gateway', async () => {
      const { order, tx } = await learnedOrder(f, 'sale', '100.00');
      const replies = await Promise.all(
        Array.from({ length: 5 }, (_, i) =>
          post(f.finance, `/api/transactions/${tx.id}/return`, {
            amount: '30.00',
            reasonCode: 'other',
            comment: `race ${i}`,
          }),
        ),
      );
      const statuses = replies.map((r) => r.status).sort();
      expect(statuses).toEqual([200, 200, 200, 409, 409]);
      for (const r of replies.filter((x) => x.status === 409))
        expect(errorCode(r)).toBe('CAP_EXCEEDED');
      const atGateway = await f.sandbox.order(order.orderid);
      expect(atGateway.returnedMinor).toBe('9000');
      expect(atGateway.operations.filter((o) => o.type === 'return')).toHaveLength(3);
      const detail = TransactionDetailSchema.parse(
        (await f.support.get(`/api/transactions/${tx.id}`)).json,
      );
      expect(detail.amounts).toMatchObject({ returned: '90.00', remainingReturnable: '10.00' });
    });

    it('when a preauth is captured in part, then a second capture is refused by Paydesk with 409 and a capture above the hold with CAP_EXCEEDED', async () => {
      const { order, tx } = await learnedOrder(f, 'preauth', '80.00');
      expect(tx).toMatchObject({
        type: 'preauth',
        stage: 'authorized',
        amounts: { remainingCapturable: '80.00', captured: '0.00' },
      });
      const tooMuch = await post(f.finance, `/api/transactions/${tx.id}/capture`, {
        amount: '80.01',
      });
      expect(tooMuch.status).toBe(409);
      expect(errorCode(tooMuch)).toBe('CAP_EXCEEDED');
      expect((tooMuch.json as ErrorEnvelope).error.details).toMatchObject({ remaining: '80.00' });
      const ok = await post(f.finance, `/api/transactions/${tx.id}/capture`, { amount: '50.00' });
      expect(ok.status).toBe(200);
      expect(OperationResultSchema.parse(ok.json).transaction.amounts).toMatchObject({
        captured: '50.00',
        remainingCapturable: '0.00',
        remainingReturnable: '50.00',
      });
      const again = await post(f.finance, `/api/transactions/${tx.id}/capture`, {});
      expect(again.status).toBe(409);
      expect(errorCode(again)).toBe('INVALID_STATE');
      const atGateway = await f.sandbox.order(order.orderid);
      expect(atGateway.capturedMinor).toBe('5000');
      expect(atGateway.operations.filter((o) => o.type === 'capture')).toHaveLength(1);
    });

    it('when a partial capture is sent as a form or as text, then 415 and nothing is captured (not a full capture)', async () => {
      const { order, tx } = await learnedOrder(f, 'preauth', '40.00');
      for (const [type, body] of [
        ['application/x-www-form-urlencoded', 'amount=1.00'],
        ['text/plain', '{"amount":"1.00"}'],
      ] as const) {
        const res = await f.finance.request('POST', `/api/transactions/${tx.id}/capture`, body, {
          'Content-Type': type,
          'Idempotency-Key': key(),
        });
        expect(res.status).toBe(415);
        expect(errorCode(res)).toBe('UNSUPPORTED_MEDIA_TYPE');
        expect((res.json as ErrorEnvelope).error.details?.fields?.[0]).toMatchObject({
          path: '(body)',
          rule: 'content_type',
        });
      }
      const atGateway = await f.sandbox.order(order.orderid);
      expect(atGateway.operations.filter((o) => o.type === 'capture')).toHaveLength(0);
      // With no body at all, the documented default still holds: the whole hold is captured.
      const whole = await f.finance.request(
        'POST',
        `/api/transactions/${tx.id}/capture`,
        undefined,
        {
          'Idempotency-Key': key(),
        },
      );
      expect(whole.status).toBe(200);
      expect(OperationResultSchema.parse(whole.json).transaction.amounts.captured).toBe('40.00');
    });

    it('when an amount is typed without its decimals, then the audit row writes it as money (“12.50”), as the order does', async () => {
      const { tx } = await learnedOrder(f, 'preauth', '30.00');
      const res = await post(
        f.finance,
        `/api/transactions/${tx.id}/capture`,
        { amount: '12.5' },
        key(),
      );
      expect(res.status, res.text).toBe(200);
      const [row] = await auditOf('transaction.capture', tx.id);
      expect(JSON.parse(row?.summary ?? '{}')).toMatchObject({
        operation: 'capture',
        body: { amount: '12.50' },
      });
    });

    it('when a capture is accepted, then its attempt has one audit row written with the outcome, the reply shows the timeline as stored, and a repeat is audited as replayed', async () => {
      const { tx } = await learnedOrder(f, 'preauth', '30.00');
      const k = key();
      const res = await post(
        f.finance,
        `/api/transactions/${tx.id}/capture`,
        { amount: '30.00' },
        k,
      );
      expect(res.status).toBe(200);
      const result = OperationResultSchema.parse(res.json);
      const stored = await payDb(f.bff.db)
        .selectFrom('transaction_timeline')
        .select(['id', 'title'])
        .where('transaction_id', '=', tx.id)
        .orderBy('id', 'asc')
        .execute();
      // The reply's timeline is the stored one up to this exchange (a callback may follow).
      expect(result.transaction.timeline.map((e) => ({ id: e.id, title: e.title }))).toEqual(
        stored.slice(0, result.transaction.timeline.length),
      );
      expect(result.transaction.timeline.at(-1)?.title).toBe('capture: accepted');
      const rows = () => auditOf('transaction.capture', tx.id);
      const first = await rows();
      expect(first.map((a) => a.outcome)).toEqual(['success']);
      expect(JSON.parse(first[0]?.summary ?? '{}')).toMatchObject({
        operation: 'capture',
        idempotencyKey: k,
        replayed: false,
        result: 'processing',
        gatewaySerial: result.operation.gatewaySerial,
      });
      const again = await post(
        f.finance,
        `/api/transactions/${tx.id}/capture`,
        { amount: '30.00' },
        k,
      );
      expect(again.status).toBe(200);
      const both = await rows();
      expect(both.map((a) => JSON.parse(a.summary) as { replayed: boolean })).toMatchObject([
        { replayed: false },
        { replayed: true },
      ]);
      expect((await f.bff.services.audit.verify()).ok).toBe(true);
    });

    it('when the outcome cannot be recorded, then the attempt is still audited, once, as failed, and its key stays in flight for the reconciler', async () => {
      const { tx } = await learnedOrder(f, 'preauth', '15.00');
      const failing = vi
        .spyOn(f.bff.services.audit, 'prepareIn')
        .mockRejectedValueOnce(new Error('disk full'));
      const k = key();
      const res = await post(f.finance, `/api/transactions/${tx.id}/capture`, {}, k);
      failing.mockRestore();
      expect(res.status).toBe(500);
      const audit = await auditOf('transaction.capture', tx.id);
      expect(audit).toMatchObject([{ outcome: 'failed', error_code: 'INTERNAL' }]);
      expect(audit).toHaveLength(1);
      const op = await payDb(f.bff.db)
        .selectFrom('transaction_operations')
        .select('state')
        .where('transaction_id', '=', tx.id)
        .where('kind', '=', 'capture')
        .executeTakeFirstOrThrow();
      // Nothing of (C) was kept: the operation waits for the reconciler's status check.
      expect(op.state).toBe('sending');
      const held = await payDb(f.bff.db)
        .selectFrom('idempotency_keys')
        .select('state')
        .where('key', '=', k)
        .executeTakeFirstOrThrow();
      expect(held.state).toBe('in_flight');
    });

    it('when a preauth has nothing captured, then nothing is returnable, return is not offered, and a return is refused with 409 saying to void the hold, nothing sent', async () => {
      const { order, tx } = await learnedOrder(f, 'preauth', '55.00');
      expect(tx.amounts).toMatchObject({
        authorized: '55.00',
        captured: '0.00',
        remainingReturnable: '0.00',
      });
      expect(tx.allowedActions).toEqual(['capture', 'void', 'card-ref']);
      // Whole (no amount, or the held amount) or part: none is a return of money.
      for (const amount of [undefined, '55.00', '10.00']) {
        const res = await post(f.finance, `/api/transactions/${tx.id}/return`, {
          ...(amount === undefined ? {} : { amount }),
          reasonCode: 'customer_request',
          comment: 'release it',
        });
        expect(res.status).toBe(409);
        expect(errorCode(res)).toBe('INVALID_STATE');
        expect((res.json as ErrorEnvelope).error).toMatchObject({
          message:
            'Nothing was captured, so there is no money to return: void the hold to release it.',
          details: { remaining: '0.00', currency: 'EUR' },
        });
      }
      const atGateway = await f.sandbox.order(order.orderid);
      expect(atGateway.operations.map((o) => o.type)).toEqual(['preauth']);
      const after = TransactionDetailSchema.parse(
        (await f.support.get(`/api/transactions/${tx.id}`)).json,
      );
      expect(after.operations.map((o) => o.kind)).toEqual(['preauth']);
      // The refusal is audited as such.
      expect((await auditOf('transaction.return', tx.id)).map((a) => a.outcome)).toEqual([
        'refused',
        'refused',
        'refused',
      ]);
      // The hold is released by a void.
      const voided = await post(f.finance, `/api/transactions/${tx.id}/void`, {
        comment: 'release',
      });
      expect(voided.status).toBe(200);
    });

    it('when a sale is voided, then its detail keeps the captured amount and says the order kept nothing', async () => {
      const { tx } = await learnedOrder(f, 'sale', '30.00');
      const res = await post(f.finance, `/api/transactions/${tx.id}/void`, {
        comment: 'customer cancelled',
      });
      expect(res.status).toBe(200);
      expect(OperationResultSchema.parse(res.json).transaction).toMatchObject({
        stage: 'voided',
        amounts: { captured: '30.00', returned: '0.00', net: '0.00' },
      });
      const detail = TransactionDetailSchema.parse(
        (await f.support.get(`/api/transactions/${tx.id}`)).json,
      );
      expect(detail.amounts).toMatchObject({ captured: '30.00', net: '0.00' });
    });

    it('when a preauth is voided, then returns and captures are refused afterwards', async () => {
      const { order, tx } = await learnedOrder(f, 'preauth', '20.00');
      const res = await post(f.finance, `/api/transactions/${tx.id}/void`, {
        comment: 'customer cancelled',
      });
      expect(res.status).toBe(200);
      expect(OperationResultSchema.parse(res.json).transaction).toMatchObject({
        stage: 'voided',
        allowedActions: ['card-ref'],
      });
      const ret = await post(f.finance, `/api/transactions/${tx.id}/return`, {
        reasonCode: 'other',
        comment: 'no',
      });
      expect(ret.status).toBe(409);
      expect(errorCode(ret)).toBe('INVALID_STATE');
      expect((await f.sandbox.order(order.orderid)).voided).toBe(true);
    });

    it('when the gateway refuses a void of a settled sale (its 409), then staff get INVALID_STATE with the gateway code and the raw reply stays in the timeline', async () => {
      const { tx } = await learnedOrder(f, 'sale', '15.00');
      await f.sandbox.advance(25 * 3600);
      const res = await post(f.finance, `/api/transactions/${tx.id}/void`, { comment: 'too late' });
      expect(res.status).toBe(409);
      const env = res.json as ErrorEnvelope;
      expect(env.error.code).toBe('INVALID_STATE');
      expect(env.error.details).toMatchObject({
        gatewayHttpStatus: 409,
        gatewayErrorCode: 'INVALID_STATE',
      });
      expect(env.error.message).toContain('INVALID_STATE');
      const detail = TransactionDetailSchema.parse(
        (await f.support.get(`/api/transactions/${tx.id}`)).json,
      );
      const entry = detail.timeline.find((e) => e.title.startsWith('void: refused'));
      expect((entry?.data as { reply: Record<string, string> }).reply['error-code']).toBe(
        'INVALID_STATE',
      );
      expect(detail.operations.find((o) => o.kind === 'void')).toMatchObject({
        state: 'refused',
        errorCode: 'INVALID_STATE',
      });
      const audit = await auditOf('transaction.void', tx.id);
      // Recorded with the refusal in the outcome's transaction, and only there.
      expect(audit).toMatchObject([{ outcome: 'refused', error_code: 'INVALID_STATE' }]);
      expect(audit).toHaveLength(1);
    });

    it('when finance asks for a card reference (v2), then the gateway creates one and the order shows it', async () => {
      const { tx } = await learnedOrder(f, 'sale', '12.00');
      const res = await post(f.finance, `/api/transactions/${tx.id}/card-ref`, {});
      expect(res.status).toBe(200);
      const result = OperationResultSchema.parse(res.json);
      expect(result.operation).toMatchObject({ kind: 'card-ref', state: 'approved' });
      expect(result.transaction.cardRefId).toMatch(/^\d+$/);
      expect(result.transaction.allowedActions).not.toContain('card-ref');
      // The staff entry in words (it said 'card-ref requested', QA); the gateway's by its name.
      expect(result.transaction.timeline.map((e) => e.title)).toEqual(
        expect.arrayContaining(['card reference requested', 'create-card-ref: approved']),
      );
    });

    it('when the body is bad, then 400 names the field; an unknown id is 404; support may not return money (403)', async () => {
      const { tx } = await learnedOrder(f, 'sale', '10.00');
      const bad = await post(f.finance, `/api/transactions/${tx.id}/return`, {
        amount: '1.234',
        comment: 'x',
      });
      expect(bad.status).toBe(400);
      const fields = ((bad.json as ErrorEnvelope).error.details?.fields ?? [])
        .map((x) => x.path)
        .sort();
      expect(fields).toEqual(['amount', 'reasonCode']);
      // Its audit row names the fields and rules that failed, never the values.
      const [refused] = await auditOf('transaction.return', tx.id);
      expect(refused).toMatchObject({ outcome: 'refused', error_code: 'VALIDATION_FAILED' });
      const invalid = (JSON.parse(refused?.summary ?? '{}') as { invalid?: string[] }).invalid;
      expect(invalid?.map((i) => i.split(':')[0]).sort()).toEqual(['amount', 'reasonCode']);
      expect(refused?.summary).not.toContain('1.234');
      const unreadable = await f.finance.request(
        'POST',
        `/api/transactions/${tx.id}/return`,
        '{"amount": 1',
        { 'Idempotency-Key': key() },
      );
      expect(unreadable.status).toBe(400);
      expect((unreadable.json as ErrorEnvelope).error.details?.fields?.[0]?.path).toBe('(body)');
      const missing = await post(f.finance, `/api/transactions/${crypto.randomUUID()}/return`, {
        reasonCode: 'other',
        comment: 'x',
      });
      expect(missing.status).toBe(404);
      expect((await f.support.get(`/api/transactions/${crypto.randomUUID()}`)).status).toBe(404);
      const forbidden = await post(f.support, `/api/transactions/${tx.id}/return`, {
        reasonCode: 'other',
        comment: 'x',
      });
      expect(forbidden.status).toBe(403);
      expect(errorCode(forbidden)).toBe('FORBIDDEN');
    });

    it('when the Idempotency-Key is missing, reused with another body, or repeated, then 400, 422 and the stored reply (sent once)', async () => {
      const { order, tx } = await learnedOrder(f, 'sale', '50.00');
      const path = `/api/transactions/${tx.id}/return`;
      const body = { amount: '5.00', reasonCode: 'duplicate', comment: 'dup' };
      const noKey = await post(f.finance, path, body, null);
      expect(noKey.status).toBe(400);
      expect(errorCode(noKey)).toBe('IDEMPOTENCY_KEY_MISSING');
      const k = key();
      const first = await post(f.finance, path, body, k);
      expect(first.status).toBe(200);
      const repeat = await post(f.finance, path, body, k);
      expect(repeat.status).toBe(200);
      expect(repeat.headers.get('idempotent-replayed')).toBe('true');
      expect(repeat.json).toEqual(first.json);
      const other = await post(f.finance, path, { ...body, amount: '6.00' }, k);
      expect(other.status).toBe(422);
      expect(errorCode(other)).toBe('IDEMPOTENCY_KEY_REUSED');
      // Keys are the user's: another finance user with the same key makes a new request.
      const colleague = await f.bff.userWithRoles(['finance']);
      expect((await post(colleague, path, body, k)).headers.get('idempotent-replayed')).toBeNull();
      expect(
        (await f.sandbox.order(order.orderid)).operations.filter((o) => o.type === 'return'),
      ).toHaveLength(2);
    });

    it('when a refused request is repeated with its key, then the refusal stored with the check comes back and the key holds it', async () => {
      const { order, tx } = await learnedOrder(f, 'sale', '20.00');
      const path = `/api/transactions/${tx.id}/return`;
      const body = { amount: '20.01', reasonCode: 'other', comment: 'too much' };
      const k = key();
      const first = await post(f.finance, path, body, k);
      expect(first.status).toBe(409);
      expect(errorCode(first)).toBe('CAP_EXCEEDED');
      // Taken and answered in the reservation's transaction: done, with the refusal as the reply.
      const row = await payDb(f.bff.db)
        .selectFrom('idempotency_keys')
        .select(['state', 'reply_status', 'reply_body'])
        .where('key', '=', k)
        .executeTakeFirstOrThrow();
      expect(row).toMatchObject({ state: 'done', reply_status: 409 });
      expect(row.reply_body).toContain('CAP_EXCEEDED');
      const repeat = await post(f.finance, path, body, k);
      expect(repeat.status).toBe(409);
      expect(repeat.json).toMatchObject({
        error: { code: 'CAP_EXCEEDED', details: { remaining: '20.00' } },
      });
      expect(
        (await f.sandbox.order(order.orderid)).operations.filter((o) => o.type === 'return'),
      ).toHaveLength(0);
    });

    it('when an operation succeeds, then its key is done with the reply it sent, in the outcome transaction', async () => {
      const { tx } = await learnedOrder(f, 'sale', '12.00');
      const k = key();
      const res = await post(
        f.finance,
        `/api/transactions/${tx.id}/return`,
        { amount: '2.00', reasonCode: 'other', comment: 'stored' },
        k,
      );
      expect(res.status).toBe(200);
      const row = await payDb(f.bff.db)
        .selectFrom('idempotency_keys')
        .select(['state', 'reply_status', 'reply_body'])
        .where('key', '=', k)
        .executeTakeFirstOrThrow();
      expect(row).toMatchObject({ state: 'done', reply_status: 200 });
      expect((JSON.parse(row.reply_body ?? '{}') as { body?: unknown }).body).toEqual(res.json);
      const op = await payDb(f.bff.db)
        .selectFrom('transaction_operations')
        .select(['idempotency_key', 'state'])
        .where('transaction_id', '=', tx.id)
        .where('kind', '=', 'return')
        .executeTakeFirstOrThrow();
      expect(op.idempotency_key).toBe(k);
    });

    it('when a request with the same key is still in flight, then the second gets 409 IDEMPOTENCY_IN_FLIGHT', async () => {
      const { order, tx } = await learnedOrder(f, 'sale', '30.00');
      await f.sandbox.faults({ latencyMs: 600, operations: ['return'] });
      const k = key();
      const body = { amount: '1.00', reasonCode: 'other', comment: 'slow' };
      const first = post(f.finance, `/api/transactions/${tx.id}/return`, body, k);
      for (let i = 0; i < 100; i++) {
        const row = await payDb(f.bff.db)
          .selectFrom('idempotency_keys')
          .select('state')
          .where('key', '=', k)
          .executeTakeFirst();
        if (row !== undefined) break;
        await new Promise((r) => setTimeout(r, 10));
      }
      const second = await post(f.finance, `/api/transactions/${tx.id}/return`, body, k);
      expect(second.status).toBe(409);
      expect(errorCode(second)).toBe('IDEMPOTENCY_IN_FLIGHT');
      expect((await first).status).toBe(200);
      expect(
        (await f.sandbox.order(order.orderid)).operations.filter((o) => o.type === 'return'),
      ).toHaveLength(1);
    });
  });
}
