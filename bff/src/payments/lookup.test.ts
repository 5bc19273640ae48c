// Support's lookup when the gateway needs more than was given, or more than one order matches.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  LookupConflictDetailsSchema,
  TransactionDetailSchema,
  type ErrorEnvelope,
} from '@paydesk/shared/api';
import { AppError } from '../errors.js';
import { DB_VARIANTS } from '../test-support/harness.js';
import { payDb } from './db.js';
import { createPayments } from './index.js';
import { startFixture, type Fixture } from './test-support/fixture.js';
import type { PlacedOrder } from './test-support/storefront.js';

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(
    `payments lookup, ambiguous or incomplete (${variant.name})`,
    () => {
      let f: Fixture;
      /** One client_orderid, used by the shop on both endpoints: EUR on 1001, USD on 1002. */
      const shared = `shop-twice-${randomUUID()}`;
      let eur: PlacedOrder;
      let usd: PlacedOrder;
      const lookup = (body: Record<string, string>) =>
        f.support.post('/api/transactions/lookup', body);
      const recorded = async (orderid: string) =>
        (
          await payDb(f.bff.db)
            .selectFrom('transactions')
            .select('id')
            .where('orderid', '=', orderid)
            .executeTakeFirst()
        )?.id ?? null;

      beforeAll(async () => {
        f = await startFixture(variant);
        eur = await f.shop.place('sale', { amount: '10.00', clientOrderId: shared });
        usd = await f.shop.place('sale', {
          amount: '12.00',
          currency: 'USD',
          endpointId: '1002',
          clientOrderId: shared,
        });
      });
      afterAll(async () => {
        await f.close();
      });

      it('when a gateway orderid Paydesk has not learned is looked up alone, then 400 says so and asks for its client_orderid too', async () => {
        const alone = await lookup({ orderid: eur.orderid });
        expect(alone.status).toBe(400);
        const env = alone.json as ErrorEnvelope;
        expect(env.error.code).toBe('VALIDATION_FAILED');
        expect(env.error.message).toContain(`Paydesk has not learned order ${eur.orderid} yet`);
        expect(env.error.message).toContain('client_orderid');
        expect(env.error.details?.fields).toEqual([
          {
            path: 'client_orderid',
            rule: 'required',
            message: 'required when the order is not known to Paydesk yet',
          },
        ]);
        expect(await recorded(eur.orderid)).toBeNull();
      });

      it('when one client_orderid names an order on each of two endpoints, then the lookup opens neither: 409 names both, records nothing and is audited', async () => {
        const res = await lookup({ client_orderid: shared });
        expect(res.status).toBe(409);
        const env = res.json as ErrorEnvelope;
        expect(env.error.code).toBe('CONFLICT');
        expect(env.error.message).toContain('2 orders');
        const { candidates } = LookupConflictDetailsSchema.parse(env.error.details);
        expect(candidates).toEqual([
          {
            endpointId: '1001',
            orderid: eur.orderid,
            clientOrderId: shared,
            type: 'sale',
            status: 'processing',
            amount: '10.00',
            currency: 'EUR',
            id: null,
          },
          {
            endpointId: '1002',
            orderid: usd.orderid,
            clientOrderId: shared,
            type: 'sale',
            status: 'processing',
            amount: '12.00',
            currency: 'USD',
            id: null,
          },
        ]);
        expect(await recorded(eur.orderid)).toBeNull();
        expect(await recorded(usd.orderid)).toBeNull();
        const audit = await f.bff.db.k
          .selectFrom('audit_log')
          .selectAll()
          .where('action', '=', 'transaction.lookup')
          .where('error_code', '=', 'CONFLICT')
          .executeTakeFirstOrThrow();
        expect(audit.outcome).toBe('refused');
        expect(JSON.parse(audit.summary)).toEqual({ client_orderid: shared });
      });

      it('when support then chooses one candidate (its orderid, client_orderid and endpoint), then that order is recorded and opened; the next ambiguous lookup names it by its Paydesk id', async () => {
        const chosen = await lookup({
          orderid: usd.orderid,
          client_orderid: shared,
          endpointId: '1002',
        });
        expect(chosen.status).toBe(200);
        const tx = TransactionDetailSchema.parse(chosen.json);
        expect(tx).toMatchObject({ orderid: usd.orderid, endpointId: '1002', currency: 'USD' });
        const again = await lookup({ client_orderid: shared });
        expect(again.status).toBe(409);
        const { candidates } = LookupConflictDetailsSchema.parse(
          (again.json as ErrorEnvelope).error.details,
        );
        expect(candidates.map((c) => [c.orderid, c.id])).toEqual([
          [eur.orderid, null],
          [usd.orderid, tx.id],
        ]);
        // One endpoint named: one order.
        const onEur = await lookup({ client_orderid: shared, endpointId: '1001' });
        expect(onEur.status).toBe(200);
        expect(TransactionDetailSchema.parse(onEur.json).orderid).toBe(eur.orderid);
      });

      it('when an endpoint group is configured too and shows the same order as its endpoint, then that is one order: opened on its own endpoint, not offered twice', async () => {
        const grouped = await startFixture(variant, {
          app: {
            config: {
              merchant: {
                ...f.bff.config.merchant,
                endpoints: [...f.bff.config.merchant.endpoints, { kind: 'group', id: '2001' }],
              },
            },
          },
        });
        try {
          const once = await grouped.shop.place('sale', { amount: '4.00' });
          const found = await grouped.support.post('/api/transactions/lookup', {
            client_orderid: once.clientOrderId,
          });
          expect(found.status, found.text).toBe(200);
          expect(TransactionDetailSchema.parse(found.json)).toMatchObject({
            orderid: once.orderid,
            endpointId: '1001',
          });
        } finally {
          await grouped.close();
        }
      });

      it('when one endpoint shows an order with the client_orderid and another does not answer, then the lookup does not pick the one it saw: 503, nothing recorded', async () => {
        const only = await f.shop.place('sale', { amount: '3.00' });
        const payments = createPayments({
          config: f.bff.config,
          db: f.bff.db,
          clock: f.bff.clock,
          logger: f.bff.logger,
          audit: f.bff.services.audit,
        });
        const send = payments.gateway.send.bind(payments.gateway);
        vi.spyOn(payments.gateway, 'send').mockImplementation((operation, endpointId, fields) =>
          endpointId === '1002'
            ? Promise.resolve({
                kind: 'unknown',
                reason: 'timeout',
                waitedMs: 15_000,
                exchange: {
                  operation,
                  endpointId,
                  url: 'http://gateway.invalid/',
                  request: {},
                  sentAt: new Date(f.bff.clock.now()).toISOString(),
                  receivedAt: null,
                  httpStatus: null,
                  reply: null,
                  rawReply: null,
                  error: 'timeout',
                },
              })
            : send(operation, endpointId, fields),
        );
        try {
          const actor = { id: 'u-1', email: 'support@example.com' };
          const failure = await payments.services.transactions
            .lookup({ client_orderid: only.clientOrderId }, actor)
            .then(
              () => null,
              (err: unknown) => err,
            );
          expect(failure).toBeInstanceOf(AppError);
          expect(failure).toMatchObject({ code: 'GATEWAY_UNAVAILABLE' });
          expect((failure as AppError).message).toContain('on endpoint 1002');
          expect(await recorded(only.orderid)).toBeNull();
          // With its endpoint named, the endpoint that did not answer is not asked.
          const found = await payments.services.transactions.lookup(
            { client_orderid: only.clientOrderId, endpointId: '1001' },
            actor,
          );
          expect(found).toMatchObject({ kind: 'transaction', detail: { orderid: only.orderid } });
        } finally {
          await payments.close();
        }
      });

      /** The endpoints the BFF asks `status` on, in order, until `restore`. */
      const watchStatus = () => {
        const asked: string[] = [];
        const send = f.bff.payments.gateway.send.bind(f.bff.payments.gateway);
        const spy = vi
          .spyOn(f.bff.payments.gateway, 'send')
          .mockImplementation((operation, endpointId, fields) => {
            if (operation === 'status') asked.push(endpointId);
            return send(operation, endpointId, fields);
          });
        return {
          asked,
          restore: () => {
            spy.mockRestore();
          },
        };
      };
      /** Every `status` answered 500 (the gateway failing: outcome unknown) while `run` runs. */
      const statusFailing = async <T>(run: () => Promise<T>): Promise<T> => {
        await f.sandbox.faults({ errorRate: 1, operations: ['status'] });
        try {
          return await run();
        } finally {
          await f.sandbox.faults({});
        }
      };

      /** A sale on endpoint 1002 that Paydesk has learned (looked up once with its endpoint). */
      const knownOn1002 = async (amount: string) => {
        const order = await f.shop.place('sale', { amount, currency: 'USD', endpointId: '1002' });
        const first = await lookup({ client_orderid: order.clientOrderId, endpointId: '1002' });
        expect(first.status, first.text).toBe(200);
        return order;
      };
      /** The look-up's 503: the gateway did not answer on `endpoint`. */
      const expectUnavailableOn = (res: { status: number; json: unknown }, endpoint: string) => {
        expect(res.status).toBe(503);
        const env = res.json as ErrorEnvelope;
        expect(env.error.code).toBe('GATEWAY_UNAVAILABLE');
        expect(env.error.message).toContain(`on endpoint ${endpoint}`);
      };

      it('when an order Paydesk knows is looked up by its orderid alone and the gateway does not answer, then only its recorded endpoint was asked: 503 names it', async () => {
        const order = await knownOn1002('5.00');
        const watch = watchStatus();
        try {
          const res = await statusFailing(() => lookup({ orderid: order.orderid }));
          expectUnavailableOn(res, '1002');
          expect(watch.asked).toEqual(['1002']);
        } finally {
          watch.restore();
        }
      });

      it('when an order Paydesk knows is looked up by its client_orderid alone and the gateway does not answer, then its recorded endpoint is asked first and the lookup ends there: 503', async () => {
        const order = await knownOn1002('6.00');
        const watch = watchStatus();
        try {
          const res = await statusFailing(() => lookup({ client_orderid: order.clientOrderId }));
          expectUnavailableOn(res, '1002');
          expect(watch.asked).toEqual(['1002']);
          // Answering, the other endpoints are still asked (another order may share the id).
          watch.asked.length = 0;
          const again = await lookup({ client_orderid: order.clientOrderId });
          expect(again.status, again.text).toBe(200);
          expect(TransactionDetailSchema.parse(again.json).orderid).toBe(order.orderid);
          expect(watch.asked).toEqual(['1002', '1001']);
        } finally {
          watch.restore();
        }
      });

      it('when the first endpoint does not answer, then the next ones are not asked: 503 names it, nothing recorded; a clear not-found still moves on', async () => {
        const order = await f.shop.place('sale', {
          amount: '7.00',
          currency: 'USD',
          endpointId: '1002',
        });
        const watch = watchStatus();
        try {
          const res = await statusFailing(() => lookup({ client_orderid: order.clientOrderId }));
          expectUnavailableOn(res, '1001');
          expect(watch.asked).toEqual(['1001']);
          expect(await recorded(order.orderid)).toBeNull();
          watch.asked.length = 0;
          const found = await lookup({ client_orderid: order.clientOrderId });
          expect(found.status, found.text).toBe(200);
          expect(TransactionDetailSchema.parse(found.json).endpointId).toBe('1002');
          expect(watch.asked).toEqual(['1001', '1002']);
        } finally {
          watch.restore();
        }
      });

      it('when a whole card number is given as orderid or client_orderid (spaces or dashes too), then 400 names the field and says to search by the last four; nothing goes to the gateway, and neither the audit nor the log holds it', async () => {
        const pan = '4111111111111111';
        const sent: string[] = [];
        const send = f.bff.payments.gateway.send.bind(f.bff.payments.gateway);
        const spy = vi
          .spyOn(f.bff.payments.gateway, 'send')
          .mockImplementation((operation, endpointId, fields) => {
            sent.push(`${operation}@${endpointId}`);
            return send(operation, endpointId, fields);
          });
        try {
          const cases: [Record<string, string>, 'orderid' | 'client_orderid'][] = [
            [{ orderid: pan }, 'orderid'],
            [{ client_orderid: pan }, 'client_orderid'],
            [{ client_orderid: '4111 1111 1111 1111' }, 'client_orderid'],
            [{ orderid: '4111-1111-1111-1111' }, 'orderid'],
            [{ orderid: '1000333', client_orderid: pan, endpointId: '1001' }, 'client_orderid'],
          ];
          for (const [body, field] of cases) {
            const res = await lookup(body);
            expect(res.status, JSON.stringify(body)).toBe(400);
            const env = res.json as ErrorEnvelope;
            expect(env.error.code).toBe('VALIDATION_FAILED');
            expect(env.error.message).toBe(
              `${field}: looks like a card number: search by its last four digits`,
            );
            expect(env.error.details?.fields).toEqual([
              {
                path: field,
                rule: 'no_card_number',
                message: 'looks like a card number: search by its last four digits',
              },
            ]);
            expect(res.text).not.toContain('1111111111');
            expect(res.text).not.toContain('1111 1111');
          }
          expect(sent).toEqual([]);
          const rows = await f.bff.db.k
            .selectFrom('audit_log')
            .selectAll()
            .where('action', '=', 'transaction.lookup')
            .execute();
          const allAudit = JSON.stringify(rows);
          for (const form of [pan, '4111 1111 1111 1111', '4111-1111-1111-1111'])
            expect(allAudit).not.toContain(form);
          const logged = f.bff.logs.join('\n');
          for (const form of [pan, '4111 1111 1111 1111', '4111-1111-1111-1111'])
            expect(logged).not.toContain(form);
        } finally {
          spy.mockRestore();
        }
      });

      it('when an endpoint is chosen and the order is on another one, then 404 says only that endpoint was asked and to leave the endpoint empty; without it the order is found', async () => {
        const order = await f.shop.place('sale', {
          amount: '7.05',
          currency: 'USD',
          endpointId: '1002',
        });
        const res = await lookup({
          orderid: order.orderid,
          client_orderid: order.clientOrderId,
          endpointId: '1001',
        });
        expect(res.status).toBe(404);
        const env = res.json as ErrorEnvelope;
        expect(env.error.code).toBe('NOT_FOUND');
        expect(env.error.message).toBe(
          `Endpoint 1001 has no order ${order.orderid}; only that endpoint was asked, and the order may be on another one (1002). Look up again with the endpoint left empty to ask every endpoint.`,
        );
        expect(env.error.message).not.toContain('The gateway knows no');
        expect(await recorded(order.orderid)).toBeNull();
        const everywhere = await lookup({
          orderid: order.orderid,
          client_orderid: order.clientOrderId,
        });
        expect(everywhere.status, everywhere.text).toBe(200);
        expect(TransactionDetailSchema.parse(everywhere.json).endpointId).toBe('1002');
        // Asked on every endpoint, none has it: the gateway knows no such order.
        const nowhere = await lookup({ client_orderid: `nowhere-${randomUUID()}` });
        expect(nowhere.status).toBe(404);
        expect((nowhere.json as ErrorEnvelope).error.message).toMatch(
          /^The gateway knows no client_orderid nowhere-.* on endpoints 1001, 1002\.$/,
        );
      });

      it('when the instance begins to stop during a lookup, then no further endpoint is asked: 503 SERVICE_UNAVAILABLE, nothing recorded', async () => {
        const order = await f.shop.place('sale', {
          amount: '8.00',
          currency: 'USD',
          endpointId: '1002',
        });
        const asked: string[] = [];
        const stopping = vi.spyOn(f.bff.payments.streams, 'closed', 'get');
        const send = f.bff.payments.gateway.send.bind(f.bff.payments.gateway);
        const spy = vi
          .spyOn(f.bff.payments.gateway, 'send')
          .mockImplementation(async (operation, endpointId, fields) => {
            const outcome = await send(operation, endpointId, fields);
            // The stop begins while the first endpoint's exchange is under way (shutdown.ts ends
            // the streams first, and `closed` says so).
            if (operation === 'status') {
              asked.push(endpointId);
              stopping.mockReturnValue(true);
            }
            return outcome;
          });
        try {
          const res = await lookup({ client_orderid: order.clientOrderId });
          expect(res.status).toBe(503);
          const env = res.json as ErrorEnvelope;
          expect(env.error.code).toBe('SERVICE_UNAVAILABLE');
          expect(env.error.message).toBe('this instance is stopping; ask again');
          expect(asked).toEqual(['1001']);
          expect(await recorded(order.orderid)).toBeNull();
        } finally {
          spy.mockRestore();
          stopping.mockRestore();
        }
      });
    },
  );
}
