// The graceful stop with a browser's live-event stream open: the stream is ended first, so that
// the server closes as soon as the requests under way are answered, not at the shutdown timeout;
// a stream asked for once the stop began is refused (503) rather than held open.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from './app.js';
import { ManualClock } from './clock.js';
import { openDatabase, type Db } from './db/connect.js';
import { createLogger } from './logger.js';
import type { Payments } from './payments/index.js';
import { shutdown } from './shutdown.js';
import {
  ADMIN,
  DB_VARIANTS,
  openEventStream,
  testConfig,
  TestClient,
} from './test-support/harness.js';

interface Running {
  server: Server;
  db: Db;
  payments: Payments;
  url: string;
  client: TestClient;
  /** closes what the test did not (idempotent) and removes the database */
  dispose(): Promise<void>;
}

/** The app on SQLite behind a real server, with the admin signed in. */
async function start(): Promise<Running> {
  const sqlite = DB_VARIANTS[0];
  if (sqlite === undefined) throw new Error('no SQLite variant');
  const created = await sqlite.create();
  const config = testConfig(created.database);
  const db = await openDatabase(config.database, 4);
  const built = createApp({
    config,
    db,
    logger: createLogger('silent'),
    clock: new ManualClock(Date.UTC(2026, 10, 21, 9, 0, 0)),
    gatewayProbe: () => Promise.resolve(),
  });
  await built.services.users.bootstrapAdmin(ADMIN);
  const server = createServer(built.app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = new TestClient(url, config.publicOrigin);
  expect((await client.login(ADMIN.email, ADMIN.password)).status).toBe(200);
  return {
    server,
    db,
    payments: built.payments,
    url,
    client,
    dispose: async () => {
      if (server.listening) {
        server.closeAllConnections();
        await new Promise<void>((resolve) => {
          server.close(() => {
            resolve();
          });
        });
        await built.payments.close();
        await db.close();
      }
      await created.drop();
    },
  };
}

/** An open `GET /api/events` stream, once it said `connected`, and when it ends. */
async function openStream(r: Running): Promise<{ res: IncomingMessage; ended: Promise<void> }> {
  const res = await openEventStream(r.url, r.client);
  expect(res.statusCode).toBe(200);
  res.setEncoding('utf8');
  const ended = new Promise<void>((resolve) => {
    res.on('end', resolve);
  });
  await new Promise<void>((resolve) => {
    let text = '';
    const onData = (chunk: string) => {
      text += chunk;
      if (text.includes(': connected')) {
        res.off('data', onData);
        res.resume();
        resolve();
      }
    };
    res.on('data', onData);
  });
  return { res, ended };
}

describe('shutdown', () => {
  let running: Running | null = null;
  afterEach(async () => {
    await running?.dispose();
    running = null;
  });

  it('when a live-event stream is open, then shutdown ends it first and the server closes without waiting for the timeout', async () => {
    const r = await start();
    running = r;
    const stream = await openStream(r);
    // A timeout far longer than the test may take: reaching it would fail the test.
    const result = await shutdown({
      server: r.server,
      endStreams: () => {
        r.payments.streams.endAll();
      },
      close: async () => {
        await r.payments.close();
        await r.db.close();
      },
      timeoutMs: 10 * 60_000,
    });
    expect(result).toEqual({ forced: false });
    await stream.ended;
  }, 30_000);

  it('when the streams were ended for a stop, then a new stream is refused with 503 rather than held open', async () => {
    const r = await start();
    running = r;
    const stream = await openStream(r);
    r.payments.streams.endAll();
    await stream.ended;
    const refused = await r.client.get('/api/events', { Accept: 'text/event-stream' });
    expect(refused.status).toBe(503);
    expect(refused.json).toMatchObject({ error: { code: 'SERVICE_UNAVAILABLE' } });
  }, 30_000);
});
