// How an operation's outcome went unlearned, recorded when it happens and given to the SPA as
// `unanswered` (never parsed back from the recorded words): a 5xx answer, no answer within the
// wait, a dropped reply; and a row recorded before 0024, whose words the BFF reads once.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  OperationResultSchema,
  TransactionDetailSchema,
  type Operation,
  type TransactionDetail,
} from '@paydesk/shared/api';
import { DB_VARIANTS } from '../test-support/harness.js';
import { payDb } from './db.js';
import { unansweredColumns, unansweredOfRow } from './gateway-errors.js';
import { createPayments } from './index.js';
import { learnedOrder, post, startFixture, type Fixture } from './test-support/fixture.js';

const FAULT_MESSAGE = 'injected fault: the gateway failed before applying the operation';

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(`outcomes not learned, recorded as such (${variant.name})`, () => {
    let f: Fixture;
    const detail = async (id: string): Promise<TransactionDetail> =>
      TransactionDetailSchema.parse((await f.support.get(`/api/transactions/${id}`)).json);
    /** The operation `id` as `GET /api/transactions/:id` gives it. */
    const operationOf = async (transactionId: string, id: string): Promise<Operation> => {
      const found = (await detail(transactionId)).operations.find((o) => o.id === id);
      if (found === undefined) throw new Error(`no operation ${id}`);
      return found;
    };
    /** What the operation's own columns record, its words left aside. */
    const stored = async (id: string) => {
      const row = await payDb(f.bff.db)
        .selectFrom('transaction_operations')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      return unansweredOfRow({ ...row, error_code: null, error_message: null });
    };
    /** A return of `amount` on a new order, sent while `faults` are on at the sandbox. */
    const returnUnder = async (faults: Record<string, unknown>, amount: string) => {
      const { tx } = await learnedOrder(f, 'sale', '20.00');
      await f.sandbox.faults({ ...faults, operations: ['return'] });
      const res = await post(f.finance, `/api/transactions/${tx.id}/return`, {
        amount,
        reasonCode: 'other',
        comment: 'unanswered',
      });
      await f.sandbox.faults({});
      expect(res.status, res.text).toBe(200);
      const { operation } = OperationResultSchema.parse(res.json);
      expect(operation.state).toBe('unknown');
      return { tx, operation };
    };

    beforeAll(async () => {
      f = await startFixture(variant);
    });
    afterAll(async () => {
      await f.close();
    });
    afterEach(async () => {
      await f.sandbox.faults({});
    });

    it('when the gateway answers a return with a 500, then the order’s operation carries the error answer (HTTP status, the gateway’s code and message), its words kept as they were', async () => {
      const { tx, operation } = await returnUnder({ errorRate: 1 }, '1.01');
      expect(operation.unanswered).toEqual({
        kind: 'error',
        httpStatus: 500,
        code: 'INTERNAL',
        message: FAULT_MESSAGE,
      });
      const read = await operationOf(tx.id, operation.id);
      expect(read).toMatchObject({
        state: 'unknown',
        errorCode: 'INTERNAL',
        errorMessage: `gateway answered 500: ${FAULT_MESSAGE}`,
        unanswered: { kind: 'error', httpStatus: 500, code: 'INTERNAL', message: FAULT_MESSAGE },
      });
      expect(await stored(operation.id)).toEqual(read.unanswered);
    });

    it('when the reply to a return is dropped, then the order’s operation says the connection was lost', async () => {
      const { tx, operation } = await returnUnder({ dropResponseRate: 1 }, '1.02');
      expect(await operationOf(tx.id, operation.id)).toMatchObject({
        state: 'unknown',
        errorCode: null,
        errorMessage: 'the connection closed before the gateway answered',
        unanswered: { kind: 'connection-closed' },
      });
      expect(await stored(operation.id)).toEqual({ kind: 'connection-closed' });
    });

    it('when the gateway does not answer a return within the wait, then the order’s operation carries the wait in milliseconds', async () => {
      const { tx } = await learnedOrder(f, 'sale', '20.00');
      const impatient = createPayments({
        config: f.bff.config,
        db: f.bff.db,
        clock: f.bff.clock,
        logger: f.bff.logger,
        audit: f.bff.services.audit,
        options: { gatewayTimeoutMs: 100 },
      });
      await f.sandbox.faults({ latencyMs: 400, operations: ['return'] });
      let id: string;
      try {
        const result = await impatient.services.operations.return(
          tx.id,
          { amount: '1.03', reasonCode: 'other', comment: 'slow' },
          { id: 'u1', email: 'finance@paydesk.test' },
          'k-unanswered-timeout-01',
        );
        id = result.operation.id;
        expect(result.operation.unanswered).toEqual({ kind: 'timeout', waitedMs: 100 });
      } finally {
        // The gateway applies it after the wait: let it finish before the faults go.
        await new Promise((r) => setTimeout(r, 500));
        await f.sandbox.faults({});
        await impatient.close();
      }
      expect(await operationOf(tx.id, id)).toMatchObject({
        state: 'unknown',
        errorCode: null,
        errorMessage: 'no answer within 100 ms',
        unanswered: { kind: 'timeout', waitedMs: 100 },
      });
      expect(await stored(id)).toEqual({ kind: 'timeout', waitedMs: 100 });
    });

    it('when an operation was recorded before the structured record was kept (its words only), then it reads the same as one recorded now', async () => {
      const { tx, operation } = await returnUnder({ errorRate: 1 }, '1.04');
      const now = await operationOf(tx.id, operation.id);
      const older = async (errorCode: string | null, errorMessage: string) => {
        await payDb(f.bff.db)
          .updateTable('transaction_operations')
          .set({ error_code: errorCode, error_message: errorMessage, ...unansweredColumns(null) })
          .where('id', '=', operation.id)
          .execute();
        return (await operationOf(tx.id, operation.id)).unanswered;
      };
      // the 500 as recorded just now, its columns emptied: the same field
      expect(await older('INTERNAL', `gateway answered 500: ${FAULT_MESSAGE}`)).toEqual(
        now.unanswered,
      );
      // the forms earlier versions recorded
      expect(await older('HTTP_502', 'gateway answered 502')).toEqual({
        kind: 'error',
        httpStatus: 502,
        code: null,
        message: null,
      });
      expect(await older(null, 'gateway answered 500')).toEqual({
        kind: 'error',
        httpStatus: 500,
        code: null,
        message: null,
      });
      expect(await older(null, 'no answer within 15 s')).toEqual({
        kind: 'timeout',
        waitedMs: 15_000,
      });
      expect(await older(null, 'no reply within 15000 ms')).toEqual({
        kind: 'timeout',
        waitedMs: 15_000,
      });
      expect(await older(null, 'the connection closed before the gateway answered')).toEqual({
        kind: 'connection-closed',
      });
      expect(await older(null, 'connection lost before a reply (UND_ERR_SOCKET)')).toEqual({
        kind: 'connection-closed',
      });
      expect(await older(null, "the gateway's reply could not be read (HTTP 200)")).toEqual({
        kind: 'unreadable',
        httpStatus: 200,
      });
      // words that do not say how (a crash before the reply was recorded): nothing is made up
      expect(
        await older(null, 'the instance sending it stopped before recording the reply'),
      ).toBeNull();
    });
  });
}
