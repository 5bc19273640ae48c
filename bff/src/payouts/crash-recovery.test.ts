// Recovery of a payout whose approver's instance stopped between sending payout-pay and recording
// the outcome: the poller finds it `sending`, makes it `unknown` and reconciles it with `status`,
// never sending it again; and a retry of an approval (of a payout or a payout-form link) or of a
// prepare whose instance stopped before it answered, answered from what became of it. Both
// databases, the real sandbox process (demo merchant).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  PaymentLinkResultSchema,
  PayoutCreateBodySchema,
  PayoutResultSchema,
  type PaymentLink,
  type PayoutCreateBody,
  type PayoutCreateInput,
  type PayoutResult as PayoutOutcomeBody,
} from '@paydesk/shared/api';
import { parseGatewayReply } from '@paydesk/shared/protocol';
import { DB_VARIANTS, errorCode, type Reply, type TestClient } from '../test-support/harness.js';
import { payDb } from '../payments/db.js';
import { GatewayClient, type GatewayOutcome } from '../gateway-client/client.js';
import {
  cardPayout,
  DEMO,
  DEMO_PRIVATE_KEY,
  payoutFormLink,
  post,
  startPayoutsApp,
  startSandbox,
  TEST_CARD,
  userId,
  type PayoutsTestApp,
  type Sandbox,
} from './test-support/app.js';

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(`payouts crash recovery (${variant.name})`, () => {
    let sandbox: Sandbox;
    let bff: PayoutsTestApp;
    let opsA: TestClient & { email: string };
    let opsB: TestClient & { email: string };
    const row = (id: string) =>
      bff.k.selectFrom('payouts').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

    beforeAll(async () => {
      sandbox = await startSandbox();
      bff = await startPayoutsApp(variant, sandbox.baseUrl);
      opsA = await bff.userWithRoles(['ops']);
      opsB = await bff.userWithRoles(['ops']);
    });
    afterAll(async () => {
      await bff.close();
      await sandbox.stop();
    });

    it('when the instance sending a checked payout-pay stopped, then it is judged from the approval, not the check: unknown until notAppliedAfterMs has passed since, then failed NOT_APPLIED, audited naming the approver', async () => {
      const res = await post(opsA, '/api/payouts', cardPayout('8.40'));
      const prepared = PayoutResultSchema.parse(res.json).payout;
      expect(prepared.state).toBe('pending_approval');
      // Approved ten minutes after the check; the approver's instance died right after claiming it.
      bff.clock.advance(10 * 60_000);
      const approver = await bff.k
        .selectFrom('users')
        .select('id')
        .where('email', '=', opsB.email)
        .executeTakeFirstOrThrow();
      await bff.k
        .updateTable('payouts')
        .set({
          state: 'sending',
          decided_by: approver.id,
          decided_by_email: opsB.email,
          decided_at: bff.clock.now() - 40_000,
        })
        .where('id', '=', prepared.id)
        .execute();

      // Stale (gateway timeout + lease passed): unknown, and 40 s after sending not yet judged.
      await bff.payouts.poller.runOnce();
      expect(await row(prepared.id)).toMatchObject({ state: 'unknown' });
      // the timeline says why, naming the approver
      const events = await bff.k
        .selectFrom('payout_events')
        .selectAll()
        .where('subject', '=', `payout:${prepared.id}`)
        .orderBy('id')
        .execute();
      const recovered = events.find((e) => e.title.startsWith('outcome unknown'));
      expect(recovered).toMatchObject({
        kind: 'reconcile',
        title:
          'outcome unknown: the instance sending it stopped before recording the outcome; followed with status, never sent again',
        actor: null,
      });
      expect(JSON.parse(recovered?.data ?? '{}')).toMatchObject({ approvedBy: opsB.email });
      await bff.payouts.poller.runOnce();
      expect(await row(prepared.id)).toMatchObject({ state: 'unknown' });

      // A minute after the approval the gateway still shows it registered, not paid.
      bff.clock.advance(25_000);
      await bff.payouts.poller.runOnce();
      expect(await row(prepared.id)).toMatchObject({ state: 'failed', error_code: 'NOT_APPLIED' });
      const audit = await bff.k
        .selectFrom('audit_log')
        .selectAll()
        .where('action', '=', 'payout.reconciled')
        .where('target', '=', `payout:${prepared.id}`)
        .execute();
      expect(audit).toHaveLength(1);
      expect(JSON.parse(audit[0]?.summary ?? '{}')).toMatchObject({
        state: 'failed',
        approvedBy: opsB.email,
        preparedBy: opsA.email,
      });
      const order = await sandbox.order(prepared.orderid ?? '');
      expect(order.operations.map((o) => o.type)).toEqual(['payout-check']);
    });

    /** What a request on `route` leaves when its instance stops right after taking its key. */
    const interruptedKey = async (
      route: string,
      userEmail: string,
      body = {},
      key: string = randomUUID(),
    ): Promise<string> => {
      const idem = bff.payouts.idempotency;
      const claim = idem.claim(await userId(bff, userEmail), key, route, body);
      expect(await idem.take(payDb(bff.db), claim)).toBeNull();
      return key;
    };

    /**
     * A retry of an interrupted request: right away (the first may still be running) the usual 409;
     * once longer than a live request takes, 409 saying what is being confirmed (`confirming`).
     */
    const expectConfirming = async (retry: () => Promise<Reply>, confirming: string) => {
      const early = await retry();
      expect(errorCode(early)).toBe('IDEMPOTENCY_IN_FLIGHT');
      expect(early.text).toContain('still being processed');
      bff.clock.advance(40_000);
      const later = await retry();
      expect(later.status).toBe(409);
      expect(errorCode(later)).toBe('IDEMPOTENCY_IN_FLIGHT');
      expect(later.text).toContain(confirming);
    };

    const keyState = async (key: string) =>
      payDb(bff.db)
        .selectFrom('idempotency_keys')
        .select('state')
        .where('key', '=', key)
        .executeTakeFirstOrThrow();

    /** A settled retry's reply: 200, stored as the key's reply (every repeat gets the same). */
    const storedReply = async (retry: () => Promise<Reply>, key: string): Promise<unknown> => {
      const settled = await retry();
      expect(settled.status, settled.text).toBe(200);
      expect(settled.headers.get('idempotent-replayed')).toBe('true');
      expect(await keyState(key)).toEqual({ state: 'done' });
      expect((await retry()).json).toEqual(settled.json);
      return settled.json;
    };

    /** What an approval's claim writes, now: the payout or link `sending`, decided by `email`. */
    const claimedBy = async (email: string) => ({
      state: 'sending',
      decided_by: await userId(bff, email),
      decided_by_email: email,
      decided_at: bff.clock.now(),
    });

    it('when the approver’s instance stopped mid-send, then a retry with the same Idempotency-Key gets 409 saying the outcome is being confirmed, and once the poller settled the payout, the payout as it ended (stored, replayed), not 409 for a day', async () => {
      const prepared = PayoutResultSchema.parse(
        (await post(opsA, '/api/payouts', cardPayout('8.50'))).json,
      ).payout;
      bff.clock.advance(10 * 60_000);
      const key = await interruptedKey(`payout.approve ${prepared.id}`, opsB.email);
      await bff.k
        .updateTable('payouts')
        .set(await claimedBy(opsB.email))
        .where('id', '=', prepared.id)
        .execute();
      const retry = () => post(opsB, `/api/payouts/${prepared.id}/approve`, {}, key);

      await expectConfirming(retry, 'its outcome is being confirmed with the gateway');
      await bff.payouts.poller.runOnce();
      expect(await row(prepared.id)).toMatchObject({ state: 'unknown' });
      expect(errorCode(await retry())).toBe('IDEMPOTENCY_IN_FLIGHT');

      // The poller settles it (never paid): the retry gets the payout as it ended, stored.
      bff.clock.advance(25_000);
      await bff.payouts.poller.runOnce();
      expect(await row(prepared.id)).toMatchObject({ state: 'failed', error_code: 'NOT_APPLIED' });
      const result = PayoutResultSchema.parse(await storedReply(retry, key));
      expect(result.payout).toMatchObject({
        id: prepared.id,
        state: 'failed',
        errorCode: 'NOT_APPLIED',
        decidedBy: { email: opsB.email },
      });
      expect(result.message).toContain('It was not sent again');
      const order = await sandbox.order(prepared.orderid ?? '');
      expect(order.operations.map((o) => o.type)).toEqual(['payout-check']);
    });

    it('when the approver’s instance stopped after taking the key but before claiming the payout, then a later retry with the same key approves it (nothing had been sent)', async () => {
      const prepared = PayoutResultSchema.parse(
        (await post(opsA, '/api/payouts', cardPayout('8.60'))).json,
      ).payout;
      const key = await interruptedKey(`payout.approve ${prepared.id}`, opsB.email);
      bff.clock.advance(40_000);
      const res = await post(opsB, `/api/payouts/${prepared.id}/approve`, {}, key);
      expect(res.status, res.text).toBe(200);
      expect(res.headers.get('idempotent-replayed')).toBeNull();
      expect(PayoutResultSchema.parse(res.json).payout.decidedBy?.email).toBe(opsB.email);
      const order = await sandbox.order(prepared.orderid ?? '');
      expect(order.operations.map((o) => o.type)).toEqual(['payout-check', 'payout-pay']);
    });

    const heldLink = async (): Promise<PaymentLink> => {
      const res = await post(opsA, '/api/payment-links', payoutFormLink());
      expect(res.status, res.text).toBe(200);
      return PaymentLinkResultSchema.parse(res.json).link;
    };
    const linkGatewayCalls = async (id: string) =>
      (
        await bff.k
          .selectFrom('payout_events')
          .select('title')
          .where('subject', '=', `link:${id}`)
          .where('kind', '=', 'gateway')
          .execute()
      ).map((e) => e.title);

    it('when the approver’s instance stopped mid-send of a payout-form link, then a retry with the same Idempotency-Key gets 409 saying the link is being sent, and once it was given up as unknown, the link as it ended (stored, replayed), not 409 for a day', async () => {
      const held = await heldLink();
      const key = await interruptedKey(`link.approve ${held.id}`, opsB.email);
      await bff.k
        .updateTable('payment_links')
        .set({ ...(await claimedBy(opsB.email)), updated_at: bff.clock.now() })
        .where('id', '=', held.id)
        .execute();
      const retry = () => post(opsB, `/api/payment-links/${held.id}/approve`, {}, key);

      await expectConfirming(retry, 'the link is being sent, and is marked unknown');

      // The poller gives it up as unknown: the retry gets the link as it ended, stored.
      await bff.payouts.poller.runOnce();
      const result = PaymentLinkResultSchema.parse(await storedReply(retry, key));
      expect(result.link).toMatchObject({
        id: held.id,
        state: 'unknown',
        errorCode: 'INTERRUPTED',
        redirectUrl: null,
        decidedBy: { email: opsB.email },
      });
      expect(result.message).toContain('It was not sent again');
      // what follows: its status is asked (links.ts settleCheck), never the approval again
      expect(result.message).toContain("Paydesk asks the gateway's status");
      expect(await linkGatewayCalls(held.id)).toEqual([]);
    });

    it('when the approver’s instance stopped after taking the key but before claiming the payout-form link, then a later retry with the same key approves and sends it (nothing had been sent)', async () => {
      const held = await heldLink();
      const key = await interruptedKey(`link.approve ${held.id}`, opsB.email);
      bff.clock.advance(40_000);
      const res = await post(opsB, `/api/payment-links/${held.id}/approve`, {}, key);
      expect(res.status, res.text).toBe(200);
      expect(res.headers.get('idempotent-replayed')).toBeNull();
      const { link } = PaymentLinkResultSchema.parse(res.json);
      expect(link).toMatchObject({ state: 'sent', decidedBy: { email: opsB.email } });
      expect(link.redirectUrl).not.toBeNull();
      expect(await linkGatewayCalls(held.id)).toEqual([
        'Payout form sent to the gateway; its page is ready',
      ]);
    });

    it('when the approver’s instance stopped before claiming the payout-form link and the same approver then rejected it, then a retry of the approval is refused as for a rejected link, not answered as if the approval had ended so', async () => {
      const held = await heldLink();
      const key = await interruptedKey(`link.approve ${held.id}`, opsB.email);
      const rejected = await post(opsB, `/api/payment-links/${held.id}/reject`, { reason: 'Typo' });
      expect(rejected.status, rejected.text).toBe(200);
      bff.clock.advance(40_000);
      const res = await post(opsB, `/api/payment-links/${held.id}/approve`, {}, key);
      expect(res.status).toBe(409);
      expect(errorCode(res)).toBe('INVALID_STATE');
      expect(await linkGatewayCalls(held.id)).toEqual([]);
    });

    /**
     * A prepare's request as its instance left it on stopping after taking its key: the key in
     * flight, and (`work`) what the request had done by then, under the key.
     */
    const interruptedPrepare = async (
      input: PayoutCreateInput,
      work: (body: PayoutCreateBody, key: string) => Promise<unknown> = () => Promise.resolve(),
      reused?: string,
    ): Promise<string> => {
      const body = PayoutCreateBodySchema.parse(input);
      const hashed = {
        ...body,
        destination: {
          kind: body.destination.kind,
          hash: bff.payouts.hasher.hash(body.destination),
        },
      };
      const key = await interruptedKey('payout.prepare', opsA.email, hashed, reused);
      await work(body, key);
      return key;
    };
    const prepareUnderKey = async (body: PayoutCreateBody, key: string) =>
      bff.payouts.services.payouts.prepare(
        body,
        { id: await userId(bff, opsA.email), email: opsA.email, roles: ['ops'] },
        null,
        undefined,
        key,
      );
    const preparedUnder = (key: string) =>
      bff.k.selectFrom('payouts').selectAll().where('idempotency_key', '=', key).execute();

    it('when the preparer’s instance stopped after taking the key but before preparing anything, then a later retry with the same key prepares the payout (once), not 409 for a day', async () => {
      const input = cardPayout('8.70');
      const key = await interruptedPrepare(input);
      expect(errorCode(await post(opsA, '/api/payouts', input, key))).toBe('IDEMPOTENCY_IN_FLIGHT');
      bff.clock.advance(40_000);
      const res = await post(opsA, '/api/payouts', input, key);
      expect(res.status, res.text).toBe(200);
      expect(res.headers.get('idempotent-replayed')).toBeNull();
      const { payout } = PayoutResultSchema.parse(res.json);
      expect(payout).toMatchObject({ state: 'pending_approval', amount: '8.70' });
      expect((await preparedUnder(key)).map((r) => r.id)).toEqual([payout.id]);
      const again = await post(opsA, '/api/payouts', input, key);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.json).toEqual(res.json);
    });

    it('when the preparer’s instance stopped mid-check, then a retry with the same key gets 409 naming the payout while its payout-check is being confirmed, and once the poller learned it, that payout (stored, replayed), never a second one', async () => {
      const input = cardPayout('8.80');
      let id = '';
      const key = await interruptedPrepare(input, async (body, k) => {
        id = (await prepareUnderKey(body, k)).payout.id;
        // as the instance left it: the check sent, its outcome not yet recorded
        await bff.k
          .updateTable('payouts')
          .set({
            state: 'checking',
            binding: null,
            expires_at: null,
            poll_next_at: bff.clock.now(),
          })
          .where('id', '=', id)
          .execute();
      });
      const retry = () => post(opsA, '/api/payouts', input, key);

      await expectConfirming(
        retry,
        `it prepared payout ${id}, whose check of the payee's details is being confirmed`,
      );

      await bff.payouts.poller.runOnce();
      expect(await row(id)).toMatchObject({ state: 'pending_approval' });
      const result = PayoutResultSchema.parse(await storedReply(retry, key));
      expect(result.payout).toMatchObject({ id, state: 'pending_approval', amount: '8.80' });
      // what the uninterrupted request answers once checked, not "interrupted"
      expect(result.message).toBe(
        'The gateway checked the destination; the payout waits for approval by a second ops user.',
      );
      expect((await preparedUnder(key)).map((r) => r.id)).toEqual([id]);
      const order = await sandbox.order(result.payout.orderid ?? '');
      expect(order.operations.map((o) => o.type)).toEqual(['payout-check']);
    });

    it('when the preparer’s instance stopped after holding a single payout, then a retry with the same key gets that payout with the words the request would have answered (held, lapsing when), not "interrupted"', async () => {
      const input = cardPayout('8.85', { mode: 'single' });
      let first: Awaited<ReturnType<typeof prepareUnderKey>> | undefined;
      const key = await interruptedPrepare(input, async (body, k) => {
        first = await prepareUnderKey(body, k);
      });
      bff.clock.advance(40_000);
      const result = PayoutResultSchema.parse(
        await storedReply(() => post(opsA, '/api/payouts', input, key), key),
      );
      expect(result.payout).toMatchObject({ id: first?.payout.id, state: 'pending_approval' });
      expect(result.message).toBe(first?.message);
      expect(result.message).toMatch(/^The payout is held until a second ops user approves it/);
    });

    it('when the preparer’s instance stopped after its payout-check could not be sent (gateway unreachable), then a retry with the same key gets the 503 the request would have answered and lets the key go, as the uninterrupted request does, not 200 with the failed payout', async () => {
      // The gateway unreachable (a refused connection) while the payout-checks below are made.
      const unreachable = new GatewayClient({
        baseUrl: 'http://127.0.0.1:9/paynet',
        merchant: {
          login: DEMO.login,
          controlKey: DEMO.controlKey,
          rsaPrivateKeyPem: DEMO_PRIVATE_KEY,
        },
        timeoutMs: 2_000,
      });
      const send = vi
        .spyOn(bff.payouts.gateway, 'send')
        .mockImplementation((operation, endpointId, fields) =>
          unreachable.send(operation, endpointId, fields),
        );
      const input = cardPayout('9.20');
      let id = '';
      const [uninterrupted, key] = await (async () => {
        try {
          return [
            // what the request answers when it is not interrupted
            await post(opsA, '/api/payouts', input),
            await interruptedPrepare(input, async (body, k) => {
              await expect(prepareUnderKey(body, k)).rejects.toMatchObject({
                code: 'GATEWAY_UNAVAILABLE',
              });
              id = (await preparedUnder(k))[0]?.id ?? '';
            }),
          ] as const;
        } finally {
          send.mockRestore();
        }
      })();
      expect(uninterrupted.status).toBe(503);
      expect(await row(id)).toMatchObject({ state: 'failed', error_code: 'NOT_SENT' });

      bff.clock.advance(40_000);
      const retry = await post(opsA, '/api/payouts', input, key);
      expect(retry.status, retry.text).toBe(uninterrupted.status);
      expect(retry.headers.get('idempotent-replayed')).toBeNull();
      const { requestId: _a, ...repeated } = (retry.json as { error: Record<string, unknown> })
        .error;
      const { requestId: _b, ...first } = (uninterrupted.json as { error: Record<string, unknown> })
        .error;
      expect(repeated).toEqual(first);
      expect(repeated).toMatchObject({ code: 'GATEWAY_UNAVAILABLE' });
      // The key let go: the same request, made again, prepares the payout (the gateway answers now).
      expect(
        await payDb(bff.db)
          .selectFrom('idempotency_keys')
          .select('state')
          .where('key', '=', key)
          .execute(),
      ).toEqual([]);
      const again = await post(opsA, '/api/payouts', input, key);
      expect(again.status, again.text).toBe(200);
      const { payout } = PayoutResultSchema.parse(again.json);
      expect(payout).toMatchObject({ state: 'pending_approval', amount: '9.20' });
      expect((await preparedUnder(key)).map((r) => r.id).sort()).toEqual([id, payout.id].sort());
    });

    /** An error reply's envelope without its requestId (each request has its own). */
    const errorOf = (reply: Reply) => {
      const { requestId: _id, ...rest } = (reply.json as { error: Record<string, unknown> }).error;
      return rest;
    };

    /**
     * The gateway's answer to every payout-check while `during` runs is `fields` with `httpStatus`
     * (as a refusal reaches the client: a reply it meant); other operations go to the sandbox.
     */
    const withCheckAnswer = async <T>(
      httpStatus: number,
      fields: Record<string, string>,
      during: () => Promise<T>,
    ): Promise<T> => {
      const gateway = bff.payouts.gateway;
      const real = gateway.send.bind(gateway);
      const send = vi
        .spyOn(gateway, 'send')
        .mockImplementation((operation, endpointId, request) => {
          if (operation !== 'payout-check') return real(operation, endpointId, request);
          const now = new Date(bff.clock.now()).toISOString();
          return Promise.resolve({
            kind: 'reply',
            httpStatus,
            reply: parseGatewayReply('application/json', JSON.stringify(fields)),
            exchange: {
              operation,
              endpointId,
              url: `${sandbox.baseUrl}/v4/payout-check/${endpointId}`,
              request: { client_orderid: request.client_orderid ?? '' },
              sentAt: now,
              receivedAt: now,
              httpStatus,
              reply: fields,
              rawReply: null,
              error: null,
            },
          } satisfies GatewayOutcome);
        });
      try {
        return await during();
      } finally {
        send.mockRestore();
      }
    };

    /**
     * The same prepare made twice: once answered (`uninterrupted`), once by a request whose instance
     * stopped after preparing it under its key, before answering (`key`, its payout `id`).
     */
    const preparedTwice = async (input: PayoutCreateInput) => {
      const uninterrupted = await post(opsA, '/api/payouts', input);
      let id = '';
      const key = await interruptedPrepare(input, async (body, k) => {
        await prepareUnderKey(body, k).catch(() => undefined);
        id = (await preparedUnder(k))[0]?.id ?? '';
      });
      return { uninterrupted, key, id };
    };

    /**
     * A repeat of the interrupted prepare answers as the uninterrupted one did (its payout aside,
     * the request's own), stored as the key's reply: a second repeat gets the same.
     */
    const expectSameAnswer = async (uninterrupted: Reply, retry: () => Promise<Reply>) => {
      const first = await retry();
      const second = await retry();
      expect(first.status, first.text).toBe(uninterrupted.status);
      expect(second.status).toBe(uninterrupted.status);
      if (uninterrupted.status !== 200) {
        expect(errorOf(first)).toEqual(errorOf(uninterrupted));
        expect(errorOf(second)).toEqual(errorOf(uninterrupted));
        return;
      }
      const own = ({ payout, message }: PayoutOutcomeBody) => {
        const {
          id: _i,
          clientOrderId: _c,
          orderid: _o,
          createdAt: _t,
          updatedAt: _u,
          ...rest
        } = payout;
        return { payout: rest, message };
      };
      const answered = PayoutResultSchema.parse(uninterrupted.json);
      expect(own(PayoutResultSchema.parse(first.json))).toEqual(own(answered));
      expect(first.headers.get('idempotent-replayed')).toBe('true');
      expect(second.json).toEqual(first.json);
    };

    it('when the preparer’s instance stopped after the gateway refused the payout-check (400), then a retry with the same key gets the refusal the request would have answered (status, code, message, details), kept as the key’s reply, not 200 with the failed payout', async () => {
      const input = cardPayout('9.30', { endpointId: '2001', currency: 'GBP' });
      const { uninterrupted, key, id } = await preparedTwice(input);
      expect(uninterrupted.status).toBe(502);
      expect(errorOf(uninterrupted)).toMatchObject({
        code: 'GATEWAY_ERROR',
        details: { gatewayHttpStatus: 400 },
      });
      expect(await row(id)).toMatchObject({ state: 'failed' });

      bff.clock.advance(40_000);
      const retry = () => post(opsA, '/api/payouts', input, key);
      await expectSameAnswer(uninterrupted, retry);
      expect(await keyState(key)).toEqual({ state: 'done' });
      expect((await preparedUnder(key)).map((r) => r.id)).toEqual([id]);
    });

    for (const [httpStatus, fields, code] of [
      [
        409,
        {
          type: 'error',
          'error-code': 'DUPLICATE',
          // padded past what the timeline keeps of a text (500 characters): the message the
          // payout recorded, not the timeline's, says it all
          'error-message': `Destination blocked${' '.repeat(490)}for payouts`,
        },
        'INVALID_STATE',
      ],
      [404, { type: 'error', 'error-code': 'NO_ENDPOINT' }, 'NOT_FOUND'],
      [200, { type: 'validation-error', 'error-message': 'amount: too small' }, 'GATEWAY_ERROR'],
    ] as const) {
      it(`when the preparer’s instance stopped after the gateway refused the payout-check (${String(httpStatus)} ${fields.type}), then a retry with the same key gets the ${code} the request would have answered, kept as the key’s reply`, async () => {
        const input = cardPayout(`9.4${String(httpStatus % 10)}`);
        const { uninterrupted, key, id } = await withCheckAnswer(httpStatus, fields, () =>
          preparedTwice(input),
        );
        expect(errorOf(uninterrupted)).toMatchObject({
          code,
          details: { gatewayHttpStatus: httpStatus },
          message: expect.stringContaining(
            fields['error-message']?.replace(/\s+/g, ' ') ?? '',
          ) as string,
        });
        expect(await row(id)).toMatchObject({ state: 'failed' });

        bff.clock.advance(40_000);
        await expectSameAnswer(uninterrupted, () => post(opsA, '/api/payouts', input, key));
        expect(await keyState(key)).toEqual({ state: 'done' });
      });
    }

    it('when the preparer’s instance stopped after the timeline recorded the gateway’s refusal of the payout-check but before the payout did, then a retry with the same key gets that refusal at once, not 409 while the payout is still checking', async () => {
      const input = cardPayout('9.50', { endpointId: '2001', currency: 'GBP' });
      const { uninterrupted, key, id } = await preparedTwice(input);
      // as the instance left it: the exchange in the timeline, the payout not yet failed
      await bff.k
        .updateTable('payouts')
        .set({
          state: 'checking',
          error_code: null,
          error_message: null,
          poll_next_at: bff.clock.now(),
        })
        .where('id', '=', id)
        .execute();

      bff.clock.advance(40_000);
      await expectSameAnswer(uninterrupted, () => post(opsA, '/api/payouts', input, key));
      expect(errorOf(uninterrupted)).toMatchObject({ code: 'GATEWAY_ERROR' });
      expect(await keyState(key)).toEqual({ state: 'done' });
    });

    it('when the preparer’s instance stopped after the payout-check was declined (a 200 reply, status declined), then a retry with the same key gets the payout with the message the request would have answered', async () => {
      const input = cardPayout('9.60', {
        destination: { ...TEST_CARD, cardNumber: '4000000000000002' },
      });
      const { uninterrupted, key, id } = await preparedTwice(input);
      expect(PayoutResultSchema.parse(uninterrupted.json)).toMatchObject({
        payout: { state: 'check_declined', errorCode: 'DECLINED' },
        message: 'The gateway did not accept the destination (DECLINED); nothing can be paid.',
      });
      expect(await row(id)).toMatchObject({ state: 'check_declined' });

      bff.clock.advance(40_000);
      await expectSameAnswer(uninterrupted, () => post(opsA, '/api/payouts', input, key));
    });

    it('when the preparer’s instance stopped after status showed the payout-check expired, then a retry with the same key gets the payout with the message the request would have answered', async () => {
      const gateway = bff.payouts.gateway;
      const real = gateway.send.bind(gateway);
      const send = vi
        .spyOn(gateway, 'send')
        .mockImplementation(async (operation, endpointId, request) => {
          const outcome = await real(operation, endpointId, request);
          if (operation !== 'status' || outcome.kind !== 'reply') return outcome;
          const fields = { ...outcome.reply.fields, 'order-stage': 'expired' };
          return {
            ...outcome,
            reply: parseGatewayReply('application/json', JSON.stringify(fields)),
          };
        });
      const input = cardPayout('9.70');
      const { uninterrupted, key, id } = await (async () => {
        try {
          return await preparedTwice(input);
        } finally {
          send.mockRestore();
        }
      })();
      expect(PayoutResultSchema.parse(uninterrupted.json)).toMatchObject({
        payout: { state: 'expired' },
        message: 'The gateway did not accept the destination (expired); nothing can be paid.',
      });
      expect(await row(id)).toMatchObject({ state: 'expired', expires_at: null });

      bff.clock.advance(40_000);
      await expectSameAnswer(uninterrupted, () => post(opsA, '/api/payouts', input, key));
    });

    it('when the preparer’s instance stopped after holding a single payout, then a later retry with the same key gets that payout, not a second one', async () => {
      const input = cardPayout('8.90', { mode: 'single' });
      let id = '';
      const key = await interruptedPrepare(input, async (body, k) => {
        id = (await prepareUnderKey(body, k)).payout.id;
      });
      bff.clock.advance(40_000);
      const res = await post(opsA, '/api/payouts', input, key);
      expect(res.status, res.text).toBe(200);
      expect(res.headers.get('idempotent-replayed')).toBe('true');
      expect(PayoutResultSchema.parse(res.json).payout).toMatchObject({
        id,
        mode: 'single',
        state: 'pending_approval',
      });
      expect((await preparedUnder(key)).map((r) => r.id)).toEqual([id]);
    });

    it('when a key past its retention was taken over by a request whose instance stopped before preparing anything, then a retry prepares anew rather than answering with the payout of the key’s earlier use', async () => {
      const input = cardPayout('9.10', { mode: 'single' });
      let earlier = '';
      const key = await interruptedPrepare(input, async (body, k) => {
        earlier = (await prepareUnderKey(body, k)).payout.id;
      });
      // as if that was longer ago than the key's retention
      const past = bff.clock.now() - bff.payments.options.idempotencyRetentionMs - 60_000;
      await bff.k
        .updateTable('payouts')
        .set({ created_at: past })
        .where('id', '=', earlier)
        .execute();
      await payDb(bff.db)
        .updateTable('idempotency_keys')
        .set({ created_at: past })
        .where('key', '=', key)
        .execute();
      await interruptedPrepare(input, undefined, key);
      bff.clock.advance(40_000);
      const res = await post(opsA, '/api/payouts', input, key);
      expect(res.status, res.text).toBe(200);
      expect(res.headers.get('idempotent-replayed')).toBeNull();
      const { payout } = PayoutResultSchema.parse(res.json);
      expect(payout.id).not.toBe(earlier);
      expect((await preparedUnder(key)).map((r) => r.id).sort()).toEqual(
        [earlier, payout.id].sort(),
      );
    });
  });
}
