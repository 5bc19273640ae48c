import { describe, expect, it } from 'vitest';
import { summaryKeyLabel, summaryText } from './audit-summary';

describe('audit summary labels', () => {
  it('when a key is one Paydesk writes, then its label says what it is', () => {
    expect(summaryKeyLabel('idempotencyKey')).toBe('Idempotency key');
    expect(summaryKeyLabel('replayed')).toBe('Replayed (stored reply)');
    expect(summaryKeyLabel('orderid')).toBe('Gateway order id');
    expect(summaryKeyLabel('clientOrderId')).toBe('Client order id');
  });

  it('when a key is unknown, then camelCase, snake_case and kebab-case read as words, acronyms kept', () => {
    expect(summaryKeyLabel('secondFactorGiven')).toBe('Second factor given');
    expect(summaryKeyLabel('last_error_code')).toBe('Last error code');
    expect(summaryKeyLabel('retry-after')).toBe('Retry after');
    expect(summaryKeyLabel('callbackURLHost')).toBe('Callback URL host');
    expect(summaryKeyLabel('amount')).toBe('Amount');
    expect(summaryKeyLabel('_')).toBe('_');
  });

  it('when values are nested, then their keys read as words too, empty ones are left out, flags are said by name and other values stay as recorded', () => {
    expect(
      summaryText({
        change: { roles: ['finance'], disabled: true },
        before: null,
        body: {},
        filter: { target: null },
        headSeq: 42,
        ok: true,
      }),
    ).toBe('Change: roles Finance, disabled · Chain head row: 42 · Chain intact: Yes');
  });

  it('when a user’s roles are recorded (created, changed), then they read as the Users screen names them', () => {
    expect(summaryText({ change: { roles: ['support', 'ops'] } }, 'user.update')).toBe(
      'Change: roles Support, Operations',
    );
    expect(
      summaryText({ email: 'a@example.com', roles: ['admin', 'auditor'] }, 'user.create'),
    ).toBe('E-mail: a@example.com · Roles: Administrator, Auditor');
    // a role this screen does not know stays as recorded
    expect(summaryText({ change: { roles: ['treasury'] } }, 'user.update')).toBe(
      'Change: roles treasury',
    );
  });

  it('when a value is true or false, then it reads Yes or No (QA F6)', () => {
    expect(summaryText({ secondFactorGiven: false, replayed: false }, 'session.login')).toBe(
      'Second factor given: No · Replayed (stored reply): No',
    );
    expect(summaryText({ check: 'explicit', ok: true }, 'audit.verify')).toBe(
      'Checked: on request · Chain intact: Yes',
    );
  });

  it('when a payout’s or link’s state, a kind or a mode is recorded, then it reads as the screens say it; ids and codes stay as recorded', () => {
    expect(summaryText({ result: 'pending_approval' }, 'payout.prepare')).toBe(
      'Result: Awaiting approval',
    );
    expect(summaryText({ state: 'approved', mode: 'two-step' }, 'payout.reconciled')).toBe(
      'State: Paid · Mode: Two-step (checked, then paid on approval)',
    );
    expect(summaryText({ kind: 'payout-form', result: 'sent' }, 'payment_link.create')).toBe(
      'Kind: Payout form · Result: Ready to share',
    );
    expect(summaryText({ status: 'unknown' }, 'transaction.capture')).toBe(
      'Status: Unknown outcome',
    );
    expect(
      summaryText({ destination: { kind: 'card', masked: '555555******4444' } }, 'payout.prepare'),
    ).toBe('Destination: Card 555555******4444');
    expect(
      summaryText({ errorCode: 'NOT_APPLIED', orderid: '1000332', state: 'whatever' }, 'payout.x'),
    ).toBe('Error code: NOT_APPLIED · Gateway order id: 1000332 · State: whatever');
  });

  it('when a refusal names its fields and rules, then each reads as its field with the rule in words', () => {
    expect(summaryText({ invalid: ['totp: wrong_code', 'amount: too_many_decimals'] })).toBe(
      'Invalid fields: totp (wrong code), amount (too many decimals)',
    );
    expect(summaryText({ invalid: ['no rule here'] })).toBe('Invalid fields: no rule here');
  });
});
