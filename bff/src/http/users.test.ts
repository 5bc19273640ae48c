import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserListResponseSchema, UserSchema, type ErrorEnvelope } from '@paydesk/shared/api';
import {
  ADMIN,
  DB_VARIANTS,
  errorCode,
  startApp,
  type TestApp,
  type TestClient,
} from '../test-support/harness.js';

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
        password: 'ops-lead-password',
        roles: ['ops', 'support'],
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
      expect((await t.client().login('ops.lead@paydesk.test', 'ops-lead-password')).status).toBe(
        200,
      );
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
            password: 'fin-password-long',
            roles: ['finance'],
          })
        ).json,
      );
      const res = await admin.patch(`/api/users/${created.id}`, {
        name: 'Fin Two',
        roles: ['finance', 'auditor'],
      });
      expect(res.status).toBe(200);
      expect(UserSchema.parse(res.json)).toMatchObject({
        name: 'Fin Two',
        roles: ['finance', 'auditor'],
      });
      const c = t.client();
      await c.login('fin@paydesk.test', 'fin-password-long');
      // The admin chose the password: its holder chooses their own before anything else.
      expect(
        (
          await c.post('/api/session/password', {
            currentPassword: 'fin-password-long',
            newPassword: 'fin-own-password',
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
            password: 'e-password-long',
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

    it('when the last active admin would lose admin or be disabled, then 409 LAST_ADMIN', async () => {
      const me = UserSchema.parse(
        ((await admin.get('/api/session')).json as { user: unknown }).user,
      );
      expect(errorCode(await admin.patch(`/api/users/${me.id}`, { roles: ['auditor'] }))).toBe(
        'LAST_ADMIN',
      );
      expect(errorCode(await admin.patch(`/api/users/${me.id}`, { disabled: true }))).toBe(
        'LAST_ADMIN',
      );
      const second = UserSchema.parse(
        (
          await admin.post('/api/users', {
            email: 'admin2@paydesk.test',
            name: 'A2',
            password: 'admin2-password',
            roles: ['admin'],
          })
        ).json,
      );
      expect(second.roles).toEqual(['admin']);
      const res = await admin.patch(`/api/users/${second.id}`, { disabled: true });
      expect(res.status).toBe(200);
      expect(UserSchema.parse(res.json).disabled).toBe(true);
      const refused = await t.db.k
        .selectFrom('audit_log')
        .selectAll()
        .where('error_code', '=', 'LAST_ADMIN')
        .execute();
      expect(refused).toHaveLength(2);
    });
  });
}
