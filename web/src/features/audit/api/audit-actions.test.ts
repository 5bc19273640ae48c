import { describe, expect, it } from 'vitest';
import { AUDIT_ACTION_WORDS, PLATFORM_AUDIT_ACTIONS, auditActionWords } from '@paydesk/shared/api';
import { auditActionLabel, auditAttemptLabel } from './audit-actions';

/**
 * Every action the BFF writes. The route rules live in the BFF, which the web does not import, so
 * this is a fixed list: the `action:` of each rule in bff/src/http/route-table.ts,
 * bff/src/payments/route-rules.ts, bff/src/payouts/route-rules.ts and bff/src/views/route-rules.ts,
 * and the actions the BFF's own work writes (`ctx.audit.action` in bff/src/payouts/routes.ts, the
 * reconcilers' and pollers' `systemAudit`/`appendIn` rows). A new action added there belongs here
 * too: `grep -rn "action: '" bff/src` and `grep -rn "systemAudit('" bff/src`.
 */
const BFF_ACTIONS = [
  // bff/src/http/route-table.ts
  'session.login',
  'session.read',
  'session.logout',
  'session.password_change',
  'session.totp_enrol',
  'session.totp_confirm',
  'user.list',
  'user.create',
  'user.update',
  'user.reset_totp',
  'user.reset_password',
  'user.unlock_sign_in',
  'audit.list',
  'audit.verify',
  'audit.export',
  // bff/src/payments/route-rules.ts
  'transaction.list',
  'transaction.export',
  'transaction.lookup',
  'transaction.read',
  'transaction.refresh',
  'transaction.drift_reviewed',
  'transaction.capture',
  'transaction.return',
  'transaction.void',
  'transaction.card_ref',
  'transaction.rebill',
  'subscription.list',
  'subscription.create',
  'subscription.read',
  'events.subscribe',
  'stats.read',
  // bff/src/payouts/route-rules.ts, and the withdrawals of bff/src/payouts/routes.ts
  'payout.list',
  'payout.prepare',
  'payout.read',
  'payout.approve',
  'payout.pay_again',
  'payout.reject',
  'payout.refresh',
  'payout.withdraw',
  'payment_link.list',
  'payment_link.create',
  'payment_link.read',
  'payment_link.refresh',
  'payment_link.approve',
  'payment_link.reject',
  'payment_link.withdraw',
  'card.list',
  'card.info',
  // bff/src/views/route-rules.ts
  'view.list',
  'view.create',
  'view.delete',
  // Paydesk's own work: payments (drift.ts, ledger.ts, reconciler.ts, subscriptions.ts) and
  // payouts (service.ts, poller.ts, links.ts)
  'transaction.drift',
  'transaction.reconcile',
  'transaction.reconcile_gave_up',
  'subscription.reconcile',
  'payout.checked',
  'payout.drift',
  'payout.reconciled',
  'payout.reconcile_gave_up',
  'payout.expired',
  'payment_link.reconciled',
  // the gateway callback receiver's refusals of a missing or wrong control
  // (bff/src/payments/routes.ts `callbackRouter`)
  'gateway.callback',
] as const;

describe('audit actions in words', () => {
  it.each([...new Set([...BFF_ACTIONS, ...PLATFORM_AUDIT_ACTIONS])])(
    'when the BFF writes %s, then the audit log has words for it, not its name',
    (action) => {
      const label = auditActionWords(action);
      expect(label, `no words for ${action}`).toBeDefined();
      expect(auditActionLabel(action)).toBe(label);
      // Words, not a machine name: no dots or underscores, a capital first.
      expect(label).not.toMatch(/[._]/);
      expect(label).toMatch(/^[A-Z]/);
    },
  );

  it('when the auditor reads the QA’s examples, then they are said as people say them', () => {
    expect(auditActionLabel('session.login')).toBe('Signed in');
    expect(auditActionLabel('payout.approve')).toBe('Approved a payout');
    expect(auditActionLabel('card.info')).toBe('Looked up card details');
  });

  it('when an action was refused or failed, then it reads as what was tried, for every action a person asks (QA: "Approved a payout" beside Refused read as done)', () => {
    expect(auditAttemptLabel('payout.approve')).toBe('Tried to approve a payout');
    expect(auditAttemptLabel('session.login')).toBe('Tried to sign in');
    expect(auditAttemptLabel('payout.withdraw')).toBe('Tried to withdraw own payout');
    expect(auditAttemptLabel('card.info')).toBe('Tried to look up card details');
    expect(auditAttemptLabel('gateway.callback')).toBe('Tried to deliver a gateway callback');
    // Every past-tense action has its attempt: no "Tried to Approved", no words left as done.
    for (const action of BFF_ACTIONS) {
      const attempt = auditAttemptLabel(action);
      const label = auditActionLabel(action);
      if (attempt === label) {
        expect(label, action).toMatch(/^(Gateway|Approval) /);
      } else {
        expect(attempt, action).toMatch(/^Tried to [a-z]+ /);
      }
    }
  });

  it('when an action is one this screen does not know (a newer BFF), then its name still reads as words', () => {
    expect(auditActionLabel('payment_link.resend_page')).toBe('Payment link: resend page');
    expect(auditActionLabel('odd')).toBe('Odd');
  });

  it('when the words are listed, then every one belongs to an action the BFF writes (none left over)', () => {
    expect(Object.keys(AUDIT_ACTION_WORDS).sort()).toEqual([...BFF_ACTIONS].sort());
  });
});
