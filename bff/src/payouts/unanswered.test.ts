// How a payout's check or payout, or a payment link's create, went unlearned, recorded when it
// happens and given to the SPA as `unanswered` (as an operation's is), never parsed back from the
// recorded words: a 5xx answer, no answer within the wait, a dropped reply; cleared once learned.
// On SQLite and (with PAYDESK_TEST_PG_URL) PostgreSQL, against the real sandbox process.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  PaymentLinkDetailSchema,
  PaymentLinkListSchema,
  PaymentLinkResultSchema,
  PayoutDetailSchema,
  PayoutListSchema,
  PayoutResultSchema,
  type PaymentLinkCreateInput,
  type PayoutCreateInput,
  type Unanswered,
} from '@paydesk/shared/api';
import { DB_VARIANTS, type TestClient } from '../test-support/harness.js';
import { unansweredOfColumns } from './gateway-errors.js';
import {
  post,
  startPayoutsApp,
  startSandbox,
  statusAnswersProcessing,
  type PayoutsTestApp,
  type Sandbox,
} from './test-support/app.js';
import { TEST_CUSTOMER } from '../test-support/customer.js';

const FAULT_MESSAGE = 'injected fault: the gateway failed before applying the operation';
const ERROR_ANSWER: Unanswered = {
  kind: 'error',
  httpStatus: 500,
  code: 'INTERNAL',
  message: FAULT_MESSAGE,
};
/** The BFF's wait for the gateway here; the sandbox's latency in a timeout is well past it. */
const WAIT_MS = 400;
const LATE_MS = 1_200;

const BANK = {
  kind: 'bank',
  accountNumber: 'DE89370400440532013000',
  bankName: 'Test Bank',
  bankBic: 'COBADEFFXXX',
} as const;

const payoutBody = (extra: Partial<PayoutCreateInput> = {}): PayoutCreateInput => ({
  destination: BANK,
  amount: '12.50',
  currency: 'EUR',
  orderDesc: 'Supplier refund',
  ...extra,
});

const saleLink: PaymentLinkCreateInput = {
  kind: 'sale-form',
  amount: '19.99',
  currency: 'EUR',
  orderDesc: 'Invoice 42',
  customer: TEST_CUSTOMER,
  redirectUrl: 'https://shop.example/thanks',
};

/** The three ways an answer goes unlearned, as the sandbox's faults make them. */
const FAULTS: readonly {
  name: string;
  faults: Record<string, unknown>;
  expected: Unanswered;
}[] = [
  { name: 'a 500', faults: { errorRate: 1 }, expected: ERROR_ANSWER },
  {
    name: 'a dropped reply',
    faults: { dropResponseRate: 1 },
    expected: { kind: 'connection-closed' },
  },
  {
    name: 'no answer in time',
    faults: { latencyMs: LATE_MS },
    expected: { kind: 'timeout', waitedMs: WAIT_MS },
  },
];

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(
    `payouts and links not learned, recorded as such (${variant.name})`,
    () => {
      let sandbox: Sandbox;
      let bff: PayoutsTestApp;
      let opsA: TestClient & { email: string };
      let opsB: TestClient & { email: string };
      let finance: TestClient & { email: string };
      let support: TestClient & { email: string };

      beforeAll(async () => {
        sandbox = await startSandbox();
        bff = await startPayoutsApp(variant, sandbox.baseUrl, { gatewayTimeoutMs: WAIT_MS });
        opsA = await bff.userWithRoles(['ops']);
        opsB = await bff.userWithRoles(['ops']);
        finance = await bff.userWithRoles(['finance']);
        support = await bff.userWithRoles(['support']);
      });
      afterAll(async () => {
        await bff.close();
        await sandbox.stop();
      });
      afterEach(async () => {
        await sandbox.faults({});
        // a request the sandbox held past the wait is over before the next test
        await new Promise((r) => setTimeout(r, LATE_MS));
      });

      /** The payout as its page, and the list, give it; and what its own columns record. */
      const payoutRead = async (id: string) => {
        const detail = PayoutDetailSchema.parse((await support.get(`/api/payouts/${id}`)).json);
        const list = PayoutListSchema.parse((await support.get('/api/payouts?limit=200')).json);
        const row = await bff.k
          .selectFrom('payouts')
          .selectAll()
          .where('id', '=', id)
          .executeTakeFirstOrThrow();
        return {
          detail,
          listed: list.items.find((p) => p.id === id),
          stored: unansweredOfColumns(row),
        };
      };
      const linkRead = async (id: string) => {
        const detail = PaymentLinkDetailSchema.parse(
          (await support.get(`/api/payment-links/${id}`)).json,
        );
        const list = PaymentLinkListSchema.parse((await support.get('/api/payment-links')).json);
        const row = await bff.k
          .selectFrom('payment_links')
          .selectAll()
          .where('id', '=', id)
          .executeTakeFirstOrThrow();
        return {
          detail,
          listed: list.items.find((l) => l.id === id),
          stored: unansweredOfColumns(row),
        };
      };
      /** Runs the poller (the gateway's own pace let through) until the payout is no longer open. */
      const settleFinal = async (id: string) => {
        await vi.waitFor(
          async () => {
            await sandbox.advance(5);
            bff.clock.advance(10_000);
            await bff.payouts.poller.runOnce();
            const { detail } = await payoutRead(id);
            expect(['checking', 'processing', 'unknown', 'sending']).not.toContain(detail.state);
          },
          { timeout: 8_000, interval: 50 },
        );
        return payoutRead(id);
      };

      for (const { name, faults, expected } of FAULTS) {
        it(`when a payout's check meets ${name}, then the payout (its page, the list and its row) says how, and once the gateway shows the check it is cleared`, async () => {
          await sandbox.faults({ ...faults, operations: ['payout-check'] });
          const res = await post(opsA, '/api/payouts', payoutBody());
          expect(res.status, res.text).toBe(200);
          const { payout } = PayoutResultSchema.parse(res.json);
          expect(payout).toMatchObject({ state: 'checking', unanswered: expected });
          const read = await payoutRead(payout.id);
          expect(read.detail.unanswered).toEqual(expected);
          expect(read.listed?.unanswered).toEqual(expected);
          expect(read.stored).toEqual(expected);
          await sandbox.faults({});
          await new Promise((r) => setTimeout(r, LATE_MS));
          const after = await settleFinal(payout.id);
          // a 500 came before the check was applied (judged not applied); the others were made
          expect(after.detail.state).toBe(
            expected.kind === 'error' ? 'failed' : 'pending_approval',
          );
          expect(after.detail.unanswered).toBeNull();
          expect(after.stored).toBeNull();
        });

        it(`when a payout's payout meets ${name}, then the payout is unknown and says how, and once the gateway shows it paid it is cleared with its recorded error`, async () => {
          const res = await post(opsA, '/api/payouts', payoutBody({ amount: '13.00' }));
          const { payout } = PayoutResultSchema.parse(res.json);
          expect(payout.state).toBe('pending_approval');
          await sandbox.faults({ ...faults, operations: ['payout-pay'] });
          const sent = await post(opsB, `/api/payouts/${payout.id}/approve`, {});
          expect(sent.status, sent.text).toBe(200);
          const result = PayoutResultSchema.parse(sent.json);
          expect(result.payout).toMatchObject({ state: 'unknown', unanswered: expected });
          // One plain sentence for staff: why, with the gateway's status said once (its own
          // words stay in the timeline), and what happens next, truthfully.
          expect(result.message).toBe(
            `Not known yet whether the payout was paid (${
              expected.kind === 'error'
                ? 'the gateway answered 500'
                : expected.kind === 'timeout'
                  ? 'no answer within 400 ms'
                  : 'the connection closed before the gateway answered'
            }): Paydesk does not send it again on its own but checks its status, and if the gateway does not show it, an ops user other than ${opsA.email} can pay it again.`,
          );
          expect(result.message).not.toMatch(/injected fault|INTERNAL|HTTP 500|never sends/);
          const read = await payoutRead(payout.id);
          expect(read.detail.unanswered).toEqual(expected);
          expect(read.listed?.unanswered).toEqual(expected);
          expect(read.stored).toEqual(expected);
          if (expected.kind === 'error') return; // never applied: judged later (paid-late.test.ts)
          await sandbox.faults({});
          await new Promise((r) => setTimeout(r, LATE_MS));
          const after = await settleFinal(payout.id);
          expect(after.detail).toMatchObject({
            state: 'approved',
            unanswered: null,
            errorCode: null,
            errorMessage: null,
          });
        });

        it(`when a single payout's v2 payout meets ${name}, then it is unknown and says how`, async () => {
          const res = await post(
            opsA,
            '/api/payouts',
            payoutBody({ mode: 'single', amount: '5.00' }),
          );
          const { payout } = PayoutResultSchema.parse(res.json);
          await sandbox.faults({ ...faults, operations: ['payout'] });
          const sent = await post(opsB, `/api/payouts/${payout.id}/approve`, {});
          expect(sent.status, sent.text).toBe(200);
          const result = PayoutResultSchema.parse(sent.json);
          expect(result.payout).toMatchObject({ state: 'unknown', unanswered: expected });
          // A single payout is never paid again: prepared again if the gateway does not show it.
          expect(result.message).toMatch(
            /^Not known yet whether the payout was paid \(.+\): Paydesk does not send it again on its own but checks its status, and if the gateway does not show it, it is marked failed and must be prepared again\.$/,
          );
          expect(result.message).not.toMatch(/injected fault|INTERNAL/);
          expect((await payoutRead(payout.id)).stored).toEqual(expected);
        });

        it(`when a payment link's create meets ${name}, then the link is unknown and its page, the list and its row say how`, async () => {
          await sandbox.faults({ ...faults, operations: ['sale-form'] });
          const res = await post(finance, '/api/payment-links', saleLink);
          expect(res.status, res.text).toBe(200);
          const { link } = PaymentLinkResultSchema.parse(res.json);
          expect(link).toMatchObject({ state: 'unknown', unanswered: expected });
          const read = await linkRead(link.id);
          expect(read.detail.unanswered).toEqual(expected);
          expect(read.listed?.unanswered).toEqual(expected);
          expect(read.stored).toEqual(expected);
        });
      }

      it('when a payout whose payout reply was dropped is shown processing by the gateway, then its outcome is learned: how it went unlearned is cleared with its recorded words', async () => {
        const res = await post(opsA, '/api/payouts', payoutBody({ amount: '14.00' }));
        const { payout } = PayoutResultSchema.parse(res.json);
        await sandbox.faults({ dropResponseRate: 1, operations: ['payout-pay'] });
        const sent = PayoutResultSchema.parse(
          (await post(opsB, `/api/payouts/${payout.id}/approve`, {})).json,
        );
        expect(sent.payout).toMatchObject({
          state: 'unknown',
          unanswered: { kind: 'connection-closed' },
        });
        await sandbox.faults({});
        // the gateway still processing it, as one whose payouts take a while would answer
        const spy = statusAnswersProcessing(bff);
        try {
          bff.clock.advance(10_000);
          await bff.payouts.poller.runOnce();
        } finally {
          spy.mockRestore();
        }
        const read = await payoutRead(payout.id);
        expect(read.detail).toMatchObject({
          state: 'processing',
          unanswered: null,
          errorCode: null,
          errorMessage: null,
        });
        expect(read.stored).toBeNull();
      });

      it('when the gateway refuses a payout-check (400), then nothing went unanswered: the refusal is its error code and message', async () => {
        const res = await post(
          opsA,
          '/api/payouts',
          payoutBody({ endpointId: '2001', currency: 'GBP', amount: '3.00' }),
        );
        expect(res.status, res.text).toBe(502);
        const row = await bff.k
          .selectFrom('payouts')
          .selectAll()
          .where('currency', '=', 'GBP')
          .executeTakeFirstOrThrow();
        expect(row.state).toBe('failed');
        expect(row.error_code).not.toBeNull();
        const read = await payoutRead(row.id);
        expect(read.detail).toMatchObject({ errorCode: row.error_code, unanswered: null });
        expect(read.stored).toBeNull();
      });
    },
  );
}
