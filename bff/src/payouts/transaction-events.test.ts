// The payments bus's transaction events reach the payouts module (its status check made due now
// when a payout's order changed); a charge's event, which can never be a payout's, costs nothing.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { TransactionEvent } from '@paydesk/shared/api';
import { DB_VARIANTS } from '../test-support/harness.js';
import {
  startPayoutsApp,
  startSandbox,
  type PayoutsTestApp,
  type Sandbox,
} from './test-support/app.js';

function event(orderid: string, transactionType?: TransactionEvent['transactionType']) {
  const base: TransactionEvent = {
    type: 'transaction.updated',
    transactionId: `t-${orderid}`,
    orderid,
    status: 'approved',
    drift: false,
    at: new Date(0).toISOString(),
  };
  return transactionType === undefined ? base : { ...base, transactionType };
}

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(`payouts and transaction events (${variant.name})`, () => {
    let sandbox: Sandbox;
    let bff: PayoutsTestApp;

    beforeAll(async () => {
      sandbox = await startSandbox();
      bff = await startPayoutsApp(variant, sandbox.baseUrl);
    });
    afterAll(async () => {
      await bff.close();
      await sandbox.stop();
    });

    it('when a sale, preauth or rebill changes, then the payouts are not looked at; a payout order, or an event without a type, still nudges the poller', () => {
      const nudge = vi.spyOn(bff.payouts.poller, 'nudge').mockResolvedValue(undefined);
      try {
        bff.payments.bus.publish(event('o-sale', 'sale'));
        bff.payments.bus.publish(event('o-preauth', 'preauth'));
        bff.payments.bus.publish(event('o-rebill', 'rebill'));
        expect(nudge).not.toHaveBeenCalled();
        bff.payments.bus.publish(event('o-payout', 'payout'));
        bff.payments.bus.publish(event('o-check', 'payout-check'));
        bff.payments.bus.publish(event('o-older-instance'));
        expect(nudge.mock.calls.map((c) => c[0])).toEqual([
          'o-payout',
          'o-check',
          'o-older-instance',
        ]);
      } finally {
        nudge.mockRestore();
      }
    });
  });
}
