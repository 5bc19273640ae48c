import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  MERCHANT,
  saleFields,
  startReceiver,
  startSandbox,
  testConfig,
} from '../test-support/harness.js';

const dir = mkdtempSync(join(tmpdir(), 'sandbox-db-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('SANDBOX_DB persistence', () => {
  it('when the sandbox restarts on the same file, then orders, card refs, pending work and new ids carry on', async () => {
    const dbPath = join(dir, 'sandbox.sqlite');
    const receiver = await startReceiver((n) => (n === 1 ? 500 : 200));
    const config = testConfig({ processingDelayMs: 60_000 });
    const first = await startSandbox({ config, dbPath });
    const fields = saleFields({ amount: '42.00', server_callback_url: receiver.url });
    const sale = await first.client.call('sale', 1001, fields);
    const done = saleFields();
    const doneSale = await first.client.call('sale', 1001, done);
    await first.advance(60);
    const ref = await first.client.call('create-card-ref', 1001, {
      login: MERCHANT.login,
      client_orderid: done.client_orderid,
      orderid: doneSale.reply.orderId,
    });
    const pending = saleFields();
    const pendingSale = await first.client.call('sale', 1001, pending);
    await receiver.waitFor(1);
    await first.close();

    const second = await startSandbox({ config, dbPath });
    try {
      const status = await second.client.call('status', 1001, {
        login: MERCHANT.login,
        client_orderid: fields.client_orderid,
        orderid: sale.reply.orderId,
      });
      expect(status.reply.fields).toMatchObject({
        status: 'approved',
        amount: '42.00',
        'captured-amount': '42.00',
      });
      const info = await second.client.call('get-card-info', 1001, {
        login: MERCHANT.login,
        cardrefid: ref.reply.fields['card-ref-id'],
      });
      expect(info.reply.fields['last-four-digits']).toBe('1111');
      // The pending sale completes on the restored clock; the failed callback is retried.
      await second.advance(60);
      const later = await second.client.call('status', 1001, {
        login: MERCHANT.login,
        client_orderid: pending.client_orderid,
        orderid: pendingSale.reply.orderId,
      });
      expect(later.reply.status).toBe('approved');
      await receiver.waitFor(2);
      expect(receiver.hits[1]?.searchParams.get('orderid')).toBe(sale.reply.orderId);
      const next = await second.client.call('sale', 1001, saleFields());
      expect(BigInt(next.reply.orderId!)).toBeGreaterThan(BigInt(pendingSale.reply.orderId!));
      const duplicate = await second.client.call('sale', 1001, fields);
      expect(duplicate.httpStatus).toBe(400);
    } finally {
      await second.close();
      await receiver.close();
    }
  });
});
