// Saved views over HTTP on a real database: shared per role, saved only for a role one holds,
// names unique per screen and role, queries limited to the list's own parameters, deleted by the
// creator or an admin, every change audited.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SavedViewListSchema, SavedViewSchema, type ErrorEnvelope } from '@paydesk/shared/api';
import {
  DB_VARIANTS,
  errorCode,
  startApp,
  type Reply,
  type TestApp,
  type TestClient,
} from '../test-support/harness.js';

const fieldOf = (res: Reply) => (res.json as ErrorEnvelope).error.details?.fields?.[0]?.path;

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(`saved views (${variant.name})`, () => {
    let t: TestApp;
    let alice: TestClient; // support + finance
    let bob: TestClient; // support
    let carol: TestClient; // ops
    let admin: TestClient;
    const save = (c: TestClient, body: Record<string, unknown>) =>
      c.post('/api/views', { screen: 'transactions', role: 'support', query: '', ...body });
    const list = async (c: TestClient) => {
      const res = await c.get('/api/views?screen=transactions');
      expect(res.status).toBe(200);
      return SavedViewListSchema.parse(res.json).items;
    };
    const auditRows = (action: string) =>
      t.db.k
        .selectFrom('audit_log')
        .selectAll()
        .where('action', '=', action)
        .orderBy('seq')
        .execute();

    beforeAll(async () => {
      t = await startApp(variant);
      alice = await t.userWithRoles(['support', 'finance'], 'alice@paydesk.test');
      bob = await t.userWithRoles(['support'], 'bob@paydesk.test');
      carol = await t.userWithRoles(['ops'], 'carol@paydesk.test');
      admin = await t.userWithRoles(['admin'], 'root@paydesk.test');
    });
    afterAll(async () => {
      await t.close();
    });

    it('when a user saves a view for a role they hold, then every holder of that role sees it and no one else does', async () => {
      const res = await save(alice, {
        name: '  Declined EUR  ',
        query: '?status=declined&currency=EUR&sort=amount_desc',
      });
      expect(res.status).toBe(201);
      const view = SavedViewSchema.parse(res.json);
      expect(view).toMatchObject({
        screen: 'transactions',
        name: 'Declined EUR',
        role: 'support',
        query: 'status=declined&currency=EUR&sort=amount_desc',
        createdBy: { email: 'alice@paydesk.test' },
        canDelete: true,
      });
      expect(
        (await save(alice, { name: 'Big returns', role: 'finance', query: 'amountMin=500' }))
          .status,
      ).toBe(201);
      expect((await list(bob)).map((v) => [v.name, v.role, v.canDelete])).toEqual([
        ['Declined EUR', 'support', false],
      ]);
      expect((await list(alice)).map((v) => v.name)).toEqual(['Big returns', 'Declined EUR']);
      expect(await list(carol)).toEqual([]);
      const rows = await auditRows('view.create');
      expect(rows.at(-1)).toMatchObject({ outcome: 'success', actor_email: 'alice@paydesk.test' });
      expect(rows.at(-1)?.target).toMatch(/^view:/);
      expect(JSON.parse(rows.at(-1)?.summary ?? '{}')).toMatchObject({
        name: 'Big returns',
        role: 'finance',
      });
    });

    it('when the role is not one the user holds, then 403 names the role and nothing is saved', async () => {
      const res = await save(bob, { name: 'Mine', role: 'finance' });
      expect(res.status).toBe(403);
      expect(fieldOf(res)).toBe('role');
      expect((await list(alice)).map((v) => v.name)).not.toContain('Mine');
      expect((await auditRows('view.create')).at(-1)).toMatchObject({
        outcome: 'refused',
        error_code: 'FORBIDDEN',
      });
    });

    it('when the role does not open the screen, then 400 names the role', async () => {
      const res = await save(admin, { name: 'Admin view', role: 'admin' });
      expect(res.status).toBe(400);
      expect(fieldOf(res)).toBe('role');
    });

    it('when the name is already used for that role and screen (any case), then 409 names it; another role may use it', async () => {
      const taken = await save(bob, { name: 'declined eur' });
      expect(taken.status).toBe(409);
      expect(errorCode(taken)).toBe('CONFLICT');
      expect(fieldOf(taken)).toBe('name');
      expect((await save(alice, { name: 'Declined EUR', role: 'finance' })).status).toBe(201);
    });

    it('when the query holds a backwards or empty range, then 400 names query with the rule the list applies, and nothing is saved', async () => {
      for (const [query, problem] of [
        ['amountMin=100&amountMax=1', 'amountMax: must not be below amountMin'],
        [
          'createdFrom=2026-01-02T00:00:00Z&createdTo=2026-01-01T00:00:00Z',
          'createdTo: must be after createdFrom',
        ],
      ] as const) {
        const res = await save(bob, { name: `Range ${problem.slice(0, 9)}`, query });
        expect(res.status, query).toBe(400);
        expect((res.json as ErrorEnvelope).error.details?.fields, query).toEqual([
          expect.objectContaining({ path: 'query', message: problem }),
        ]);
      }
      const saved = await list(bob);
      expect(saved.filter((v) => v.name.startsWith('Range '))).toEqual([]);
    });

    it('when the name, screen or query break their rules, then 400 names the field', async () => {
      for (const [body, path] of [
        [{ name: '' }, 'name'],
        [{ name: 'x'.repeat(61) }, 'name'],
        [{ name: 'ok', screen: 'payouts' }, 'screen'],
        [{ name: 'ok', query: 'evil=1' }, 'query'],
        [{ name: 'ok', query: 'cursor=abc' }, 'query'],
        [{ name: 'ok', query: 'status=approved&status=declined' }, 'query'],
        [{ name: 'ok', query: 'limit=100000' }, 'query'],
        [{ name: 'ok', query: `q=${'a'.repeat(1000)}` }, 'query'],
        [{ name: 'ok', extra: true }, 'extra'],
      ] as const) {
        const res = await save(bob, body);
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(fieldOf(res), JSON.stringify(body)).toBe(path);
      }
      expect((await bob.get('/api/views')).status).toBe(400);
      expect(fieldOf(await bob.get('/api/views?screen=nope'))).toBe('query.screen');
      expect(fieldOf(await bob.get('/api/views?screen=transactions&role=admin'))).toBe(
        'query.role',
      );
    });

    it('when someone else (not an admin) deletes a view, then 403; its creator or an admin may, and it is audited', async () => {
      const [declined] = (await list(bob)).filter((v) => v.name === 'Declined EUR');
      if (declined === undefined) throw new Error('no view');
      const refused = await bob.delete(`/api/views/${declined.id}`);
      expect(refused.status).toBe(403);
      // ops does not see a support view: as if it did not exist
      expect((await carol.delete(`/api/views/${declined.id}`)).status).toBe(404);
      expect((await alice.delete(`/api/views/${declined.id}`)).status).toBe(204);
      expect((await list(bob)).map((v) => v.name)).not.toContain('Declined EUR');
      expect((await alice.delete(`/api/views/${declined.id}`)).status).toBe(404);
      const adminSees = await list(admin);
      expect(adminSees.every((v) => v.canDelete)).toBe(true);
      const big = adminSees.find((v) => v.name === 'Big returns');
      if (big === undefined) throw new Error('admin does not see every view');
      expect((await admin.delete(`/api/views/${big.id}`)).status).toBe(204);
      const malformed = await alice.delete('/api/views/not-an-id');
      expect(malformed.status).toBe(400);
      expect(fieldOf(malformed)).toBe('params.id');
      const deletions = await auditRows('view.delete');
      expect(deletions.map((r) => r.outcome)).toEqual([
        'refused',
        'refused',
        'success',
        'refused',
        'success',
        'refused',
      ]);
      expect(JSON.parse(deletions[2]?.summary ?? '{}')).toMatchObject({
        name: 'Declined EUR',
        role: 'support',
      });
    });

    it('when no one is signed in, then 401', async () => {
      expect((await t.client().get('/api/views?screen=transactions')).status).toBe(401);
    });
  });
}
