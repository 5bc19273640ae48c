// The ledger's handling of `status` replies that arrive late (sent before our latest operation
// reached the gateway): totals and operation states never move backwards under an accepted return.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql, type Kysely } from 'kysely';
import { ManualClock } from '../clock.js';
import { openDatabase, type Db } from '../db/connect.js';
import { AuditLog } from '../services/audit.js';
import { DB_VARIANTS } from '../test-support/harness.js';
import { payDb, type PayTrx } from './db.js';
import { Idempotency, IdempotencyClaim } from './idempotency.js';
import { InProcessEventBus } from './events.js';
import { StatusNotApplied } from './amount-range.js';
import {
  answeredWithError,
  Ledger,
  totalsOutOfRange,
  totalsWithUnseen,
  type GatewayView,
} from './ledger.js';
import { ensurePaymentsSchema, type TransactionOperationsTable } from './migration.js';
import { resolveOptions } from './options.js';
import { operationRow } from './test-support/rows.js';

const SALE = {
  serial: 'S0',
  type: 'sale',
  amountMinor: 10_000n,
  status: 'approved',
  processingDate: '2026-11-21T09:00:00.000Z',
};

function view(returnedMinor: bigint, operations: GatewayView['operations']): GatewayView {
  return {
    orderid: '777001',
    clientOrderId: 'late-reply-1',
    type: 'sale',
    status: 'approved',
    stage: returnedMinor > 0n ? 'partially_returned' : 'captured',
    currency: 'EUR',
    amountMinor: 10_000n,
    authorizedMinor: 10_000n,
    capturedMinor: 10_000n,
    returnedMinor,
    cardBin: '411111',
    cardLast4: '1111',
    cardBrand: 'VISA',
    cardRefId: null,
    email: 'late@example.com',
    name: null,
    operations,
    createdAt: Date.parse(SALE.processingDate),
  };
}

/** 2^53 − 1: the most minor units a column holds. */
const MAX_MINOR = BigInt(Number.MAX_SAFE_INTEGER);

/** An accepted return of ours (serial `serial`) of `amount` minor units, on order `tx`. */
function acceptedReturn(tx: string, serial: string, amount: number): TransactionOperationsTable {
  const now = Date.UTC(2026, 10, 21, 9, 0, 0);
  return operationRow({
    id: `op-${serial}`,
    transaction_id: tx,
    kind: 'return',
    state: 'approved',
    amount_minor: amount,
    gateway_serial: serial,
    idempotency_key: `k-${serial}`,
    requested_by: 'finance@paydesk.test',
    reason_code: 'other',
    comment: 'x',
    sent_at: now,
    created_at: now,
    updated_at: now,
  });
}

describe('totals with the operations of ours a reply does not list, near 2^53 minor units', () => {
  it('when the returned total reaches 2^53 − 1 exactly, then it is exact and in range; one more unit and it is exact and named out of range', () => {
    // The reply lists the sale only; two accepted returns of ours it does not list.
    const reply = view(MAX_MINOR - 3n, [SALE]);
    const atMost = totalsWithUnseen(
      [acceptedReturn('t', 'R1', 1), acceptedReturn('t', 'R2', 2)],
      reply,
    );
    expect(atMost).toEqual({ capturedMinor: 10_000n, returnedMinor: MAX_MINOR });
    expect(totalsOutOfRange(reply, atMost)).toEqual([]);

    const beyond = totalsWithUnseen(
      [acceptedReturn('t', 'R1', 1), acceptedReturn('t', 'R2', 4)],
      reply,
    );
    // 2^53 + 1: a sum in numbers would round it to 2^53.
    expect(beyond.returnedMinor).toBe(MAX_MINOR + 2n);
    expect(totalsOutOfRange(reply, beyond)).toEqual([
      "returned-amount 90,071,992,547,409.88 with Paydesk's returns it does not list: 90,071,992,547,409.93",
    ]);
  });

  it('when staff are told such a reply was not applied, then the 502 names returned-amount and the rule', () => {
    const err = new StatusNotApplied({ ...view(MAX_MINOR - 3n, [SALE]), orderid: '777095' }, 'x');
    expect(err.code).toBe('GATEWAY_ERROR');
    expect(err.message).toBe(
      "The gateway's status of order 777095 shows a returned-amount that, with Paydesk's returns it does not list, is more than Paydesk can hold exactly (90,071,992,547,409.91 at most). It was not applied; the order is flagged and its timeline keeps the reply. Check the order at the gateway.",
    );
    expect((err.details as { fields: unknown }).fields).toEqual([
      {
        path: 'returned-amount',
        rule: 'max_amount',
        message:
          "with Paydesk's returns it does not list, more than Paydesk can hold exactly (90,071,992,547,409.91 at most)",
      },
    ]);
  });
});

describe('an unanswered operation the gateway answered with an error', () => {
  it('when it carries an error code, or was recorded earlier as `gateway answered 500`, then it counts as answered with an error; no reply or a timeout does not', () => {
    const op = (error_code: string | null, error_message: string | null) => ({
      ...acceptedReturn('t', 'R', 1),
      state: 'unknown',
      error_code,
      error_message,
    });
    expect(answeredWithError(op('INTERNAL', 'gateway answered 500: failed'))).toBe(true);
    expect(answeredWithError(op(null, 'gateway answered 502'))).toBe(true);
    expect(answeredWithError(op(null, 'the connection closed before the gateway answered'))).toBe(
      false,
    );
    expect(answeredWithError(op(null, 'no reply within 15000 ms'))).toBe(false);
    expect(answeredWithError(op(null, null))).toBe(false);
  });
});

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(`ledger and late status replies (${variant.name})`, () => {
    let db: Db;
    let created: Awaited<ReturnType<(typeof DB_VARIANTS)[number]['create']>>;
    let ledger: Ledger;
    beforeAll(async () => {
      created = await variant.create();
      db = await openDatabase(created.database, 4);
      await ensurePaymentsSchema(db.k as unknown as Kysely<unknown>, db.kind);
      const clock = new ManualClock(Date.UTC(2026, 10, 21, 9, 0, 0));
      ledger = new Ledger(
        db,
        clock,
        new AuditLog(db, clock),
        new InProcessEventBus(),
        resolveOptions(),
      );
    });
    afterAll(async () => {
      await db.close();
      await created.drop();
    });

    /** The order of `v` as a status lookup would record it. */
    const learn = (v: GatewayView) =>
      ledger.tx((trx) =>
        ledger.applyStatus(trx, '1001', v, { source: 'lookup', actor: null, exchange: null }),
      );
    /** An approved sale as a status lookup would record it. */
    const learnSale = (orderid: string, clientOrderId: string) =>
      learn({ ...view(0n, [SALE]), orderid, clientOrderId });
    /**
     * PostgreSQL: holds order `id`'s lock in a transaction, starts `waiter` once it is held, lets
     * the holder run `then` once the waiter is blocked on a lock, commits, and returns what the
     * waiter got.
     */
    const whileLocked = async <T>(
      id: string,
      waiter: () => Promise<T>,
      then: (trx: PayTrx) => Promise<unknown>,
    ): Promise<T> => {
      let release: () => void = () => undefined;
      const released = new Promise<void>((r) => (release = r));
      let lockedNow: () => void = () => undefined;
      const locked = new Promise<void>((r) => (lockedNow = r));
      const holder = ledger.tx(async (trx) => {
        await ledger.lockOrder(trx, id);
        lockedNow();
        await released;
        await then(trx);
      });
      await locked;
      const waiting = waiter();
      // Until the waiter is blocked (its statement, and snapshot, begun).
      for (;;) {
        const { rows } = await sql<{
          n: number;
        }>`select count(*)::int as n from pg_locks where not granted`.execute(db.k);
        if ((rows[0]?.n ?? 0) > 0) break;
        await new Promise((r) => setTimeout(r, 10));
      }
      release();
      await holder;
      return waiting;
    };

    it('when a status reply lists an operation twice, then one row is written for it (its last listing), and the order returned is the order stored', async () => {
      const returnOp = {
        serial: 'R9',
        type: 'return',
        amountMinor: 2_500n,
        processingDate: '2026-11-21T09:05:00.000Z',
      };
      const twice: GatewayView = {
        ...view(2_500n, [
          SALE,
          { ...returnOp, status: 'processing' },
          { ...returnOp, status: 'approved' },
        ]),
        orderid: '777002',
        clientOrderId: 'listed-twice-1',
      };
      const applied = await ledger.tx((trx) =>
        ledger.applyStatus(trx, '1001', twice, { source: 'lookup', actor: null, exchange: null }),
      );
      const k = payDb(db);
      const ops = await k
        .selectFrom('transaction_operations')
        .select(['gateway_serial', 'state'])
        .where('transaction_id', '=', applied.row.id)
        .orderBy('gateway_serial')
        .execute();
      expect(ops).toEqual([
        { gateway_serial: 'R9', state: 'approved' },
        { gateway_serial: 'S0', state: 'approved' },
      ]);
      const stored = await k
        .selectFrom('transactions')
        .selectAll()
        .where('id', '=', applied.row.id)
        .executeTakeFirstOrThrow();
      expect(applied.row).toEqual(stored);
    });

    it('when an order is locked and read (by id or orderid, with an entry appended), then it is exactly what separate reads return', async () => {
      const applied = await learn({
        ...view(2_500n, [
          SALE,
          {
            serial: 'R1',
            type: 'return',
            amountMinor: 2_500n,
            status: 'approved',
            processingDate: '2026-11-21T09:05:00.000Z',
          },
        ]),
        orderid: '777003',
        clientOrderId: 'combined-read-1',
      });
      const id = applied.row.id;
      const plain = await ledger.tx((trx) => ledger.lockOrder(trx, id));
      const withEntry = await ledger.tx((trx) =>
        ledger.lockOrder(trx, id, {
          kind: 'staff',
          title: 'note “Zoë” 🚀',
          actor: 'a@paydesk.test',
          data: { n: 1, nested: { ok: true } },
        }),
      );
      const k = payDb(db);
      const [row, ops, timeline] = await Promise.all([
        k.selectFrom('transactions').selectAll().where('id', '=', id).executeTakeFirstOrThrow(),
        ledger.operationsOf(k, id),
        ledger.timelineOf(k, id),
      ]);
      expect(row).toEqual(applied.row);
      expect(ops).toHaveLength(2);
      expect(timeline.at(-1)).toMatchObject({ title: 'note “Zoë” 🚀', kind: 'staff' });
      expect(withEntry).toEqual({ row, ops, timeline });
      expect(plain).toMatchObject({ row, ops });
      expect(await ledger.tx((trx) => ledger.lockOrderByOrderid(trx, '777003'))).toMatchObject({
        row,
        ops,
      });
      expect(await ledger.tx((trx) => ledger.lockOrderByOrderid(trx, '0'))).toBeUndefined();
      expect(await ledger.tx((trx) => ledger.lockOrder(trx, 'no-such-order'))).toBeUndefined();
    });

    // PostgreSQL only: SQLite's writer lock makes the two one step anyway (operations.ts).
    if (variant.name === 'postgres')
      it('when the key is taken with the locked read in one statement, then the order is the one lockOrder reads, and a key taken before reads as not taken', async () => {
        const applied = await learnSale('777004', 'taking-1');
        const idem = new Idempotency(
          payDb(db),
          new ManualClock(Date.UTC(2026, 10, 21)),
          86_400_000,
        );
        const claim = new IdempotencyClaim('u1', 'key-taking-1', 'capture', 'h1');
        const take = (id: string) =>
          ledger.tx(async (trx) => ({
            both: await ledger.lockOrderTaking(trx, id, idem.taking(claim)),
            plain: await ledger.lockOrder(trx, id),
          }));
        const first = await take(applied.row.id);
        expect(first.both).toEqual({ order: first.plain, taken: true });
        expect(first.plain?.row).toEqual(applied.row);
        expect((await take(applied.row.id)).both.taken).toBe(false);
        const missing = await ledger.tx((trx) =>
          ledger.lockOrderTaking(
            trx,
            'no-such-order',
            idem.taking(new IdempotencyClaim('u1', 'key-taking-2', 'capture', 'h2')),
          ),
        );
        expect(missing).toEqual({ order: undefined, taken: true });
      });

    // A request's repeat (same key) while the request's step C holds the order and then writes the
    // key's reply: the repeat must not hold the key while it waits for the order (a deadlock, seen
    // in the scale-out suite), so it locks the order first.
    if (variant.name === 'postgres')
      it('when a repeat takes the key while the first request holds the order and then writes the key, then neither deadlocks and the repeat finds the key taken', async () => {
        const applied = await learnSale('777006', 'taking-race');
        const id = applied.row.id;
        const idem = new Idempotency(
          payDb(db),
          new ManualClock(Date.UTC(2026, 10, 21)),
          86_400_000,
        );
        const claim = new IdempotencyClaim('u1', 'key-race', 'capture', 'h');
        // The first request's step A: the key taken, committed.
        expect(
          (await ledger.tx((trx) => ledger.lockOrderTaking(trx, id, idem.taking(claim)))).taken,
        ).toBe(true);
        // Its step C holds the order and, once the repeat waits, writes the key's reply.
        const repeat = await whileLocked(
          id,
          () => ledger.tx((trx) => ledger.lockOrderTaking(trx, id, idem.taking(claim))),
          (trx) =>
            trx.executeQuery(idem.completion(trx, claim, { status: 200, body: { ok: true } })),
        );
        expect(repeat.taken).toBe(false);
      });

    // The reason for paydesk_lock_order: one plain statement would read the operations as of
    // before its lock wait.
    if (variant.name === 'postgres')
      it('when the lock had to wait, then the operations read include what the lock holder committed meanwhile', async () => {
        const applied = await learnSale('777005', 'lock-wait-1');
        const id = applied.row.id;
        const seen = await whileLocked(
          id,
          () => ledger.tx((trx) => ledger.lockOrder(trx, id)),
          (trx) =>
            trx
              .insertInto('transaction_operations')
              .values(
                operationRow({
                  id: 'op-while-waiting',
                  transaction_id: id,
                  kind: 'capture',
                  state: 'processing',
                  amount_minor: 100,
                  sent_at: 1,
                  created_at: 1,
                  updated_at: 1,
                }),
              )
              .execute(),
        );
        expect(seen?.ops.map((o) => o.id)).toContain('op-while-waiting');
      });

    it('when a status reply from before an accepted return arrives after it, then the return still counts and nothing is flagged', async () => {
      const first = await ledger.tx((trx) =>
        ledger.applyStatus(trx, '1001', view(0n, [SALE]), {
          source: 'lookup',
          actor: null,
          exchange: null,
        }),
      );
      expect(first.created).toBe(true);
      const k = payDb(db);
      await k
        .insertInto('transaction_operations')
        .values({
          ...acceptedReturn(first.row.id, 'R1', 3_000),
          id: 'op-return-1',
          state: 'processing',
          idempotency_key: 'k',
        })
        .execute();
      await k
        .updateTable('transactions')
        .set({ returned_minor: 3_000 })
        .where('id', '=', first.row.id)
        .execute();

      const late = await ledger.tx((trx) =>
        ledger.applyStatus(trx, '1001', view(0n, [SALE]), {
          source: 'reconcile',
          actor: null,
          exchange: null,
        }),
      );
      expect(late.row.returned_minor).toBe(3_000);
      expect(late.drift).toEqual([]);

      const fresh = await ledger.tx((trx) =>
        ledger.applyStatus(
          trx,
          '1001',
          view(3_000n, [
            SALE,
            {
              serial: 'R1',
              type: 'return',
              amountMinor: 3_000n,
              status: 'approved',
              processingDate: null,
            },
          ]),
          {
            source: 'callback',
            actor: null,
            exchange: null,
          },
        ),
      );
      expect(fresh.row.returned_minor).toBe(3_000);
      const stale = await ledger.tx((trx) =>
        ledger.applyStatus(
          trx,
          '1001',
          view(3_000n, [
            SALE,
            {
              serial: 'R1',
              type: 'return',
              amountMinor: 3_000n,
              status: 'processing',
              processingDate: null,
            },
          ]),
          {
            source: 'reconcile',
            actor: null,
            exchange: null,
          },
        ),
      );
      expect(stale.row.returned_minor).toBe(3_000);
      const op = await k
        .selectFrom('transaction_operations')
        .selectAll()
        .where('id', '=', 'op-return-1')
        .executeTakeFirstOrThrow();
      expect(op.state).toBe('approved');
      const detail = await ledger.detail(k, first.row.id);
      expect(detail?.amounts).toMatchObject({ returned: '30.00', remainingReturnable: '70.00' });
      expect(detail?.drift).toBe(false);
    });

    it('when the totals Paydesk would record show more returned than captured, then they are shown as they are, flagged as drift, and no return is allowed', async () => {
      const first = await learnSale('777090', 'over-returned-1');
      // An accepted return of ours (serial R9) that the next reply does not list, and a return
      // of 50.00 that it does: together more than the 100.00 captured.
      await payDb(db)
        .insertInto('transaction_operations')
        .values({
          ...acceptedReturn(first.row.id, 'R9', 8_000),
          id: 'op-return-over',
          idempotency_key: 'k-over',
        })
        .execute();
      const result = await ledger.tx((trx) =>
        ledger.applyStatus(
          trx,
          '1001',
          {
            ...view(5_000n, [SALE, { ...SALE, serial: 'G9', type: 'return', amountMinor: 5_000n }]),
            orderid: '777090',
            clientOrderId: 'over-returned-1',
          },
          { source: 'refresh', actor: null, exchange: null },
        ),
      );
      expect(result.drift).toContain('returned 130.00 EUR exceeds captured 100.00 EUR');
      const detail = await ledger.detail(ledger.k, first.row.id);
      expect(detail?.drift).toBe(true);
      expect(detail?.amounts).toMatchObject({ returned: '130.00', remainingReturnable: '0.00' });
      expect(detail?.allowedActions).not.toContain('return');
    });

    it("when a reply's returned total with our unlisted returns passes 2^53 − 1 minor units, then it is recorded and not applied: the order flagged and audited, its amounts unchanged; at 2^53 − 1 it is applied", async () => {
      const k = payDb(db);
      const reply = (orderid: string, clientOrderId: string): GatewayView => ({
        ...view(MAX_MINOR - 3n, [SALE]),
        orderid,
        clientOrderId,
      });
      // At the boundary: applied, exact.
      const fits = await learnSale('777093', 'near-max-1');
      await k
        .insertInto('transaction_operations')
        .values([acceptedReturn(fits.row.id, 'RF1', 1), acceptedReturn(fits.row.id, 'RF2', 2)])
        .execute();
      const applied = await learn(reply('777093', 'near-max-1'));
      expect(applied.notApplied).toEqual([]);
      expect(applied.row.returned_minor).toBe(Number.MAX_SAFE_INTEGER);

      // One unit more: not applied (it threw RangeError at every attempt).
      const first = await learnSale('777094', 'beyond-max-1');
      await k
        .insertInto('transaction_operations')
        .values([acceptedReturn(first.row.id, 'RB1', 1), acceptedReturn(first.row.id, 'RB2', 4)])
        .execute();
      const result = await learn(reply('777094', 'beyond-max-1'));
      const named =
        "returned-amount 90,071,992,547,409.88 with Paydesk's returns it does not list: 90,071,992,547,409.93";
      expect(result.notApplied).toEqual([named]);
      expect(result.row).toMatchObject({
        id: first.row.id,
        drift: 1,
        returned_minor: 0,
        captured_minor: 10_000,
      });
      const detail = await ledger.detail(k, first.row.id);
      expect(detail?.amounts).toMatchObject({ returned: '0.00', captured: '100.00' });
      expect(detail?.drift).toBe(true);
      const audit = await db.k
        .selectFrom('audit_log')
        .select(['error_code', 'summary'])
        .where('action', '=', 'transaction.drift')
        .where('target', '=', `transaction:${first.row.id}`)
        .execute();
      expect(audit.map((r) => [r.error_code, JSON.parse(r.summary) as unknown])).toEqual([
        [
          'DRIFT',
          expect.objectContaining({
            reasons: [expect.stringContaining(named) as unknown],
            detectedBy: 'lookup',
          }),
        ],
      ]);
    });

    it('when a charge names a plan the crash recovery had judged not created, then the plan becomes active with its id; a plan the gateway refused stays refused', async () => {
      const k = payDb(db);
      const now = Date.UTC(2026, 10, 21, 9, 0, 0);
      const plan = (id: string, errorCode: string) => ({
        id,
        endpoint_id: '1001',
        client_orderid: id,
        recurring_payment_id: null,
        card_ref_id: 'CR-1',
        amount_minor: 1_000,
        currency: 'EUR',
        period: 'month',
        interval_count: 1,
        start_date: null,
        first_charge_at: now,
        max_payments: null,
        order_desc: 'plan',
        email: 'plan@example.com',
        state: 'not_sent',
        gateway_serial: null,
        error_code: errorCode,
        error_message: 'judged earlier',
        exchange: null,
        idempotency_key: null,
        created_by: 'u1',
        created_by_email: 'finance@paydesk.test',
        created_at: now,
        updated_at: now,
        check_at: null,
        check_attempts: 0,
        lease_owner: null,
        lease_until: null,
      });
      await k
        .insertInto('subscriptions')
        .values([plan('plan-late', 'NOT_CREATED'), plan('plan-refused', 'GATEWAY_REFUSED')])
        .execute();
      const charge = (planId: string, orderid: string, rpId: string): GatewayView => ({
        ...view(0n, [{ ...SALE, serial: `S-${orderid}`, type: 'rebill' }]),
        orderid,
        clientOrderId: `${planId}-1`,
        type: 'rebill',
        recurringPaymentId: rpId,
      });
      for (const [planId, orderid, rpId] of [
        ['plan-late', '888001', 'RP-1'],
        ['plan-refused', '888002', 'RP-2'],
      ] as const) {
        await ledger.tx((trx) =>
          ledger.applyStatus(trx, '1001', charge(planId, orderid, rpId), {
            source: 'callback',
            actor: null,
            exchange: null,
          }),
        );
      }
      const rows = await k
        .selectFrom('subscriptions')
        .select(['id', 'state', 'recurring_payment_id', 'error_code'])
        .where('id', 'in', ['plan-late', 'plan-refused'])
        .orderBy('id')
        .execute();
      expect(rows).toEqual([
        { id: 'plan-late', state: 'active', recurring_payment_id: 'RP-1', error_code: null },
        {
          id: 'plan-refused',
          state: 'not_sent',
          recurring_payment_id: null,
          error_code: 'GATEWAY_REFUSED',
        },
      ]);
    });

    describe('lost replies of the same kind and amount', () => {
      const T0 = Date.UTC(2026, 10, 21, 9, 0, 0);
      /** A return of ours of 20.00 whose outcome is unknown, sent at `sentAt`. */
      const lostReturn = (
        tx: string,
        id: string,
        sentAt: number,
        error: { code: string | null; message: string },
      ): TransactionOperationsTable => ({
        ...acceptedReturn(tx, id, 2_000),
        id,
        state: 'unknown',
        reserved_minor: 2_000,
        gateway_serial: null,
        idempotency_key: `k-${id}`,
        requested_by: `${id}@paydesk.test`,
        error_code: error.code,
        error_message: error.message,
        sent_at: sentAt,
        created_at: sentAt,
        updated_at: sentAt,
      });
      const gatewayReturn = (serial: string, at: number) => ({
        serial,
        type: 'return',
        amountMinor: 2_000n,
        status: 'approved',
        processingDate: new Date(at).toISOString(),
      });
      const apply = (orderid: string, clientOrderId: string, ops: GatewayView['operations']) =>
        ledger.tx((trx) =>
          ledger.applyStatus(
            trx,
            '1001',
            {
              ...view(2_000n * BigInt(ops.length - 1), ops),
              orderid,
              clientOrderId,
            },
            { source: 'reconcile', actor: null, exchange: null },
          ),
        );
      const NO_REPLY = { code: null, message: 'the connection closed before the gateway answered' };
      const ERROR_500 = {
        code: 'INTERNAL',
        message: 'gateway answered 500: failed',
      };

      it('when the request without a reply was sent after the gateway applied the return, then the return goes to the earlier one answered with a 500', async () => {
        const first = await learnSale('777201', 'alike-1');
        const tx = first.row.id;
        await payDb(db)
          .insertInto('transaction_operations')
          .values([
            lostReturn(tx, 'op-500-early', T0, ERROR_500),
            lostReturn(tx, 'op-drop-late', T0 + 60_000, NO_REPLY),
          ])
          .execute();
        await apply('777201', 'alike-1', [SALE, gatewayReturn('GR1', T0 + 1_000)]);
        const detail = await ledger.detail(ledger.k, tx);
        const byId = new Map(detail?.operations.map((o) => [o.id, o]));
        expect(byId.get('op-500-early')).toMatchObject({ state: 'approved', gatewaySerial: 'GR1' });
        expect(byId.get('op-drop-late')).toMatchObject({ state: 'unknown', gatewaySerial: null });
        const found = detail?.timeline.find((e) => e.title.includes('found at the gateway'));
        expect(found?.data.rankedBelow).toEqual([
          { operationId: 'op-drop-late', why: 'sent_after' },
        ]);
        expect(detail?.drift).toBe(false);
      });

      it('when two requests alike could be the one return the gateway shows, then the first sent gets it, and the timeline and the drift note say it was a guess', async () => {
        const first = await learnSale('777202', 'alike-2');
        const tx = first.row.id;
        await payDb(db)
          .insertInto('transaction_operations')
          .values([
            lostReturn(tx, 'op-drop-a', T0, NO_REPLY),
            lostReturn(tx, 'op-drop-b', T0 + 1_000, NO_REPLY),
          ])
          .execute();
        const result = await apply('777202', 'alike-2', [SALE, gatewayReturn('GR2', T0 + 5_000)]);
        const detail = await ledger.detail(ledger.k, tx);
        const byId = new Map(detail?.operations.map((o) => [o.id, o]));
        expect(byId.get('op-drop-a')).toMatchObject({ state: 'approved', gatewaySerial: 'GR2' });
        expect(byId.get('op-drop-b')).toMatchObject({ state: 'unknown' });
        expect(result.drift).toEqual([
          "the gateway's return of 20.00 EUR (serial GR2) was attributed to the request of op-drop-a@paydesk.test at 2026-11-21T09:00:00.000Z, the first sent; Paydesk cannot tell it from op-drop-b@paydesk.test at 2026-11-21T09:00:01.000Z (check who requested it)",
        ]);
        expect(detail?.drift).toBe(true);
        const guess = detail?.timeline.find((e) => e.data.finding === 'ambiguous_match');
        expect(guess?.title).toBe(
          'return of 20.00 EUR at the gateway attributed by guess to the first request sent: 2 alike requests could be it',
        );
        expect(guess?.data).toMatchObject({
          serialNumber: 'GR2',
          operationId: 'op-drop-a',
          alternatives: [{ operationId: 'op-drop-b', requestedBy: 'op-drop-b@paydesk.test' }],
        });
      });

      it('when the gateway applies late one of two returns judged not applied, then it is linked to the one that got no reply rather than the one answered with a 500', async () => {
        const first = await learnSale('777204', 'alike-4');
        const tx = first.row.id;
        await payDb(db)
          .insertInto('transaction_operations')
          .values([
            {
              ...lostReturn(tx, 'op-gone-500', T0, ERROR_500),
              state: 'not_applied',
              reserved_minor: 0,
            },
            {
              ...lostReturn(tx, 'op-gone-drop', T0 + 1_000, NO_REPLY),
              state: 'not_applied',
              reserved_minor: 0,
            },
          ])
          .execute();
        const result = await apply('777204', 'alike-4', [SALE, gatewayReturn('GR5', T0 + 2_000)]);
        const detail = await ledger.detail(ledger.k, tx);
        const byId = new Map(detail?.operations.map((o) => [o.id, o]));
        expect(byId.get('op-gone-drop')).toMatchObject({ state: 'approved', gatewaySerial: 'GR5' });
        expect(byId.get('op-gone-500')).toMatchObject({
          state: 'not_applied',
          gatewaySerial: null,
        });
        expect(result.drift).toEqual([
          'return of 20.00 EUR requested by op-gone-drop@paydesk.test was applied by the gateway after Paydesk had judged it not applied (check for a repeat of it)',
        ]);
      });

      it('when the gateway shows as many returns alike as there were requests, all approved, then each gets one and nothing is flagged', async () => {
        const first = await learnSale('777203', 'alike-3');
        const tx = first.row.id;
        await payDb(db)
          .insertInto('transaction_operations')
          .values([
            lostReturn(tx, 'op-both-a', T0, NO_REPLY),
            lostReturn(tx, 'op-both-b', T0 + 1_000, NO_REPLY),
          ])
          .execute();
        const result = await apply('777203', 'alike-3', [
          SALE,
          gatewayReturn('GR3', T0 + 2_000),
          gatewayReturn('GR4', T0 + 3_000),
        ]);
        expect(result.drift).toEqual([]);
        const detail = await ledger.detail(ledger.k, tx);
        expect(detail?.operations.filter((o) => o.state === 'approved')).toHaveLength(3);
        expect(detail?.timeline.some((e) => e.data.finding === 'ambiguous_match')).toBe(false);
      });
    });
  });
}
