// An account locked out by failed sign-ins, as administrators see it on the users list and lift it
// (`POST /api/users/:id/unlock-sign-in`): QA found they could neither, short of resetting the
// password.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  SessionResponseSchema,
  UnlockSignInResponseSchema,
  UserListResponseSchema,
  type ErrorEnvelope,
  type UserListItem,
} from '@paydesk/shared/api';
import {
  ADMIN,
  DB_VARIANTS,
  errorCode,
  startApp,
  type TestApp,
  type TestClient,
} from '../test-support/harness.js';

const LIMIT = 3;
const WINDOW_MS = 900_000;

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(`sign-in locks (${variant.name})`, () => {
    let t: TestApp;
    let admin: TestClient;
    beforeAll(async () => {
      t = await startApp(variant, {
        config: {
          trustProxy: true,
          login: { maxFailuresPerAccount: LIMIT, maxFailuresPerIp: 1000, windowSeconds: 900 },
        },
      });
      admin = t.client();
      expect((await admin.login(ADMIN.email, ADMIN.password)).status).toBe(200);
    });
    afterAll(async () => {
      await t.close();
    });

    let accounts = 0;
    /** A new account (not signed in anywhere): its e-mail, password and id. */
    const account = async () => {
      accounts += 1;
      const email = `locked${String(accounts)}@paydesk.test`;
      const password = `password-for-${email}`;
      const user = await t.services.users.create(
        { email, name: `Locked ${String(accounts)}`, password, roles: ['support'] },
        { temporaryPassword: false },
      );
      return { email, password, id: user.id };
    };
    const signIn = (email: string, password: string, address: string) =>
      t
        .client()
        .request('POST', '/api/session', { email, password }, { 'X-Forwarded-For': address });
    const fail = async (email: string, address: string, times = LIMIT) => {
      for (let i = 0; i < times; i += 1)
        expect(errorCode(await signIn(email, 'wrong-password', address))).toBe(
          'INVALID_CREDENTIALS',
        );
    };
    const listed = async (id: string): Promise<UserListItem> => {
      const res = await admin.get('/api/users');
      expect(res.status, res.text).toBe(200);
      const user = UserListResponseSchema.parse(res.json).items.find((u) => u.id === id);
      if (user === undefined) throw new Error(`user ${id} not listed`);
      return user;
    };
    const unlockRows = (id: string) =>
      t.db.k
        .selectFrom('audit_log')
        .selectAll()
        .where('action', '=', 'user.unlock_sign_in')
        .where('target', '=', `user:${id}`)
        .orderBy('seq')
        .execute();

    it('when an address fails an account’s password too often, then the list shows the lock on that address until the window ends, and no lock on the others; it lifts by itself after', async () => {
      const { email, id } = await account();
      const other = await account();
      const start = t.clock.now();
      await fail(email, '203.0.113.9', 1);
      t.clock.advance(60_000);
      await fail(email, '203.0.113.9', LIMIT - 1);
      await fail(email, '198.51.100.4', 1);
      expect((await listed(id)).signInLock).toEqual({
        scope: 'addresses',
        addresses: ['203.0.113.9'],
        // The oldest of the failures that make the lock leaves the window then.
        until: new Date(start + WINDOW_MS).toISOString(),
      });
      expect((await listed(other.id)).signInLock).toBeNull();
      t.clock.advance(WINDOW_MS - 60_000);
      expect((await listed(id)).signInLock).toBeNull();
    });

    it('when failures from every address together reach ten times the limit, then the list shows the account locked from every address, naming them', async () => {
      const { email, password, id } = await account();
      for (let i = 0; i < 10 * LIMIT; i += 1) await fail(email, `192.0.2.${String(i % 12)}`, 1);
      const { signInLock } = await listed(id);
      expect(signInLock?.scope).toBe('account');
      expect(signInLock?.addresses).toHaveLength(12);
      expect(signInLock?.addresses).toContain('192.0.2.11');
      expect(errorCode(await signIn(email, password, '198.51.100.200'))).toBe('RATE_LIMITED');
    });

    it('when another admin unlocks a locked account with a reason, then its holder signs in from the locked address at once, the list shows no lock, and the audit row keeps who, why, the lock and how many failures went', async () => {
      const { email, password, id } = await account();
      await fail(email, '203.0.113.20');
      expect(errorCode(await signIn(email, password, '203.0.113.20'))).toBe('RATE_LIMITED');

      const res = await admin.post(`/api/users/${id}/unlock-sign-in`, {
        reason: '  Mistyped after the holiday (ticket 77) ',
      });
      expect(res.status, res.text).toBe(200);
      const reply = UnlockSignInResponseSchema.parse(res.json);
      expect(reply.cleared).toBe(LIMIT);
      expect(reply.user).toMatchObject({ id, email, signInLock: null });
      expect((await listed(id)).signInLock).toBeNull();
      expect((await signIn(email, password, '203.0.113.20')).status).toBe(200);

      const rows = await unlockRows(id);
      expect(rows.map((r) => [r.outcome, r.actor_email, JSON.parse(r.summary) as unknown])).toEqual(
        [
          [
            'success',
            ADMIN.email,
            {
              email,
              reason: 'Mistyped after the holiday (ticket 77)',
              lockedOut: ['203.0.113.20'],
              failuresCleared: LIMIT,
            },
          ],
        ],
      );
    });

    it('when the account is not locked (any more), then unlocking clears what failures there are and says none stood; its sessions stay', async () => {
      const { email, password, id } = await account();
      const holder = t.client();
      expect((await holder.login(email, password)).status).toBe(200);
      await fail(email, '203.0.113.30', 1);
      const res = await admin.post(`/api/users/${id}/unlock-sign-in`, { reason: 'Asked to' });
      expect(res.status, res.text).toBe(200);
      expect(UnlockSignInResponseSchema.parse(res.json).cleared).toBe(1);
      const again = await admin.post(`/api/users/${id}/unlock-sign-in`, { reason: 'Asked twice' });
      expect(UnlockSignInResponseSchema.parse(again.json).cleared).toBe(0);
      expect((await unlockRows(id)).map((r) => JSON.parse(r.summary) as unknown)).toEqual([
        { email, reason: 'Asked to', lockedOut: 'none', failuresCleared: 1 },
        { email, reason: 'Asked twice', lockedOut: 'none', failuresCleared: 0 },
      ]);
      expect((await holder.get('/api/session')).status).toBe(200);
    });

    it('when the reason is missing or blank, the id unknown or malformed, then 400 or 404 naming the field, audited as refused, and the lock stays', async () => {
      const { email, id } = await account();
      await fail(email, '203.0.113.40');
      const missing = await admin.post(`/api/users/${id}/unlock-sign-in`, {});
      expect(missing.status).toBe(400);
      expect((missing.json as ErrorEnvelope).error.details?.fields).toEqual([
        { path: 'reason', rule: 'required', message: 'is required to unlock sign-in (say why)' },
      ]);
      const blank = await admin.post(`/api/users/${id}/unlock-sign-in`, { reason: '  ' });
      expect(blank.status).toBe(400);
      expect((blank.json as ErrorEnvelope).error.details?.fields?.map((f) => f.path)).toEqual([
        'reason',
      ]);
      const extra = await admin.post(`/api/users/${id}/unlock-sign-in`, {
        reason: 'Asked to',
        everyone: true,
      });
      expect(extra.status).toBe(400);
      const unknown = await admin.post(
        '/api/users/00000000-0000-4000-8000-000000000000/unlock-sign-in',
        { reason: 'Asked to' },
      );
      expect(unknown.status).toBe(404);
      expect(errorCode(unknown)).toBe('NOT_FOUND');
      const malformed = await admin.post('/api/users/nope/unlock-sign-in', { reason: 'Asked to' });
      expect(malformed.status).toBe(400);
      expect((await listed(id)).signInLock?.addresses).toEqual(['203.0.113.40']);
      expect((await unlockRows(id)).map((r) => [r.outcome, r.error_code])).toEqual([
        ['refused', 'VALIDATION_FAILED'],
        ['refused', 'VALIDATION_FAILED'],
        ['refused', 'VALIDATION_FAILED'],
      ]);
    });

    it('when an admin unlocks their own sign-in, then 403 saying to ask another administrator, audited as refused, and the lock stays; nor may anyone but an admin unlock', async () => {
      const self = await t.userWithRoles(['admin'], 'self-unlock@paydesk.test');
      const { user: me } = SessionResponseSchema.parse((await self.get('/api/session')).json);
      await fail(me.email, '203.0.113.50');
      const own = await self.post(`/api/users/${me.id}/unlock-sign-in`, { reason: 'Mine' });
      expect(own.status, own.text).toBe(403);
      expect((own.json as ErrorEnvelope).error.message).toBe(
        'you cannot unlock your own sign-in: ask another administrator',
      );
      for (const roles of [['support'], ['finance'], ['ops'], ['auditor']] as const) {
        const other = await t.userWithRoles([...roles]);
        const res = await other.post(`/api/users/${me.id}/unlock-sign-in`, { reason: 'Help' });
        expect(res.status).toBe(403);
      }
      expect((await listed(me.id)).signInLock?.addresses).toEqual(['203.0.113.50']);
      expect(
        (await unlockRows(me.id)).map((r) => [r.outcome, r.error_code, r.actor_email]),
      ).toEqual([
        ['refused', 'FORBIDDEN', me.email],
        ...[1, 2, 3, 4].map(() => ['refused', 'FORBIDDEN', expect.any(String) as unknown]),
      ]);
    });

    it('when an auditor lists the users, then they see the lock too', async () => {
      const { email, id } = await account();
      await fail(email, '203.0.113.60');
      const auditor = await t.userWithRoles(['auditor']);
      const res = await auditor.get('/api/users');
      const user = UserListResponseSchema.parse(res.json).items.find((u) => u.id === id);
      expect(user?.signInLock?.scope).toBe('addresses');
    });
  });
}
