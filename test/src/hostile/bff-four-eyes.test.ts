// Four-eyes through every route that can release money someone prepared: POST /api/payouts/:id/approve
// (two-step and single payouts) and POST /api/payment-links/:id/approve (payout-form links). "Another
// person" is what the product can tell apart: another account, and not one the preparer controls.
// So the preparer is refused from a second session, after their roles changed, with the admin
// role too, with an ops account they created, re-enabled or gave roles to (and the reverse), and
// through the other route's id or another approver's Idempotency-Key. Every refusal: 403/404/409
// with a message, audited as refused, no business state written, nothing sent to the gateway.
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '@paydesk/shared/api';
import {
  ADMIN,
  auditRowsFor,
  businessState,
  Client,
  startBff,
  type Account,
  type HostileBff,
  type Reply,
} from './support/bff.js';
import { PAN } from './support/arbitraries.js';
import { envelopeProblems, leaksOf } from './support/checks.js';
import { DB_VARIANTS } from './support/databases.js';

/** Sandbox paths that send money or release a payout page. */
const RELEASING =
  /\/api\/v4\/payout-pay\/|\/api\/v2\/payout\/|\/api\/v4\/payout\/|\/api\/v2\/payout-form\//;

type Kind = 'two-step payout' | 'single payout' | 'payout-form link';
const KINDS: Kind[] = ['two-step payout', 'single payout', 'payout-form link'];

interface Held {
  kind: Kind;
  id: string;
  /** the approve route of this kind */
  approvePath: string;
  /** the approve route of the other kind, with this id */
  otherApprovePath: string;
  action: string;
}

function codeOf(reply: Reply): string | undefined {
  return (reply.json as { error?: { code?: string } } | null)?.error?.code;
}

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(
    `four-eyes on every route that releases a payout (${variant.name})`,
    () => {
      let bff: HostileBff;
      let boot: Client;

      beforeAll(async () => {
        bff = await startBff(variant);
        boot = new Client(bff);
        expect((await boot.login(ADMIN.email, ADMIN.password)).status).toBe(200);
      });
      afterAll(async () => {
        await bff.close();
      });

      const releasing = () => bff.gateway.requests.filter((r) => RELEASING.test(r)).length;

      async function hold(kind: Kind, by: Client): Promise<Held> {
        const key: [string, string][] = [['Idempotency-Key', randomUUID()]];
        if (kind === 'payout-form link') {
          const res = await by.send('POST', '/api/payment-links', {
            headers: key,
            body: {
              json: { kind: 'payout-form', amount: '12.34', currency: 'EUR', orderDesc: 'Hostile' },
            },
          });
          expect(res.status, res.text).toBe(200);
          const id = (res.json as { link: { id: string; state: string } }).link.id;
          return {
            kind,
            id,
            approvePath: `/api/payment-links/${id}/approve`,
            otherApprovePath: `/api/payouts/${id}/approve`,
            action: 'payment_link.approve',
          };
        }
        const res = await by.send('POST', '/api/payouts', {
          headers: key,
          body: {
            json: {
              mode: kind === 'single payout' ? 'single' : 'two-step',
              destination: {
                kind: 'card',
                cardNumber: PAN,
                cardholderName: 'Jane Payee',
                expiryMonth: '12',
                expiryYear: '2035',
              },
              amount: '12.34',
              currency: 'EUR',
              orderDesc: 'Hostile',
            },
          },
        });
        expect(res.status, res.text).toBe(200);
        const payout = (res.json as { payout: { id: string; state: string } }).payout;
        expect(payout.state).toBe('pending_approval');
        return {
          kind,
          id: payout.id,
          approvePath: `/api/payouts/${payout.id}/approve`,
          otherApprovePath: `/api/payment-links/${payout.id}/approve`,
          action: 'payout.approve',
        };
      }

      /** An approval that must be refused: the code, a message, one refused audit row, nothing written or sent. */
      async function refused(
        who: Client,
        path: string,
        action: string,
        codes: string[],
        actorId: string,
        headers: [string, string][] = [['Idempotency-Key', randomUUID()]],
      ): Promise<Reply> {
        const before = await businessState(bff.db);
        const sent = releasing();
        const reply = await who.send('POST', path, { headers, body: { json: {} } });
        expect(codes, `${reply.status} ${reply.text}`).toContain(codeOf(reply));
        expect([403, 404, 409]).toContain(reply.status);
        expect(envelopeProblems(reply)).toEqual([]);
        expect(await businessState(bff.db)).toEqual(before);
        expect(releasing(), 'a refused approval reached the gateway').toBe(sent);
        const rows = await auditRowsFor(bff.db, reply.requestId);
        expect(rows.map((r) => [r.action, r.outcome, r.error_code, r.actor_id])).toEqual([
          [action, 'refused', codeOf(reply) ?? '', actorId],
        ]);
        return reply;
      }

      /** The state the held item is in (it must still wait after every refusal). */
      async function stateOf(held: Held): Promise<string> {
        const table = held.kind === 'payout-form link' ? 'payment_links' : 'payouts';
        const { rows } = await sql<{
          state: string;
        }>`select state from ${sql.table(table)} where id = ${held.id}`.execute(bff.db.k);
        return rows[0]?.state ?? 'missing';
      }

      async function approvedByOther(held: Held): Promise<void> {
        const other = await bff.account(['ops']);
        const sent = releasing();
        const ok = await other.client.send('POST', held.approvePath, {
          headers: [['Idempotency-Key', randomUUID()]],
          body: { json: {} },
        });
        expect(ok.status, ok.text).toBe(200);
        expect(releasing(), 'the genuine approval sent one releasing request').toBe(sent + 1);
      }

      for (const kind of KINDS) {
        it(`when the preparer of a ${kind} approves it from the same and from a second session, with the admin role and with another approver's Idempotency-Key, then 403 FOUR_EYES_REQUIRED every time, audited, nothing sent; another ops user's approval sends it once`, async () => {
          const preparer = await bff.account(['ops', 'admin']);
          const held = await hold(kind, preparer.client);
          const second = new Client(bff);
          expect((await second.login(preparer.email, preparer.password)).status).toBe(200);
          for (const session of [preparer.client, second]) {
            const reply = await refused(
              session,
              held.approvePath,
              held.action,
              ['FOUR_EYES_REQUIRED'],
              preparer.id,
            );
            expect((reply.json as { error: { message: string } }).error.message).toMatch(
              /two people/,
            );
          }
          expect(await stateOf(held)).toBe('pending_approval');

          // The genuine approver's key, replayed by the preparer, is the preparer's own (keys are per user).
          const other = await bff.account(['ops']);
          const key = randomUUID();
          const sent = releasing();
          const ok = await other.client.send('POST', held.approvePath, {
            headers: [['Idempotency-Key', key]],
            body: { json: {} },
          });
          expect(ok.status, ok.text).toBe(200);
          expect(releasing()).toBe(sent + 1);
          const replay = await refused(
            preparer.client,
            held.approvePath,
            held.action,
            ['FOUR_EYES_REQUIRED'],
            preparer.id,
            [['Idempotency-Key', key]],
          );
          expect(replay.headers.get('idempotent-replayed')).toBeNull();
        });

        it(`when a ${kind} is approved through the other kind's approve route, then 404, audited, nothing sent, and it still waits`, async () => {
          const preparer = await bff.account(['ops']);
          const held = await hold(kind, preparer.client);
          const other = await bff.account(['ops']);
          const otherAction =
            held.action === 'payout.approve' ? 'payment_link.approve' : 'payout.approve';
          for (const who of [preparer, other])
            await refused(who.client, held.otherApprovePath, otherAction, ['NOT_FOUND'], who.id);
          expect(await stateOf(held)).toBe('pending_approval');
        });
      }

      it('when the preparer’s roles change between prepare and approve, then without ops 403 FORBIDDEN, with ops and more roles again 403 FOUR_EYES_REQUIRED, also after being disabled and re-enabled', async () => {
        const preparer = await bff.account(['ops']);
        const held = await hold('two-step payout', preparer.client);
        const patch = async (body: object) => {
          const r = await boot.send('PATCH', `/api/users/${preparer.id}`, { body: { json: body } });
          expect(r.status, r.text).toBe(200);
        };
        await patch({ roles: ['finance'], reason: 'test' });
        await refused(preparer.client, held.approvePath, held.action, ['FORBIDDEN'], preparer.id);
        await patch({ roles: ['ops', 'finance', 'admin'], reason: 'test' });
        await refused(
          preparer.client,
          held.approvePath,
          held.action,
          ['FOUR_EYES_REQUIRED'],
          preparer.id,
        );
        await patch({ disabled: true, reason: 'test' });
        await patch({ disabled: false, reason: 'test' });
        const again = new Client(bff);
        expect((await again.login(preparer.email, preparer.password)).status).toBe(200);
        await refused(again, held.approvePath, held.action, ['FOUR_EYES_REQUIRED'], preparer.id);
        expect(await stateOf(held)).toBe('pending_approval');
        await approvedByOther(held);
      });

      describe('an admin who also prepares payouts and controls another ops account', () => {
        /**
         * An ops account the admin-preparer creates through the API, with a password of their
         * choosing. Such a password is temporary: the account can do nothing but choose its own
         * (checked here). Its flag is then cleared in the database, as for an account created before
         * temporary passwords (migration 0011), which acts with the password its creator chose: the
         * case four-eyes still guards against.
         */
        async function puppetOf(admin: Account, roles: Role[] = ['ops']): Promise<Account> {
          const puppet = await createdBy(admin, roles);
          const blocked = await puppet.client.send('GET', '/api/payouts');
          expect([blocked.status, codeOf(blocked)]).toEqual([403, 'PASSWORD_CHANGE_REQUIRED']);
          await bff.db.k
            .updateTable('users')
            .set({ password_temporary_at: null })
            .where('id', '=', puppet.id)
            .execute();
          return puppet;
        }

        /** An account `admin` creates through the API, signed in with the password `admin` chose. */
        async function createdBy(admin: Account, roles: Role[]): Promise<Account> {
          const email = `puppet-${randomUUID()}@paydesk.test`;
          // (Not holding its name: the BFF refuses a password holding the account's e-mail or name.)
          const password = `pw-${randomUUID()}`;
          bff.secrets.push(password);
          const created = await admin.client.send('POST', '/api/users', {
            body: { json: { email, name: 'Puppet', password, roles, reason: 'test' } },
          });
          expect(created.status, created.text).toBe(201);
          const client = new Client(bff);
          expect((await client.login(email, password)).status).toBe(200);
          return { id: (created.json as { id: string }).id, email, password, roles, client };
        }

        it('when an account the preparer just created (its password still the one the preparer chose) approves the preparer’s payout, then 403 PASSWORD_CHANGE_REQUIRED, audited, nothing sent', async () => {
          const admin = await bff.account(['ops', 'admin']);
          const fresh = await createdBy(admin, ['ops']);
          for (const kind of KINDS) {
            const held = await hold(kind, admin.client);
            await refused(
              fresh.client,
              held.approvePath,
              held.action,
              ['PASSWORD_CHANGE_REQUIRED'],
              fresh.id,
            );
            expect(await stateOf(held)).toBe('pending_approval');
          }
        });

        for (const kind of KINDS) {
          it(`when an account the preparer created approves the preparer's ${kind}, or the preparer approves one its created account prepared, then 403 FOUR_EYES_REQUIRED, audited, nothing sent`, async () => {
            const admin = await bff.account(['ops', 'admin']);
            const puppet = await puppetOf(admin);
            const byAdmin = await hold(kind, admin.client);
            await refused(
              puppet.client,
              byAdmin.approvePath,
              byAdmin.action,
              ['FOUR_EYES_REQUIRED'],
              puppet.id,
            );
            const byPuppet = await hold(kind, puppet.client);
            await refused(
              admin.client,
              byPuppet.approvePath,
              byPuppet.action,
              ['FOUR_EYES_REQUIRED'],
              admin.id,
            );
            expect(await stateOf(byAdmin)).toBe('pending_approval');
            expect(await stateOf(byPuppet)).toBe('pending_approval');
            await approvedByOther(byAdmin);
          });
        }

        it('when the preparer re-enabled an ops account or gave an account the ops role, then that account cannot approve the preparer’s payouts; an account the preparer only renamed can', async () => {
          const admin = await bff.account(['ops', 'admin']);
          const held = await hold('two-step payout', admin.client);
          const reenabled = await bff.account(['ops']);
          const promoted = await bff.account(['support']);
          const renamed = await bff.account(['ops']);
          const patch = async (user: Account, body: object) => {
            const r = await admin.client.send('PATCH', `/api/users/${user.id}`, {
              body: { json: body },
            });
            expect(r.status, r.text).toBe(200);
          };
          await patch(reenabled, { disabled: true, reason: 'test' });
          await patch(reenabled, { disabled: false, reason: 'test' });
          await patch(promoted, { roles: ['support', 'ops'], reason: 'test' });
          await patch(renamed, { name: 'Renamed' });
          for (const user of [reenabled, promoted]) {
            const client = new Client(bff);
            expect((await client.login(user.email, user.password)).status).toBe(200);
            await refused(client, held.approvePath, held.action, ['FOUR_EYES_REQUIRED'], user.id);
          }
          const sent = releasing();
          const ok = await renamed.client.send('POST', held.approvePath, {
            headers: [['Idempotency-Key', randomUUID()]],
            body: { json: {} },
          });
          expect(ok.status, ok.text).toBe(200);
          expect(releasing()).toBe(sent + 1);
        });
      });

      it('when the suite is over, then no reply, log line (BFF or sandbox) or audit row holds a card number or a secret', async () => {
        expect(bff.captured.length).toBeGreaterThan(10);
        const leaks = await leaksOf(bff);
        expect(leaks, JSON.stringify(leaks.slice(0, 10), null, 2)).toEqual([]);
      });
    },
  );
}
