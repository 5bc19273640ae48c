// One fault scenario: a capture, a return, a void, a rebill and a payout-pay, each on its own
// order, sent through the BFF while a fault is in force; then the checks every scenario ends with:
// each request reached the gateway at most once, every operation is final and equal to the
// gateway's record (operations by serial, totals, status, stage), the audit chain verifies and
// every attempt has its audit row.
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import {
  AuditListResponseSchema,
  AuditVerifyResponseSchema,
  PayoutResultSchema,
  TransactionPageSchema,
  type AuditOutcome,
  type AuditRow,
} from '@paydesk/shared/api';
import { formatMinorUnits } from '@paydesk/shared/protocol';
import { until } from './processes.js';
import {
  cardReference,
  checkedPayout,
  operationResult,
  payout,
  placeOrder,
  transaction,
  type ApiReply,
  type Staff,
  type World,
} from './world.js';

export type AttemptKind = 'capture' | 'return' | 'void' | 'rebill' | 'payout-pay';

export const GATEWAY_OPERATION: Record<AttemptKind, string> = {
  capture: 'capture',
  return: 'return',
  void: 'void',
  rebill: 'make-rebill',
  'payout-pay': 'payout-pay',
};

const AUDIT_ACTION: Record<AttemptKind, string> = {
  capture: 'transaction.capture',
  return: 'transaction.return',
  void: 'transaction.void',
  rebill: 'transaction.rebill',
  'payout-pay': 'payout.approve',
};

export interface Attempt {
  kind: AttemptKind;
  actor: Staff;
  /** the BFF transaction acted on (a rebill's own, once known) */
  transactionId: string | null;
  payoutId: string | null;
  amount: string | null;
  idempotencyKey: string;
  /** the BFF's answer; null when the BFF died before answering */
  reply: ApiReply | null;
}

/** What each attempt acts on: two preauths, a sale, a card reference and a checked payout. */
export interface Targets {
  preauthToCapture: string;
  preauthToVoid: string;
  saleToReturn: string;
  cardRefId: string;
  payoutId: string;
  /** unique per scenario, so the rebill's own order can be found when its reply is lost */
  rebillAmount: string;
}

let rebillCounter = 0;

export async function prepareTargets(w: World): Promise<Targets> {
  rebillCounter += 1;
  const [capture, voiding, sale, cardRefId, checked] = await Promise.all([
    placeOrder(w, 'preauth', '30.00'),
    placeOrder(w, 'preauth', '20.00'),
    placeOrder(w, 'sale', '40.00'),
    cardReference(w),
    checkedPayout(w, '12.00'),
  ]);
  return {
    preauthToCapture: capture.id,
    preauthToVoid: voiding.id,
    saleToReturn: sale.id,
    cardRefId,
    payoutId: checked.id,
    rebillAmount: formatMinorUnits(700n + BigInt(rebillCounter)),
  };
}

/** Sends one attempt of each kind at once; `send` resolves when each has its reply (or failed). */
export function sendAll(w: World, t: Targets): { attempts: Attempt[]; replies: Promise<void> } {
  const attempts: Attempt[] = [
    {
      kind: 'capture',
      actor: w.finance,
      transactionId: t.preauthToCapture,
      payoutId: null,
      amount: '25.00',
      idempotencyKey: randomUUID(),
      reply: null,
    },
    {
      kind: 'return',
      actor: w.finance,
      transactionId: t.saleToReturn,
      payoutId: null,
      amount: '15.00',
      idempotencyKey: randomUUID(),
      reply: null,
    },
    {
      kind: 'void',
      actor: w.finance,
      transactionId: t.preauthToVoid,
      payoutId: null,
      amount: null,
      idempotencyKey: randomUUID(),
      reply: null,
    },
    {
      kind: 'rebill',
      actor: w.finance,
      transactionId: null,
      payoutId: null,
      amount: t.rebillAmount,
      idempotencyKey: randomUUID(),
      reply: null,
    },
    {
      kind: 'payout-pay',
      actor: w.opsB,
      transactionId: null,
      payoutId: t.payoutId,
      amount: '12.00',
      idempotencyKey: randomUUID(),
      reply: null,
    },
  ];
  const replies = Promise.all(
    attempts.map(async (a) => {
      try {
        a.reply = await send(a, t);
      } catch {
        a.reply = null; // the BFF went away mid-request
      }
    }),
  ).then(() => undefined);
  return { attempts, replies };
}

/** The attempt's request (again, with the same Idempotency-Key, when repeated). */
export function send(a: Attempt, t: Targets): Promise<ApiReply> {
  switch (a.kind) {
    case 'capture':
      return a.actor.post(
        `/api/transactions/${a.transactionId ?? ''}/capture`,
        { amount: a.amount },
        a.idempotencyKey,
      );
    case 'return':
      return a.actor.post(
        `/api/transactions/${a.transactionId ?? ''}/return`,
        { amount: a.amount, reasonCode: 'customer_request', comment: 'fault suite return' },
        a.idempotencyKey,
      );
    case 'void':
      return a.actor.post(
        `/api/transactions/${a.transactionId ?? ''}/void`,
        { comment: 'fault suite void' },
        a.idempotencyKey,
      );
    case 'rebill':
      return a.actor.post(
        '/api/rebills',
        {
          cardRefId: t.cardRefId,
          amount: a.amount,
          currency: 'EUR',
          orderDesc: 'Fault suite rebill',
          reason: 'fault suite rebill',
        },
        a.idempotencyKey,
      );
    case 'payout-pay':
      return a.actor.post(`/api/payouts/${a.payoutId ?? ''}/approve`, {}, a.idempotencyKey);
  }
}

/** The state the BFF answered with: the operation's, or the payout's. */
export function answeredState(a: Attempt): string | null {
  if (a.reply?.status !== 200) return null;
  if (a.kind === 'payout-pay') return PayoutResultSchema.parse(a.reply.json).payout.state;
  return operationResult(a.reply).operation.state;
}

const PENDING_OPERATION = new Set(['sending', 'unknown', 'processing']);
const PENDING_PAYOUT = new Set(['sending', 'unknown', 'processing', 'checking']);

/** The rebill's own order: by its reply, or (reply lost) by its unique amount. */
async function rebillTransactionId(w: World, a: Attempt): Promise<string> {
  if (a.transactionId !== null) return a.transactionId;
  if (a.reply?.status === 200) {
    a.transactionId = operationResult(a.reply).transaction.id;
    return a.transactionId;
  }
  const amount = a.amount ?? '';
  const r = await w.finance.get(
    `/api/transactions?type=rebill&amountMin=${amount}&amountMax=${amount}`,
  );
  const page = TransactionPageSchema.parse(r.json);
  expect(page.items, `one rebill of ${amount}`).toHaveLength(1);
  a.transactionId = page.items[0]?.id ?? '';
  return a.transactionId;
}

/** Waits until every attempt's outcome is final at the BFF (nothing sending/unknown/processing). */
export async function settle(w: World, attempts: Attempt[], timeoutMs = 25_000): Promise<void> {
  for (const a of attempts) {
    if (a.kind === 'payout-pay') {
      await until(
        `payout ${a.payoutId ?? ''} final`,
        async () => {
          const p = await payout(w, a.payoutId ?? '');
          return PENDING_PAYOUT.has(p.state) ? undefined : true;
        },
        timeoutMs,
      );
      continue;
    }
    const id = await rebillTransactionId(w, a);
    await until(
      `${a.kind} on ${id} final`,
      async () => {
        const t = await transaction(w, id);
        const open = t.operations.some(
          (o) => o.origin === 'paydesk' && PENDING_OPERATION.has(o.state),
        );
        return open || t.status === 'unknown' || t.status === 'processing' ? undefined : true;
      },
      timeoutMs,
    );
  }
}

/**
 * The audit outcome a reply implies: refused (4xx), failed (5xx), unknown (answered, but the
 * gateway's reply to it was lost), else success.
 */
function outcomeOf(reply: ApiReply): AuditOutcome {
  if (reply.status >= 500) return 'failed';
  if (reply.status >= 400) return 'refused';
  const body = reply.json as { operation?: { state?: string }; payout?: { state?: string } };
  return (body.operation?.state ?? body.payout?.state) === 'unknown' ? 'unknown' : 'success';
}

async function auditRows(w: World, action: string, target: string): Promise<AuditRow[]> {
  const r = await w.admin.get(
    `/api/audit?action=${encodeURIComponent(action)}&target=${encodeURIComponent(target)}&pageSize=500`,
  );
  expect(r.status, r.text).toBe(200);
  return AuditListResponseSchema.parse(r.json).items;
}

/** The audit chain verifies (an auditor asks the BFF). */
export async function expectAuditChainIntact(w: World): Promise<void> {
  const r = await w.admin.get('/api/audit/verify');
  expect(r.status, r.text).toBe(200);
  const verdict = AuditVerifyResponseSchema.parse(r.json);
  expect(verdict).toMatchObject({ ok: true, firstBrokenSeq: null, reason: null });
}

export interface Expectation {
  /** whether the gateway applied the operations (false: it never did) */
  applied: boolean;
  /** index into the sandbox's request log where this scenario began */
  requestsFrom: number;
}

/**
 * The checks every scenario ends with. Call after settle(). `unknownAtReply` attempts (the BFF
 * answered `unknown`, or never answered) must have been reconciled, and that reconciliation
 * audited with the operation and who asked for it.
 */
export async function expectGatewayTruth(
  w: World,
  attempts: Attempt[],
  expectation: Expectation,
): Promise<void> {
  // Each request reached the gateway exactly once: never re-sent, whatever happened.
  // (The gateway's log lines reach this process asynchronously: wait for the expected count, then
  // insist on it.)
  for (const kind of new Set(attempts.map((a) => a.kind))) {
    const op = GATEWAY_OPERATION[kind];
    const expected = attempts.filter((a) => a.kind === kind).length;
    const count = () =>
      w.sandbox.requests.slice(expectation.requestsFrom).filter((r) => r.operation === op).length;
    await until(
      `${op} in the gateway log`,
      () => Promise.resolve(count() >= expected ? true : undefined),
      5_000,
    ).catch(() => undefined);
    expect(count(), `${op} requests at the gateway`).toBe(expected);
  }

  for (const a of attempts) {
    const reconciled = a.reply === null || answeredState(a) === 'unknown';
    if (a.kind === 'payout-pay') {
      await expectPayoutTruth(w, a, expectation.applied, reconciled);
      continue;
    }
    const id = await rebillTransactionId(w, a);
    const t = await transaction(w, id);
    const ours = t.operations.filter((o) => o.origin === 'paydesk' && o.kind === a.kind);
    expect(ours, `${a.kind}: one operation of ours`).toHaveLength(1);
    const op = ours[0];
    if (op === undefined) continue;
    expect(op.requestedBy).toBe(a.actor.email);
    expect(t.amounts.reserved, `${a.kind}: nothing left reserved`).toBe('0.00');

    if (a.kind === 'rebill' && !expectation.applied) {
      // The gateway never created the order: status by client_orderid does not know it.
      expect(op.state).toBe('not_applied');
      expect(t).toMatchObject({ status: 'error', stage: 'not_created' });
      const status = await w.sandbox.client.call('status', 1001, {
        login: 'paydesk-faults',
        client_orderid: t.clientOrderId,
      });
      expect(status.httpStatus).toBe(404);
    } else {
      const order = await w.sandbox.order(t.orderid);
      // Operation by operation: what the gateway lists, Paydesk lists with the same state.
      for (const g of order.operations) {
        const mine = t.operations.filter((o) => o.gatewaySerial === g.serial);
        expect(mine, `${a.kind}: the gateway's ${g.type} ${g.serial} once at Paydesk`).toHaveLength(
          1,
        );
        expect(mine[0]?.state).toBe(g.status);
      }
      for (const o of t.operations.filter((x) => x.gatewaySerial !== null))
        expect(order.operations.map((g) => g.serial)).toContain(o.gatewaySerial);
      const gatewayKind = a.kind === 'rebill' ? 'rebill' : a.kind;
      expect(
        order.operations.filter((g) => g.type === gatewayKind),
        `${a.kind} operations at the gateway`,
      ).toHaveLength(expectation.applied ? 1 : 0);
      expect(op.state).toBe(expectation.applied ? 'approved' : 'not_applied');
      // Totals, status and stage as the gateway has them.
      expect({
        status: t.status,
        stage: t.stage,
        captured: t.amounts.captured,
        returned: t.amounts.returned,
        drift: t.drift,
      }).toEqual({
        status: order.replyStatus,
        stage: order.orderStage,
        captured: formatMinorUnits(BigInt(order.capturedMinor)),
        returned: formatMinorUnits(BigInt(order.returnedMinor)),
        drift: false,
      });
    }

    // The attempt's own audit row (when the BFF lived to write it) ...
    const target = `transaction:${id}`;
    if (a.reply !== null) {
      const rows = await auditRows(w, AUDIT_ACTION[a.kind], target);
      const mine = rows.filter(
        (r) => r.requestId === a.reply?.requestId && r.actorEmail === a.actor.email,
      );
      expect(mine, `${a.kind}: its audit row`).toHaveLength(1);
      expect(mine[0]?.outcome, `${a.kind}: its audit outcome`).toBe(outcomeOf(a.reply));
    }
    // ... and, when its outcome was learned later, the reconciliation's, naming it and its initiator.
    if (reconciled) {
      const rows = await auditRows(w, 'transaction.reconcile', target);
      const mine = rows.filter((r) => r.summary.operationId === op.id);
      expect(
        mine,
        `${a.kind}: the reconciliation's audit row ${JSON.stringify(mine)}`,
      ).toHaveLength(1);
      expect(mine[0]).toMatchObject({
        outcome: expectation.applied ? 'success' : 'failed',
        summary: {
          operation: a.kind,
          requestedBy: a.actor.email,
          finding: expectation.applied ? 'applied' : 'not_applied',
        },
      });
    }
  }
  await expectAuditChainIntact(w);
}

async function expectPayoutTruth(
  w: World,
  a: Attempt,
  applied: boolean,
  reconciled: boolean,
): Promise<void> {
  const id = a.payoutId ?? '';
  const p = await payout(w, id);
  const order = await w.sandbox.order(p.orderid ?? '');
  const pays = order.operations.filter((g) => g.type === 'payout-pay');
  expect(p.decidedBy?.email).toBe(a.actor.email);
  if (applied) {
    expect(p.state).toBe('approved');
    expect(pays).toMatchObject([{ status: 'approved' }]);
    expect(order.orderStage).toBe('paid');
  } else {
    expect(p).toMatchObject({ state: 'failed', errorCode: 'NOT_APPLIED' });
    expect(pays).toEqual([]);
    expect(order.orderStage).toBe('registered');
  }
  const target = `payout:${id}`;
  if (a.reply !== null) {
    const rows = await auditRows(w, AUDIT_ACTION[a.kind], target);
    const mine = rows.filter(
      (r) => r.requestId === a.reply?.requestId && r.actorEmail === a.actor.email,
    );
    expect(mine, 'payout-pay: its audit row').toHaveLength(1);
    expect(mine[0]?.outcome, 'payout-pay: its audit outcome').toBe(outcomeOf(a.reply));
  }
  if (reconciled) {
    const rows = await auditRows(w, 'payout.reconciled', target);
    expect(rows, 'payout-pay: the reconciliation audit row').toHaveLength(1);
    expect(rows[0]).toMatchObject({
      outcome: applied ? 'success' : 'failed',
      summary: { state: applied ? 'approved' : 'failed', approvedBy: a.actor.email },
    });
  }
}
