// Subscriptions (v4 create-recurring-payment) through the BFF's HTTP API against the real sandbox
// process, on both databases: created once, their charges learned by callback and linked.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  OperationResultSchema,
  SubscriptionDetailSchema,
  SubscriptionPageSchema,
  SubscriptionResultSchema,
  TransactionDetailSchema,
  type ErrorEnvelope,
  type SubscriptionDetail,
} from '@paydesk/shared/api';
import { DB_VARIANTS, errorCode } from '../test-support/harness.js';
import { payDb } from './db.js';
import { createPayments } from './index.js';
import { advanceSchedule, nextChargeAt, scheduleText } from './subscriptions.js';
import { startPaymentsApp } from './test-support/app.js';
import { key, learnedOrder, post, startFixture, type Fixture } from './test-support/fixture.js';

interface SandboxPlan {
  id: string;
  clientOrderId: string;
  period: string;
  interval: number;
  chargesMade: number;
  chargeOrderIds: string[];
  state: string;
  serverCallbackUrl?: string;
}

describe('subscription schedule', () => {
  it('when the next charge is computed, then it follows the period from the start, and none after maxPayments', () => {
    const start = Date.UTC(2026, 0, 31, 10, 0, 0);
    expect(nextChargeAt(start, 'day', 3, 0, null)).toBe(start);
    expect(nextChargeAt(start, 'day', 3, 2, null)).toBe(Date.UTC(2026, 1, 6, 10, 0, 0));
    expect(nextChargeAt(start, 'week', 2, 1, 5)).toBe(Date.UTC(2026, 1, 14, 10, 0, 0));
    expect(advanceSchedule(Date.UTC(2026, 4, 15), 'month', 1)).toBe(Date.UTC(2026, 5, 15));
    expect(nextChargeAt(start, 'month', 1, 2, 2)).toBeNull();
  });

  it('when a schedule is said in words, then one period is “every month”, several “every 2 weeks”', () => {
    expect(scheduleText('month', 1)).toBe('every month');
    expect(scheduleText('day', 1)).toBe('every day');
    expect(scheduleText('week', 2)).toBe('every 2 weeks');
    expect(scheduleText('month', 3)).toBe('every 3 months');
  });
});

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(`payments subscriptions (${variant.name})`, () => {
    let f: Fixture;
    let cardRefId: string;
    const body = (extra: Record<string, unknown> = {}) => ({
      cardRefId,
      amount: '9.99',
      currency: 'EUR',
      period: 'day',
      interval: 1,
      maxPayments: 2,
      orderDesc: 'daily plan',
      email: 'Subscriber@Example.com',
      ...extra,
    });
    const detail = async (id: string): Promise<SubscriptionDetail> =>
      SubscriptionDetailSchema.parse((await f.support.get(`/api/subscriptions/${id}`)).json);
    const plan = async (id: string): Promise<SandboxPlan> => {
      const r = await f.sandbox.control(`/sandbox/recurring-payments/${id}`);
      expect(r.status).toBe(200);
      return r.json as SandboxPlan;
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

    it('when finance creates a daily subscription, then the gateway gets one signed v4 request, and each charge arrives by callback as a rebill linked to it until maxPayments', async () => {
      const res = await post(f.finance, '/api/subscriptions', body());
      expect(res.status).toBe(200);
      const result = SubscriptionResultSchema.parse(res.json);
      const created = result.subscription;
      // In words: "every day", not "every 1 day".
      expect(result.message).toBe(
        `Subscription ${created.recurringPaymentId ?? ''} created: 9.99 EUR every day. Paydesk learns each charge, a rebill order, from the gateway automatically.`,
      );
      expect(created).toMatchObject({
        state: 'active',
        amount: '9.99',
        currency: 'EUR',
        cardRefId,
        email: 'subscriber@example.com',
        endpointId: '1001',
        schedule: { period: 'day', interval: 1, maxPayments: 2, paymentsMade: 0 },
      });
      expect(created.clientOrderId).toMatch(/^rp-[0-9a-f-]{36}$/);
      expect(created.recurringPaymentId).toMatch(/^\d+$/);
      const rpId = created.recurringPaymentId ?? '';
      const atGateway = await plan(rpId);
      expect(atGateway).toMatchObject({
        clientOrderId: created.clientOrderId,
        period: 'day',
        interval: 1,
        serverCallbackUrl: `${f.bff.url}/gateway/callback?endpoint=1001`,
      });

      // The first charge is due at once; it finishes and calls back.
      await f.sandbox.advance(61);
      const first = await detail(created.id);
      expect(first.charges).toHaveLength(1);
      expect(first.charges[0]).toMatchObject({
        type: 'rebill',
        status: 'approved',
        amount: '9.99',
        clientOrderId: `${created.clientOrderId}-1`,
      });
      expect(first.schedule.paymentsMade).toBe(1);
      expect(first.schedule.nextChargeAt).toBe(
        new Date(advanceSchedule(Date.parse(first.schedule.start), 'day', 1)).toISOString(),
      );

      await f.sandbox.advance(24 * 3600);
      await f.sandbox.advance(61);
      const second = await detail(created.id);
      expect(second.charges.map((c) => c.clientOrderId).sort()).toEqual([
        `${created.clientOrderId}-1`,
        `${created.clientOrderId}-2`,
      ]);
      expect(second.charges.every((c) => c.status === 'approved')).toBe(true);
      expect(second).toMatchObject({
        state: 'completed',
        schedule: { paymentsMade: 2, nextChargeAt: null },
      });
      const sandboxPlan = await plan(rpId);
      expect(sandboxPlan).toMatchObject({ state: 'completed', chargesMade: 2 });
      expect(second.charges.map((c) => c.orderid).sort()).toEqual(
        [...sandboxPlan.chargeOrderIds].sort(),
      );
      // Charges are ordinary orders: in the transaction list with their callbacks.
      const chargeId = second.charges[0]?.id ?? '';
      const tx = TransactionDetailSchema.parse(
        (await f.support.get(`/api/transactions/${chargeId}`)).json,
      );
      expect(tx.timeline.some((e) => e.kind === 'callback')).toBe(true);
      // …each leading back to its plan (QA).
      expect(tx.subscription).toEqual({ id: created.id, orderDesc: created.orderDesc });

      const list = SubscriptionPageSchema.parse((await f.support.get('/api/subscriptions')).json);
      expect(list.items.find((s) => s.id === created.id)).toMatchObject({
        state: 'completed',
        schedule: { paymentsMade: 2 },
      });
      // Found by its recurring payment id or its client order id exactly (the look-up's way to it).
      for (const term of [rpId, created.clientOrderId]) {
        const named = SubscriptionPageSchema.parse(
          (await f.support.get(`/api/subscriptions?q=${encodeURIComponent(term)}`)).json,
        );
        expect(named.items.map((s) => s.id)).toEqual([created.id]);
      }
      const none = SubscriptionPageSchema.parse(
        (await f.support.get(`/api/subscriptions?q=${encodeURIComponent(`${rpId}0`)}`)).json,
      );
      expect(none.items).toEqual([]);
      // a parameter the list does not know is named, not ignored
      const unknownParam = await f.support.get('/api/subscriptions?offset=50');
      expect(unknownParam.status).toBe(400);
      expect((unknownParam.json as ErrorEnvelope).error.details?.fields).toEqual([
        {
          path: 'query.offset',
          rule: 'unrecognized_keys',
          message: 'is not a parameter of this request',
        },
      ]);
      const audit = await f.bff.db.k
        .selectFrom('audit_log')
        .selectAll()
        .where('action', '=', 'subscription.create')
        .where('target', '=', `subscription:${created.id}`)
        .execute();
      expect(audit.map((a) => a.outcome)).toEqual(['success']);
      expect(audit[0]?.summary).toContain(rpId);
    });

    it('when a subscription starts on a later date, then nothing is charged before it and the schedule shows it', async () => {
      const clock = (await f.sandbox.control('/sandbox/clock')).json as { nowMs: number };
      const start = new Date(clock.nowMs + 3 * 24 * 3600_000).toISOString().slice(0, 10);
      const res = await post(
        f.finance,
        '/api/subscriptions',
        body({ startDate: start, period: 'week', interval: 2, maxPayments: undefined }),
      );
      expect(res.status).toBe(200);
      const created = SubscriptionResultSchema.parse(res.json).subscription;
      expect(created.startDate).toBe(start);
      expect(created.schedule).toMatchObject({
        start: `${start}T00:00:00.000Z`,
        nextChargeAt: `${start}T00:00:00.000Z`,
        maxPayments: null,
      });
      await f.sandbox.advance(61);
      expect((await detail(created.id)).charges).toEqual([]);
      expect((await plan(created.recurringPaymentId ?? '')).chargesMade).toBe(0);
    });

    it('when the body is invalid, then 400 names the field and nothing is created', async () => {
      const cases: [Record<string, unknown>, string][] = [
        [{ period: 'year' }, 'period'],
        [{ interval: 0 }, 'interval'],
        [{ interval: 366 }, 'interval'],
        [{ interval: '2' }, 'interval'],
        [{ startDate: '2026-02-30' }, 'startDate'],
        [{ startDate: 'tomorrow' }, 'startDate'],
        [{ maxPayments: 0 }, 'maxPayments'],
        [{ email: 'not-an-address' }, 'email'],
        [{ cardRefId: '' }, 'cardRefId'],
        [{ amount: '-1' }, 'amount'],
        [{ orderDesc: undefined }, 'orderDesc'],
      ];
      const before = await payDb(f.bff.db).selectFrom('subscriptions').select('id').execute();
      for (const [extra, field] of cases) {
        const res = await post(f.finance, '/api/subscriptions', body(extra));
        expect(res.status, JSON.stringify(extra)).toBe(400);
        expect((res.json as ErrorEnvelope).error.code).toBe('VALIDATION_FAILED');
        expect(JSON.stringify((res.json as ErrorEnvelope).error.details)).toContain(
          `"path":"${field}"`,
        );
      }
      const noKey = await post(f.finance, '/api/subscriptions', body(), null);
      expect(errorCode(noKey)).toBe('IDEMPOTENCY_KEY_MISSING');
      const after = await payDb(f.bff.db).selectFrom('subscriptions').select('id').execute();
      expect(after.length).toBe(before.length);
    });

    it('when the start date is before today (UTC, by the BFF clock), then 400 names startDate and nothing is created; today is taken', async () => {
      const rows = () => payDb(f.bff.db).selectFrom('subscriptions').select('id').execute();
      const before = await rows();
      const yesterday = new Date(f.bff.clock.now() - 86_400_000).toISOString().slice(0, 10);
      for (const startDate of ['2001-01-01', yesterday]) {
        const res = await post(f.finance, '/api/subscriptions', body({ startDate }));
        expect(res.status, startDate).toBe(400);
        expect((res.json as ErrorEnvelope).error.details?.fields).toEqual([
          {
            path: 'startDate',
            rule: 'not_in_past',
            message: 'must be today (2026-11-21, UTC) or later',
          },
        ]);
      }
      expect((await rows()).length).toBe(before.length);
      // Today, on a BFF clock showing the gateway's day (the sandbox runs at real time), signed
      // in at that time (the sessions of before would have expired).
      const sandboxNow = ((await f.sandbox.control('/sandbox/clock')).json as { nowMs: number })
        .nowMs;
      const shift = sandboxNow - f.bff.clock.now();
      f.bff.clock.advance(shift);
      try {
        const today = new Date(sandboxNow).toISOString().slice(0, 10);
        const res = await post(
          await f.bff.userWithRoles(['finance']),
          '/api/subscriptions',
          body({ startDate: today, maxPayments: 1 }),
        );
        expect(res.status, res.text).toBe(200);
        expect(SubscriptionResultSchema.parse(res.json).subscription.startDate).toBe(today);
      } finally {
        f.bff.clock.advance(-shift);
      }
    });

    it('when the start date is more than a year after today (UTC, by the BFF clock), then 400 names startDate and nothing is created', async () => {
      const rows = () => payDb(f.bff.db).selectFrom('subscriptions').select('id').execute();
      const before = await rows();
      for (const startDate of ['2027-11-22', '2099-11-21']) {
        const res = await post(f.finance, '/api/subscriptions', body({ startDate }));
        expect(res.status, startDate).toBe(400);
        expect((res.json as ErrorEnvelope).error.details?.fields).toEqual([
          {
            path: 'startDate',
            rule: 'too_far_ahead',
            message: 'must be at most a year ahead (2027-11-21, UTC, at the latest)',
          },
        ]);
      }
      expect((await rows()).length).toBe(before.length);
    });

    it('when the gateway does not know the card reference, then 404 names cardRefId and no plan is recorded', async () => {
      const rows = () => payDb(f.bff.db).selectFrom('subscriptions').select('id').execute();
      const before = await rows();
      const res = await post(f.finance, '/api/subscriptions', body({ cardRefId: '999999999' }));
      expect(res.status, res.text).toBe(404);
      expect((res.json as ErrorEnvelope).error.details?.fields).toEqual([
        expect.objectContaining({ path: 'cardRefId', rule: 'card_ref_unknown' }),
      ]);
      expect((await rows()).length).toBe(before.length);
      const audit = await f.bff.db.k
        .selectFrom('audit_log')
        .select(['outcome', 'error_code'])
        .where('action', '=', 'subscription.create')
        .where('error_code', '=', 'NOT_FOUND')
        .execute();
      expect(audit).toEqual([{ outcome: 'refused', error_code: 'NOT_FOUND' }]);
    });

    it('when a role other than finance creates one, then 403; every reader may list and read them', async () => {
      const created = SubscriptionResultSchema.parse(
        (await post(f.finance, '/api/subscriptions', body({ maxPayments: 1 }))).json,
      ).subscription;
      for (const role of ['support', 'ops', 'auditor'] as const) {
        const client = await f.bff.userWithRoles([role]);
        expect((await post(client, '/api/subscriptions', body())).status, role).toBe(403);
        expect((await client.get(`/api/subscriptions/${created.id}`)).status, role).toBe(200);
        expect((await client.get('/api/subscriptions')).status, role).toBe(200);
      }
      expect((await f.support.get('/api/subscriptions/not-an-id')).status).toBe(400);
      expect(
        (await f.support.get('/api/subscriptions/00000000-0000-0000-0000-000000000000')).status,
      ).toBe(404);
    });

    it('when the same Idempotency-Key comes again, then the stored reply is repeated and one plan exists at the gateway', async () => {
      const k = key();
      const first = await post(f.finance, '/api/subscriptions', body({ amount: '4.44' }), k);
      const again = await post(f.finance, '/api/subscriptions', body({ amount: '4.44' }), k);
      expect(first.status).toBe(200);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.json).toEqual(first.json);
      expect(
        (await post(f.finance, '/api/subscriptions', body({ amount: '4.45' }), k)).status,
      ).toBe(422);
      const rows = await payDb(f.bff.db)
        .selectFrom('subscriptions')
        .select('id')
        .where('amount_minor', 'in', [444, 445])
        .execute();
      expect(rows).toHaveLength(1);
    });

    it('when the reply to the create is lost, then the plan is unknown, never sent again, and its first charge links it', async () => {
      await f.sandbox.faults({ dropResponseRate: 1, operations: ['create-recurring-payment'] });
      const res = await post(f.finance, '/api/subscriptions', body({ amount: '6.66' }));
      expect(res.status).toBe(200);
      const result = SubscriptionResultSchema.parse(res.json);
      expect(result.subscription).toMatchObject({ state: 'unknown', recurringPaymentId: null });
      expect(result.message).toContain('will not send it again');
      await f.sandbox.faults({});
      await f.sandbox.advance(61);
      const linked = await detail(result.subscription.id);
      expect(linked.state).toBe('active');
      expect(linked.recurringPaymentId).toMatch(/^\d+$/);
      expect(linked.charges.map((c) => c.clientOrderId)).toEqual([
        `${result.subscription.clientOrderId}-1`,
      ]);
      expect((await plan(linked.recurringPaymentId ?? '')).clientOrderId).toBe(
        result.subscription.clientOrderId,
      );
    });

    it('when the merchant RSA key is not configured, then 409 names MERCHANT_RSA_KEY_FILE, nothing is sent, and the refusal is audited', async () => {
      const noKey = await startPaymentsApp(variant, {
        gatewayBaseUrl: f.sandbox.baseUrl,
        config: { merchant: { ...f.bff.config.merchant, rsaPrivateKeyPem: null } },
        shared: { database: f.bff.config.database },
      });
      try {
        const finance = await noKey.userWithRoles(['finance'], 'nokey-finance@paydesk.test');
        const res = await post(finance, '/api/subscriptions', body({ amount: '8.88' }));
        expect(res.status).toBe(409);
        expect((res.json as ErrorEnvelope).error.message).toContain('MERCHANT_RSA_KEY_FILE');
        const rows = await payDb(f.bff.db)
          .selectFrom('subscriptions')
          .select('id')
          .where('amount_minor', '=', 888)
          .execute();
        expect(rows).toEqual([]);
        const audit = await f.bff.db.k
          .selectFrom('audit_log')
          .selectAll()
          .where('action', '=', 'subscription.create')
          .where('outcome', '=', 'refused')
          .where('actor_email', '=', 'nokey-finance@paydesk.test')
          .execute();
        expect(audit.map((a) => a.error_code)).toEqual(['INVALID_STATE']);
      } finally {
        await noKey.close();
      }
    });

    it('when the gateway answers the create with a 5xx, then the plan is unknown with the gateway’s error code kept, and staff read the answer in words, never `server-error`; the recovery that finds no plan says the same', async () => {
      await f.sandbox.faults({ errorRate: 1, operations: ['create-recurring-payment'] });
      const res = await post(f.finance, '/api/subscriptions', body({ amount: '5.55' }));
      await f.sandbox.faults({});
      expect(res.status, res.text).toBe(200);
      const result = SubscriptionResultSchema.parse(res.json);
      expect(result.subscription).toMatchObject({
        state: 'unknown',
        errorCode: 'INTERNAL',
        errorMessage:
          'gateway answered 500: injected fault: the gateway failed before applying the operation',
        unanswered: {
          kind: 'error',
          httpStatus: 500,
          code: 'INTERNAL',
          message: 'injected fault: the gateway failed before applying the operation',
        },
      });
      expect((await detail(result.subscription.id)).unanswered).toEqual(
        result.subscription.unanswered,
      );
      expect(
        await payDb(f.bff.db)
          .selectFrom('subscriptions')
          .select(['unanswered_kind', 'unanswered_http_status', 'unanswered_code'])
          .where('id', '=', result.subscription.id)
          .executeTakeFirstOrThrow(),
      ).toEqual({
        unanswered_kind: 'error',
        unanswered_http_status: 500,
        unanswered_code: 'INTERNAL',
      });
      expect(result.message).toBe(
        'The gateway answered the subscription (5.55 EUR every day) with an error (HTTP 500, INTERNAL: injected fault: the gateway failed before applying the operation); Paydesk cannot tell whether the plan was created. Paydesk will not send it again; its first charge will link it.',
      );
      expect(res.text).not.toContain('server-error');

      // The gateway never applied it: once certainly abandoned, the recovery marks it not created,
      // naming the error answer it got (not a lost reply).
      f.bff.clock.advance(70_000);
      await f.bff.payments.reconciler.runOnce();
      const settled = await detail(result.subscription.id);
      expect(settled).toMatchObject({
        state: 'not_sent',
        errorCode: 'NOT_CREATED',
        unanswered: null,
      });
      expect(settled.errorMessage).toContain(
        'Paydesk did not learn the outcome of its create-recurring-payment (the gateway answered it with an error: HTTP 500, INTERNAL)',
      );
      expect(settled.errorMessage).not.toContain('reply was lost');
    });

    it('when the reply to the create is dropped, then the plan records and staff read that the connection closed, in words, with no library code', async () => {
      await f.sandbox.faults({ dropResponseRate: 1, operations: ['create-recurring-payment'] });
      const res = await post(f.finance, '/api/subscriptions', body({ amount: '5.56' }));
      await f.sandbox.faults({});
      expect(res.status, res.text).toBe(200);
      const result = SubscriptionResultSchema.parse(res.json);
      expect(result.subscription).toMatchObject({
        state: 'unknown',
        errorCode: null,
        errorMessage: 'the connection closed before the gateway answered',
        unanswered: { kind: 'connection-closed' },
      });
      expect(result.message).toBe(
        "The gateway's answer to the subscription (5.56 EUR every day) was lost (the connection closed before the gateway answered). Paydesk will not send it again; its first charge will link it.",
      );
      expect(res.text).not.toMatch(/connection-lost|UND_ERR/);
    });

    it('when the gateway does not answer the create in time, then the plan and staff read “no answer within …”, never `timeout`', async () => {
      const impatient = createPayments({
        config: f.bff.config,
        db: f.bff.db,
        clock: f.bff.clock,
        logger: f.bff.logger,
        audit: f.bff.services.audit,
        options: { gatewayTimeoutMs: 100 },
      });
      await f.sandbox.faults({ latencyMs: 400, operations: ['create-recurring-payment'] });
      try {
        const result = await impatient.services.subscriptions.create(
          {
            cardRefId,
            amount: '5.57',
            currency: 'EUR',
            period: 'day',
            interval: 1,
            maxPayments: 1,
            orderDesc: 'slow plan',
            email: 'subscriber@example.com',
          },
          { id: 'u1', email: 'finance@paydesk.test' },
          null,
          null,
        );
        expect(result.subscription).toMatchObject({
          state: 'unknown',
          errorCode: null,
          errorMessage: 'no answer within 100 ms',
          unanswered: { kind: 'timeout', waitedMs: 100 },
        });
        expect(result.message).toBe(
          "The gateway's answer to the subscription (5.57 EUR every day) was lost (no answer within 100 ms). Paydesk will not send it again; its first charge will link it.",
        );
      } finally {
        // The gateway applies it after the wait: let it finish before the faults go.
        await new Promise((r) => setTimeout(r, 500));
        await f.sandbox.faults({});
        await impatient.close();
      }
    });

    it('when get-card-info for an unseen card reference gets a 5xx or no answer, then 503 says so in words with the gateway’s code, and no plan is recorded', async () => {
      // A card reference the gateway knows and Paydesk has never seen: made by the shop itself.
      const order = await f.shop.place('sale', { amount: '3.00' });
      await f.sandbox.advance(61);
      const made = await f.bff.payments.gateway.send('create-card-ref', '1001', {
        client_orderid: order.clientOrderId,
        orderid: order.orderid,
      });
      const unseen = made.kind === 'reply' ? (made.reply.fields['card-ref-id'] ?? '') : '';
      expect(unseen).not.toBe('');
      const rows = () => payDb(f.bff.db).selectFrom('subscriptions').select('id').execute();
      const before = await rows();
      await f.sandbox.faults({ errorRate: 1, operations: ['get-card-info'] });
      const failed = await post(f.finance, '/api/subscriptions', body({ cardRefId: unseen }));
      expect(failed.status, failed.text).toBe(503);
      expect((failed.json as ErrorEnvelope).error).toMatchObject({
        code: 'GATEWAY_UNAVAILABLE',
        message:
          "The gateway could not answer Paydesk's question about this card just now (HTTP 500, code INTERNAL); nothing was charged or recorded. Try again in a minute.",
        details: { gatewayHttpStatus: 500, gatewayErrorCode: 'INTERNAL' },
      });

      await f.sandbox.faults({ dropResponseRate: 1, operations: ['get-card-info'] });
      const dropped = await post(f.finance, '/api/subscriptions', body({ cardRefId: unseen }));
      expect(dropped.status, dropped.text).toBe(503);
      expect((dropped.json as ErrorEnvelope).error.message).toBe(
        "The gateway did not answer Paydesk's question about this card (the connection closed before the gateway answered); nothing was charged or recorded. Try again in a minute.",
      );
      for (const res of [failed, dropped])
        expect(res.text).not.toMatch(/server-error|connection-lost|get-card-info|cardrefid/);
      expect((await rows()).length).toBe(before.length);
    });
  });
}
