// How drift is said to staff: a `status` reply that contradicts Paydesk's record is applied (the
// gateway holds the money), so its reasons say what Paydesk had and what the gateway says, in the
// past tense, and every amount in them, in the drift's timeline entry and in the audit row names
// the order's currency (`10.00 USD`), as the BFF's other messages do. Both databases.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Kysely } from 'kysely';
import { ManualClock } from '../clock.js';
import { openDatabase, type Db } from '../db/connect.js';
import { AuditLog } from '../services/audit.js';
import { DB_VARIANTS } from '../test-support/harness.js';
import { InProcessEventBus } from './events.js';
import { Ledger, type GatewayView } from './ledger.js';
import { ensurePaymentsSchema } from './migration.js';
import { resolveOptions } from './options.js';

const AT = '2026-11-21T09:00:00.000Z';

/** An approved preauth of 100.00 USD as the gateway shows it: `stage`, captured and returned. */
function reply(
  orderid: string,
  shown: {
    status?: GatewayView['status'];
    stage: string;
    capturedMinor: bigint;
    returnedMinor: bigint;
  },
): GatewayView {
  return {
    orderid,
    clientOrderId: `drift-words-${orderid}`,
    type: 'preauth',
    status: shown.status ?? 'approved',
    stage: shown.stage,
    currency: 'USD',
    amountMinor: 10_000n,
    authorizedMinor: 10_000n,
    capturedMinor: shown.capturedMinor,
    returnedMinor: shown.returnedMinor,
    cardBin: '411111',
    cardLast4: '1111',
    cardBrand: 'VISA',
    cardRefId: null,
    email: 'drift-words@example.com',
    name: null,
    operations: [],
    createdAt: Date.parse(AT),
  };
}

/** An amount in a text without a currency code right after it. */
const BARE_AMOUNT = /\d\.\d\d(?! [A-Z]{3}\b)/;

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(`drift reasons as staff read them (${variant.name})`, () => {
    let db: Db;
    let created: Awaited<ReturnType<(typeof DB_VARIANTS)[number]['create']>>;
    let ledger: Ledger;
    beforeAll(async () => {
      created = await variant.create();
      db = await openDatabase(created.database, 4);
      await ensurePaymentsSchema(db.k as unknown as Kysely<unknown>, db.kind);
      const clock = new ManualClock(Date.parse(AT));
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

    const apply = (v: GatewayView) =>
      ledger.tx((trx) =>
        ledger.applyStatus(trx, '1001', v, { source: 'refresh', actor: null, exchange: null }),
      );
    /** The texts staff read of the order's drift: its details, its timeline entry, its audit row. */
    const driftTexts = async (id: string) => {
      const detail = await ledger.detail(ledger.k, id);
      const audit = await db.k
        .selectFrom('audit_log')
        .select('summary')
        .where('action', '=', 'transaction.drift')
        .where('target', '=', `transaction:${id}`)
        .execute();
      return {
        reasons: detail?.driftDetails?.reasons,
        titles: detail?.timeline.filter((e) => e.kind === 'drift').map((e) => e.title) ?? [],
        audited: audit.map((r) => (JSON.parse(r.summary) as { reasons: unknown }).reasons),
      };
    };

    it('when the gateway says a captured, partly returned preauth is declined with less captured and nothing returned, then each reason says what Paydesk had and what the gateway says, with the currency, as do the timeline and the audit row', async () => {
      const learned = await apply(
        reply('778001', {
          stage: 'partially_returned',
          capturedMinor: 8_000n,
          returnedMinor: 2_525n,
        }),
      );
      expect(learned.drift).toEqual([]);

      const result = await apply(
        reply('778001', {
          status: 'declined',
          stage: 'captured',
          capturedMinor: 5_000n,
          returnedMinor: 0n,
        }),
      );
      const reasons = [
        'Paydesk had the order approved; the gateway says declined',
        'Paydesk had 80.00 USD captured; the gateway 50.00 USD',
        'Paydesk had 25.25 USD returned; the gateway 0.00 USD',
      ];
      expect(result.drift).toEqual(reasons);
      const texts = await driftTexts(learned.row.id);
      expect(texts.reasons).toEqual(reasons);
      expect(texts.audited).toEqual([reasons]);
      expect(texts.titles).toEqual([
        `the gateway contradicted Paydesk's record: ${reasons.join(' · ')}`,
      ]);
      for (const text of [...reasons, ...texts.titles]) expect(text).not.toMatch(BARE_AMOUNT);
    });

    it('when the gateway shows a hold Paydesk had voided as captured, then the reason says Paydesk had it voided and what the gateway says', async () => {
      const learned = await apply(
        reply('778002', { stage: 'voided', capturedMinor: 0n, returnedMinor: 0n }),
      );
      const result = await apply(
        reply('778002', { stage: 'partially_returned', capturedMinor: 10_000n, returnedMinor: 0n }),
      );
      expect(result.drift).toEqual([
        'Paydesk had the order voided; the gateway says partially returned',
      ]);
      expect((await driftTexts(learned.row.id)).titles).toEqual([
        "the gateway contradicted Paydesk's record: Paydesk had the order voided; the gateway says partially returned",
      ]);
    });

    it('when the totals the gateway shows break returned ≤ captured ≤ authorized, then the reason names the currency with each amount', async () => {
      await apply(
        reply('778003', { stage: 'captured', capturedMinor: 10_000n, returnedMinor: 0n }),
      );
      const result = await apply(
        reply('778003', { stage: 'captured', capturedMinor: 12_000n, returnedMinor: 12_500n }),
      );
      expect(result.drift).toEqual([
        'captured 120.00 USD exceeds authorized 100.00 USD',
        'returned 125.00 USD exceeds captured 120.00 USD',
      ]);
    });
  });
}
