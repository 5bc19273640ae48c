// `GET /api/events` ends with its session: a stream held open by a browser tab must not go on
// streaming to a session that was signed out, revoked, expired or whose user lost access. Each
// heartbeat checks the session again (here every 40 ms), on SQLite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionResponseSchema } from '@paydesk/shared/api';
import {
  DB_VARIANTS,
  openEventStream,
  startApp,
  type TestClient,
} from '../test-support/harness.js';
import { startPaymentsApp, type PaymentsTestApp } from './test-support/app.js';

const HEARTBEAT_MS = 40;

/** An open stream: the text received so far, whether and when the server ended it. */
interface Stream {
  text(): string;
  heartbeats(): number;
  ended: Promise<void>;
  isEnded(): boolean;
  close(): void;
}

async function openStream(url: string, client: TestClient): Promise<Stream> {
  const res = await openEventStream(url, client);
  expect(res.statusCode).toBe(200);
  res.setEncoding('utf8');
  let text = '';
  let ended = false;
  res.on('data', (chunk: string) => {
    text += chunk;
  });
  const endedPromise = new Promise<void>((resolve) => {
    res.on('end', () => {
      ended = true;
      resolve();
    });
  });
  return {
    text: () => text,
    heartbeats: () => text.split(': keep-alive').length - 1,
    ended: endedPromise,
    isEnded: () => ended,
    close: () => {
      res.destroy();
    },
  };
}

const waitUntil = async (condition: () => boolean, what: string) => {
  const deadline = Date.now() + 5_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(`live events end with their session (${variant.name})`, () => {
    let app: PaymentsTestApp;
    let admin: TestClient;
    beforeAll(async () => {
      // No gateway is asked anything here.
      app = await startPaymentsApp(variant, {
        gatewayBaseUrl: 'http://127.0.0.1:9/paynet',
        payments: { sseHeartbeatMs: HEARTBEAT_MS, liveStreamsPerSession: 3 },
      });
      admin = await app.userWithRoles(['admin']);
    });
    afterAll(async () => {
      await app.close();
    });

    const userIdOf = async (client: TestClient) =>
      SessionResponseSchema.parse((await client.get('/api/session')).json).user.id;

    it('when the session stays valid, then the stream stays open heartbeat after heartbeat', async () => {
      const support = await app.userWithRoles(['support']);
      const stream = await openStream(app.url, support);
      try {
        await waitUntil(() => stream.heartbeats() >= 5, 'five heartbeats');
        expect(stream.isEnded()).toBe(false);
      } finally {
        stream.close();
      }
    });

    it('when the user signs out, then the stream ends, and a new one is refused (401)', async () => {
      const support = await app.userWithRoles(['support']);
      // The cookie as the browser still holds it: signing out only revokes the session.
      const cookies = new Map(support.cookies);
      const stream = await openStream(app.url, support);
      try {
        await waitUntil(() => stream.heartbeats() >= 1, 'a heartbeat');
        expect((await support.delete('/api/session')).status).toBe(204);
        await stream.ended;
        const again = await fetch(`${app.url}/api/events`, {
          headers: {
            Accept: 'text/event-stream',
            Cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; '),
          },
        });
        expect(again.status).toBe(401);
      } finally {
        stream.close();
      }
    });

    it('when an admin disables the user, then the stream ends', async () => {
      const finance = await app.userWithRoles(['finance']);
      const stream = await openStream(app.url, finance);
      try {
        await waitUntil(() => stream.heartbeats() >= 1, 'a heartbeat');
        const id = await userIdOf(finance);
        expect(
          (await admin.patch(`/api/users/${id}`, { disabled: true, reason: 'left' })).status,
        ).toBe(200);
        await stream.ended;
      } finally {
        stream.close();
      }
    });

    it('when an admin takes away every reading role, then the stream ends', async () => {
      const ops = await app.userWithRoles(['ops']);
      const stream = await openStream(app.url, ops);
      try {
        await waitUntil(() => stream.heartbeats() >= 1, 'a heartbeat');
        const id = await userIdOf(ops);
        // Still a user, still signed in, but no longer one who may read orders or payouts.
        expect((await admin.patch(`/api/users/${id}`, { roles: ['admin'] })).status).toBe(200);
        await stream.ended;
        expect((await ops.get('/api/transactions')).status).toBe(403);
      } finally {
        stream.close();
      }
    });

    it('when a session opens more streams than allowed, then the next is refused (429, Retry-After) and audited, other sessions are not limited, and closing one frees its slot', async () => {
      const support = await app.userWithRoles(['support']);
      const open = [
        await openStream(app.url, support),
        await openStream(app.url, support),
        await openStream(app.url, support),
      ];
      const cookie = [...support.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
      const attempt = () =>
        fetch(`${app.url}/api/events`, {
          headers: { Accept: 'text/event-stream', Cookie: cookie },
        });
      const refused = await attempt();
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('60');
      const body = (await refused.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('RATE_LIMITED');
      expect(body.error.message).toContain('3 live-event streams');
      const audited = await app.db.k
        .selectFrom('audit_log')
        .select(['outcome', 'error_code'])
        .where('action', '=', 'events.subscribe')
        .execute();
      expect(audited).toContainEqual({ outcome: 'refused', error_code: 'RATE_LIMITED' });
      const other = await openStream(app.url, await app.userWithRoles(['support']));
      other.close();

      open[0]?.close();
      const deadline = Date.now() + 5_000;
      let status = 0;
      while (status !== 200 && Date.now() < deadline) {
        const again = await attempt();
        status = again.status;
        await again.body?.cancel();
        if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(status).toBe(200);
      for (const stream of open) stream.close();
    });

    it('when the app is configured with LIVE_EVENTS_HEARTBEAT_MS, then its streams beat and re-check their session that often', async () => {
      const whole = await startApp(variant, { config: { liveEventsHeartbeatMs: HEARTBEAT_MS } });
      try {
        const support = await whole.userWithRoles(['support']);
        const stream = await openStream(whole.url, support);
        // Three beats within seconds: the default (15 s) would give none.
        await waitUntil(() => stream.heartbeats() >= 3, 'three heartbeats');
        expect((await support.delete('/api/session')).status).toBe(204);
        await stream.ended;
      } finally {
        await whole.close();
      }
    });

    it('when the session idles out, then the stream ends: an open stream is not activity', async () => {
      const auditor = await app.userWithRoles(['auditor']);
      const stream = await openStream(app.url, auditor);
      try {
        await waitUntil(() => stream.heartbeats() >= 2, 'two heartbeats');
        app.clock.advance(app.config.session.idleSeconds * 1000);
        await stream.ended;
        expect((await auditor.get('/api/transactions')).status).toBe(401);
      } finally {
        stream.close();
      }
    });

    it('when a screen reopens its stream by itself, then that is not activity either: the session idles out from the user’s last request (QA)', async () => {
      const support = await app.userWithRoles(['support']);
      const idleMs = app.config.session.idleSeconds * 1000;
      app.clock.advance(idleMs - 60_000);
      const reopened = await openStream(app.url, support);
      await waitUntil(() => reopened.heartbeats() >= 1, 'a heartbeat');
      reopened.close();
      app.clock.advance(60_000);
      expect((await support.get('/api/session')).status).toBe(401);
    });
  });
}
