// Model test: random concurrent captures, returns and voids through the BFF's HTTP API (real
// database, real sandbox process), some with the gateway's replies dropped. After every run the
// gateway's own totals hold returned ≤ captured ≤ authorized, Paydesk agrees with them, and the
// gateway applied exactly the operations Paydesk reports as applied (none sent twice), and no return
// went to an uncaptured preauth (Paydesk refuses it: a void releases a hold).
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatMinorUnits } from '@paydesk/shared/protocol';
import { TransactionDetailSchema, type ErrorEnvelope } from '@paydesk/shared/api';
import { DB_VARIANTS, errorCode } from '../test-support/harness.js';
import { learnedOrder, post, startFixture, type Fixture } from './test-support/fixture.js';

type Action =
  | { kind: 'capture'; amountMinor: number | null }
  | { kind: 'return'; amountMinor: number | null }
  | { kind: 'void' };

const action: fc.Arbitrary<Action> = fc.oneof(
  fc.record({
    kind: fc.constant('capture' as const),
    amountMinor: fc.option(fc.integer({ min: 1, max: 6_000 }), { nil: null }),
  }),
  fc.record({
    kind: fc.constant('return' as const),
    amountMinor: fc.option(fc.integer({ min: 500, max: 4_000 }), { nil: null }),
  }),
  fc.record({ kind: fc.constant('void' as const) }),
);

const run = fc.record({
  kind: fc.constantFrom('sale' as const, 'preauth' as const),
  batches: fc.array(fc.array(action, { minLength: 2, maxLength: 5 }), {
    minLength: 1,
    maxLength: 3,
  }),
  dropReplies: fc.boolean(),
});

const APPLIED = new Set(['processing', 'approved', 'unknown']);

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(`payments model (${variant.name})`, () => {
    let f: Fixture;
    beforeAll(async () => {
      f = await startFixture(variant);
    });
    afterAll(async () => {
      await f.close();
    });

    it('when random concurrent captures, returns and voids race (some replies lost), then no cap is exceeded and nothing is sent twice', async () => {
      await fc.assert(
        fc.asyncProperty(run, async (r) => {
          const { order, tx } = await learnedOrder(f, r.kind, '50.00');
          for (const batch of r.batches) {
            if (r.dropReplies)
              await f.sandbox.faults({
                dropResponseRate: 1,
                operations: ['capture', 'return', 'void'],
              });
            const replies = await Promise.all(
              batch.map((a) => {
                const path = `/api/transactions/${tx.id}/${a.kind}`;
                const amount =
                  a.kind === 'void' || a.amountMinor === null
                    ? {}
                    : { amount: formatMinorUnits(BigInt(a.amountMinor)) };
                const body =
                  a.kind === 'return'
                    ? { ...amount, reasonCode: 'other', comment: 'model' }
                    : a.kind === 'void'
                      ? { comment: 'model' }
                      : amount;
                return post(f.finance, path, body);
              }),
            );
            for (const reply of replies) {
              expect([200, 409]).toContain(reply.status);
              if (reply.status !== 409) continue;
              expect(['CAP_EXCEEDED', 'INVALID_STATE']).toContain(errorCode(reply));
              // Paydesk's own check and reservation stop every cap breach: the gateway may refuse
              // an operation for its state (one still processing), never for an amount.
              const env = reply.json as ErrorEnvelope;
              if (env.error.details?.gatewayHttpStatus !== undefined) {
                expect(env.error.message).not.toMatch(/exceeds|already returned|already captured/);
              }
            }
            await f.sandbox.faults({});
            // Let the reconciler learn what the lost replies did, well past the not-applied window.
            f.bff.clock.advance(5_000);
            await f.bff.payments.reconciler.runOnce();
            f.bff.clock.advance(61_000);
            await f.bff.payments.reconciler.runOnce();
          }
          await f.sandbox.advance(61);
          const refreshed = await f.support.post(`/api/transactions/${tx.id}/refresh`);
          expect(refreshed.status).toBe(200);
          const mine = TransactionDetailSchema.parse(refreshed.json);
          const theirs = await f.sandbox.order(order.orderid);
          const authorized = BigInt(theirs.authorizedMinor);
          const captured = BigInt(theirs.capturedMinor);
          const returned = BigInt(theirs.returnedMinor);
          expect(returned <= captured).toBe(true);
          expect(captured <= authorized).toBe(true);
          // A return is sent only where money was captured: a hold is released by a void.
          expect(theirs.orderStage).not.toBe('hold_cancelled');
          expect(mine.amounts.captured).toBe(formatMinorUnits(captured));
          expect(mine.amounts.returned).toBe(formatMinorUnits(returned));
          expect(mine.amounts.reserved).toBe('0.00');
          // Nothing here made the gateway and Paydesk disagree: no false drift alarm.
          expect(mine.drift).toBe(false);
          for (const kind of ['capture', 'return', 'void'] as const) {
            const atGateway = theirs.operations.filter((o) => o.type === kind).length;
            const applied = mine.operations.filter(
              (o) => o.kind === kind && o.origin === 'paydesk' && APPLIED.has(o.state),
            ).length;
            const learned = mine.operations.filter(
              (o) => o.kind === kind && o.origin === 'gateway',
            ).length;
            expect(learned).toBe(0);
            expect(applied).toBe(atGateway);
          }
        }),
        { numRuns: 15 },
      );
    }, 120_000);
  });
}
