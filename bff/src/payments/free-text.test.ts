// Staff free text (comments, reasons, descriptions) never carries a card number, a control or a
// bidi character: refused 400 naming the field and the rule, before anything is written or sent;
// and a lookup that finds nothing never repeats a card-number-like value. Against the real sandbox
// process, on both databases.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FREE_TEXT_REFUSALS,
  OperationResultSchema,
  TransactionDetailSchema,
  type ErrorEnvelope,
  type TransactionDetail,
} from '@paydesk/shared/api';
import { DB_VARIANTS } from '../test-support/harness.js';
import { payDb } from './db.js';
import { learnedOrder, post, startFixture, type Fixture } from './test-support/fixture.js';

const PAN = '4111111111111111';

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(`payments free text (${variant.name})`, () => {
    let f: Fixture;
    let tx: TransactionDetail;
    let cardRefId: string;
    const detail = async (id: string): Promise<TransactionDetail> =>
      TransactionDetailSchema.parse((await f.support.get(`/api/transactions/${id}`)).json);

    beforeAll(async () => {
      f = await startFixture(variant);
      ({ tx } = await learnedOrder(f, 'sale', '10.00'));
      const res = await post(f.finance, `/api/transactions/${tx.id}/card-ref`, {});
      const ref = OperationResultSchema.parse(res.json).transaction.cardRefId;
      if (ref === null) throw new Error('no card reference');
      cardRefId = ref;
      tx = await detail(tx.id);
    });
    afterAll(async () => {
      await f.close();
    });

    const rebill = (extra: Record<string, string>) => ({
      cardRefId,
      amount: '1.00',
      currency: 'EUR',
      orderDesc: 'monthly top-up',
      reason: 'customer asked by phone',
      ...extra,
    });
    const cases = [
      {
        name: 'a return comment with a card number in groups of four',
        path: () => `/api/transactions/${tx.id}/return`,
        body: () => ({ reasonCode: 'other', comment: `card 4111 1111 1111 1111 charged twice` }),
        field: 'comment',
        rule: 'card_number',
        message: FREE_TEXT_REFUSALS.cardNumber,
      },
      {
        name: 'a void comment with a card number in dashes',
        path: () => `/api/transactions/${tx.id}/void`,
        body: () => ({ comment: 'customer gave 4111-1111-1111-1111' }),
        field: 'comment',
        rule: 'card_number',
        message: FREE_TEXT_REFUSALS.cardNumber,
      },
      {
        name: 'a void comment with a bell character',
        path: () => `/api/transactions/${tx.id}/void`,
        body: () => ({ comment: 'cancelled\u0007' }),
        field: 'comment',
        rule: 'control_characters',
        message: FREE_TEXT_REFUSALS.controlCharactersMultiline,
      },
      {
        name: 'a rebill description with a line break',
        path: () => '/api/rebills',
        body: () => rebill({ orderDesc: 'top-up\nsecond line' }),
        field: 'orderDesc',
        rule: 'control_characters',
        message: FREE_TEXT_REFUSALS.controlCharacters,
      },
      {
        name: 'a rebill reason with a right-to-left override',
        path: () => '/api/rebills',
        body: () => rebill({ reason: 'asked \u202egnp.exe' }),
        field: 'reason',
        rule: 'bidi_controls',
        message: FREE_TEXT_REFUSALS.bidiControls,
      },
      {
        name: 'a rebill reason with a card number next to its expiry',
        path: () => '/api/rebills',
        body: () => rebill({ reason: `card ${PAN} 12 27 again` }),
        field: 'reason',
        rule: 'card_number',
        message: FREE_TEXT_REFUSALS.cardNumber,
      },
    ];

    for (const c of cases) {
      it(`when ${c.name} is sent, then 400 names the field and the rule, and nothing is written or sent`, async () => {
        const db = payDb(f.bff.db);
        const operationsBefore = await db
          .selectFrom('transaction_operations')
          .select('id')
          .execute();
        const ordersBefore = await db.selectFrom('transactions').select('id').execute();
        const res = await post(f.finance, c.path(), c.body());
        expect(res.status).toBe(400);
        const env = res.json as ErrorEnvelope;
        expect(env.error.code).toBe('VALIDATION_FAILED');
        expect(env.error.details?.fields).toEqual([
          { path: c.field, rule: c.rule, message: c.message },
        ]);
        expect(env.error.message).toBe(`${c.field}: ${c.message}`);
        expect(await db.selectFrom('transaction_operations').select('id').execute()).toEqual(
          operationsBefore,
        );
        expect(await db.selectFrom('transactions').select('id').execute()).toEqual(ordersBefore);
        // The refused attempt is audited with the rule, never with the text.
        const rows = await f.bff.db.k
          .selectFrom('audit_log')
          .selectAll()
          .where('outcome', '=', 'refused')
          .orderBy('seq', 'desc')
          .execute();
        expect(rows[0]?.summary).toContain(`${c.field}: ${c.rule}`);
        for (const row of rows) expect(JSON.stringify(row)).not.toMatch(/4111[ -]?1111[ -]?1111/);
      });
    }

    it('when the text names only the last four digits, then the return goes through with it', async () => {
      const res = await post(f.finance, `/api/transactions/${tx.id}/return`, {
        amount: '1.00',
        reasonCode: 'duplicate',
        comment: '  card ending 1111,\r\nasked twice  ',
      });
      expect(res.status).toBe(200);
      const result = OperationResultSchema.parse(res.json);
      expect(result.operation.comment).toBe('card ending 1111,\nasked twice');
    });

    it('when a lookup names a card number as its id, then it is refused 400 naming the field, not repeated; a long id that is no card number finds nothing and is not repeated in full either', async () => {
      const res = await f.support.post('/api/transactions/lookup', { client_orderid: PAN });
      expect(res.status).toBe(400);
      const env = res.json as ErrorEnvelope;
      expect(env.error.code).toBe('VALIDATION_FAILED');
      expect(env.error.message).toBe(
        'client_orderid: looks like a card number: search by its last four digits',
      );
      expect(res.text).not.toContain(PAN);
      const byOrderid = await f.support.post('/api/transactions/lookup', {
        orderid: PAN,
        client_orderid: 'never-placed-0002',
      });
      expect(byOrderid.status).toBe(400);
      expect(byOrderid.text).not.toContain(PAN);
      // 16 digits failing the Luhn check: an id, asked; the 404 names it masked all the same.
      const longId = `${PAN.slice(0, -1)}${String((Number(PAN.at(-1)) + 1) % 10)}`;
      const notFound = await f.support.post('/api/transactions/lookup', { client_orderid: longId });
      expect(notFound.status).toBe(404);
      expect((notFound.json as ErrorEnvelope).error.message).not.toContain(longId);
      expect((notFound.json as ErrorEnvelope).error.message).toContain(
        `client_orderid ${longId.slice(0, 6)}…${longId.slice(-4)}`,
      );
      // An ordinary value is still named back, whole.
      const plain = await f.support.post('/api/transactions/lookup', {
        client_orderid: 'never-placed-0003',
      });
      expect((plain.json as ErrorEnvelope).error.message).toContain(
        'client_orderid never-placed-0003',
      );
    });
  });
}
