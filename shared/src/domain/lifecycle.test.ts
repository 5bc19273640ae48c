import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  voidedMinor,
  netMinor,
  isPartlyCaptured,
  allowedFollowUps,
  canSettle,
  decideCapture,
  decideCardRef,
  decidePayoutPay,
  decideReturn,
  decideVoid,
  stageOf,
  type OrderFacts,
} from './index.js';

function facts(overrides: Partial<OrderFacts> = {}): OrderFacts {
  return {
    kind: 'sale',
    status: 'approved',
    authorizedMinor: 1000n,
    capturedMinor: 1000n,
    returnedMinor: 0n,
    captured: true,
    voided: false,
    holdCancelled: false,
    settled: false,
    hasCard: true,
    ...overrides,
  };
}

const preauth = (overrides: Partial<OrderFacts> = {}) =>
  facts({ kind: 'preauth', capturedMinor: 0n, captured: false, ...overrides });

describe('capture', () => {
  it('when an approved preauth is captured without an amount, then the whole hold is captured', () => {
    expect(decideCapture(preauth())).toEqual({ ok: true, value: 1000n });
  });
  it('when the capture is partial, then that amount is captured', () => {
    expect(decideCapture(preauth(), 400n)).toEqual({ ok: true, value: 400n });
  });
  it('when the capture exceeds the authorized amount, then it is refused', () => {
    const d = decideCapture(preauth(), 1001n);
    expect(d.ok).toBe(false);
    expect(!d.ok && d.reason).toMatch(/exceeds the authorized/);
  });
  it('when the preauth was already captured, then a second capture is refused', () => {
    expect(decideCapture(preauth({ captured: true, capturedMinor: 500n })).ok).toBe(false);
  });
  it('when the order is a sale, then capture is refused', () => {
    expect(decideCapture(facts()).ok).toBe(false);
  });
  it('when the preauth is declined, processing or voided, then capture is refused', () => {
    expect(decideCapture(preauth({ status: 'declined' })).ok).toBe(false);
    expect(decideCapture(preauth({ status: 'processing' })).ok).toBe(false);
    expect(decideCapture(preauth({ voided: true })).ok).toBe(false);
    expect(decideCapture(preauth({ holdCancelled: true })).ok).toBe(false);
  });
});

describe('void', () => {
  it('when a sale is approved and unsettled, then it may be voided', () => {
    expect(decideVoid(facts()).ok).toBe(true);
  });
  it('when an uncaptured preauth is approved, then it may be voided', () => {
    expect(decideVoid(preauth()).ok).toBe(true);
  });
  it('when the sale is settled, then void is refused and return is suggested', () => {
    const d = decideVoid(facts({ settled: true }));
    expect(!d.ok && d.reason).toMatch(/settled/);
  });
  it('when something was returned, then void is refused', () => {
    expect(decideVoid(facts({ returnedMinor: 1n })).ok).toBe(false);
  });
  it('when the order was voided already or is a payout, then void is refused', () => {
    expect(decideVoid(facts({ voided: true })).ok).toBe(false);
    expect(decideVoid(facts({ kind: 'payout' })).ok).toBe(false);
  });
});

describe('return', () => {
  it('when no amount is given, then the rest of the captured amount is returned', () => {
    expect(decideReturn(facts({ returnedMinor: 300n }))).toEqual({
      ok: true,
      value: { kind: 'refund', amountMinor: 700n },
    });
  });
  it('when the order is not approved, then return is refused', () => {
    for (const status of ['processing', 'declined', 'error', 'filtered'] as const) {
      expect(decideReturn(facts({ status })).ok).toBe(false);
    }
  });
  it('when the amount exceeds what remains, then return is refused', () => {
    expect(decideReturn(facts({ returnedMinor: 600n }), 401n).ok).toBe(false);
    expect(decideReturn(facts({ returnedMinor: 600n }), 400n).ok).toBe(true);
  });
  it('when everything was returned, then a further return is refused', () => {
    expect(decideReturn(facts({ returnedMinor: 1000n })).ok).toBe(false);
  });
  it('when the preauth is uncaptured, then a return cancels the whole hold and refuses a partial', () => {
    expect(decideReturn(preauth())).toEqual({
      ok: true,
      value: { kind: 'cancel-hold', amountMinor: 1000n },
    });
    expect(decideReturn(preauth(), 10n).ok).toBe(false);
  });
  it('when the preauth was captured in part, then returns are capped by the captured amount', () => {
    const captured = preauth({ captured: true, capturedMinor: 400n });
    expect(decideReturn(captured, 401n).ok).toBe(false);
    expect(decideReturn(captured, 400n).ok).toBe(true);
  });
  it('when partial returns follow each other, then their sum never exceeds the captured amount', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: 100_000n }),
        fc.array(fc.bigInt({ min: 1n, max: 50_000n }), { maxLength: 30 }),
        (captured, requests) => {
          let state = facts({ authorizedMinor: captured, capturedMinor: captured });
          for (const amount of requests) {
            const d = decideReturn(state, amount);
            if (d.ok)
              state = { ...state, returnedMinor: state.returnedMinor + d.value.amountMinor };
          }
          return state.returnedMinor <= state.capturedMinor;
        },
      ),
    );
  });
});

describe('card refs and payouts', () => {
  it('when the order is approved with a card, then a card ref may be created', () => {
    expect(decideCardRef(facts()).ok).toBe(true);
    expect(decideCardRef(facts({ hasCard: false })).ok).toBe(false);
    expect(decideCardRef(facts({ status: 'declined' })).ok).toBe(false);
  });
  it('when a payout is registered, then it may be paid once and not after expiry', () => {
    const payout = facts({ kind: 'payout', payoutStage: 'registered' });
    expect(decidePayoutPay(payout).ok).toBe(true);
    expect(decidePayoutPay({ ...payout, payoutStage: 'paid' }).ok).toBe(false);
    expect(decidePayoutPay({ ...payout, payoutStage: 'paying' }).ok).toBe(false);
    const expired = decidePayoutPay({ ...payout, payoutStage: 'expired' });
    expect(!expired.ok && expired.reason).toMatch(/expired/);
    expect(decidePayoutPay(facts()).ok).toBe(false);
  });
});

describe('stages and follow-ups', () => {
  it('when an order moves through its life, then its stage says where it is', () => {
    expect(stageOf(preauth())).toBe('authorized');
    expect(stageOf(preauth({ captured: true, capturedMinor: 500n }))).toBe('captured');
    expect(stageOf(facts({ returnedMinor: 10n }))).toBe('partially_returned');
    expect(stageOf(facts({ returnedMinor: 1000n }))).toBe('returned');
    expect(stageOf(facts({ voided: true }))).toBe('voided');
    expect(stageOf(facts({ settled: true }))).toBe('settled');
    expect(stageOf(facts({ status: 'declined' }))).toBe('declined');
    expect(stageOf(facts({ kind: 'payout', payoutStage: 'registered' }))).toBe('registered');
  });
  it('when a preauth is approved, then capture, void, return and card ref may follow', () => {
    expect(allowedFollowUps(preauth())).toEqual(['capture', 'void', 'return', 'create-card-ref']);
    expect(allowedFollowUps(facts({ status: 'declined' }))).toEqual([]);
  });
  it('when a charge is approved and captured, then it settles; an uncaptured hold does not', () => {
    expect(canSettle(facts())).toBe(true);
    expect(canSettle(preauth())).toBe(false);
    expect(canSettle(facts({ voided: true }))).toBe(false);
  });
});

describe('voided amount', () => {
  it('when an order is voided, then the void gave back what was captured, or the hold when nothing was; otherwise there is none', () => {
    const order = { authorizedMinor: 6500n, capturedMinor: 2500n };
    expect(voidedMinor({ ...order, stage: 'voided' })).toBe(2500n);
    expect(voidedMinor({ ...order, capturedMinor: 0n, stage: 'voided' })).toBe(6500n);
    expect(voidedMinor({ ...order, stage: 'captured' })).toBeNull();
    expect(voidedMinor({ ...order, stage: null })).toBeNull();
  });
});

describe('net amount', () => {
  const sale = {
    type: 'sale',
    status: 'approved',
    stage: 'captured',
    capturedMinor: 2500n,
    returnedMinor: 0n,
  };
  const preauth = { ...sale, type: 'preauth', stage: 'authorized', capturedMinor: 0n };

  it('when a sale is approved, then it kept what was captured less what was returned', () => {
    expect(netMinor(sale)).toBe(2500n);
    expect(netMinor({ ...sale, stage: 'settled' })).toBe(2500n);
    expect(netMinor({ ...sale, stage: 'partially_returned', returnedMinor: 1000n })).toBe(1500n);
    expect(netMinor({ ...sale, stage: 'returned', returnedMinor: 2500n })).toBe(0n);
  });

  it('when a sale was voided, then it kept nothing though its captured amount stays', () => {
    expect(netMinor({ ...sale, stage: 'voided' })).toBe(0n);
  });

  it('when a preauth was captured in part and then returned, then it kept the captured part less the return', () => {
    const captured = { ...preauth, stage: 'captured', capturedMinor: 1200n };
    expect(netMinor(captured)).toBe(1200n);
    expect(netMinor({ ...captured, stage: 'partially_returned', returnedMinor: 200n })).toBe(1000n);
    // voided after the capture: everything went back
    expect(netMinor({ ...captured, stage: 'voided' })).toBe(0n);
  });

  it('when nothing was captured (a hold, cancelled by a return or not), then it kept nothing, never less', () => {
    expect(netMinor(preauth)).toBe(0n);
    expect(netMinor({ ...preauth, stage: 'hold_cancelled', returnedMinor: 6500n })).toBe(0n);
  });

  it('when the order is not approved, then it kept nothing', () => {
    for (const status of ['declined', 'error', 'filtered', 'processing', 'unknown']) {
      expect(netMinor({ ...sale, status, stage: status }), status).toBe(0n);
    }
  });

  it("when the order is a payout's, then there is no net: its money is what was paid out", () => {
    expect(netMinor({ ...sale, type: 'payout', stage: 'paid', capturedMinor: 0n })).toBeNull();
    expect(netMinor({ ...sale, type: 'payout-check', stage: 'registered' })).toBeNull();
    expect(netMinor({ ...sale, type: 'payout', status: 'declined' })).toBeNull();
  });
});

describe('partly captured', () => {
  it('when a preauth was captured in part, then it is partly captured whatever its stage says; a whole or no capture, or a sale, is not', () => {
    const preauth = { type: 'preauth', authorizedMinor: 12000n };
    expect(isPartlyCaptured({ ...preauth, capturedMinor: 5000n })).toBe(true);
    expect(isPartlyCaptured({ ...preauth, capturedMinor: 11999n })).toBe(true);
    expect(isPartlyCaptured({ ...preauth, capturedMinor: 12000n })).toBe(false);
    expect(isPartlyCaptured({ ...preauth, capturedMinor: 0n })).toBe(false);
    expect(isPartlyCaptured({ type: 'sale', authorizedMinor: 12000n, capturedMinor: 5000n })).toBe(
      false,
    );
  });
});
