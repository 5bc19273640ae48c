// Payout and payment-link changes on `GET /api/events` (`event: payout`, `event: payment_link`),
// next to the transactions' events, against the real sandbox, on SQLite and PostgreSQL.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  LiveEventSchema,
  PaymentLinkResultSchema,
  PayoutResultSchema,
  type LiveEvent,
  type PayoutCreateInput,
} from '@paydesk/shared/api';
import { DB_VARIANTS, openEventStream, type TestClient } from '../test-support/harness.js';
import {
  post,
  startPayoutsApp,
  startSandbox,
  TEST_CARD,
  type PayoutsTestApp,
  type Sandbox,
} from './test-support/app.js';

function payoutBody(extra: Partial<PayoutCreateInput> = {}): PayoutCreateInput {
  return {
    destination: TEST_CARD,
    amount: '12.00',
    currency: 'EUR',
    orderDesc: 'Live payout',
    ...extra,
  };
}

/** An open `GET /api/events` stream: every event with its SSE name, as a screen receives them. */
interface Stream {
  events: { name: string; event: LiveEvent }[];
  close(): void;
}

async function listen(url: string, client: TestClient): Promise<Stream> {
  const res = await openEventStream(url, client);
  expect(res.statusCode).toBe(200);
  res.setEncoding('utf8');
  const events: Stream['events'] = [];
  let buffer = '';
  res.on('data', (chunk: string) => {
    buffer += chunk;
    let end = buffer.indexOf('\n\n');
    while (end >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const name = /^event: (.*)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (name !== undefined && data !== undefined)
        events.push({ name, event: LiveEventSchema.parse(JSON.parse(data)) });
      end = buffer.indexOf('\n\n');
    }
  });
  return {
    events,
    close: () => {
      res.destroy();
    },
  };
}

/** The states a payout went through (repeats of one state folded), in the order the stream told them. */
function payoutStates(stream: Stream, id: string): string[] {
  const states: string[] = [];
  for (const { name, event } of stream.events) {
    if (name !== 'payout' || (event.type !== 'payout.created' && event.type !== 'payout.updated'))
      continue;
    if (event.payoutId === id && states.at(-1) !== event.state) states.push(event.state);
  }
  return states;
}

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(`payout live events (${variant.name})`, () => {
    let sandbox: Sandbox;
    let bff: PayoutsTestApp;
    let opsA: TestClient;
    let opsB: TestClient & { email: string };
    let support: TestClient;
    let stream: Stream;

    beforeAll(async () => {
      sandbox = await startSandbox();
      bff = await startPayoutsApp(variant, sandbox.baseUrl);
      opsA = await bff.userWithRoles(['ops']);
      opsB = await bff.userWithRoles(['ops']);
      support = await bff.userWithRoles(['support']);
    });
    afterAll(async () => {
      await bff.close();
      await sandbox.stop();
    });
    beforeEach(async () => {
      // A support agent's screen: a reader, neither the preparer nor the approver.
      stream = await listen(bff.url, support);
    });
    afterEach(() => {
      stream.close();
    });

    const prepare = async (body: PayoutCreateInput) => {
      const res = await post(opsA, '/api/payouts', body);
      expect(res.status, res.text).toBe(200);
      return PayoutResultSchema.parse(res.json).payout;
    };

    it('when a payout is prepared, approved and its outcome learned by the poller, then each change arrives as a payout event', async () => {
      const payout = await prepare(payoutBody());
      expect(payout.state).toBe('pending_approval');
      await vi.waitFor(() => {
        expect(payoutStates(stream, payout.id)).toEqual(['checking', 'pending_approval']);
      });
      expect(stream.events.find((e) => e.name === 'payout')?.event.type).toBe('payout.created');

      const approved = await post(opsB, `/api/payouts/${payout.id}/approve`, {});
      expect(approved.status, approved.text).toBe(200);
      expect(PayoutResultSchema.parse(approved.json).payout.state).toBe('processing');
      await vi.waitFor(() => {
        expect(payoutStates(stream, payout.id).slice(2)).toEqual(['sending', 'processing']);
      });

      await vi.waitFor(
        async () => {
          await sandbox.advance(5);
          bff.clock.advance(10_000);
          await bff.payouts.poller.runOnce();
          expect(payoutStates(stream, payout.id).at(-1)).toBe('approved');
        },
        { timeout: 5_000, interval: 20 },
      );
      const orderid = (
        await bff.k
          .selectFrom('payouts')
          .select('orderid')
          .where('id', '=', payout.id)
          .executeTakeFirstOrThrow()
      ).orderid;
      expect(orderid).not.toBeNull();
      expect(stream.events.filter((e) => e.name === 'payout').at(-1)?.event).toMatchObject({
        type: 'payout.updated',
        payoutId: payout.id,
        state: 'approved',
        orderid,
      });
    });

    it('when a held payout is rejected, then the rejection arrives as a payout event', async () => {
      const payout = await prepare(payoutBody({ mode: 'single' }));
      const res = await post(opsB, `/api/payouts/${payout.id}/reject`, { reason: 'wrong payee' });
      expect(res.status, res.text).toBe(200);
      await vi.waitFor(() => {
        expect(payoutStates(stream, payout.id)).toEqual(['pending_approval', 'rejected']);
      });
    });

    it('when an instance stopped while sending a payout, then its recovery to unknown arrives as a payout event', async () => {
      const payout = await prepare(payoutBody({ mode: 'single' }));
      await bff.k
        .updateTable('payouts')
        .set({
          state: 'sending',
          decided_by: (
            await bff.k
              .selectFrom('users')
              .select('id')
              .where('email', '=', opsB.email)
              .executeTakeFirstOrThrow()
          ).id,
          decided_by_email: opsB.email,
          decided_at: bff.clock.now() - 60_000,
        })
        .where('id', '=', payout.id)
        .execute();
      await bff.payouts.poller.recoverStale();
      await vi.waitFor(() => {
        expect(payoutStates(stream, payout.id)).toEqual(['pending_approval', 'unknown']);
      });
    });

    it('when the poller only reschedules a status check, then no payout event is sent', async () => {
      const payout = await prepare(payoutBody({ mode: 'single' }));
      await bff.payouts.services.payouts.update(payout.id, { poll_next_at: bff.clock.now() + 1 });
      const marker = await prepare(payoutBody({ mode: 'single', orderDesc: 'marker' }));
      await vi.waitFor(() => {
        expect(payoutStates(stream, marker.id)).toEqual(['pending_approval']);
      });
      expect(payoutStates(stream, payout.id)).toEqual(['pending_approval']);
    });

    it('when a payout-form link is approved, then its approval and its sending arrive as payment_link events', async () => {
      const created = await post(opsA, '/api/payment-links', {
        kind: 'payout-form',
        amount: '15.00',
        currency: 'EUR',
        orderDesc: 'Prize payout',
      });
      expect(created.status, created.text).toBe(200);
      const link = PaymentLinkResultSchema.parse(created.json).link;
      const approved = await post(opsB, `/api/payment-links/${link.id}/approve`, {});
      expect(approved.status, approved.text).toBe(200);
      await vi.waitFor(() => {
        const mine = stream.events.flatMap(({ name, event }) =>
          name === 'payment_link' &&
          (event.type === 'payment_link.created' || event.type === 'payment_link.updated') &&
          event.linkId === link.id
            ? [[event.type, event.state]]
            : [],
        );
        expect(mine).toEqual([
          ['payment_link.created', 'pending_approval'],
          ['payment_link.updated', 'sending'],
          ['payment_link.updated', 'sent'],
        ]);
      });
    });
  });
}
