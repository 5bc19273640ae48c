// Walks every route in the table with every role: 401 without a session, 403 without a role that
// the table allows, and anything but 401/403 with one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROLES, type Role } from '@paydesk/shared/api';
import {
  DB_VARIANTS,
  errorCode,
  startApp,
  type TestApp,
  type TestClient,
} from '../test-support/harness.js';
import { allows, ROUTES, splitRouteKey, type RouteKey } from './route-table.js';

const ZERO_ID = '00000000-0000-4000-8000-000000000000';

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(`route × role matrix (${variant.name})`, () => {
    let t: TestApp;
    const clients = new Map<Role, TestClient>();
    beforeAll(async () => {
      t = await startApp(variant);
      for (const role of ROLES) clients.set(role, await t.userWithRoles([role]));
    });
    afterAll(async () => {
      await t.close();
    });

    const keys = Object.keys(ROUTES) as RouteKey[];

    for (const key of keys) {
      const rule = ROUTES[key];
      const { method, path } = splitRouteKey(key);
      const url = path.replace(':id', ZERO_ID);

      if (rule.access !== 'public') {
        it(`when ${key} is called without a session, then 401`, async () => {
          const res = await t
            .client()
            .request(method.toUpperCase(), url, method === 'get' ? undefined : {});
          expect(res.status).toBe(401);
          expect(errorCode(res)).toBe('UNAUTHENTICATED');
        });
      }

      for (const role of ROLES) {
        const allowed = allows(rule.access, [role]);
        it(`when ${key} is called by ${role}, then ${allowed ? 'it is allowed' : '403'}`, async () => {
          const c = clients.get(role);
          if (c === undefined) throw new Error('no client');
          // Calls with an empty body: allowed routes answer 2xx or a 4xx about the input, never 401/403.
          const body = method === 'get' ? undefined : {};
          const res = await c.request(method.toUpperCase(), url, body);
          if (allowed) {
            expect([401, 403]).not.toContain(res.status);
            expect(res.status).toBeLessThan(500);
          } else {
            expect(res.status).toBe(403);
            expect(errorCode(res)).toBe('FORBIDDEN');
          }
          // Logging out would end the session the next cases need; log back in.
          if (key === 'DELETE /api/session') clients.set(role, await t.userWithRoles([role]));
        });
      }
    }

    it('when a user holds several roles, then the union of their rights applies', async () => {
      const c = await t.userWithRoles(['support', 'auditor']);
      expect((await c.get('/api/audit')).status).toBe(200);
      expect((await c.get('/api/users')).status).toBe(200);
      expect((await c.post('/api/users', {})).status).toBe(403);
    });

    it('when the user routes are walked, then auditors may only read the list and admins do everything', () => {
      const userRoutes = keys.filter((key) => key.includes(' /api/users'));
      const reach = (role: Role) => userRoutes.filter((key) => allows(ROUTES[key].access, [role]));
      expect(reach('auditor')).toEqual(['GET /api/users']);
      expect(reach('admin')).toEqual(userRoutes);
      for (const role of ['support', 'finance', 'ops'] as const) expect(reach(role)).toEqual([]);
    });

    it('when a refused call is made, then the refusal is in the audit log', async () => {
      const c = clients.get('support');
      if (c === undefined) throw new Error('no client');
      await c.post('/api/users', {
        email: 'x@paydesk.test',
        name: 'X',
        password: 'long-enough-password',
        roles: ['admin'],
      });
      const rows = await t.db.k
        .selectFrom('audit_log')
        .selectAll()
        .where('action', '=', 'user.create')
        .where('outcome', '=', 'refused')
        .execute();
      expect(
        rows.some(
          (r) =>
            r.error_code === 'FORBIDDEN' &&
            (JSON.parse(r.actor_roles) as string[]).includes('support'),
        ),
      ).toBe(true);
    });
  });
}
