import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../clock.js';
import { ADMIN, DB_VARIANTS, errorCode, startApp, type TestApp } from '../test-support/harness.js';
import { RefusalThrottle, clientKey } from './refusal-throttle.js';

const LONG_USER_AGENT = `Mozilla/5.0 ${'x'.repeat(280)}`;

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(`audit of refusals (${variant.name})`, () => {
    let t: TestApp;
    beforeEach(async () => {
      t = await startApp(variant);
    });
    afterEach(async () => {
      await t.close();
    });

    const auditRows = () => t.db.k.selectFrom('audit_log').selectAll().orderBy('seq').execute();

    it('when anonymous state-changing requests are refused over and over, then the audit log gains one row per code a minute, the next one counting those left out, and the rest are logged', async () => {
      const before = (await auditRows()).length;
      const payout = { amount: '1.00' };
      const noCsrf = () =>
        t
          .client()
          .request(
            'POST',
            '/api/payouts',
            payout,
            { 'User-Agent': LONG_USER_AGENT },
            { csrf: false },
          );
      const noCookie = () =>
        t.client().request('POST', '/api/payouts', payout, { 'User-Agent': LONG_USER_AGENT });
      for (let i = 0; i < 100; i += 1) {
        expect(errorCode(await noCsrf())).toBe('CSRF_REJECTED');
        expect(errorCode(await noCookie())).toBe('UNAUTHENTICATED');
      }
      const first = (await auditRows()).slice(before);
      expect(first.map((r) => [r.action, r.outcome, r.error_code, r.actor_id])).toEqual([
        ['payout.prepare', 'refused', 'CSRF_REJECTED', null],
        ['payout.prepare', 'refused', 'UNAUTHENTICATED', null],
      ]);
      expect(first.every((r) => (r.user_agent ?? '').length <= 300)).toBe(true);
      expect(t.logs.filter((l) => l.includes('not audited'))).toHaveLength(198);

      t.clock.advance(60_000);
      expect(errorCode(await noCsrf())).toBe('CSRF_REJECTED');
      expect(errorCode(await noCookie())).toBe('UNAUTHENTICATED');
      const next = (await auditRows()).slice(before + 2);
      expect(next.map((r) => [r.error_code, JSON.parse(r.summary) as unknown])).toEqual([
        ['CSRF_REJECTED', { suppressedSinceLast: 99 }],
        ['UNAUTHENTICATED', { suppressedSinceLast: 99 }],
      ]);
    });

    it('when gateway callbacks are refused for a wrong or missing control over and over, then the audit log gains one row per client and code a minute, without the control, the next one counting those left out', async () => {
      const before = (await auditRows()).length;
      const callback = (control: string | null) => {
        const query = new URLSearchParams({
          endpoint: '1001',
          status: 'approved',
          orderid: '910001',
          client_orderid: 'refused-callback-1',
          'serial-number': 'refused-serial-1',
        });
        if (control !== null) query.set('control', control);
        return fetch(`${t.url}/gateway/callback?${query.toString()}`, {
          headers: { 'User-Agent': LONG_USER_AGENT },
        });
      };
      for (let i = 0; i < 20; i += 1) {
        expect((await callback(`forged-control-${String(i)}`)).status).toBe(403);
        expect((await callback(null)).status).toBe(403);
      }
      const first = (await auditRows()).slice(before);
      expect(first.map((r) => [r.action, r.outcome, r.error_code, r.actor_id])).toEqual([
        ['gateway.callback', 'refused', 'FORBIDDEN', null],
      ]);
      expect(first[0]?.request_id).toMatch(/^[0-9a-f-]{36}$/);
      expect((first[0]?.user_agent ?? '').length).toBeLessThanOrEqual(300);
      expect(JSON.parse(first[0]?.summary ?? '{}')).toEqual({
        endpointId: '1001',
        status: 'approved',
        orderid: '910001',
        clientOrderId: 'refused-callback-1',
        serial: 'refused-serial-1',
        reason: 'callback control does not verify',
      });
      expect(JSON.stringify(first)).not.toContain('forged-control');
      expect(t.logs.filter((l) => l.includes('not audited'))).toHaveLength(39);

      t.clock.advance(60_000);
      expect((await callback(null)).status).toBe(403);
      const next = (await auditRows()).slice(before + 1);
      expect(next.map((r) => [r.action, JSON.parse(r.summary) as unknown])).toEqual([
        [
          'gateway.callback',
          expect.objectContaining({ reason: 'callback control missing', suppressedSinceLast: 39 }),
        ],
      ]);
    });

    it('when a signed-in user is refused again and again, then every refusal is audited', async () => {
      const support = await t.userWithRoles(['support'], 'support@paydesk.test');
      const before = (await auditRows()).length;
      for (let i = 0; i < 5; i += 1) {
        const crossSite = await support.request(
          'POST',
          '/api/payouts',
          {},
          {
            Origin: 'https://evil.example',
          },
        );
        expect(errorCode(crossSite)).toBe('CSRF_REJECTED');
        expect(errorCode(await support.post('/api/payouts', {}))).toBe('FORBIDDEN');
      }
      const rows = (await auditRows()).slice(before);
      expect(rows).toHaveLength(10);
      expect(rows.every((r) => r.actor_email === 'support@paydesk.test')).toBe(true);
      expect(t.logs.filter((l) => l.includes('not audited'))).toEqual([]);
    });

    it('when a role, a cross-site request or no session refuses an attempt on a record, then its audit row still names the record its address names', async () => {
      const support = await t.userWithRoles(['support'], 'support@paydesk.test');
      const ops = await t.userWithRoles(['ops'], 'ops@paydesk.test');
      const before = (await auditRows()).length;
      const id = '0f6c2a8e-3b5d-4c1e-9a7f-2d4b6c8e0a1f';
      expect(errorCode(await support.post(`/api/payouts/${id}/approve`, {}))).toBe('FORBIDDEN');
      expect(
        errorCode(
          await support.request(
            'POST',
            `/api/transactions/${id}/void`,
            {},
            {
              Origin: 'https://evil.example',
            },
          ),
        ),
      ).toBe('CSRF_REJECTED');
      expect(errorCode(await t.client().post(`/api/payment-links/${id}/approve`, {}))).toBe(
        'UNAUTHENTICATED',
      );
      expect(errorCode(await ops.post('/api/cards/777/info', { reason: 'x' }))).toBe('FORBIDDEN');
      // An id that is not a plain one is not recorded.
      expect(errorCode(await support.post(`/api/payouts/${'x'.repeat(200)}/approve`, {}))).toBe(
        'FORBIDDEN',
      );
      const rows = (await auditRows()).slice(before);
      expect(rows.map((r) => [r.action, r.error_code, r.target])).toEqual([
        ['payout.approve', 'FORBIDDEN', `payout:${id}`],
        ['transaction.void', 'CSRF_REJECTED', `transaction:${id}`],
        ['payment_link.approve', 'UNAUTHENTICATED', `link:${id}`],
        ['card.info', 'FORBIDDEN', 'card-ref:777'],
        ['payout.approve', 'FORBIDDEN', null],
      ]);
    });

    it('when logins fail, then each is audited (the login limiter bounds them), and the 429s that follow once a minute', async () => {
      const c = t.client();
      for (let i = 0; i < 5; i += 1)
        expect(errorCode(await c.login(ADMIN.email, 'wrong-password'))).toBe('INVALID_CREDENTIALS');
      for (let i = 0; i < 5; i += 1)
        expect(errorCode(await c.login(ADMIN.email, 'wrong-password'))).toBe('RATE_LIMITED');
      const rows = await t.db.k
        .selectFrom('audit_log')
        .select('error_code')
        .where('action', '=', 'session.login')
        .orderBy('seq')
        .execute();
      expect(rows.map((r) => r.error_code)).toEqual([
        ...Array<string>(5).fill('INVALID_CREDENTIALS'),
        'RATE_LIMITED',
      ]);
    });
  });
}

describe('refusal throttle', () => {
  it('when one client is refused with one code within the window, then only the first is audited; after it, the next carries the count', () => {
    const clock = new ManualClock(0);
    const throttle = new RefusalThrottle(clock, { windowMs: 1_000 });
    expect(throttle.admit('198.51.100.1', 'CSRF_REJECTED')).toEqual({ audit: true, suppressed: 0 });
    expect(throttle.admit('198.51.100.1', 'CSRF_REJECTED')).toEqual({ audit: false });
    expect(throttle.admit('198.51.100.1', 'CSRF_REJECTED')).toEqual({ audit: false });
    // Another code and another client each have their own allowance.
    expect(throttle.admit('198.51.100.1', 'UNAUTHENTICATED')).toEqual({
      audit: true,
      suppressed: 0,
    });
    expect(throttle.admit('198.51.100.2', 'CSRF_REJECTED')).toEqual({ audit: true, suppressed: 0 });
    clock.advance(999);
    expect(throttle.admit('198.51.100.1', 'CSRF_REJECTED')).toEqual({ audit: false });
    clock.advance(1);
    expect(throttle.admit('198.51.100.1', 'CSRF_REJECTED')).toEqual({ audit: true, suppressed: 3 });
    expect(throttle.admit('198.51.100.1', 'CSRF_REJECTED')).toEqual({ audit: false });
  });

  it('when more clients are seen than it keeps, then the least recently seen are forgotten and memory stays bounded', () => {
    const clock = new ManualClock(0);
    const throttle = new RefusalThrottle(clock, { windowMs: 60_000, maxClients: 3 });
    for (const ip of ['192.0.2.1', '192.0.2.2', '192.0.2.3']) throttle.admit(ip, 'CSRF_REJECTED');
    // Seen again: now the most recent, so 192.0.2.2 is the one forgotten next.
    expect(throttle.admit('192.0.2.1', 'CSRF_REJECTED')).toEqual({ audit: false });
    for (let i = 10; i < 1_000; i += 1)
      throttle.admit(`10.0.${i >> 8}.${i & 255}`, 'CSRF_REJECTED');
    expect(throttle.size).toBe(3);
    throttle.admit('192.0.2.1', 'CSRF_REJECTED');
    expect(throttle.admit('192.0.2.2', 'CSRF_REJECTED')).toEqual({ audit: true, suppressed: 0 });
  });

  it('when addresses are IPv6, then a /64 is one client, and an IPv4-mapped address is its IPv4 one', () => {
    expect(clientKey('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(clientKey('2001:0db8:0001:0002:bbbb:cccc:dddd:eeee')).toBe('2001:db8:1:2::/64');
    expect(clientKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(clientKey('::1')).toBe('0:0:0:0::/64');
    expect(clientKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(clientKey('::ffff:203.0.113.9')).toBe('203.0.113.9');
    expect(clientKey('203.0.113.9')).toBe('203.0.113.9');
    expect(clientKey(null)).toBe('unknown');
    const throttle = new RefusalThrottle(new ManualClock(0));
    throttle.admit('2001:db8:1:2::1', 'CSRF_REJECTED');
    expect(throttle.admit('2001:db8:1:2::ffff', 'CSRF_REJECTED')).toEqual({ audit: false });
  });
});
