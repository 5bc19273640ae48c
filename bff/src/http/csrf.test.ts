import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, DB_VARIANTS, errorCode, startApp, type TestApp } from '../test-support/harness.js';

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(`CSRF (${variant.name})`, () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startApp(variant, { config: { devOrigin: 'http://localhost:5173' } });
    });
    afterAll(async () => {
      await t.close();
    });
    const body = { email: ADMIN.email, password: ADMIN.password };

    it('when a state-changing request lacks X-Requested-With, then 403 CSRF_REJECTED', async () => {
      const res = await t
        .client()
        .request('POST', '/api/session', body, { Origin: t.config.publicOrigin }, { csrf: false });
      expect(res.status).toBe(403);
      expect(errorCode(res)).toBe('CSRF_REJECTED');
    });

    it('when the header has another value, then 403', async () => {
      const res = await t
        .client()
        .request(
          'POST',
          '/api/session',
          body,
          { 'X-Requested-With': 'XMLHttpRequest', Origin: t.config.publicOrigin },
          { csrf: false },
        );
      expect(errorCode(res)).toBe('CSRF_REJECTED');
    });

    it('when the Origin is another site, then 403 even with the header', async () => {
      const res = await t
        .client()
        .request(
          'POST',
          '/api/session',
          body,
          { Origin: 'https://evil.example', 'X-Requested-With': 'paydesk' },
          { csrf: false },
        );
      expect(errorCode(res)).toBe('CSRF_REJECTED');
    });

    it('when there is no Origin and no Sec-Fetch-Site, then 403', async () => {
      const res = await t
        .client()
        .request('POST', '/api/session', body, { 'X-Requested-With': 'paydesk' }, { csrf: false });
      expect(errorCode(res)).toBe('CSRF_REJECTED');
    });

    it('when there is no Origin but Sec-Fetch-Site is same-origin, then the request goes through', async () => {
      const res = await t
        .client()
        .request(
          'POST',
          '/api/session',
          body,
          { 'X-Requested-With': 'paydesk', 'Sec-Fetch-Site': 'same-origin' },
          { csrf: false },
        );
      expect(res.status).toBe(200);
    });

    it('when Sec-Fetch-Site is cross-site without Origin, then 403', async () => {
      const res = await t
        .client()
        .request(
          'POST',
          '/api/session',
          body,
          { 'X-Requested-With': 'paydesk', 'Sec-Fetch-Site': 'cross-site' },
          { csrf: false },
        );
      expect(errorCode(res)).toBe('CSRF_REJECTED');
    });

    it('when the Origin is the configured dev origin, then the request goes through', async () => {
      const res = await t
        .client()
        .request(
          'POST',
          '/api/session',
          body,
          { 'X-Requested-With': 'paydesk', Origin: 'http://localhost:5173' },
          { csrf: false },
        );
      expect(res.status).toBe(200);
    });

    it('when a logged-in user is tricked into a cross-site logout, then the session survives', async () => {
      const c = t.client();
      await c.login(ADMIN.email, ADMIN.password);
      const res = await c.request('DELETE', '/api/session', undefined, {
        Origin: 'https://evil.example',
        'X-Requested-With': 'paydesk',
      });
      expect(res.status).toBe(403);
      expect((await c.get('/api/session')).status).toBe(200);
      // The refusal is audited against the user whose browser was tricked, not as nobody's.
      const row = await t.db.k
        .selectFrom('audit_log')
        .selectAll()
        .where('request_id', '=', res.headers.get('x-request-id') ?? '')
        .executeTakeFirstOrThrow();
      expect(row).toMatchObject({
        action: 'session.logout',
        outcome: 'refused',
        error_code: 'CSRF_REJECTED',
        actor_email: ADMIN.email,
      });
    });

    it('when a cross-site request carries a forged or signed-out session cookie, then its refusal names nobody', async () => {
      const c = t.client();
      await c.login(ADMIN.email, ADMIN.password);
      const cookie = [...c.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
      expect((await c.request('DELETE', '/api/session')).status).toBe(204);
      for (const sent of [cookie, cookie.replace(/=.*$/, '=forged.token.value')]) {
        // An unidentified client's refusals are audited once per code a minute (run-route.ts).
        t.clock.advance(60_000);
        const res = await t.client().request('DELETE', '/api/session', undefined, {
          Origin: 'https://evil.example',
          'X-Requested-With': 'paydesk',
          Cookie: sent,
        });
        expect(res.status).toBe(403);
        const row = await t.db.k
          .selectFrom('audit_log')
          .selectAll()
          .where('request_id', '=', res.headers.get('x-request-id') ?? '')
          .executeTakeFirstOrThrow();
        expect(row.actor_email).toBeNull();
      }
    });

    it('when a GET comes without the header, then it is served (reads change nothing)', async () => {
      const c = t.client();
      await c.login(ADMIN.email, ADMIN.password);
      expect((await c.request('GET', '/api/session', undefined, {}, { csrf: false })).status).toBe(
        200,
      );
    });

    it('when a CSRF refusal happens, then it is audited as refused', async () => {
      const rows = await t.db.k
        .selectFrom('audit_log')
        .selectAll()
        .where('error_code', '=', 'CSRF_REJECTED')
        .execute();
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.every((r) => r.outcome === 'refused')).toBe(true);
    });
  });
}
