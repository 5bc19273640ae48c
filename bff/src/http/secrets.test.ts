// No secret in any reply, log line or audit row: drive every route, then grep what was captured.
import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generate } from 'otplib';
import {
  TotpConfirmResponseSchema,
  TotpEnrolResponseSchema,
  UserSchema,
} from '@paydesk/shared/api';
import {
  ADMIN,
  DB_VARIANTS,
  TEST_CONTROL_KEY,
  startApp,
  type Reply,
  type TestApp,
} from '../test-support/harness.js';

const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const RSA_PEM = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const RSA_BODY_LINE = RSA_PEM.split('\n')[5] ?? 'unreachable';

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(`secrets stay secret (${variant.name})`, () => {
    let t: TestApp;
    const replies: Reply[] = [];
    const secrets: string[] = [TEST_CONTROL_KEY, RSA_BODY_LINE, ADMIN.password];
    beforeAll(async () => {
      t = await startApp(variant, {
        config: {
          merchant: {
            login: 'm',
            controlKey: TEST_CONTROL_KEY,
            rsaPrivateKeyPem: RSA_PEM,
            endpoints: [],
          },
        },
      });
      secrets.push(new TextDecoder().decode(t.config.sessionSecret));
      const admin = t.client();
      const keep = (r: Reply) => {
        replies.push(r);
        return r;
      };
      keep(await admin.login(ADMIN.email, 'wrong-password-attempt'));
      secrets.push('wrong-password-attempt');
      keep(await admin.login(ADMIN.email, ADMIN.password));
      secrets.push(admin.cookies.get('paydesk_session') ?? 'no-cookie');
      const created = keep(
        await admin.post('/api/users', {
          email: 's@paydesk.test',
          name: 'S',
          password: 'user-secret-password-1',
          roles: ['support'],
        }),
      );
      secrets.push('user-secret-password-1');
      const id = UserSchema.parse(created.json).id;
      keep(
        await admin.patch(`/api/users/${id}`, {
          roles: ['support', 'finance'],
          reason: 'Handles the refunds',
        }),
      );
      // (Its own words, not the e-mail's: a password holding them is refused as too easy.)
      const changed = keep(
        await admin.post('/api/session/password', {
          currentPassword: ADMIN.password,
          newPassword: 'sturdy-vault-clover-82',
        }),
      );
      expect(changed.status, changed.text).toBe(200);
      secrets.push('sturdy-vault-clover-82');
      const enrol = TotpEnrolResponseSchema.parse(
        keep(await admin.post('/api/session/totp', { currentPassword: 'sturdy-vault-clover-82' }))
          .json,
      );
      secrets.push(enrol.secret);
      const code = await generate({
        secret: enrol.secret,
        epoch: Math.floor(t.clock.now() / 1000),
      });
      const confirm = await admin.post('/api/session/totp/confirm', { code });
      const { recoveryCodes } = TotpConfirmResponseSchema.parse(confirm.json);
      secrets.push(...recoveryCodes);
      t.clock.advance(60_000);
      const recovered = keep(
        await t.client().login(ADMIN.email, 'sturdy-vault-clover-82', recoveryCodes[0]),
      );
      expect(recovered.status, recovered.text).toBe(200);
      keep(await admin.get('/api/users'));
      keep(await admin.get('/api/audit?pageSize=500'));
      keep(await admin.get('/api/audit/export?format=jsonl'));
      keep(await admin.get('/api/audit/export?format=csv'));
      keep(await admin.post(`/api/users/${id}/reset-totp`, { reason: 'lost their phone' }));
      // A reset password, used by its holder once to choose their own.
      keep(
        await admin.post(`/api/users/${id}/reset-password`, {
          password: 'reset-secret-pass-3',
          reason: 'forgot it',
        }),
      );
      secrets.push('reset-secret-pass-3');
      const holder = t.client();
      keep(await holder.login('s@paydesk.test', 'reset-secret-pass-3'));
      keep(await holder.get('/api/users'));
      keep(
        await holder.post('/api/session/password', {
          currentPassword: 'reset-secret-pass-3',
          newPassword: 'holder-own-password-4',
        }),
      );
      secrets.push('holder-own-password-4');
      keep(await admin.delete('/api/session'));
    });
    afterAll(async () => {
      await t.close();
    });

    it('when every route has been used, then no reply (body or headers other than the own cookie) holds a secret', () => {
      expect(replies.length).toBeGreaterThan(10);
      // The enrolment reply must show its own secret and the login reply sets its own cookie; those are
      // deliberate. Everything else is checked against everything.
      for (const r of replies) {
        for (const s of secrets) {
          if (r.text.includes(s)) {
            const deliberate = (r.json as { secret?: string } | null)?.secret === s;
            expect(deliberate, `reply leaks ${s.slice(0, 4)}…`).toBe(true);
          }
        }
      }
    });

    it('when the logs are read, then no line holds a secret, a password or a cookie', () => {
      expect(t.logs.length).toBeGreaterThan(10);
      const all = t.logs.join('');
      for (const s of secrets) expect(all.includes(s), `log leaks ${s.slice(0, 4)}…`).toBe(false);
      expect(all).not.toMatch(/-----BEGIN/);
    });

    it('when the audit rows are read, then none holds a secret', async () => {
      const rows = await t.db.k.selectFrom('audit_log').selectAll().execute();
      expect(rows.length).toBeGreaterThan(8);
      const all = JSON.stringify(rows);
      for (const s of secrets) expect(all.includes(s), `audit leaks ${s.slice(0, 4)}…`).toBe(false);
    });
  });
}
