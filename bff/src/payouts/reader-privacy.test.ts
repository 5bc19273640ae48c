// What readers who are not the ops users handling a payout may see of it: a payout-form link's page
// address (a bearer link that pays whoever fills it in) only reaches the ops users who created and
// approved it; a payee's name and card expiry only reach ops users. Through the BFF's HTTP API,
// against the real sandbox, on SQLite and (with PAYDESK_TEST_PG_URL) PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  maskCardNumbers,
  PaymentLinkDetailSchema,
  PaymentLinkListSchema,
  PaymentLinkResultSchema,
  PayoutDetailSchema,
  PayoutListSchema,
  PayoutResultSchema,
} from '@paydesk/shared/api';
import { DB_VARIANTS, openEventStream, type TestClient } from '../test-support/harness.js';
import { addEvent } from './context.js';
import {
  cardPayout,
  post,
  startPayoutsApp,
  startSandbox,
  TEST_CARD,
  type PayoutsTestApp,
  type Sandbox,
} from './test-support/app.js';
import { TEST_CUSTOMER } from '../test-support/customer.js';

/** The card's expiry as shown or sent (12/2035, "2035"), not a run inside a random id. */
const EXPIRY = /12\/2035|"2035"|[^0-9a-f-]2035[^0-9a-f-]/;

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(`what readers see of payouts (${variant.name})`, () => {
    let sandbox: Sandbox;
    let bff: PayoutsTestApp;
    let creator: TestClient & { email: string };
    let approver: TestClient & { email: string };
    let otherOps: TestClient & { email: string };
    let finance: TestClient & { email: string };
    let support: TestClient & { email: string };
    let auditor: TestClient & { email: string };

    beforeAll(async () => {
      sandbox = await startSandbox();
      bff = await startPayoutsApp(variant, sandbox.baseUrl);
      creator = await bff.userWithRoles(['ops']);
      approver = await bff.userWithRoles(['ops']);
      otherOps = await bff.userWithRoles(['ops']);
      finance = await bff.userWithRoles(['finance']);
      support = await bff.userWithRoles(['support']);
      auditor = await bff.userWithRoles(['auditor', 'support']);
    });
    afterAll(async () => {
      await bff.close();
      await sandbox.stop();
    });

    /** Everything a reader can fetch about one link: its list row, its page, both as text. */
    const readLink = async (viewer: TestClient, id: string) => {
      const list = await viewer.get('/api/payment-links?limit=200');
      expect(list.status, list.text).toBe(200);
      const detail = await viewer.get(`/api/payment-links/${id}`);
      expect(detail.status, detail.text).toBe(200);
      return {
        row: PaymentLinkListSchema.parse(list.json).items.find((l) => l.id === id),
        detail: PaymentLinkDetailSchema.parse(detail.json),
        text: list.text + detail.text,
      };
    };

    it('when a payout-form link is approved, then its page address goes to its creator and approver only: other ops users, finance, support and auditors get no address in the list, the link, its history or the live events', async () => {
      const streams = await Promise.all(
        [support, auditor, finance].map((c) => openEventStream(bff.url, c)),
      );
      let streamed = '';
      for (const s of streams) {
        s.setEncoding('utf8');
        s.on('data', (chunk: string) => {
          streamed += chunk;
        });
      }
      const created = await post(creator, '/api/payment-links', {
        kind: 'payout-form',
        amount: '30.00',
        currency: 'EUR',
        orderDesc: 'Payout form for one payee',
      });
      expect(created.status, created.text).toBe(200);
      const held = PaymentLinkResultSchema.parse(created.json).link;
      const approved = await post(approver, `/api/payment-links/${held.id}/approve`, {});
      expect(approved.status, approved.text).toBe(200);
      const page = PaymentLinkResultSchema.parse(approved.json).link.redirectUrl;
      expect(page?.startsWith(`${sandbox.baseUrl}/hosted/`), String(page)).toBe(true);
      const secret = page ?? '';

      for (const holder of [creator, approver]) {
        const seen = await readLink(holder, held.id);
        expect(seen.row?.redirectUrl).toBe(secret);
        expect(seen.detail.redirectUrl).toBe(secret);
        // The history keeps it from everyone, the holders too: they have it above.
        expect(JSON.stringify(seen.detail.events)).not.toContain(secret);
        expect(JSON.stringify(seen.detail.events)).toContain('[withheld]');
      }
      for (const reader of [otherOps, finance, support, auditor]) {
        const seen = await readLink(reader, held.id);
        expect(seen.row).toMatchObject({ state: 'sent', redirectUrl: null });
        expect(seen.detail).toMatchObject({ state: 'sent', redirectUrl: null });
        expect(seen.text).not.toContain(secret);
        expect(seen.text).not.toContain('/hosted/');
      }
      // Nor is it stored anywhere a reader's reply is built from, but the link's own column.
      const events = await bff.k
        .selectFrom('payout_events')
        .select('data')
        .where('subject', '=', `link:${held.id}`)
        .execute();
      expect(events.map((e) => e.data).join('\n')).not.toContain(secret);
      for (const s of streams) s.destroy();
      expect(streamed).toContain(held.id);
      expect(streamed).not.toContain(secret);
    });

    it('when a payout-form link’s history was stored with the address before it was withheld, then no reader gets it back from the history', async () => {
      const created = await post(creator, '/api/payment-links', {
        kind: 'payout-form',
        amount: '31.00',
        currency: 'EUR',
        orderDesc: 'Payout form with an old history',
      });
      const held = PaymentLinkResultSchema.parse(created.json).link;
      expect((await post(approver, `/api/payment-links/${held.id}/approve`, {})).status).toBe(200);
      const old = `${sandbox.baseUrl}/hosted/999/old-token`;
      // As an older Paydesk stored the exchange: the reply's redirect-url as is.
      await addEvent(
        bff.k,
        bff.clock,
        `link:${held.id}`,
        {
          kind: 'gateway',
          title: 'payout-form',
          actor: approver.email,
          data: { reply: { 'redirect-url': old }, rawReply: `redirect-url=${old}` },
        },
        null,
      );
      for (const reader of [support, auditor, creator]) {
        const seen = await readLink(reader, held.id);
        expect(seen.text).not.toContain(old);
      }
      // A card form's page (the customer pays) stays in its history for every reader.
      const sale = await post(finance, '/api/payment-links', {
        kind: 'sale-form',
        amount: '9.99',
        currency: 'EUR',
        orderDesc: 'Invoice 7',
        customer: TEST_CUSTOMER,
      });
      const saleLink = PaymentLinkResultSchema.parse(sale.json).link;
      const seen = await readLink(support, saleLink.id);
      expect(seen.detail.redirectUrl).toBe(saleLink.redirectUrl);
      // As stored: redacted like every timeline (the page's token may hold a card-number-like run).
      expect(JSON.stringify(seen.detail.events)).toContain(
        maskCardNumbers(saleLink.redirectUrl ?? '-'),
      );
    });

    it('when a card payout is prepared and paid, then only ops users see the payee’s name and the card’s expiry; support and auditors see the masked card alone, in the list, the payout, its history and the audit log', async () => {
      const prepared = await post(creator, '/api/payouts', cardPayout('12.00'));
      expect(prepared.status, prepared.text).toBe(200);
      const payout = PayoutResultSchema.parse(prepared.json).payout;
      expect(payout.destination.label).toBe('Jane Payee, expires 12/2035');
      expect((await post(approver, `/api/payouts/${payout.id}/approve`, {})).status).toBe(200);
      await sandbox.advance(5);
      bff.clock.advance(10_000);
      await bff.payouts.poller.runOnce();

      const read = async (viewer: TestClient) => {
        const list = await viewer.get('/api/payouts?limit=200');
        const detail = await viewer.get(`/api/payouts/${payout.id}`);
        expect([list.status, detail.status]).toEqual([200, 200]);
        return {
          row: PayoutListSchema.parse(list.json).items.find((p) => p.id === payout.id),
          detail: PayoutDetailSchema.parse(detail.json),
          text: list.text + detail.text,
        };
      };
      for (const opsUser of [creator, approver, otherOps]) {
        const seen = await read(opsUser);
        expect(seen.row?.destination.label).toBe('Jane Payee, expires 12/2035');
        expect(seen.detail.destination.label).toBe('Jane Payee, expires 12/2035');
      }
      for (const reader of [support, auditor]) {
        const seen = await read(reader);
        expect(seen.row?.destination).toEqual({
          kind: 'card',
          masked: '411111******1111',
          label: null,
        });
        expect(seen.detail.destination.label).toBeNull();
        expect(seen.text).not.toContain(TEST_CARD.cardholderName);
        // The expiry as shown or sent (12/2035, "2035"), not a run inside a random id or cursor.
        expect(seen.text).not.toMatch(EXPIRY);
        // The gateway exchanges are still there, with the masked card.
        const titles = seen.detail.events.map((e) => e.title);
        expect(titles).toEqual(
          expect.arrayContaining(["check of the payee's details", 'payment of the checked payout']),
        );
        expect(JSON.stringify(seen.detail.events)).toContain('411111******1111');
      }
      // Stored without them: the timeline and the audit row of the preparation.
      const stored = await bff.k
        .selectFrom('payout_events')
        .select('data')
        .where('subject', '=', `payout:${payout.id}`)
        .execute();
      const audit = await bff.k
        .selectFrom('audit_log')
        .select('summary')
        .where('target', '=', `payout:${payout.id}`)
        .execute();
      for (const text of [...stored.map((e) => e.data), ...audit.map((a) => a.summary)]) {
        expect(text).not.toContain(TEST_CARD.cardholderName);
        expect(text).not.toMatch(EXPIRY);
      }
      const auditRead = await auditor.get(
        `/api/audit?target=${encodeURIComponent(`payout:${payout.id}`)}`,
      );
      expect(auditRead.status, auditRead.text).toBe(200);
      expect(auditRead.text).toContain('411111******1111');
      expect(auditRead.text).not.toContain(TEST_CARD.cardholderName);
    });

    it('when a bank payout is prepared, then its label (bank name and BIC) is no secret: every reader sees it', async () => {
      const prepared = await post(
        creator,
        '/api/payouts',
        cardPayout('13.00', {
          mode: 'single',
          destination: {
            kind: 'bank',
            accountNumber: 'DE89370400440532013000',
            bankName: 'Test Bank',
            bankBic: 'COBADEFFXXX',
          },
        }),
      );
      expect(prepared.status, prepared.text).toBe(200);
      const id = PayoutResultSchema.parse(prepared.json).payout.id;
      const seen = PayoutDetailSchema.parse((await support.get(`/api/payouts/${id}`)).json);
      expect(seen.destination.label).toBe('Test Bank (COBADEFFXXX)');
    });
  });
}
