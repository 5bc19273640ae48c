// Two instances' event buses on one PostgreSQL database: what one publishes, both deliver.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TransactionEvent } from '@paydesk/shared/api';
import { createLogger } from '../logger.js';
import { DB_VARIANTS } from '../test-support/harness.js';
import { PgNotifyEventBus } from './pg-event-bus.js';

const postgres = DB_VARIANTS.find((v) => v.name === 'postgres');

describe.skipIf(postgres === undefined || postgres.skip)('PostgreSQL event bus', () => {
  let created: Awaited<ReturnType<NonNullable<typeof postgres>['create']>> | null = null;
  let url = '';
  beforeAll(async () => {
    if (postgres === undefined) return;
    created = await postgres.create();
    if (created.database.kind === 'postgres') url = created.database.url;
  });
  afterAll(async () => {
    await created?.drop();
  });

  it('when one instance publishes, then listeners on every instance receive the event once', async () => {
    const logger = createLogger('silent');
    const a = await PgNotifyEventBus.connect(url, logger);
    const b = await PgNotifyEventBus.connect(url, logger);
    try {
      const event: TransactionEvent = {
        type: 'transaction.updated',
        transactionId: '3b6f3c1e-8f3a-4a7e-9d1c-2f1b7d9e0a11',
        orderid: '1234',
        status: 'approved',
        drift: false,
        at: '2026-11-21T09:00:00.000Z',
      };
      const seen = (bus: PgNotifyEventBus) =>
        new Promise<TransactionEvent>((resolve) => {
          const off = bus.subscribe((e) => {
            off();
            resolve(e);
          });
        });
      const atA = seen(a);
      const atB = seen(b);
      a.publish(event);
      expect(await atB).toEqual(event);
      expect(await atA).toEqual(event);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
