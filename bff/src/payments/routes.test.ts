// Every payments route with every role: 401 without a session, 403 without an allowed role,
// neither with one; state-changing routes refuse a request without the CSRF header.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROLES, type Role } from '@paydesk/shared/api';
import { allows } from '../http/route-table.js';
import { DB_VARIANTS, errorCode, type Reply, type TestClient } from '../test-support/harness.js';
import { PAYMENT_ROUTES, type PaymentRouteKey } from './routes.js';
import { startFixture, type Fixture } from './test-support/fixture.js';

const ZERO_ID = '00000000-0000-4000-8000-000000000000';

/** The event stream never ends by itself: read the status, then hang up. */
async function call(
  f: Fixture,
  client: TestClient,
  method: string,
  url: string,
): Promise<Pick<Reply, 'status' | 'json'>> {
  if (url === '/api/events') {
    const controller = new AbortController();
    const cookie = [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const headers: Record<string, string> = {
      Accept: 'text/event-stream',
      ...(cookie === '' ? {} : { Cookie: cookie }),
    };
    const res = await fetch(f.bff.url + url, { headers, signal: controller.signal });
    const json: unknown =
      res.headers.get('content-type')?.startsWith('application/json') === true
        ? await res.json()
        : null;
    controller.abort();
    return { status: res.status, json };
  }
  return client.request(method, url, method === 'GET' ? undefined : {});
}

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(`payments route × role matrix (${variant.name})`, () => {
    let f: Fixture;
    const clients = new Map<Role, TestClient>();
    beforeAll(async () => {
      f = await startFixture(variant);
      for (const role of ROLES) clients.set(role, await f.bff.userWithRoles([role]));
    });
    afterAll(async () => {
      await f.close();
    });

    for (const key of Object.keys(PAYMENT_ROUTES) as PaymentRouteKey[]) {
      const rule = PAYMENT_ROUTES[key];
      const [method = '', path = ''] = key.split(' ');
      const url = path.replace(':id', ZERO_ID);

      it(`when ${key} is called without a session, then 401`, async () => {
        const res = await call(f, f.bff.client(), method, url);
        expect(res.status).toBe(401);
      });

      it(`when ${key} is called by each role, then only ${rule.access.join(', ')} get past authorization`, async () => {
        for (const role of ROLES) {
          const c = clients.get(role);
          if (c === undefined) throw new Error('no client');
          const res = await call(f, c, method, url);
          if (allows(rule.access, [role])) {
            expect([401, 403], role).not.toContain(res.status);
            expect(res.status, role).toBeLessThan(500);
          } else {
            expect(res.status, role).toBe(403);
          }
        }
      });

      if (method === 'POST') {
        it(`when ${key} comes without the CSRF header, then 403 CSRF_REJECTED`, async () => {
          const c = clients.get('finance');
          if (c === undefined) throw new Error('no client');
          const res = await c.request('POST', url, {}, {}, { csrf: false });
          expect(res.status).toBe(403);
          expect(errorCode(res)).toBe('CSRF_REJECTED');
        });
      }
    }
  });
}
