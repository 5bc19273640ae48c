import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  SessionResponseSchema,
  UserListResponseSchema,
  UserSchema,
  type ErrorEnvelope,
  type User,
} from '@paydesk/shared/api';
import {
  ADMIN,
  DB_VARIANTS,
  errorCode,
  startApp,
  type TestApp,
  type TestClient,
} from '../test-support/harness.js';
import type { Db } from '../db/connect.js';
import { toUser } from '../services/users.js';
import type { UsersTable } from '../db/schema.js';

const toUserOf = (row: UsersTable | undefined): User => {
  if (row === undefined) throw new Error('no such user');
  return toUser(row);
};

let refusals = 0;
/**
 * Runs `act` while the database refuses the successful `action` rows of the audit log (the
 * runner's row of the failure still goes in): as if the append failed inside the change.
 */
async function withSuccessRowsRefused<T>(
  db: Db,
  action: string,
  act: () => Promise<T>,
): Promise<T> {
  refusals += 1;
  const name = `refuse_success_${String(refusals)}`;
  const run = (text: string) => sql.raw(text).execute(db.k);
  const when = `new.action = '${action}' and new.outcome = 'success'`;
  if (db.kind === 'sqlite') {
    await run(
      `create trigger ${name} before insert on audit_log when ${when} ` +
        `begin select raise(abort, 'injected failure'); end`,
    );
  } else {
    await run(
      `create function ${name}() returns trigger language plpgsql as ` +
        `$$ begin raise exception 'injected failure'; end $$`,
    );
    await run(
      `create trigger ${name} before insert on audit_log for each row ` +
        `when (${when}) execute function ${name}()`,
    );
  }
  try {
    return await act();
  } finally {
    if (db.kind === 'sqlite') await run(`drop trigger ${name}`);
    else {
      await run(`drop trigger ${name} on audit_log`);
      await run(`drop function ${name}()`);
    }
  }
}

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(`users (${variant.name})`, () => {
    let t: TestApp;
    let admin: TestClient;
    beforeAll(async () => {
      t = await startApp(variant);
      admin = t.client();
      await admin.login(ADMIN.email, ADMIN.password);
    });
    afterAll(async () => {
      await t.close();
    });

    it('when an admin creates a user, then 201 with the user, it is listed, it can log in, and the change is audited', async () => {
      const res = await admin.post('/api/users', {
        email: 'Ops.Lead@Paydesk.test',
        name: 'Ops Lead',
        password: 'temporary lantern for the lead',
        roles: ['ops', 'support'],
        reason: 'Leads the payout team',
      });
      expect(res.status).toBe(201);
      const user = UserSchema.parse(res.json);
      expect(user).toMatchObject({
        email: 'ops.lead@paydesk.test',
        roles: ['support', 'ops'],
        disabled: false,
        totpEnabled: false,
        passwordChangeRequired: true,
      });
      const list = UserListResponseSchema.parse((await admin.get('/api/users')).json);
      expect(list.items.map((u) => u.email)).toContain('ops.lead@paydesk.test');
      expect(
        (await t.client().login('ops.lead@paydesk.test', 'temporary lantern for the lead')).status,
      ).toBe(200);
      const row = await t.db.k
        .selectFrom('audit_log')
        .selectAll()
        .where('action', '=', 'user.create')
        .where('target', '=', `user:${user.id}`)
        .executeTakeFirstOrThrow();
      expect(row.outcome).toBe('success');
      expect(row.actor_email).toBe(ADMIN.email);
      expect(JSON.parse(row.summary)).toEqual({
        email: 'ops.lead@paydesk.test',
        name: 'Ops Lead',
        roles: ['ops', 'support'],
        reason: 'Leads the payout team',
      });
    });

    it('when the body is bad, then 400 names every bad field and the rule', async () => {
      const res = await admin.post('/api/users', {
        email: 'not-an-email',
        name: '',
        password: 'short',
        roles: ['king'],
      });
      expect(res.status).toBe(400);
      const env = res.json as ErrorEnvelope;
      expect(env.error.code).toBe('VALIDATION_FAILED');
      const paths = (env.error.details?.fields ?? []).map((f) => f.path).sort();
      expect(paths).toEqual(['email', 'name', 'password', 'roles.0']);
      expect(env.error.requestId).toBe(res.headers.get('x-request-id'));
    });

    it('when a name holds a bidi override or a card number, then 400 names the field and the rule, and no user is made or changed', async () => {
      const before = UserListResponseSchema.parse((await admin.get('/api/users')).json);
      const created = await admin.post('/api/users', {
        email: 'spoof@paydesk.test',
        name: 'Eve \u202enimda',
        password: 'long-enough-password',
        roles: ['ops'],
        reason: 'Runs the payouts',
      });
      expect(created.status).toBe(400);
      expect((created.json as ErrorEnvelope).error.details?.fields).toEqual([
        {
          path: 'name',
          rule: 'bidi_controls',
          message: 'must not contain bidirectional text controls (U+202A–U+202E, U+2066–U+2069)',
        },
      ]);
      const renamed = await admin.patch(`/api/users/${before.items[0]!.id}`, {
        name: 'card 4111-1111-1111-1111',
      });
      expect(renamed.status).toBe(400);
      expect((renamed.json as ErrorEnvelope).error.details?.fields?.[0]).toMatchObject({
        path: 'name',
        rule: 'card_number',
      });
      expect(UserListResponseSchema.parse((await admin.get('/api/users')).json)).toEqual(before);
    });

    it('when an unknown field is sent, then 400 names it', async () => {
      const res = await admin.post('/api/users', {
        email: 'a@paydesk.test',
        name: 'A',
        password: 'long-enough-password',
        roles: ['ops'],
        isRoot: true,
      });
      expect(res.status).toBe(400);
      expect(JSON.stringify(res.json)).toContain('isRoot');
    });

    it('when the e-mail is taken, then 409 EMAIL_TAKEN', async () => {
      const res = await admin.post('/api/users', {
        email: ADMIN.email,
        name: 'Again',
        password: 'long-enough-password',
        roles: ['ops'],
        reason: 'Runs the payouts',
      });
      expect(res.status).toBe(409);
      expect(errorCode(res)).toBe('EMAIL_TAKEN');
    });

    it('when an admin changes roles and name, then the reply and later sessions show them', async () => {
      const created = UserSchema.parse(
        (
          await admin.post('/api/users', {
            email: 'fin@paydesk.test',
            name: 'Fin',
            password: 'temporary lantern for the team',
            roles: ['finance'],
            reason: 'Handles the refunds',
          })
        ).json,
      );
      // (Finance and Auditor do not go together: the move is from one to the other.)
      const res = await admin.patch(`/api/users/${created.id}`, {
        name: 'Fin Two',
        roles: ['support', 'auditor'],
      });
      expect(res.status).toBe(200);
      expect(UserSchema.parse(res.json)).toMatchObject({
        name: 'Fin Two',
        roles: ['support', 'auditor'],
      });
      const c = t.client();
      await c.login('fin@paydesk.test', 'temporary lantern for the team');
      // The admin chose the password: its holder chooses their own before anything else.
      expect(
        (
          await c.post('/api/session/password', {
            currentPassword: 'temporary lantern for the team',
            newPassword: 'my own quiet harbour',
          })
        ).status,
      ).toBe(200);
      expect((await c.get('/api/audit')).status).toBe(200);
    });

    it('when a patch is empty or the id unknown, then 400 or 404', async () => {
      const created = UserSchema.parse(
        (
          await admin.post('/api/users', {
            email: 'e@paydesk.test',
            name: 'E',
            password: 'e temporary lantern',
            roles: ['support'],
          })
        ).json,
      );
      expect((await admin.patch(`/api/users/${created.id}`, {})).status).toBe(400);
      expect(
        errorCode(
          await admin.patch('/api/users/00000000-0000-4000-8000-000000000000', { name: 'X' }),
        ),
      ).toBe('NOT_FOUND');
    });

    /** A new user, signed in: their client and their account as the session shows it. */
    const member = async (roles: User['roles']) => {
      const client = await t.userWithRoles(roles);
      const { user } = SessionResponseSchema.parse((await client.get('/api/session')).json);
      return { client, user };
    };
    const auditRows = (action: string, id: string) =>
      t.db.k
        .selectFrom('audit_log')
        .selectAll()
        .where('action', '=', action)
        .where('target', '=', `user:${id}`)
        .orderBy('seq')
        .execute();
    const outcomes = async (action: string, id: string) =>
      (await auditRows(action, id)).map((r) => [r.outcome, r.error_code]);

    it('when an admin removes their own Administrator role or disables themselves, then 409 names the field and why, audited as refused, and nothing changes; nor may they give themselves Auditor; their name and other roles they may change', async () => {
      const { client: self, user: me } = await member(['admin']);
      const demote = await self.patch(`/api/users/${me.id}`, { roles: ['auditor'] });
      expect(demote.status, demote.text).toBe(409);
      expect((demote.json as ErrorEnvelope).error).toMatchObject({
        code: 'CONFLICT',
        message: 'you cannot remove your own Administrator role: ask another administrator',
        details: {
          fields: [
            {
              path: 'roles',
              rule: 'keeps_own_admin',
              message: 'you cannot remove your own Administrator role: ask another administrator',
            },
          ],
        },
      });
      const disable = await self.patch(`/api/users/${me.id}`, {
        disabled: true,
        reason: 'leaving',
      });
      expect(disable.status, disable.text).toBe(409);
      expect((disable.json as ErrorEnvelope).error.details?.fields).toEqual([
        {
          path: 'disabled',
          rule: 'not_self',
          message: 'you cannot disable your own account: ask another administrator',
        },
      ]);
      expect(toUserOf(await t.services.users.byId(me.id))).toMatchObject({
        roles: ['admin'],
        disabled: false,
      });
      expect((await self.get('/api/users')).status).toBe(200);
      const refused = await auditRows('user.update', me.id);
      expect(
        refused.map((r) => [r.outcome, r.error_code, r.actor_id, JSON.parse(r.summary) as unknown]),
      ).toEqual([
        [
          'refused',
          'CONFLICT',
          me.id,
          { change: { roles: ['auditor'] }, invalid: ['roles: keeps_own_admin'] },
        ],
        [
          'refused',
          'CONFLICT',
          me.id,
          { change: { disabled: true }, reason: 'leaving', invalid: ['disabled: not_self'] },
        ],
      ]);

      // Not Auditor, the reader of their own record (QA): another administrator grants it.
      const ownAuditor = await self.patch(`/api/users/${me.id}`, { roles: ['admin', 'auditor'] });
      expect(ownAuditor.status, ownAuditor.text).toBe(409);
      expect((ownAuditor.json as ErrorEnvelope).error.details?.fields).toEqual([
        {
          path: 'roles',
          rule: 'no_self_grant',
          message: 'You cannot give yourself Auditor: another administrator must.',
        },
      ]);
      // Their name and another role, keeping Administrator: saved.
      const renamed = await self.patch(`/api/users/${me.id}`, {
        name: 'Renamed Admin',
        roles: ['admin', 'support'],
      });
      expect(renamed.status, renamed.text).toBe(200);
      expect(UserSchema.parse(renamed.json)).toMatchObject({
        name: 'Renamed Admin',
        roles: ['support', 'admin'],
      });
      // Another administrator may take the role, and give Auditor.
      const byOther = await admin.patch(`/api/users/${me.id}`, { roles: ['auditor'] });
      expect(byOther.status, byOther.text).toBe(200);
      expect(UserSchema.parse(byOther.json).roles).toEqual(['auditor']);
    });

    const SELF_OPS = 'You cannot give yourself Operations: another administrator must.';
    const CONFLICT_WORDS =
      'An auditor reviews payouts and money operations, so cannot also hold Operations or Finance: give these roles to different people.';
    /** The audit row of the request `res` answered (a refused create has no target). */
    const rowOf = async (res: { headers: Headers }) =>
      t.db.k
        .selectFrom('audit_log')
        .selectAll()
        .where('request_id', '=', res.headers.get('x-request-id'))
        .executeTakeFirstOrThrow();
    /** A refused creation of `email`: no account, and its audit row refused naming `invalid`. */
    const expectCreateRefused = async (
      res: { headers: Headers },
      email: string,
      invalid: string,
    ) => {
      expect(await t.services.users.byEmail(email)).toBeUndefined();
      const row = await rowOf(res);
      expect([row.action, row.outcome, row.error_code]).toEqual([
        'user.create',
        'refused',
        'VALIDATION_FAILED',
      ]);
      expect(JSON.parse(row.summary)).toMatchObject({ invalid: [invalid] });
    };
    const refusedAs = (res: { status: number; json: unknown }, code: string, rule: string) => {
      const error = (res.json as ErrorEnvelope).error;
      expect(error.code).toBe(code);
      expect(error.details?.fields?.map((f) => [f.path, f.rule])).toEqual([['roles', rule]]);
      return error.details?.fields?.[0]?.message;
    };

    it('when a creation is refused for any field (too long, a role that is none, no reason for a money role, an unknown field), then its audit row names the e-mail attempted, as a weak password’s does, and never the password; a malformed e-mail is not named (QA)', async () => {
      const password = 'temporary lantern of the refused';
      const good = { name: 'Refused Create', password, roles: ['support'] };
      const cases: [string, Record<string, unknown>, string][] = [
        ['too-long@paydesk.test', { ...good, name: 'N'.repeat(201) }, 'name: too_big'],
        ['no-such-role@paydesk.test', { ...good, roles: ['superuser'] }, 'roles.0: invalid_value'],
        ['no-reason@paydesk.test', { ...good, roles: ['ops'] }, 'reason: required'],
        ['extra-field@paydesk.test', { ...good, isAdmin: true }, 'isAdmin: unrecognized_keys'],
      ];
      for (const [email, body, invalid] of cases) {
        const res = await admin.post('/api/users', { email: ` ${email.toUpperCase()} `, ...body });
        expect(res.status, res.text).toBe(400);
        await expectCreateRefused(res, email, invalid);
        const row = await rowOf(res);
        expect(JSON.parse(row.summary), invalid).toEqual({ email, invalid: [invalid] });
        expect(JSON.stringify(row)).not.toContain('lantern');
      }
      const malformed = await admin.post('/api/users', { ...good, email: 'not an address' });
      expect(malformed.status).toBe(400);
      expect(JSON.parse((await rowOf(malformed)).summary)).toEqual({
        invalid: ['email: invalid_format'],
      });
    });

    it('when an admin gives themselves Operations or Finance, then 409 names roles and why, audited as refused, and nothing changes; another admin may grant it, and they may keep or remove it', async () => {
      const { client: self, user: me } = await member(['admin']);
      const grantOps = await self.patch(`/api/users/${me.id}`, {
        name: 'Self Granter',
        roles: ['admin', 'ops'],
      });
      expect(grantOps.status, grantOps.text).toBe(409);
      expect(refusedAs(grantOps, 'CONFLICT', 'no_self_grant')).toBe(SELF_OPS);
      expect((grantOps.json as ErrorEnvelope).error.message).toBe(SELF_OPS);
      const grantBoth = await self.patch(`/api/users/${me.id}`, {
        roles: ['admin', 'ops', 'finance'],
      });
      expect(grantBoth.status, grantBoth.text).toBe(409);
      expect(refusedAs(grantBoth, 'CONFLICT', 'no_self_grant')).toBe(
        'You cannot give yourself Finance or Operations: another administrator must.',
      );
      // Nothing changed: not the roles, not the name sent with them.
      expect(toUserOf(await t.services.users.byId(me.id))).toMatchObject({
        name: me.name,
        roles: ['admin'],
      });
      expect(
        (await auditRows('user.update', me.id)).map((r) => [
          r.outcome,
          r.error_code,
          r.actor_id,
          JSON.parse(r.summary) as unknown,
        ]),
      ).toEqual([
        [
          'refused',
          'CONFLICT',
          me.id,
          {
            change: { name: 'Self Granter', roles: ['admin', 'ops'] },
            invalid: ['roles: no_self_grant'],
          },
        ],
        [
          'refused',
          'CONFLICT',
          me.id,
          {
            change: { roles: ['admin', 'ops', 'finance'] },
            invalid: ['roles: no_self_grant'],
          },
        ],
      ]);

      // Another administrator grants it.
      const byOther = await admin.patch(`/api/users/${me.id}`, {
        roles: ['admin', 'ops'],
        reason: 'Covers payouts this month',
      });
      expect(byOther.status, byOther.text).toBe(200);
      expect(UserSchema.parse(byOther.json).roles).toEqual(['ops', 'admin']);
      // They keep it while renaming themselves, and may give it up.
      const kept = await self.patch(`/api/users/${me.id}`, {
        name: 'Keeps Ops',
        roles: ['ops', 'admin'],
      });
      expect(kept.status, kept.text).toBe(200);
      const dropped = await self.patch(`/api/users/${me.id}`, { roles: ['admin'] });
      expect(dropped.status, dropped.text).toBe(200);
      expect(toUserOf(await t.services.users.byId(me.id))).toMatchObject({
        name: 'Keeps Ops',
        roles: ['admin'],
      });
    });

    it('when Auditor would go with Operations or Finance on a new account, then 400 names roles and the rule, audited as refused, and no account is made', async () => {
      for (const roles of [
        ['ops', 'auditor'],
        ['finance', 'auditor'],
        ['support', 'finance', 'ops', 'auditor'],
      ] as const) {
        const email = `sod-${roles.join('-')}@paydesk.test`;
        const res = await admin.post('/api/users', {
          email,
          name: 'Two Hats',
          password: 'temporary lantern for two hats',
          roles,
        });
        expect(res.status, res.text).toBe(400);
        expect(refusedAs(res, 'VALIDATION_FAILED', 'roles_conflict')).toBe(CONFLICT_WORDS);
        await expectCreateRefused(res, email, 'roles: roles_conflict');
      }
      // The service refuses it too, whoever asks.
      await expect(
        t.services.users.create(
          {
            email: 'sod-service@paydesk.test',
            name: 'Two Hats',
            password: 'temporary lantern for two hats',
            roles: ['ops', 'auditor'],
          },
          { temporaryPassword: true },
        ),
      ).rejects.toMatchObject({ code: 'VALIDATION_FAILED', status: 400 });
      expect(await t.services.users.byEmail('sod-service@paydesk.test')).toBeUndefined();
    });

    it('when an edit would put Auditor with Operations or Finance, then 400 names roles and the rule, audited as refused, and nothing changes', async () => {
      const { user: ops } = await member(['ops']);
      const { user: auditor } = await member(['auditor']);
      for (const [user, roles] of [
        [ops, ['ops', 'auditor']],
        [auditor, ['finance', 'auditor']],
      ] as const) {
        const res = await admin.patch(`/api/users/${user.id}`, { roles });
        expect(res.status, res.text).toBe(400);
        expect(refusedAs(res, 'VALIDATION_FAILED', 'roles_conflict')).toBe(CONFLICT_WORDS);
        expect(toUserOf(await t.services.users.byId(user.id)).roles).toEqual(user.roles);
        const row = await rowOf(res);
        expect([row.action, row.target, row.outcome]).toEqual([
          'user.update',
          `user:${user.id}`,
          'refused',
        ]);
        expect(JSON.parse(row.summary)).toEqual({
          change: { roles },
          invalid: ['roles: roles_conflict'],
        });
      }
      // Auditor with Support or Administrator is no conflict.
      const fine = await admin.patch(`/api/users/${auditor.id}`, {
        roles: ['support', 'auditor'],
      });
      expect(fine.status, fine.text).toBe(200);
    });

    it('when an account already holds Auditor with Operations (made before the rule), then it still signs in and works, may be renamed or have a role taken, but gains none while the mix stays', async () => {
      const { client, user } = await member(['ops']);
      // As an account made before the rule stands in the database.
      await t.db.k
        .updateTable('users')
        .set({ roles: JSON.stringify(['ops', 'auditor']) })
        .where('id', '=', user.id)
        .execute();
      const session = SessionResponseSchema.parse((await client.get('/api/session')).json);
      expect(session.user.roles).toEqual(['ops', 'auditor']);
      expect((await client.get('/api/audit')).status).toBe(200);
      const again = t.client();
      expect((await again.login(user.email, `password-for-${user.email}`)).status).toBe(200);

      const renamed = await admin.patch(`/api/users/${user.id}`, {
        name: 'Legacy Two Hats',
        roles: ['ops', 'auditor'],
      });
      expect(renamed.status, renamed.text).toBe(200);
      const more = await admin.patch(`/api/users/${user.id}`, {
        roles: ['support', 'ops', 'auditor'],
      });
      expect(more.status, more.text).toBe(400);
      expect(refusedAs(more, 'VALIDATION_FAILED', 'roles_conflict')).toBe(CONFLICT_WORDS);
      const split = await admin.patch(`/api/users/${user.id}`, { roles: ['auditor'] });
      expect(split.status, split.text).toBe(200);
      expect(UserSchema.parse(split.json).roles).toEqual(['auditor']);
    });

    it('when the last active admin would lose admin or be disabled, by anyone, then 409 LAST_ADMIN and nothing changes', async () => {
      const { user: me } = SessionResponseSchema.parse((await admin.get('/api/session')).json);
      // Other admins, disabled: the signed-in one is the last active.
      const others = await t.db.k
        .selectFrom('users')
        .select('id')
        .where('id', '!=', me.id)
        .where('disabled_at', 'is', null)
        .where('roles', 'like', '%admin%')
        .execute();
      for (const other of others) {
        expect(
          (await admin.patch(`/api/users/${other.id}`, { disabled: true, reason: 'test' })).status,
        ).toBe(200);
      }
      // Only another administrator may do it through the API (one's own is refused first); the
      // service is asked as one would be by another account, as two concurrent changes can.
      const { user: bystander } = await member(['support']);
      const entry = (err: string) => ({
        actorId: bystander.id,
        actorEmail: bystander.email,
        actorRoles: ['support' as const],
        action: 'user.update',
        target: `user:${me.id}`,
        summary: { test: err },
        outcome: 'success' as const,
        errorCode: null,
        requestId: null,
        ip: null,
        userAgent: null,
      });
      for (const patch of [{ roles: ['auditor' as const] }, { disabled: true, reason: 'test' }]) {
        await expect(
          t.services.users.update(me.id, patch, bystander.id, () => entry('x')),
        ).rejects.toMatchObject({ code: 'LAST_ADMIN', status: 409 });
      }
      expect(toUserOf(await t.services.users.byId(me.id))).toMatchObject({
        roles: ['admin', 'auditor'],
        disabled: false,
      });
      // Through the API, the admin's own is refused as their own (the clearer reason).
      expect(errorCode(await admin.patch(`/api/users/${me.id}`, { roles: ['auditor'] }))).toBe(
        'CONFLICT',
      );
      const second = UserSchema.parse(
        (
          await admin.post('/api/users', {
            email: 'admin2@paydesk.test',
            name: 'A2',
            password: 'second admin lantern',
            roles: ['admin'],
          })
        ).json,
      );
      const res = await admin.patch(`/api/users/${second.id}`, { disabled: true, reason: 'test' });
      expect(res.status).toBe(200);
      expect(UserSchema.parse(res.json).disabled).toBe(true);
      // Re-enable the others, for the tests after this one.
      for (const other of others) {
        await admin.patch(`/api/users/${other.id}`, { disabled: false, reason: 'test done' });
      }
    });

    it('when an admin disables a user without a reason, or with a blank one, then 400 names reason and the rule, and the user stays enabled and signed in', async () => {
      const { client, user } = await member(['support']);
      const missing = await admin.patch(`/api/users/${user.id}`, { disabled: true });
      expect(missing.status).toBe(400);
      expect((missing.json as ErrorEnvelope).error.details?.fields).toEqual([
        { path: 'reason', rule: 'required', message: 'is required to disable a user (say why)' },
      ]);
      const blank = await admin.patch(`/api/users/${user.id}`, { disabled: true, reason: '  x  ' });
      expect(blank.status).toBe(400);
      expect((blank.json as ErrorEnvelope).error.details?.fields).toEqual([
        { path: 'reason', rule: 'too_small', message: 'must say why (at least 3 characters)' },
      ]);
      const long = await admin.patch(`/api/users/${user.id}`, {
        disabled: true,
        reason: 'x'.repeat(501),
      });
      expect((long.json as ErrorEnvelope).error.details?.fields?.[0]).toMatchObject({
        path: 'reason',
        rule: 'too_big',
      });
      expect((await t.services.users.byId(user.id))?.disabled_at).toBeNull();
      expect((await client.get('/api/session')).status).toBe(200);
    });

    it('when an admin enables a user without a reason, or with a blank or too long one, then 400 names reason and the rule, audited as refused, and the user stays disabled', async () => {
      const { user } = await member(['ops']);
      expect(
        (await admin.patch(`/api/users/${user.id}`, { disabled: true, reason: 'On leave' })).status,
      ).toBe(200);
      const missing = await admin.patch(`/api/users/${user.id}`, { disabled: false });
      expect(missing.status).toBe(400);
      expect((missing.json as ErrorEnvelope).error.details?.fields).toEqual([
        { path: 'reason', rule: 'required', message: 'is required to enable a user (say why)' },
      ]);
      const blank = await admin.patch(`/api/users/${user.id}`, { disabled: false, reason: ' x ' });
      expect(blank.status).toBe(400);
      expect((blank.json as ErrorEnvelope).error.details?.fields).toEqual([
        { path: 'reason', rule: 'too_small', message: 'must say why (at least 3 characters)' },
      ]);
      const long = await admin.patch(`/api/users/${user.id}`, {
        disabled: false,
        reason: 'x'.repeat(501),
      });
      expect(long.status).toBe(400);
      expect((long.json as ErrorEnvelope).error.details?.fields?.[0]).toMatchObject({
        path: 'reason',
        rule: 'too_big',
      });
      expect((await t.services.users.byId(user.id))?.disabled_at).not.toBeNull();
      expect(await outcomes('user.update', user.id)).toEqual([
        ['success', null],
        ['refused', 'VALIDATION_FAILED'],
        ['refused', 'VALIDATION_FAILED'],
        ['refused', 'VALIDATION_FAILED'],
      ]);
    });

    it('when an admin disables a user with a reason, then the audit row keeps it (trimmed) beside the change; re-enabling keeps its own', async () => {
      const { user } = await member(['finance']);
      const res = await admin.patch(`/api/users/${user.id}`, {
        disabled: true,
        reason: '  Left the company\r\non Friday  ',
      });
      expect(res.status).toBe(200);
      expect(UserSchema.parse(res.json).disabled).toBe(true);
      const enabled = await admin.patch(`/api/users/${user.id}`, {
        disabled: false,
        reason: ' Back from leave (ticket 7) ',
      });
      expect(enabled.status).toBe(200);
      expect(UserSchema.parse(enabled.json).disabled).toBe(false);
      const rows = await auditRows('user.update', user.id);
      expect(rows.map((r) => [r.outcome, JSON.parse(r.summary) as unknown])).toEqual([
        [
          'success',
          {
            change: { disabled: true },
            reason: 'Left the company\non Friday',
            before: { name: user.name, roles: ['finance'], disabled: false },
            email: user.email,
          },
        ],
        [
          'success',
          {
            change: { disabled: false },
            reason: 'Back from leave (ticket 7)',
            before: { name: user.name, roles: ['finance'], disabled: true },
            email: user.email,
          },
        ],
      ]);
    });

    /** The 400 of a money role given without a reason: it names `reason` alone, in these words. */
    const reasonRequired = (res: { status: number; json: unknown }, named: string) => {
      expect(res.status).toBe(400);
      const error = (res.json as ErrorEnvelope).error;
      expect(error.code).toBe('VALIDATION_FAILED');
      expect(error.details?.fields).toEqual([
        { path: 'reason', rule: 'required', message: `is required to give ${named} (say why)` },
      ]);
    };

    it('when an admin creates an account with Finance or Operations without a reason, then 400 names reason (rule required) and the roles, audited as refused, and no account is made; with one, the audit row of the creation keeps it', async () => {
      for (const [roles, named] of [
        [['finance'], 'Finance'],
        [['support', 'ops'], 'Operations'],
        [['finance', 'ops', 'admin'], 'Finance and Operations'],
      ] as const) {
        const email = `no-reason-${roles.join('-')}@paydesk.test`;
        const res = await admin.post('/api/users', {
          email,
          name: 'No Reason',
          password: 'temporary lantern without reason',
          roles,
        });
        reasonRequired(res, named);
        await expectCreateRefused(res, email, 'reason: required');
      }

      const res = await admin.post('/api/users', {
        email: 'refunds@paydesk.test',
        name: 'Refunds Desk',
        password: 'temporary lantern for the desk',
        roles: ['support', 'finance'],
        reason: '  Handles the refunds\r\nof the EU desk  ',
      });
      expect(res.status, res.text).toBe(201);
      const user = UserSchema.parse(res.json);
      const row = await rowOf(res);
      expect([row.action, row.target, row.outcome]).toEqual([
        'user.create',
        `user:${user.id}`,
        'success',
      ]);
      expect(JSON.parse(row.summary)).toEqual({
        email: 'refunds@paydesk.test',
        name: 'Refunds Desk',
        roles: ['support', 'finance'],
        reason: 'Handles the refunds\nof the EU desk',
      });

      // Roles that move no money need none.
      const plain = await admin.post('/api/users', {
        email: 'plain@paydesk.test',
        name: 'Plain',
        password: 'temporary lantern for the team lead',
        roles: ['support', 'admin'],
      });
      expect(plain.status, plain.text).toBe(201);
      expect(JSON.parse((await rowOf(plain)).summary)).toEqual({
        email: 'plain@paydesk.test',
        name: 'Plain',
        roles: ['support', 'admin'],
      });
    });

    it('when an edit adds Finance or Operations without a reason, then 400 names reason (rule required) and the roles added, audited as refused, and nothing changes; with one, the audit row keeps it beside the change', async () => {
      const { user } = await member(['support']);
      for (const [roles, named] of [
        [['support', 'finance'], 'Finance'],
        [['ops'], 'Operations'],
        [['support', 'finance', 'ops'], 'Finance and Operations'],
      ] as const) {
        const res = await admin.patch(`/api/users/${user.id}`, { name: 'Not Saved', roles });
        reasonRequired(res, named);
      }
      // Nothing written: not the roles, not the name sent with them.
      const row = await t.services.users.byId(user.id);
      expect(row).toMatchObject({ name: user.name, roles: '["support"]' });
      expect(row?.updated_at).toBe(Date.parse(user.updatedAt));
      expect(
        (await auditRows('user.update', user.id)).map((r) => [
          r.outcome,
          r.error_code,
          JSON.parse(r.summary) as unknown,
        ]),
      ).toEqual(
        [['support', 'finance'], ['ops'], ['support', 'finance', 'ops']].map((roles) => [
          'refused',
          'VALIDATION_FAILED',
          { change: { name: 'Not Saved', roles }, invalid: ['reason: required'] },
        ]),
      );

      const res = await admin.patch(`/api/users/${user.id}`, {
        roles: ['support', 'finance'],
        reason: ' Covers refunds while Sam is away ',
      });
      expect(res.status, res.text).toBe(200);
      expect(UserSchema.parse(res.json).roles).toEqual(['support', 'finance']);
      const rows = await auditRows('user.update', user.id);
      expect(JSON.parse(rows.at(-1)!.summary)).toEqual({
        change: { roles: ['support', 'finance'] },
        reason: 'Covers refunds while Sam is away',
        before: { name: user.name, roles: ['support'], disabled: false },
        email: user.email,
      });
      expect(rows.at(-1)?.outcome).toBe('success');

      // Finance kept, Operations added: only Operations needs saying.
      reasonRequired(
        await admin.patch(`/api/users/${user.id}`, { roles: ['finance', 'ops'] }),
        'Operations',
      );
    });

    it('when an edit keeps or removes a money role, or adds Support, Administrator or Auditor, then no reason is needed; a money role given back after removal needs one again', async () => {
      const { user } = await member(['finance', 'ops']);
      const edits = [
        { name: 'Kept Both', roles: ['finance', 'ops'] },
        { roles: ['finance'] },
        { roles: ['support', 'finance', 'admin'] },
      ] as const;
      for (const change of edits) {
        const res = await admin.patch(`/api/users/${user.id}`, change);
        expect(res.status, res.text).toBe(200);
      }
      const { user: support } = await member(['support']);
      const auditor = await admin.patch(`/api/users/${support.id}`, {
        roles: ['support', 'auditor'],
      });
      expect(auditor.status, auditor.text).toBe(200);
      expect(await outcomes('user.update', user.id)).toEqual(edits.map(() => ['success', null]));

      reasonRequired(
        await admin.patch(`/api/users/${user.id}`, { roles: ['finance', 'ops'] }),
        'Operations',
      );
      expect(toUserOf(await t.services.users.byId(user.id)).roles).toEqual([
        'support',
        'finance',
        'admin',
      ]);
    });

    it('when an admin resets two-step sign-in without a reason, then 400 names reason and nothing changes; with one, TOTP is off and the audit row keeps the reason and no secret', async () => {
      const { client, user } = await member(['ops']);
      // Enrolled as far as the reset can tell (the reset reads no secret).
      await t.db.k
        .updateTable('users')
        .set({
          totp_secret: 'sealed-totp-secret',
          totp_enabled_at: t.clock.now(),
          totp_last_step: 7,
        })
        .where('id', '=', user.id)
        .execute();
      // Missing, it says what the reason is for, as disabling does (not "expected string").
      const missing = await admin.post(`/api/users/${user.id}/reset-totp`, {});
      expect(missing.status).toBe(400);
      expect((missing.json as ErrorEnvelope).error.details?.fields).toEqual([
        {
          path: 'reason',
          rule: 'required',
          message: 'is required to reset two-step sign-in (say why)',
        },
      ]);
      const blank = await admin.post(`/api/users/${user.id}/reset-totp`, { reason: '   ' });
      expect(blank.status).toBe(400);
      expect((blank.json as ErrorEnvelope).error.details?.fields?.map((f) => f.path)).toEqual([
        'reason',
      ]);
      expect((await t.services.users.byId(user.id))?.totp_enabled_at).not.toBeNull();
      expect((await client.get('/api/session')).status).toBe(200);

      const res = await admin.post(`/api/users/${user.id}/reset-totp`, {
        reason: 'Lost their phone (ticket 42)',
      });
      expect(res.status).toBe(200);
      expect(UserSchema.parse(res.json).totpEnabled).toBe(false);
      expect((await t.services.users.byId(user.id))?.totp_secret).toBeNull();
      expect((await client.get('/api/session')).status).toBe(401);
      const rows = await auditRows('user.reset_totp', user.id);
      expect(rows.map((r) => [r.outcome, JSON.parse(r.summary) as unknown])).toEqual([
        ['refused', expect.objectContaining({ invalid: ['reason: required'] })],
        ['refused', expect.objectContaining({ invalid: ['reason: too_small'] })],
        ['success', { email: user.email, reason: 'Lost their phone (ticket 42)' }],
      ]);
      expect(rows.some((r) => r.summary.includes('sealed-totp-secret'))).toBe(false);
    });

    it('when an admin resets two-step sign-in of an account that has none (never turned on, or reset already), then 409 saying so, audited as refused, and nothing changes: its sessions stay and no success row is written (QA)', async () => {
      const { client, user } = await member(['support']);
      const before = await t.services.users.byId(user.id);
      const reset = () =>
        admin.post(`/api/users/${user.id}/reset-totp`, { reason: 'Lost their phone' });
      const first = await reset();
      expect(first.status, first.text).toBe(409);
      expect((first.json as ErrorEnvelope).error).toMatchObject({
        code: 'CONFLICT',
        message: `${user.email} has no two-step sign-in to reset: it is off (never turned on, or reset already)`,
      });
      expect(await t.services.users.byId(user.id)).toEqual(before);
      expect((await client.get('/api/session')).status).toBe(200);

      // Enrolled, reset once (200), then again: the second is refused the same way.
      await t.db.k
        .updateTable('users')
        .set({ totp_secret: 'sealed-totp-secret', totp_enabled_at: t.clock.now() })
        .where('id', '=', user.id)
        .execute();
      expect((await reset()).status).toBe(200);
      const afterReset = await t.services.users.byId(user.id);
      const again = await reset();
      expect(again.status, again.text).toBe(409);
      expect(errorCode(again)).toBe('CONFLICT');
      expect(await t.services.users.byId(user.id)).toEqual(afterReset);
      expect(await outcomes('user.reset_totp', user.id)).toEqual([
        ['refused', 'CONFLICT'],
        ['success', null],
        ['refused', 'CONFLICT'],
      ]);
    });

    it('when an admin resets their own two-step sign-in, then 403 saying to ask another administrator, audited as refused, and nothing changes; another admin may', async () => {
      const { client: self, user: me } = await member(['admin']);
      await t.db.k
        .updateTable('users')
        .set({
          totp_secret: 'sealed-own-totp-secret',
          totp_enabled_at: t.clock.now(),
          totp_last_step: 9,
        })
        .where('id', '=', me.id)
        .execute();
      await t.db.k
        .insertInto('recovery_codes')
        .values({ user_id: me.id, code_hash: 'own-recovery-code-hash', used_at: null })
        .execute();
      const codes = () =>
        t.db.k.selectFrom('recovery_codes').select('id').where('user_id', '=', me.id).execute();

      const res = await self.post(`/api/users/${me.id}/reset-totp`, { reason: 'Lost my phone' });
      expect(res.status, res.text).toBe(403);
      expect(errorCode(res)).toBe('FORBIDDEN');
      expect((res.json as ErrorEnvelope).error.message).toBe(
        'you cannot reset your own two-step sign-in: ask another administrator',
      );
      expect(await t.services.users.byId(me.id)).toMatchObject({
        totp_secret: 'sealed-own-totp-secret',
        totp_last_step: 9,
        totp_enabled_at: expect.any(Number) as unknown,
      });
      expect(await codes()).toHaveLength(1);
      expect((await self.get('/api/session')).status).toBe(200);
      const refused = await auditRows('user.reset_totp', me.id);
      expect(
        refused.map((r) => [r.outcome, r.error_code, r.actor_id, JSON.parse(r.summary) as unknown]),
      ).toEqual([['refused', 'FORBIDDEN', me.id, { reason: 'Lost my phone' }]]);

      // Another administrator resets it.
      const other = await admin.post(`/api/users/${me.id}/reset-totp`, {
        reason: 'Lost their phone',
      });
      expect(other.status, other.text).toBe(200);
      expect(UserSchema.parse(other.json).totpEnabled).toBe(false);
      expect(await codes()).toHaveLength(0);
      expect(await outcomes('user.reset_totp', me.id)).toEqual([
        ['refused', 'FORBIDDEN'],
        ['success', null],
      ]);
    });

    it('when an auditor lists the users, then every account shows with its roles, status, two-step and sign-in state, and nothing can be changed', async () => {
      const { client: auditor, user: me } = await member(['auditor']);
      const { user: other } = await member(['support']);
      const res = await auditor.get('/api/users');
      expect(res.status).toBe(200);
      const list = UserListResponseSchema.parse(res.json);
      expect(list).toEqual(UserListResponseSchema.parse((await admin.get('/api/users')).json));
      expect(list.items.find((u) => u.id === other.id)).toMatchObject({
        email: other.email,
        roles: ['support'],
        disabled: false,
        totpEnabled: false,
        passwordChangeRequired: false,
      });
      expect(list.items.find((u) => u.id === me.id)?.lastLoginAt).not.toBeNull();
      const writes = [
        await auditor.post('/api/users', {
          email: 'by-auditor@paydesk.test',
          name: 'X',
          password: 'long-enough-password',
          roles: ['auditor'],
        }),
        await auditor.patch(`/api/users/${other.id}`, { disabled: true, reason: 'test' }),
        await auditor.patch(`/api/users/${me.id}`, { roles: ['auditor', 'admin'] }),
        await auditor.post(`/api/users/${other.id}/reset-totp`, { reason: 'test' }),
        await auditor.post(`/api/users/${other.id}/reset-password`, {
          password: 'long-enough-password',
          reason: 'forgot it',
        }),
      ];
      expect(writes.map((w) => [w.status, errorCode(w)])).toEqual(
        writes.map(() => [403, 'FORBIDDEN']),
      );
      expect(UserListResponseSchema.parse((await auditor.get('/api/users')).json)).toEqual(list);
    });

    it('when the audit row of a new account cannot be written, then 500 and no account: it is not listed and cannot sign in', async () => {
      const email = 'never-created@paydesk.test';
      const res = await withSuccessRowsRefused(t.db, 'user.create', () =>
        admin.post('/api/users', {
          email,
          name: 'Never Created',
          password: 'unwritten row lantern',
          roles: ['ops'],
          reason: 'Runs the payouts',
        }),
      );
      expect(res.status, res.text).toBe(500);
      expect(await t.services.users.byEmail(email)).toBeUndefined();
      expect(
        await t.db.k
          .selectFrom('audit_log')
          .select(['outcome', 'error_code'])
          .where('action', '=', 'user.create')
          .where('summary', 'like', `%${email}%`)
          .execute(),
      ).toEqual([{ outcome: 'failed', error_code: 'INTERNAL' }]);
      expect(errorCode(await t.client().login(email, 'unwritten row lantern'))).toBe(
        'INVALID_CREDENTIALS',
      );
    });

    it('when the audit row of a change cannot be written, then 500 and the change does not stand: roles, status and sessions as before, and no successful row (what four-eyes reads)', async () => {
      const { client, user } = await member(['support']);
      const change = { roles: ['ops'], disabled: true, reason: 'Moved to the ops team' };
      const res = await withSuccessRowsRefused(t.db, 'user.update', () =>
        admin.patch(`/api/users/${user.id}`, change),
      );
      expect(res.status, res.text).toBe(500);
      const row = await t.services.users.byId(user.id);
      expect(row).toMatchObject({ roles: '["support"]', disabled_at: null });
      expect(row?.updated_at).toBe(Date.parse(user.updatedAt));
      expect((await client.get('/api/session')).status).toBe(200);
      expect(await outcomes('user.update', user.id)).toEqual([['failed', 'INTERNAL']]);

      // The same change, once the row can be written: it and its row commit together.
      const applied = await admin.patch(`/api/users/${user.id}`, change);
      expect(applied.status, applied.text).toBe(200);
      expect(UserSchema.parse(applied.json)).toMatchObject({ roles: ['ops'], disabled: true });
      expect(errorCode(await client.get('/api/session'))).toBe('ACCOUNT_DISABLED');
      expect(await outcomes('user.update', user.id)).toEqual([
        ['failed', 'INTERNAL'],
        ['success', null],
      ]);
    });

    it('when the audit row of a two-step reset cannot be written, then 500 and TOTP, its recovery codes and the sessions stay', async () => {
      const { client, user } = await member(['finance']);
      await t.db.k
        .updateTable('users')
        .set({
          totp_secret: 'sealed-totp-secret',
          totp_enabled_at: t.clock.now(),
          totp_last_step: 7,
        })
        .where('id', '=', user.id)
        .execute();
      await t.db.k
        .insertInto('recovery_codes')
        .values({ user_id: user.id, code_hash: 'recovery-code-hash', used_at: null })
        .execute();
      const reset = () =>
        admin.post(`/api/users/${user.id}/reset-totp`, { reason: 'Lost their phone' });
      const res = await withSuccessRowsRefused(t.db, 'user.reset_totp', reset);
      expect(res.status, res.text).toBe(500);
      expect(await t.services.users.byId(user.id)).toMatchObject({
        totp_secret: 'sealed-totp-secret',
        totp_last_step: 7,
        totp_enabled_at: expect.any(Number) as unknown,
      });
      const codes = () =>
        t.db.k.selectFrom('recovery_codes').select('id').where('user_id', '=', user.id).execute();
      expect(await codes()).toHaveLength(1);
      expect((await client.get('/api/session')).status).toBe(200);
      expect(await outcomes('user.reset_totp', user.id)).toEqual([['failed', 'INTERNAL']]);

      expect((await reset()).status).toBe(200);
      expect((await t.services.users.byId(user.id))?.totp_enabled_at).toBeNull();
      expect(await codes()).toHaveLength(0);
      expect((await client.get('/api/session')).status).toBe(401);
      expect(await outcomes('user.reset_totp', user.id)).toEqual([
        ['failed', 'INTERNAL'],
        ['success', null],
      ]);
    });
  });

  describe.skipIf(variant.skip)(`bootstrap admin (${variant.name})`, () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startApp(variant, { config: { bootstrapAdmin: null } });
    });
    afterAll(async () => {
      await t.close();
    });

    it('when the first admin’s audit row cannot be written, then no admin is made, and the next start makes it with its row', async () => {
      const users = t.services.users;
      await expect(
        withSuccessRowsRefused(t.db, 'user.create', () => users.bootstrapAdmin(ADMIN)),
      ).rejects.toThrow('injected failure');
      expect(await users.list()).toEqual([]);

      expect(await users.bootstrapAdmin(ADMIN)).toBe(true);
      const [admin, ...others] = await users.list();
      expect(others).toEqual([]);
      const rows = await t.db.k.selectFrom('audit_log').selectAll().execute();
      expect(
        rows.map((r) => [r.action, r.target, r.outcome, JSON.parse(r.summary) as unknown]),
      ).toEqual([
        [
          'user.create',
          `user:${admin?.id ?? ''}`,
          'success',
          { email: ADMIN.email, roles: ['admin', 'auditor'], bootstrap: true },
        ],
      ]);
    });
  });
}
