import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { generate } from 'otplib';
import {
  IDLE_HEADER,
  SessionResponseSchema,
  TotpConfirmResponseSchema,
  TotpEnrolResponseSchema,
  type ErrorEnvelope,
} from '@paydesk/shared/api';
import { openDatabase } from '../db/connect.js';
import { AppError } from '../errors.js';
import { createServices } from '../services/index.js';
import { ADMIN, DB_VARIANTS, errorCode, startApp, type TestApp } from '../test-support/harness.js';

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(`sessions (${variant.name})`, () => {
    let t: TestApp;
    beforeEach(async () => {
      t = await startApp(variant, {
        config: { login: { maxFailuresPerAccount: 3, maxFailuresPerIp: 6, windowSeconds: 900 } },
      });
    });
    afterEach(async () => {
      await t.close();
    });

    it('when the admin logs in, then the reply holds the user and roles and sets an HttpOnly SameSite=Strict cookie', async () => {
      const c = t.client();
      const res = await c.login(ADMIN.email, ADMIN.password);
      expect(res.status).toBe(200);
      const body = SessionResponseSchema.parse(res.json);
      expect(body.user.email).toBe(ADMIN.email);
      expect(body.user.roles).toEqual(['admin', 'auditor']);
      const cookie = res.headers.getSetCookie()[0] ?? '';
      expect(cookie).toMatch(
        /^paydesk_session=[^;]+; Path=\/; HttpOnly; SameSite=Strict; Max-Age=43200$/,
      );
      const me = await c.get('/api/session');
      expect(me.status).toBe(200);
      expect(SessionResponseSchema.parse(me.json).user.id).toBe(body.user.id);
    });

    it('when a user signs in again, then the session reply names the session before this one (when and from where), and a first sign-in names none', async () => {
      const signIn = (c: ReturnType<TestApp['client']>, userAgent: string) =>
        c.request(
          'POST',
          '/api/session',
          { email: ADMIN.email, password: ADMIN.password },
          { 'User-Agent': userAgent },
        );
      const first = await signIn(t.client(), 'first-browser/1.0');
      expect(SessionResponseSchema.parse(first.json).previousSession).toBeNull();
      const firstAt = t.clock.now();
      t.clock.advance(60_000);
      const c = t.client();
      await signIn(c, 'second-browser/2.0');
      const me = SessionResponseSchema.parse((await c.get('/api/session')).json);
      expect(me.previousSession).toMatchObject({
        startedAt: new Date(firstAt).toISOString(),
        userAgent: 'first-browser/1.0',
      });
      expect(me.previousSession?.ip).toMatch(/127\.0\.0\.1/);
    });

    it('when PAYOUT_HOLD_MAX_AGE_MS is set, then the sign-in and session replies carry it for the SPA; unset, the payouts default (7 days)', async () => {
      const days = (n: number) => n * 24 * 60 * 60_000;
      const t2 = await startApp(variant, { config: { payoutHoldMaxAgeMs: days(3) } });
      try {
        const c = t2.client();
        const signIn = await c.login(ADMIN.email, ADMIN.password);
        expect(SessionResponseSchema.parse(signIn.json).settings).toMatchObject({
          payoutHoldMaxAgeMs: days(3),
        });
        const again = SessionResponseSchema.parse((await c.get('/api/session')).json);
        expect(again.settings).toMatchObject({ payoutHoldMaxAgeMs: days(3) });
      } finally {
        await t2.close();
      }
      const c = t.client();
      await c.login(ADMIN.email, ADMIN.password);
      const byDefault = SessionResponseSchema.parse((await c.get('/api/session')).json);
      expect(byDefault.settings).toMatchObject({ payoutHoldMaxAgeMs: days(7) });
    });

    it('when LARGE_AMOUNT_CONFIRM_ABOVE is set, then the sign-in and session replies carry its thresholds for the SPA; unset, 10000.00 in every currency', async () => {
      const largeAmount = { default: null, currencies: { EUR: '5000.00', USD: '7500.50' } };
      const t2 = await startApp(variant, { config: { largeAmount } });
      try {
        const c = t2.client();
        const signIn = await c.login(ADMIN.email, ADMIN.password);
        expect(SessionResponseSchema.parse(signIn.json).settings?.largeAmount).toEqual(largeAmount);
        const again = SessionResponseSchema.parse((await c.get('/api/session')).json);
        expect(again.settings?.largeAmount).toEqual(largeAmount);
      } finally {
        await t2.close();
      }
      const c = t.client();
      await c.login(ADMIN.email, ADMIN.password);
      const byDefault = SessionResponseSchema.parse((await c.get('/api/session')).json);
      expect(byDefault.settings?.largeAmount).toEqual({ default: '10000.00', currencies: {} });
    });

    it('when ORDER_AMOUNT_LIMIT is set, then the sign-in and session replies carry its limits for the SPA; unset, 1000000.00 in every currency', async () => {
      const orderAmountLimit = { default: '250000.00', currencies: { EUR: '500000.00' } };
      const t2 = await startApp(variant, { config: { orderAmountLimit } });
      try {
        const c = t2.client();
        const signIn = await c.login(ADMIN.email, ADMIN.password);
        expect(SessionResponseSchema.parse(signIn.json).settings?.orderAmountLimit).toEqual(
          orderAmountLimit,
        );
        const again = SessionResponseSchema.parse((await c.get('/api/session')).json);
        expect(again.settings?.orderAmountLimit).toEqual(orderAmountLimit);
      } finally {
        await t2.close();
      }
      const c = t.client();
      await c.login(ADMIN.email, ADMIN.password);
      const byDefault = SessionResponseSchema.parse((await c.get('/api/session')).json);
      expect(byDefault.settings?.orderAmountLimit).toEqual({
        default: '1000000.00',
        currencies: {},
      });
    });

    it('when GATEWAY_TIMEOUT_MS is set, then the sign-in and session replies carry it for the SPA, and nothing else of the configuration', async () => {
      const t2 = await startApp(variant, { config: { gatewayTimeoutMs: 7_500 } });
      try {
        const c = t2.client();
        const signIn = await c.login(ADMIN.email, ADMIN.password);
        const again = await c.get('/api/session');
        for (const reply of [signIn, again]) {
          expect(reply.status).toBe(200);
          expect(SessionResponseSchema.parse(reply.json).settings?.gatewayTimeoutMs).toBe(7_500);
          // The raw reply, before the schema strips what it does not know: no other key is new.
          const raw = reply.json as { settings?: Record<string, unknown> };
          expect(Object.keys(raw).sort()).toEqual([
            'absoluteExpiresAt',
            'idleExpiresAt',
            'previousSession',
            'settings',
            'user',
          ]);
          expect(Object.keys(raw.settings ?? {}).sort()).toEqual([
            'endpoints',
            'gatewayTimeoutMs',
            'largeAmount',
            'orderAmountLimit',
            'payoutHoldMaxAgeMs',
            'sessionIdleSeconds',
          ]);
        }
      } finally {
        await t2.close();
      }
      // The test harness's own (2 s), not a default of the SPA's.
      const c = t.client();
      await c.login(ADMIN.email, ADMIN.password);
      const byDefault = SessionResponseSchema.parse((await c.get('/api/session')).json);
      expect(byDefault.settings?.gatewayTimeoutMs).toBe(2_000);
    });

    it('when MERCHANT_ENDPOINTS names endpoints and groups, then the sign-in and session replies carry each id with the currencies it takes, and nothing else of the merchant', async () => {
      const merchant = {
        ...t.config.merchant,
        endpoints: [
          { kind: 'endpoint', id: '1001', currency: 'EUR' },
          { kind: 'endpoint', id: '1002', currency: 'USD' },
          { kind: 'group', id: '2001', currencies: ['EUR', 'USD'] },
          { kind: 'group', id: '2002' },
        ],
      } satisfies TestApp['config']['merchant'];
      const t2 = await startApp(variant, { config: { merchant } });
      try {
        const c = t2.client();
        const signIn = await c.login(ADMIN.email, ADMIN.password);
        const again = await c.get('/api/session');
        for (const reply of [signIn, again]) {
          expect(reply.status).toBe(200);
          // The raw reply: exactly these keys, so no login, control key or RSA key rides along.
          const raw = reply.json as { settings?: { endpoints?: unknown } };
          expect(raw.settings?.endpoints).toEqual([
            { id: '1001', kind: 'endpoint', currencies: ['EUR'] },
            { id: '1002', kind: 'endpoint', currencies: ['USD'] },
            { id: '2001', kind: 'group', currencies: ['EUR', 'USD'] },
            { id: '2002', kind: 'group', currencies: null },
          ]);
          expect(reply.text).not.toContain(t.config.merchant.controlKey);
          expect(reply.text).not.toContain(t.config.merchant.login);
        }
      } finally {
        await t2.close();
      }
    });

    it('when the public origin is https, then the cookie is __Host- prefixed and Secure', async () => {
      const t2 = await startApp(variant, {
        config: { publicOrigin: 'https://paydesk.example.com', secureCookies: true },
      });
      try {
        const res = await t2.client().login(ADMIN.email, ADMIN.password);
        expect(res.status).toBe(200);
        expect(res.headers.getSetCookie()[0]).toMatch(
          /^__Host-paydesk_session=.*; Path=\/; HttpOnly; SameSite=Strict; .*Secure$/,
        );
      } finally {
        await t2.close();
      }
    });

    it('when the password is wrong or the e-mail unknown, then both get the same 401 code and message', async () => {
      const wrong = await t.client().login(ADMIN.email, 'not-the-password');
      const unknown = await t.client().login('nobody@paydesk.test', 'not-the-password');
      expect(wrong.status).toBe(401);
      expect(unknown.status).toBe(401);
      const strip = (j: unknown) => ({ ...(j as { error: object }).error, requestId: '' });
      expect(strip(wrong.json)).toEqual(strip(unknown.json));
      expect(errorCode(wrong)).toBe('INVALID_CREDENTIALS');
    });

    it('when logins fail and succeed and the user logs out, then each attempt is an audit row with its outcome', async () => {
      const c = t.client();
      await c.login('ghost@paydesk.test', 'wrong-password');
      await c.login(ADMIN.email, ADMIN.password);
      await c.delete('/api/session');
      const rows = await t.db.k
        .selectFrom('audit_log')
        .selectAll()
        .where('action', 'like', 'session.%')
        .orderBy('seq')
        .execute();
      expect(rows.map((r) => [r.action, r.outcome, r.error_code, r.actor_email])).toEqual([
        ['session.login', 'refused', 'INVALID_CREDENTIALS', null],
        ['session.login', 'success', null, ADMIN.email],
        ['session.logout', 'success', null, ADMIN.email],
      ]);
      expect(JSON.parse(rows[0]!.summary)).toEqual({
        email: 'ghost@paydesk.test',
        secondFactorGiven: false,
      });
      expect(rows[0]!.target).toBe('account:ghost@paydesk.test');
      expect(JSON.parse(rows[1]!.actor_roles)).toEqual(['admin', 'auditor']);
      expect(rows[1]!.ip).toBe('127.0.0.1');
      expect(rows[1]!.request_id).toMatch(/^[0-9a-f-]{36}$/);
      expect(rows.every((r) => r.at === t.clock.now())).toBe(true);
    });

    /**
     * An app behind a proxy (X-Forwarded-For trusted) whose accounts take 3 failures from one
     * address, and the admin's sign-in from an address.
     */
    const behindProxy = async () => {
      const t2 = await startApp(variant, {
        config: {
          trustProxy: true,
          login: { maxFailuresPerAccount: 3, maxFailuresPerIp: 1000, windowSeconds: 900 },
        },
      });
      const from = (address: string, password: string) =>
        t2
          .client()
          .request(
            'POST',
            '/api/session',
            { email: ADMIN.email, password },
            { 'X-Forwarded-For': address },
          );
      return { t2, from };
    };

    it('when an account fails too often, then it is locked for the window even with the right password, and opens after it', async () => {
      const c = t.client();
      for (let i = 0; i < 3; i += 1)
        expect((await c.login(ADMIN.email, 'wrong-password')).status).toBe(401);
      const locked = await c.login(ADMIN.email, ADMIN.password);
      expect(locked.status).toBe(429);
      expect(errorCode(locked)).toBe('RATE_LIMITED');
      expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
      t.clock.advance(901_000);
      expect((await c.login(ADMIN.email, ADMIN.password)).status).toBe(200);
    });

    it('when failures for an account come from one address, then only that address is locked out of it: its holder signs in from their own; failures from every address together lock it at ten times the limit', async () => {
      const { t2, from } = await behindProxy();
      try {
        for (let i = 0; i < 3; i += 1)
          expect(errorCode(await from('203.0.113.66', 'wrong-password'))).toBe(
            'INVALID_CREDENTIALS',
          );
        // The address that failed is locked out, even with the right password…
        expect(errorCode(await from('203.0.113.66', ADMIN.password))).toBe('RATE_LIMITED');
        // …the holder elsewhere is not (QA: anyone could lock a colleague out).
        expect((await from('198.51.100.7', ADMIN.password)).status).toBe(200);
        // Guessing spread over many addresses is still bounded: 30 failures in all lock it (the
        // three above among them: the holder's sign-in forgave only their own address's).
        for (let i = 0; i < 27; i += 1)
          expect(errorCode(await from(`192.0.2.${String(i)}`, 'wrong-password'))).toBe(
            'INVALID_CREDENTIALS',
          );
        expect(errorCode(await from('198.51.100.7', ADMIN.password))).toBe('RATE_LIMITED');
      } finally {
        await t2.close();
      }
    });

    it("when the holder signs in, then their own address's failures are forgiven, not another address's: a lock on an address guessing their password stays (QA: the holder's sign-in lifted it)", async () => {
      const { t2, from } = await behindProxy();
      try {
        const guesser = '203.0.113.66';
        const holder = '198.51.100.7';
        for (let i = 0; i < 3; i += 1)
          expect(errorCode(await from(guesser, 'wrong-password'))).toBe('INVALID_CREDENTIALS');
        // The holder mistypes twice, then signs in: their two failures are forgiven…
        for (let i = 0; i < 2; i += 1)
          expect(errorCode(await from(holder, 'wrong-password'))).toBe('INVALID_CREDENTIALS');
        expect((await from(holder, ADMIN.password)).status).toBe(200);
        for (let i = 0; i < 2; i += 1)
          expect(errorCode(await from(holder, 'wrong-password'))).toBe('INVALID_CREDENTIALS');
        expect((await from(holder, ADMIN.password)).status).toBe(200);
        // …the guessing address's are not: it stays locked out, even with the right password.
        expect(errorCode(await from(guesser, 'wrong-password'))).toBe('RATE_LIMITED');
        expect(errorCode(await from(guesser, ADMIN.password))).toBe('RATE_LIMITED');
        // A password change from the holder's address forgives no other address's either.
        const holderClient = t2.client();
        const asHolder = { 'X-Forwarded-For': holder };
        const signedIn = await holderClient.request(
          'POST',
          '/api/session',
          { email: ADMIN.email, password: ADMIN.password },
          asHolder,
        );
        expect(signedIn.status).toBe(200);
        const changed = await holderClient.request(
          'POST',
          '/api/session/password',
          { currentPassword: ADMIN.password, newPassword: 'sturdy-vault-clover-82' },
          asHolder,
        );
        expect(changed.status, changed.text).toBe(200);
        expect(errorCode(await from(guesser, 'sturdy-vault-clover-82'))).toBe('RATE_LIMITED');
        expect((await from(holder, 'sturdy-vault-clover-82')).status).toBe(200);
      } finally {
        await t2.close();
      }
    });

    it('when a login is locked out, then the message says how long in words, while Retry-After and the details stay in seconds', async () => {
      const c = t.client();
      for (let i = 0; i < 3; i += 1)
        expect((await c.login(ADMIN.email, 'wrong-password')).status).toBe(401);
      t.clock.advance(67_000);
      const locked = await c.login(ADMIN.email, ADMIN.password);
      expect(locked.status).toBe(429);
      expect(locked.headers.get('retry-after')).toBe('833');
      expect(locked.json).toMatchObject({
        error: {
          code: 'RATE_LIMITED',
          message: 'too many failed logins; try again in 14 minutes',
          details: { retryAfterSeconds: 833 },
        },
      });
      t.clock.advance(793_000);
      const soon = await c.login(ADMIN.email, ADMIN.password);
      expect(soon.headers.get('retry-after')).toBe('40');
      expect(soon.json).toMatchObject({
        error: {
          message: 'too many failed logins; try again in 40 seconds',
          details: { retryAfterSeconds: 40 },
        },
      });
    });

    it('when one IP fails across many accounts, then that IP is rate limited', async () => {
      const c = t.client();
      for (let i = 0; i < 6; i += 1)
        expect((await c.login(`probe${i}@paydesk.test`, 'wrong-password')).status).toBe(401);
      expect(errorCode(await c.login(ADMIN.email, ADMIN.password))).toBe('RATE_LIMITED');
    });

    it('when wrong passwords for one account arrive all at once, then exactly the account limit get INVALID_CREDENTIALS and the rest 429', async () => {
      const replies = await Promise.all(
        Array.from({ length: 20 }, () => t.client().login(ADMIN.email, 'wrong-password')),
      );
      const codes = replies.map(errorCode);
      expect(codes.filter((c) => c === 'INVALID_CREDENTIALS')).toHaveLength(3);
      expect(codes.filter((c) => c === 'RATE_LIMITED')).toHaveLength(17);
      expect(errorCode(await t.client().login(ADMIN.email, ADMIN.password))).toBe('RATE_LIMITED');
    });

    it('when wrong passwords for many accounts arrive all at once from one IP, then exactly the IP limit get INVALID_CREDENTIALS and the rest 429', async () => {
      const replies = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          t.client().login(`probe${i}@paydesk.test`, 'wrong-password'),
        ),
      );
      const codes = replies.map(errorCode);
      expect(codes.filter((c) => c === 'INVALID_CREDENTIALS')).toHaveLength(6);
      expect(codes.filter((c) => c === 'RATE_LIMITED')).toHaveLength(14);
    });

    it('when wrong TOTP codes arrive all at once with the right password, then exactly the account limit get TOTP_INVALID and the rest 429', async () => {
      const user = await t.userWithRoles(['support'], 'totp-race@paydesk.test');
      const enrol = TotpEnrolResponseSchema.parse(
        (
          await user.post('/api/session/totp', {
            currentPassword: 'password-for-totp-race@paydesk.test',
          })
        ).json,
      );
      const epoch = Math.floor(t.clock.now() / 1000);
      const code = await generate({ secret: enrol.secret, epoch });
      expect((await user.post('/api/session/totp/confirm', { code })).status).toBe(200);
      const valid = await Promise.all(
        [-30, 0, 30].map((d) => generate({ secret: enrol.secret, epoch: epoch + d })),
      );
      const wrong = ['000000', '111111', '222222', '333333'].find((c) => !valid.includes(c)) ?? '';
      const replies = await Promise.all(
        Array.from({ length: 20 }, () =>
          t.client().login('totp-race@paydesk.test', 'password-for-totp-race@paydesk.test', wrong),
        ),
      );
      const codes = replies.map(errorCode);
      expect(codes.filter((c) => c === 'TOTP_INVALID')).toHaveLength(3);
      expect(codes.filter((c) => c === 'RATE_LIMITED')).toHaveLength(17);
    });

    // Several instances share one database only on PostgreSQL; SQLite is one process's file (so
    // the case does not exist there, rather than being skipped).
    if (variant.name === 'postgres')
      it('when wrong passwords for one account reach two instances at once, then the limit holds across them', async () => {
        const other = await openDatabase(t.config.database, 4);
        try {
          const instances = [t.services, createServices(t.config, other, t.clock)];
          const client = { ip: '203.0.113.7', userAgent: null };
          const results = await Promise.allSettled(
            Array.from({ length: 20 }, (_, i) =>
              instances[i % 2]!.auth.login(
                { email: ADMIN.email, password: 'wrong-password' },
                client,
              ),
            ),
          );
          const codes = results.map((r) =>
            r.status === 'rejected' && r.reason instanceof AppError ? r.reason.code : 'other',
          );
          expect(codes.filter((c) => c === 'INVALID_CREDENTIALS')).toHaveLength(3);
          expect(codes.filter((c) => c === 'RATE_LIMITED')).toHaveLength(17);
        } finally {
          await other.close();
        }
      });

    it('when the password is right but a second factor is missing or the account disabled, then the attempt is not counted as a failure', async () => {
      const user = await t.userWithRoles(['support'], 'counted@paydesk.test');
      const enrol = TotpEnrolResponseSchema.parse(
        (
          await user.post('/api/session/totp', {
            currentPassword: 'password-for-counted@paydesk.test',
          })
        ).json,
      );
      await user.post('/api/session/totp/confirm', {
        code: await generate({ secret: enrol.secret, epoch: Math.floor(t.clock.now() / 1000) }),
      });
      for (let i = 0; i < 5; i += 1)
        expect(
          errorCode(
            await t.client().login('counted@paydesk.test', 'password-for-counted@paydesk.test'),
          ),
        ).toBe('TOTP_REQUIRED');
      const failures = await t.db.k.selectFrom('login_failures').selectAll().execute();
      expect(failures).toEqual([]);
    });

    it('when the current password is guessed too often while changing it, then further tries are 429 even with the right one, each attempt audited, until the window passes', async () => {
      const c = t.client();
      await c.login(ADMIN.email, ADMIN.password);
      const change = (currentPassword: string) =>
        c.post('/api/session/password', { currentPassword, newPassword: 'a-brand-new-password' });
      for (let i = 0; i < 3; i += 1)
        expect(errorCode(await change('nope-nope-nope'))).toBe('CURRENT_PASSWORD_INVALID');
      expect(errorCode(await change('nope-nope-nope'))).toBe('RATE_LIMITED');
      const locked = await change(ADMIN.password);
      expect(errorCode(locked)).toBe('RATE_LIMITED');
      expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
      const rows = await t.db.k
        .selectFrom('audit_log')
        .selectAll()
        .where('action', '=', 'session.password_change')
        .orderBy('seq')
        .execute();
      expect(rows.map((r) => [r.outcome, r.error_code, r.actor_email])).toEqual([
        ['refused', 'CURRENT_PASSWORD_INVALID', ADMIN.email],
        ['refused', 'CURRENT_PASSWORD_INVALID', ADMIN.email],
        ['refused', 'CURRENT_PASSWORD_INVALID', ADMIN.email],
        ['refused', 'RATE_LIMITED', ADMIN.email],
        ['refused', 'RATE_LIMITED', ADMIN.email],
      ]);
      // The guesses count against the account as failed logins do.
      expect(errorCode(await t.client().login(ADMIN.email, ADMIN.password))).toBe('RATE_LIMITED');
      t.clock.advance(901_000);
      expect((await change(ADMIN.password)).status).toBe(200);
    });

    it('when wrong current passwords arrive all at once, then exactly the account limit get CURRENT_PASSWORD_INVALID and the rest 429', async () => {
      const c = t.client();
      await c.login(ADMIN.email, ADMIN.password);
      const replies = await Promise.all(
        Array.from({ length: 12 }, () =>
          c.post('/api/session/password', {
            currentPassword: 'nope-nope-nope',
            newPassword: 'a-brand-new-password',
          }),
        ),
      );
      const codes = replies.map(errorCode);
      expect(codes.filter((x) => x === 'CURRENT_PASSWORD_INVALID')).toHaveLength(3);
      expect(codes.filter((x) => x === 'RATE_LIMITED')).toHaveLength(9);
    });

    it('when a session is idle past 30 minutes, then it expires', async () => {
      const c = t.client();
      await c.login(ADMIN.email, ADMIN.password);
      t.clock.advance(29 * 60_000);
      expect((await c.get('/api/session')).status).toBe(200);
      t.clock.advance(29 * 60_000);
      expect((await c.get('/api/session')).status).toBe(200);
      t.clock.advance(31 * 60_000);
      const expired = await c.get('/api/session');
      expect(expired.status).toBe(401);
      expect(errorCode(expired)).toBe('SESSION_EXPIRED');
      t.clock.advance(-31 * 60_000);
      expect((await c.get('/api/session')).status).toBe(401);
    });

    it('when a screen left alone keeps making requests by itself (its Paydesk-Idle-Ms grows), then the session still times out 30 minutes after the user’s last input (QA)', async () => {
      const c = t.client();
      await c.login(ADMIN.email, ADMIN.password);
      // A list page refetching after live events: each request says how long ago the user acted.
      let idleMs = 0;
      for (let i = 0; i < 5; i += 1) {
        t.clock.advance(5 * 60_000);
        idleMs += 5 * 60_000;
        const read = await c.get('/api/session', { [IDLE_HEADER]: String(idleMs) });
        expect(read.status).toBe(200);
      }
      // 25 minutes after the last input the session still stands, and says it ends at 30.
      const me = await c.get('/api/session', { [IDLE_HEADER]: String(idleMs) });
      expect(SessionResponseSchema.parse(me.json).idleExpiresAt).toBe(
        new Date(t.clock.now() - idleMs + 30 * 60_000).toISOString(),
      );
      t.clock.advance(5 * 60_000 + 1);
      idleMs += 5 * 60_000 + 1;
      const expired = await c.get('/api/session', { [IDLE_HEADER]: String(idleMs) });
      expect(errorCode(expired)).toBe('SESSION_EXPIRED');
    });

    it('when the user acts again, then the idle timeout restarts from that input; without the header (another client) the request itself is the activity', async () => {
      const c = t.client();
      await c.login(ADMIN.email, ADMIN.password);
      t.clock.advance(20 * 60_000);
      // The user clicked 2 s before this request.
      expect((await c.get('/api/session', { [IDLE_HEADER]: '2000' })).status).toBe(200);
      t.clock.advance(29 * 60_000);
      expect((await c.get('/api/session')).status).toBe(200); // no header: now
      t.clock.advance(29 * 60_000);
      expect((await c.get('/api/session', { [IDLE_HEADER]: String(29 * 60_000) })).status).toBe(
        200,
      );
      const session = await t.db.k
        .selectFrom('sessions')
        .select('last_seen_at')
        .executeTakeFirstOrThrow();
      expect(session.last_seen_at).toBe(t.clock.now() - 29 * 60_000);
      t.clock.advance(60_000);
      expect(errorCode(await c.get('/api/session', { [IDLE_HEADER]: '0' }))).toBe(
        'SESSION_EXPIRED',
      );
    });

    it('when Paydesk-Idle-Ms is not plain digits or is sent twice, then 400 names the header and the rule', async () => {
      const c = t.client();
      await c.login(ADMIN.email, ADMIN.password);
      for (const [value, rule] of [
        ['-5', 'format'],
        ['1e3', 'format'],
        ['soon', 'format'],
        ['5, 6', 'single'],
      ] as const) {
        const res = await c.get('/api/session', { [IDLE_HEADER]: value });
        expect(res.status).toBe(400);
        const body = res.json as ErrorEnvelope;
        expect(body.error.details?.fields).toEqual([
          expect.objectContaining({ path: `header.${IDLE_HEADER}`, rule }),
        ]);
      }
    });

    it('when a session stays active, then it still ends 12 h after login', async () => {
      const c = t.client();
      await c.login(ADMIN.email, ADMIN.password);
      for (let i = 0; i < 28; i += 1) {
        t.clock.advance(25 * 60_000);
        expect((await c.get('/api/session')).status).toBe(200);
      }
      t.clock.advance(25 * 60_000);
      expect(errorCode(await c.get('/api/session'))).toBe('SESSION_EXPIRED');
    });

    it('when a user logs out, then the old cookie no longer works even if replayed', async () => {
      const c = t.client();
      await c.login(ADMIN.email, ADMIN.password);
      const saved = new Map(c.cookies);
      expect((await c.delete('/api/session')).status).toBe(204);
      expect(c.cookies.size).toBe(0);
      c.cookies = saved;
      expect(errorCode(await c.get('/api/session'))).toBe('UNAUTHENTICATED');
    });

    it("when an admin disables a user, then that user's sessions end at once and login is refused", async () => {
      const admin = t.client();
      await admin.login(ADMIN.email, ADMIN.password);
      const user = await t.userWithRoles(['support'], 'victim@paydesk.test');
      const me = SessionResponseSchema.parse((await user.get('/api/session')).json);
      expect(
        (await admin.patch(`/api/users/${me.user.id}`, { disabled: true, reason: 'left' })).status,
      ).toBe(200);
      const refused = await user.get('/api/session');
      expect(refused.status).toBe(403);
      expect(errorCode(refused)).toBe('ACCOUNT_DISABLED');
      // every route, not the session's alone; and nothing is done
      const write = await user.post('/api/views', {
        name: 'x',
        screen: 'transactions',
        role: 'support',
        query: '',
      });
      expect(errorCode(write)).toBe('ACCOUNT_DISABLED');
      const again = await t
        .client()
        .login('victim@paydesk.test', 'password-for-victim@paydesk.test');
      expect(errorCode(again)).toBe('ACCOUNT_DISABLED');
    });

    it('when a user changes the password, then other sessions end, this one continues and the new password works', async () => {
      const a = t.client();
      const b = t.client();
      await a.login(ADMIN.email, ADMIN.password);
      await b.login(ADMIN.email, ADMIN.password);
      const wrong = await a.post('/api/session/password', {
        currentPassword: 'nope-nope-nope',
        newPassword: 'a-brand-new-password',
      });
      expect(errorCode(wrong)).toBe('CURRENT_PASSWORD_INVALID');
      const short = await a.post('/api/session/password', {
        currentPassword: ADMIN.password,
        newPassword: 'short',
      });
      expect(short.status).toBe(400);
      expect(
        (short.json as { error: { details: { fields: { path: string }[] } } }).error.details
          .fields[0]?.path,
      ).toBe('newPassword');
      const ok = await a.post('/api/session/password', {
        currentPassword: ADMIN.password,
        newPassword: 'a-brand-new-password',
      });
      expect(ok.status).toBe(200);
      expect((await a.get('/api/session')).status).toBe(200);
      expect(errorCode(await b.get('/api/session'))).toBe('UNAUTHENTICATED');
      expect(errorCode(await t.client().login(ADMIN.email, ADMIN.password))).toBe(
        'INVALID_CREDENTIALS',
      );
      expect((await t.client().login(ADMIN.email, 'a-brand-new-password')).status).toBe(200);
    });

    it('when the session cookie is tampered with (other key, alg none, edited payload), then it is refused', async () => {
      const { SignJWT, UnsecuredJWT, decodeJwt } = await import('jose');
      const c = t.client();
      await c.login(ADMIN.email, ADMIN.password);
      const name = 'paydesk_session';
      const token = c.cookies.get(name) ?? '';
      const claims = decodeJwt(token);
      const forged = [
        await new SignJWT(claims)
          .setProtectedHeader({ alg: 'HS256' })
          .sign(new TextEncoder().encode('another-secret-another-secret-0123')),
        new UnsecuredJWT(claims).encode(),
        (() => {
          const [h = '', , sig = ''] = token.split('.');
          const body = Buffer.from(JSON.stringify({ ...claims, sub: 'someone-else' })).toString(
            'base64url',
          );
          return `${h}.${body}.${sig}`;
        })(),
      ];
      for (const f of forged) {
        const other = t.client();
        other.cookies.set(name, f);
        expect(errorCode(await other.get('/api/session'))).toBe('UNAUTHENTICATED');
      }
    });

    it('when a right code is used again within its 30 seconds, then TOTP_INVALID says it was already used (rule already_used), audited so; a wrong code says wrong; with a wrong password neither is said', async () => {
      const email = 'totp-reuse@paydesk.test';
      const password = `password-for-${email}`;
      const user = await t.userWithRoles(['support'], email);
      const enrol = TotpEnrolResponseSchema.parse(
        (await user.post('/api/session/totp', { currentPassword: password })).json,
      );
      const epoch = () => Math.floor(t.clock.now() / 1000);
      const code1 = await generate({ secret: enrol.secret, epoch: epoch() });
      expect((await user.post('/api/session/totp/confirm', { code: code1 })).status).toBe(200);
      t.clock.advance(30_000);
      const code2 = await generate({ secret: enrol.secret, epoch: epoch() });
      expect((await t.client().login(email, password, code2)).status).toBe(200);

      const reused = await t.client().login(email, password, code2);
      expect(reused.status).toBe(401);
      expect((reused.json as ErrorEnvelope).error).toMatchObject({
        code: 'TOTP_INVALID',
        message: 'this code was already used: wait for the next code in your app',
        details: {
          fields: [
            {
              path: 'totp',
              rule: 'already_used',
              message: 'this code was already used: wait for the next code in your app',
            },
          ],
        },
      });
      const wrongCode = code2 === '000000' ? '111111' : '000000';
      const wrong = await t.client().login(email, password, wrongCode);
      expect((wrong.json as ErrorEnvelope).error).toMatchObject({
        code: 'TOTP_INVALID',
        details: { fields: [{ path: 'totp', rule: 'wrong_code' }] },
      });
      // Whoever lacks the password learns nothing of the code.
      const guess = await t.client().login(email, 'not the password at all', code2);
      expect((guess.json as ErrorEnvelope).error.code).toBe('INVALID_CREDENTIALS');
      expect((guess.json as ErrorEnvelope).error.details).toBeUndefined();
      const rows = await t.db.k
        .selectFrom('audit_log')
        .select(['outcome', 'error_code', 'summary'])
        .where('action', '=', 'session.login')
        .where('target', '=', `account:${email}`)
        .where('outcome', '=', 'refused')
        .orderBy('seq')
        .execute();
      expect(
        rows.map((r) => [
          r.error_code,
          (JSON.parse(r.summary) as { invalid?: unknown }).invalid ?? null,
        ]),
      ).toEqual([
        ['TOTP_INVALID', ['totp: already_used']],
        ['TOTP_INVALID', ['totp: wrong_code']],
        ['INVALID_CREDENTIALS', null],
      ]);
    });

    it('when two-step enrolment starts without the current password or with a wrong one, then 400 names currentPassword, nothing is pending, each wrong one counts against the login limit, and every attempt is audited (QA: a held session bound its own authenticator)', async () => {
      const email = 'enrol-guard@paydesk.test';
      const user = await t.userWithRoles(['support'], email);
      const pending = async () =>
        (
          await t.db.k
            .selectFrom('users')
            .select('totp_pending_secret')
            .where('email', '=', email)
            .executeTakeFirstOrThrow()
        ).totp_pending_secret;
      const missing = await user.post('/api/session/totp', {});
      expect(missing.status).toBe(400);
      expect(
        (
          missing.json as { error: { details: { fields: { path: string }[] } } }
        ).error.details.fields.map((f) => f.path),
      ).toEqual(['currentPassword']);
      for (let i = 0; i < 3; i += 1) {
        const wrong = await user.post('/api/session/totp', { currentPassword: 'not-my-password' });
        expect(wrong.status).toBe(400);
        expect(wrong.json).toMatchObject({
          error: {
            code: 'CURRENT_PASSWORD_INVALID',
            details: { fields: [{ path: 'currentPassword', rule: 'matches' }] },
          },
        });
      }
      expect(await pending()).toBeNull();
      // The limit (3 here) is reached: even the right password waits, as at sign-in.
      const limited = await user.post('/api/session/totp', {
        currentPassword: `password-for-${email}`,
      });
      expect(errorCode(limited)).toBe('RATE_LIMITED');
      expect(await pending()).toBeNull();
      t.clock.advance(901_000);
      const right = await user.post('/api/session/totp', {
        currentPassword: `password-for-${email}`,
      });
      expect(right.status, right.text).toBe(200);
      expect(await pending()).not.toBeNull();
      const rows = await t.db.k
        .selectFrom('audit_log')
        .select(['outcome', 'error_code'])
        .where('action', '=', 'session.totp_enrol')
        .where('actor_email', '=', email)
        .orderBy('seq')
        .execute();
      expect(rows.map((r) => [r.outcome, r.error_code])).toEqual([
        ['refused', 'VALIDATION_FAILED'],
        ['refused', 'CURRENT_PASSWORD_INVALID'],
        ['refused', 'CURRENT_PASSWORD_INVALID'],
        ['refused', 'CURRENT_PASSWORD_INVALID'],
        ['refused', 'RATE_LIMITED'],
        ['success', null],
      ]);
    });

    it('when a user enrols TOTP, then login needs a code, each code works once, and recovery codes work once', async () => {
      const c = t.client();
      await c.login(ADMIN.email, ADMIN.password);
      const enrol = TotpEnrolResponseSchema.parse(
        (await c.post('/api/session/totp', { currentPassword: ADMIN.password })).json,
      );
      expect(enrol.otpauthUri).toMatch(/^otpauth:\/\/totp\/Paydesk:admin%40paydesk\.test\?/);
      const epoch = () => Math.floor(t.clock.now() / 1000);
      const wrong = await c.post('/api/session/totp/confirm', { code: '000000' });
      expect((wrong.json as ErrorEnvelope).error).toMatchObject({
        code: 'TOTP_INVALID',
        details: { fields: [{ path: 'code', rule: 'wrong_code' }] },
      });
      const code1 = await generate({ secret: enrol.secret, epoch: epoch() });
      const confirmed = await c.post('/api/session/totp/confirm', { code: code1 });
      expect(confirmed.status).toBe(200);
      const { recoveryCodes } = TotpConfirmResponseSchema.parse(confirmed.json);
      expect(recoveryCodes).toHaveLength(10);
      expect(
        errorCode(await c.post('/api/session/totp', { currentPassword: ADMIN.password })),
      ).toBe('TOTP_ALREADY_ENABLED');

      expect(errorCode(await t.client().login(ADMIN.email, ADMIN.password))).toBe('TOTP_REQUIRED');
      // The code used to confirm cannot be used again.
      expect(errorCode(await t.client().login(ADMIN.email, ADMIN.password, code1))).toBe(
        'TOTP_INVALID',
      );
      t.clock.advance(30_000);
      const code2 = await generate({ secret: enrol.secret, epoch: epoch() });
      expect((await t.client().login(ADMIN.email, ADMIN.password, code2)).status).toBe(200);
      expect(errorCode(await t.client().login(ADMIN.email, ADMIN.password, code2))).toBe(
        'TOTP_INVALID',
      );
      // As authenticator apps show it ('504 993'), or typed with a hyphen: the same code.
      t.clock.advance(30_000);
      const code3 = await generate({ secret: enrol.secret, epoch: epoch() });
      const spaced = `${code3.slice(0, 3)} ${code3.slice(3)}`;
      expect((await t.client().login(ADMIN.email, ADMIN.password, spaced)).status).toBe(200);
      expect(errorCode(await t.client().login(ADMIN.email, ADMIN.password, spaced))).toBe(
        'TOTP_INVALID',
      );
      t.clock.advance(30_000);
      const code4 = await generate({ secret: enrol.secret, epoch: epoch() });
      expect(
        (
          await t
            .client()
            .login(ADMIN.email, ADMIN.password, `${code4.slice(0, 3)}-${code4.slice(3)}`)
        ).status,
      ).toBe(200);
      // Recovery codes (`XXXXX-XXXXX`): in lower case, without the hyphen, or with a space.
      const recovery = recoveryCodes[0] ?? '';
      expect(recovery).toMatch(/^[A-Z2-9]{5}-[A-Z2-9]{5}$/);
      expect(
        (await t.client().login(ADMIN.email, ADMIN.password, recovery.toLowerCase())).status,
      ).toBe(200);
      const second = recoveryCodes[1] ?? '';
      expect(
        (await t.client().login(ADMIN.email, ADMIN.password, second.replace('-', ''))).status,
      ).toBe(200);
      const third = recoveryCodes[2] ?? '';
      expect(
        (await t.client().login(ADMIN.email, ADMIN.password, ` ${third.replace('-', ' ')} `))
          .status,
      ).toBe(200);
      t.clock.advance(901_000);
      expect(errorCode(await t.client().login(ADMIN.email, ADMIN.password, recovery))).toBe(
        'TOTP_INVALID',
      );
      // The secret is sealed at rest, not stored in clear.
      const row = await t.db.k
        .selectFrom('users')
        .select('totp_secret')
        .where('email', '=', ADMIN.email)
        .executeTakeFirstOrThrow();
      expect(row.totp_secret).not.toContain(enrol.secret);
    });

    it("when an admin resets a user's TOTP, then the user logs in with the password alone", async () => {
      const user = await t.userWithRoles(['finance'], 'fin@paydesk.test');
      const enrol = TotpEnrolResponseSchema.parse(
        (await user.post('/api/session/totp', { currentPassword: 'password-for-fin@paydesk.test' }))
          .json,
      );
      await user.post('/api/session/totp/confirm', {
        code: await generate({ secret: enrol.secret, epoch: Math.floor(t.clock.now() / 1000) }),
      });
      expect(
        errorCode(await t.client().login('fin@paydesk.test', 'password-for-fin@paydesk.test')),
      ).toBe('TOTP_REQUIRED');
      const admin = t.client();
      await admin.login(ADMIN.email, ADMIN.password);
      const id = SessionResponseSchema.parse((await user.get('/api/session')).json).user.id;
      const reset = await admin.post(`/api/users/${id}/reset-totp`, { reason: 'lost their phone' });
      expect(reset.status).toBe(200);
      expect((reset.json as { totpEnabled: boolean }).totpEnabled).toBe(false);
      expect(errorCode(await user.get('/api/session'))).toBe('UNAUTHENTICATED');
      expect(
        (await t.client().login('fin@paydesk.test', 'password-for-fin@paydesk.test')).status,
      ).toBe(200);
    });
  });
}
