// Two instances' event buses on one PostgreSQL database: what one publishes, both deliver.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { LiveEvent, TransactionEvent } from '@paydesk/shared/api';
import { createLogger } from '../logger.js';
import { DB_VARIANTS } from '../test-support/harness.js';
import { PgNotifyEventBus } from './pg-event-bus.js';

const postgres = DB_VARIANTS.find((v) => v.name === 'postgres');

/** The i-th of a run of transaction events, its orderid counted from `firstOrderid`. */
function updated(i: number, firstOrderid: number): TransactionEvent {
  return {
    type: 'transaction.updated',
    transactionId: `t-${String(i)}`,
    orderid: String(firstOrderid + i),
    status: 'approved',
    drift: false,
    at: '2026-11-21T09:00:00.000Z',
    transactionType: 'sale',
  };
}

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
        new Promise<LiveEvent>((resolve) => {
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

  it('when an instance publishes many events at once, then the other instance delivers every one, in order', async () => {
    const logger = createLogger('silent');
    const a = await PgNotifyEventBus.connect(url, logger);
    const b = await PgNotifyEventBus.connect(url, logger);
    try {
      const events = Array.from({ length: 250 }, (_, i) => updated(i, 1000));
      const received: LiveEvent[] = [];
      const all = new Promise<void>((resolve) => {
        b.subscribe((e) => {
          received.push(e);
          if (received.length === events.length) resolve();
        });
      });
      for (const e of events) a.publish(e);
      await all;
      expect(received).toEqual(events);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('when events are published close together, then they go to PostgreSQL in one NOTIFY statement', async () => {
    const logger = createLogger('silent');
    const a = await PgNotifyEventBus.connect(url, logger);
    const b = await PgNotifyEventBus.connect(url, logger);
    const query = vi.spyOn(pg.Pool.prototype, 'query');
    try {
      const received: LiveEvent[] = [];
      const all = new Promise<void>((resolve) => {
        b.subscribe((e) => {
          received.push(e);
          if (received.length === 5) resolve();
        });
      });
      for (let i = 0; i < 5; i++) a.publish(updated(i, 2000));
      await all;
      const notifies = query.mock.calls.filter(
        ([text]) => typeof text === 'string' && text.startsWith('select pg_notify'),
      );
      expect(notifies).toHaveLength(1);
      expect(received.map((e) => (e.type === 'transaction.updated' ? e.orderid : ''))).toEqual([
        '2000',
        '2001',
        '2002',
        '2003',
        '2004',
      ]);
    } finally {
      query.mockRestore();
      await a.close();
      await b.close();
    }
  });

  it('when one instance publishes a payout change, then the other instance delivers it as it was sent', async () => {
    const logger = createLogger('silent');
    const a = await PgNotifyEventBus.connect(url, logger);
    const b = await PgNotifyEventBus.connect(url, logger);
    try {
      const event: LiveEvent = {
        type: 'payout.updated',
        payoutId: '9a0e8f5c-2b1d-4c3e-8f7a-6d5c4b3a2f10',
        state: 'processing',
        orderid: '5678',
        at: '2026-11-21T09:00:00.000Z',
      };
      const atB = new Promise<LiveEvent>((resolve) => {
        const off = b.subscribe((e) => {
          off();
          resolve(e);
        });
      });
      a.publish(event);
      expect(await atB).toEqual(event);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('when an instance loses its listening connection (a server restart, a failover), then it listens again and delivers changes from every instance', async () => {
    const logger = createLogger('silent');
    const a = await PgNotifyEventBus.connect(url, logger, { reconnectDelayMs: 20 });
    const b = await PgNotifyEventBus.connect(url, logger, { reconnectDelayMs: 20 });
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    // Told once each listens again: what was published meanwhile went by unheard.
    const missed = { a: 0, b: 0 };
    a.subscribe(
      () => undefined,
      () => (missed.a += 1),
    );
    b.subscribe(
      () => undefined,
      () => (missed.b += 1),
    );
    try {
      const listening = await admin.query<{ pid: number }>(
        "select pid from pg_stat_activity where datname = current_database() and query like 'listen %'",
      );
      expect(listening.rows).toHaveLength(2);
      await admin.query(
        'select pg_terminate_backend(pid) from pg_stat_activity where pid = any($1)',
        [listening.rows.map((r) => r.pid)],
      );
      const heardByA: LiveEvent[] = [];
      const heardByB: LiveEvent[] = [];
      a.subscribe((e) => heardByA.push(e));
      b.subscribe((e) => heardByB.push(e));
      const heardFrom = (heard: LiveEvent[], from: string) =>
        heard.some((e) => e.type === 'payout.updated' && e.orderid === from);
      let n = 0;
      await vi.waitFor(
        () => {
          // Changes published while a connection was down are gone: each instance publishes in
          // turn until each hears the other's (an instance not listening yet gives its own
          // screens its changes directly, so only the other's prove it listens again).
          n += 1;
          const from = n % 2 === 0 ? 'a' : 'b';
          (from === 'a' ? a : b).publish({
            type: 'payout.updated',
            payoutId: `9a0e8f5c-2b1d-4c3e-8f7a-${String(n).padStart(12, '0')}`,
            state: 'approved',
            orderid: from,
            at: '2026-11-21T09:00:00.000Z',
          });
          expect(heardFrom(heardByA, 'b')).toBe(true);
          expect(heardFrom(heardByB, 'a')).toBe(true);
        },
        { timeout: 5_000, interval: 50 },
      );
      expect(missed).toEqual({ a: 1, b: 1 });
    } finally {
      await admin.end();
      await a.close();
      await b.close();
    }
  });
});
