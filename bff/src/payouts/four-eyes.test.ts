// Four-eyes when one account controls others: the rule (`AccountControl`) on its own, then through
// the BFF's HTTP API against the real sandbox, on SQLite and (with PAYDESK_TEST_PG_URL) PostgreSQL.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  PaymentLinkListSchema,
  PaymentLinkResultSchema,
  PayoutListSchema,
  PayoutResultSchema,
  type ErrorEnvelope,
} from '@paydesk/shared/api';
import { DB_VARIANTS, errorCode, type TestClient } from '../test-support/harness.js';
import { AccountControl } from './four-eyes.js';
import {
  accountCreatedBy,
  cardPayout,
  post,
  startPayoutsApp,
  startSandbox,
  type PayoutsTestApp,
  type Sandbox,
  passwordFor,
} from './test-support/app.js';

/** An audit row of the kind the rule reads. */
function row(action: string, by: string | null, target: string, change?: Record<string, unknown>) {
  return {
    action,
    summary: JSON.stringify(change === undefined ? {} : { change }),
    actor_id: by,
    actor_email: by === null ? null : `${by}@paydesk.test`,
    target: `user:${target}`,
  };
}

function graph(...rows: ReturnType<typeof row>[]): AccountControl {
  const control = new AccountControl();
  for (const r of rows) control.apply(r);
  return control;
}

describe('four-eyes account control (the rule)', () => {
  it('when one admin created two ops accounts, then neither approves what the other prepared, both ways, nor does the admin or the account that created the admin', () => {
    const g = graph(
      row('user.create', null, 'boot'),
      row('user.create', 'boot', 'admin'),
      row('user.create', 'admin', 'x'),
      row('user.create', 'admin', 'y'),
    );
    expect(g.refusal('x', 'y')).toMatch(/controlled by the account admin@paydesk\.test/);
    expect(g.refusal('y', 'x')).not.toBeNull();
    expect(g.excludedFor('y')).toEqual(new Set(['y', 'admin', 'boot', 'x']));
    // boot controls admin, which controls x and y: all one person's as far as Paydesk can tell
    expect(g.refusal('x', 'admin')).not.toBeNull();
    expect(g.refusal('x', 'boot')).not.toBeNull();
  });

  it('when an account changes its own password, then the control its creator had ends; another account’s change does not end it', () => {
    const created = [
      row('user.create', 'admin', 'x'),
      row('user.create', 'admin', 'y'),
      row('user.create', 'admin', 'z'),
    ];
    // z changing its own password frees z, not x or y
    expect(graph(...created, row('session.password_change', 'z', 'z')).refusal('x', 'y')).not.toBe(
      null,
    );
    // y's password change made by another account is no self change
    expect(graph(...created, row('session.password_change', 'x', 'y')).refusal('x', 'y')).not.toBe(
      null,
    );
    const yOwn = graph(...created, row('session.password_change', 'y', 'y'));
    expect(yOwn.refusal('x', 'y')).toBeNull();
    expect(yOwn.refusal('y', 'x')).toBeNull();
    expect(yOwn.excludedFor('y')).toEqual(new Set(['y']));
    // x is still the admin's: the admin approves nothing x prepared, nor x anything the admin did
    expect(yOwn.refusal('x', 'admin')).not.toBeNull();
    expect(yOwn.refusal('admin', 'x')).not.toBeNull();
    // a password the admin chose again (a reset) puts y back under its control
    const reset = graph(
      ...created,
      row('session.password_change', 'y', 'y'),
      row('user.reset_password', 'admin', 'y'),
    );
    expect(reset.refusal('x', 'y')).not.toBeNull();
  });

  it('when control passes through an account (A created admin B, B created x), then A controls x too, until B changes its own password', () => {
    const rows = [
      row('user.create', 'a', 'b'),
      row('user.create', 'b', 'x'),
      row('user.create', 'a', 'y'),
    ];
    expect(graph(...rows).refusal('x', 'y')).toMatch(/controlled by the account a@paydesk\.test/);
    expect(graph(...rows).refusal('y', 'x')).not.toBeNull();
    const bOwn = graph(...rows, row('session.password_change', 'b', 'b'));
    expect(bOwn.refusal('x', 'y')).toBeNull();
    expect(bOwn.refusal('x', 'b')).not.toBeNull();
  });

  it('when an account changed another’s roles or re-enabled it, then the two are tied for good, also through an account either controls; a rename ties nothing', () => {
    const rows = [
      row('user.update', 'admin', 'promoted', { roles: ['ops'] }),
      row('user.update', 'admin', 'reenabled', { disabled: false }),
      row('user.update', 'admin', 'renamed', { name: 'New name' }),
      row('user.update', 'admin', 'unreadable', {}),
      row('user.create', 'admin', 'puppet'),
      row('session.password_change', 'promoted', 'promoted'),
      row('session.password_change', 'reenabled', 'reenabled'),
    ];
    const g = graph(...rows);
    for (const tied of ['promoted', 'reenabled']) {
      expect(g.refusal(tied, 'admin')).toMatch(/re-enabled the other or changed its roles/);
      expect(g.refusal('admin', tied)).not.toBeNull();
      // the admin's puppet acts for the admin
      expect(g.refusal('puppet', tied)).not.toBeNull();
      expect(g.refusal(tied, 'puppet')).not.toBeNull();
    }
    expect(g.refusal('renamed', 'admin')).toBeNull();
    expect(g.refusal('promoted', 'reenabled')).toBeNull();
    // a summary that does not say what changed ties, as a change of powers would
    expect(
      graph({ ...row('user.update', 'admin', 'odd'), summary: 'not json' }).refusal('odd', 'admin'),
    ).not.toBeNull();
  });

  it('when the same account prepared it, then it is refused; the bootstrap admin (no creator) controls nothing by being created', () => {
    const g = graph(row('user.create', null, 'boot'), row('user.create', 'boot', 'x'));
    expect(g.refusal('x', 'x')).toMatch(/cannot approve what it prepared/);
    expect(g.excludedFor('boot')).toEqual(new Set(['boot', 'x']));
  });
});

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(`four-eyes across controlled accounts (${variant.name})`, () => {
    let sandbox: Sandbox;
    let bff: PayoutsTestApp;
    let independent: TestClient & { email: string };

    beforeAll(async () => {
      sandbox = await startSandbox();
      bff = await startPayoutsApp(variant, sandbox.baseUrl);
      independent = await bff.userWithRoles(['ops']);
    });
    afterAll(async () => {
      await bff.close();
      await sandbox.stop();
    });

    /** The account's holder sets a password of their own (`POST /api/session/password`). */
    const ownPassword = async (who: TestClient & { email: string }) => {
      const res = await who.request('POST', '/api/session/password', {
        currentPassword: passwordFor(who.email),
        newPassword: `own-password-${randomUUID()}`,
      });
      expect(res.status, res.text).toBe(200);
    };
    const prepareBoth = async (by: TestClient) => {
      const payout = await post(by, '/api/payouts', cardPayout('4.10', { mode: 'single' }));
      expect(payout.status, payout.text).toBe(200);
      const link = await post(by, '/api/payment-links', {
        kind: 'payout-form',
        amount: '4.20',
        currency: 'EUR',
        orderDesc: 'Four-eyes payout form',
      });
      expect(link.status, link.text).toBe(200);
      return {
        payout: PayoutResultSchema.parse(payout.json).payout.id,
        link: PaymentLinkResultSchema.parse(link.json).link.id,
      };
    };
    /** What `viewer`'s screens offer on the two items (lists, detail flags, "awaiting my approval"). */
    const offers = async (viewer: TestClient, items: { payout: string; link: string }) => {
      const payouts = PayoutListSchema.parse((await viewer.get('/api/payouts?limit=200')).json);
      const payoutQueue = PayoutListSchema.parse(
        (await viewer.get('/api/payouts?view=awaiting-my-approval&limit=200')).json,
      );
      const links = PaymentLinkListSchema.parse(
        (await viewer.get('/api/payment-links?limit=200')).json,
      );
      const linkQueue = PaymentLinkListSchema.parse(
        (await viewer.get('/api/payment-links?view=awaiting-my-approval&limit=200')).json,
      );
      return [
        payouts.items.find((p) => p.id === items.payout)?.canDecide,
        payoutQueue.items.some((p) => p.id === items.payout),
        links.items.find((l) => l.id === items.link)?.canDecide,
        linkQueue.items.some((l) => l.id === items.link),
      ];
    };
    /** What `viewer`'s screens offer on the two items, and what its approvals answer. */
    const decide = async (viewer: TestClient, items: { payout: string; link: string }) => {
      const offered = await offers(viewer, items);
      const approvals = [
        await post(viewer, `/api/payouts/${items.payout}/approve`, {}),
        await post(viewer, `/api/payment-links/${items.link}/approve`, {}),
      ];
      return { offered, approvals };
    };

    it('when an admin creates two ops accounts with passwords of their choosing, then what one prepares the other cannot approve (403 FOUR_EYES_REQUIRED naming the admin, not offered); once the approver sets their own password, they can', async () => {
      const admin = await bff.userWithRoles(['admin']);
      const x = await accountCreatedBy(bff, admin, ['ops']);
      const y = await accountCreatedBy(bff, admin, ['ops']);
      const items = await prepareBoth(x);

      const before = await decide(y, items);
      expect(before.offered).toEqual([false, false, false, false]);
      for (const reply of before.approvals) {
        expect(reply.status, reply.text).toBe(403);
        expect(errorCode(reply)).toBe('FOUR_EYES_REQUIRED');
        expect((reply.json as ErrorEnvelope).error.message).toContain(
          `both accounts are controlled by the account ${admin.email}`,
        );
      }
      const refused = await bff.k
        .selectFrom('audit_log')
        .select(['action', 'outcome', 'error_code'])
        .where('target', 'in', [`payout:${items.payout}`, `link:${items.link}`])
        .where('action', 'in', ['payout.approve', 'payment_link.approve'])
        .orderBy('seq')
        .execute();
      expect(refused.map((r) => [r.action, r.outcome, r.error_code])).toEqual([
        ['payout.approve', 'refused', 'FOUR_EYES_REQUIRED'],
        ['payment_link.approve', 'refused', 'FOUR_EYES_REQUIRED'],
      ]);
      const states = async () => [
        (
          await bff.k
            .selectFrom('payouts')
            .select('state')
            .where('id', '=', items.payout)
            .executeTakeFirstOrThrow()
        ).state,
        (
          await bff.k
            .selectFrom('payment_links')
            .select('state')
            .where('id', '=', items.link)
            .executeTakeFirstOrThrow()
        ).state,
      ];
      expect(await states()).toEqual(['pending_approval', 'pending_approval']);
      // An account no one controls is offered both.
      const queue = PaymentLinkListSchema.parse(
        (await independent.get('/api/payment-links?view=awaiting-my-approval&limit=200')).json,
      );
      expect(queue.items.find((l) => l.id === items.link)?.canDecide).toBe(true);

      await ownPassword(y);
      const after = await decide(y, items);
      expect(after.approvals.map((r) => r.status)).toEqual([200, 200]);
      expect(await states()).toEqual(['processing', 'sent']);
    });

    it('when the preparer was created by an account another admin created, then that admin’s own ops account cannot approve (control passes through); the lists agree with the refusal', async () => {
      const top = await bff.userWithRoles(['admin']);
      const middle = await accountCreatedBy(bff, top, ['admin']);
      const x = await accountCreatedBy(bff, middle, ['ops']);
      const y = await accountCreatedBy(bff, top, ['ops']);
      const items = await prepareBoth(x);
      // An untied ops user sees them offered, so the lists do not just hide everything.
      const listed = PayoutListSchema.parse(
        (await independent.get('/api/payouts?view=awaiting-my-approval&limit=200')).json,
      );
      expect(listed.items.find((p) => p.id === items.payout)?.canDecide).toBe(true);

      const refused = await decide(y, items);
      expect(refused.offered).toEqual([false, false, false, false]);
      expect(refused.approvals.map((r) => [r.status, errorCode(r)])).toEqual([
        [403, 'FOUR_EYES_REQUIRED'],
        [403, 'FOUR_EYES_REQUIRED'],
      ]);
      // The middle admin sets its own password: top no longer controls it, nor through it x.
      await ownPassword(middle);
      const allowed = await decide(y, items);
      expect(allowed.approvals.map((r) => r.status)).toEqual([200, 200]);
    });

    it('when an admin who also approves payouts resets the password of an ops account that had chosen its own, then the admin cannot approve what that account prepared (403 FOUR_EYES_REQUIRED, not offered) until its holder chooses their own again', async () => {
      const admin = await bff.userWithRoles(['admin', 'ops']);
      // A new ops account: the admin chose its password, its holder then chose their own.
      const email = `reset-${randomUUID()}@paydesk.test`;
      // (None holds the e-mail: the BFF would refuse it as too easy to guess.)
      const secret = {
        byAdmin: passwordFor(`${email} admin`),
        own: passwordFor(`${email} own`),
        reset: passwordFor(`${email} reset`),
        ownAgain: passwordFor(`${email} own again`),
      };
      const created = await admin.request('POST', '/api/users', {
        email,
        name: 'Reset later',
        password: secret.byAdmin,
        roles: ['ops'],
        reason: 'Runs the payouts',
      });
      expect(created.status, created.text).toBe(201);
      const id = (created.json as { id: string }).id;
      const y = bff.client();
      expect((await y.login(email, secret.byAdmin)).status).toBe(200);
      const own = await y.request('POST', '/api/session/password', {
        currentPassword: secret.byAdmin,
        newPassword: secret.own,
      });
      expect(own.status, own.text).toBe(200);
      const items = await prepareBoth(y);
      // Not tied: the admin is offered both (not approved yet, so that they stay pending).
      expect(await offers(admin, items)).toEqual([true, true, true, true]);

      const reset = await admin.request('POST', `/api/users/${id}/reset-password`, {
        password: secret.reset,
        reason: 'forgot it',
      });
      expect(reset.status, reset.text).toBe(200);
      const before = await decide(admin, items);
      expect(before.offered).toEqual([false, false, false, false]);
      for (const reply of before.approvals) {
        expect(reply.status, reply.text).toBe(403);
        expect(errorCode(reply)).toBe('FOUR_EYES_REQUIRED');
        expect((reply.json as ErrorEnvelope).error.message).toContain(
          `your account (or an account it controls) chose the password of the preparer's account`,
        );
      }
      // An untied ops user still may.
      expect(await offers(independent, items)).toEqual([true, true, true, true]);

      // The holder signs in with the reset password (nothing else works until they choose) and
      // chooses their own: the admin's control ends.
      const again = bff.client();
      expect((await again.login(email, secret.reset)).status).toBe(200);
      expect(errorCode(await again.get('/api/payouts'))).toBe('PASSWORD_CHANGE_REQUIRED');
      const chosen = await again.request('POST', '/api/session/password', {
        currentPassword: secret.reset,
        newPassword: secret.ownAgain,
      });
      expect(chosen.status, chosen.text).toBe(200);
      const after = await decide(admin, items);
      expect(after.approvals.map((r) => r.status)).toEqual([200, 200]);
    });
  });
}
