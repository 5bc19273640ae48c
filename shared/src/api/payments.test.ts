import { describe, expect, it } from 'vitest';
import { isWholeCardNumber } from './common.js';
import {
  AMOUNT_MAX,
  AmountSchema,
  CurrencySchema,
  hasCents,
  isIsoCurrency,
  latestSubscriptionStart,
  LookupBodySchema,
  LookupReplySchema,
  SEARCH_CARD_NUMBER_REFUSAL,
  StatsQuerySchema,
  TransactionExportQuerySchema,
  TransactionFilterSchema,
  transactionFilterRangeIssues,
  TransactionListQuerySchema,
  TransactionPageSchema,
  transactionSearchCard,
} from './payments.js';
import { expiredCardField, PAYOUT_SENT_STATES, PAYOUT_STATES } from './payouts.js';
import { viewQueryProblems } from './views.js';

describe('amounts', () => {
  it('when an amount is well formed but above the largest the API takes, then the refusal says the maximum, not the form', () => {
    expect(AmountSchema.parse(AMOUNT_MAX)).toBe(AMOUNT_MAX);
    for (const amount of ['90071992547409.92', '10000000000000', '99999999999999999.99']) {
      expect(
        AmountSchema.safeParse(amount).error?.issues.map((i) => i.message),
        amount,
      ).toEqual(['must be at most 9999999999999.99']);
    }
    for (const amount of ['19.999', '1,5', '012', '90071992547409.921']) {
      expect(
        AmountSchema.safeParse(amount).error?.issues.map((i) => i.message),
        amount,
      ).toEqual(['must be a decimal amount with at most 2 decimals, e.g. 19.99']);
    }
  });
});

describe('currency codes', () => {
  it('when a code is an ISO 4217 currency, then it is taken (any case); made-up, "no currency" and testing codes are refused', () => {
    expect(CurrencySchema.parse('eur')).toBe('EUR');
    for (const code of ['USD', 'GBP', 'JPY', 'CHF', 'XCG']) expect(isIsoCurrency(code)).toBe(true);
    for (const code of ['ZZZ', 'XXX', 'XTS', 'ABC']) {
      const parsed = CurrencySchema.safeParse(code);
      expect(parsed.success, code).toBe(false);
      expect(parsed.error?.issues.map((i) => i.message)).toEqual([
        'must be an ISO 4217 currency code (e.g. EUR)',
      ]);
    }
    // the gateway counts amounts in cents: a currency without them (JPY) or with thousandths (KWD)
    // is refused
    for (const code of ['JPY', 'KRW', 'KWD', 'BHD']) {
      expect(
        CurrencySchema.safeParse(code).error?.issues.map((i) => i.message),
        code,
      ).toEqual(['must be a currency with 2 decimals (cents), as the gateway takes amounts']);
    }
    for (const code of ['EUR', 'USD', 'GBP', 'CHF']) expect(hasCents(code)).toBe(true);
    // a malformed code gets the format rule alone
    expect(CurrencySchema.safeParse('euro').error?.issues.map((i) => i.message)).toEqual([
      'must be an ISO 4217 alpha-3 code',
    ]);
  });
});

describe('transaction filter ranges', () => {
  it('when the creation window is empty or backwards, or the amounts are, then the upper bound is named; within range, nothing', () => {
    expect(
      transactionFilterRangeIssues({
        createdFrom: '2026-01-02T00:00:00Z',
        createdTo: '2026-01-01T00:00:00Z',
        amountMin: '100',
        amountMax: '99.99',
      }),
    ).toEqual([
      { path: 'createdTo', message: 'must be after createdFrom' },
      { path: 'amountMax', message: 'must not be below amountMin' },
    ]);
    expect(
      transactionFilterRangeIssues({
        createdFrom: '2026-01-01T00:00:00Z',
        createdTo: '2026-01-01T00:00:00Z',
      }),
    ).toHaveLength(1);
    // compared as minor units, never as text or floats
    expect(transactionFilterRangeIssues({ amountMin: '9.9', amountMax: '10' })).toEqual([]);
    expect(transactionFilterRangeIssues({ amountMin: '5', amountMax: '5.00' })).toEqual([]);
    // a bad value is its own field's problem
    expect(transactionFilterRangeIssues({ amountMin: 'x', amountMax: '1' })).toEqual([]);
  });

  it('when the list, export or saved-view schemas meet a backwards range, then they refuse it with the same rule', () => {
    const backwards = { amountMin: '100', amountMax: '1' };
    for (const schema of [
      TransactionFilterSchema,
      TransactionListQuerySchema,
      TransactionExportQuerySchema,
    ]) {
      const parsed = schema.safeParse(backwards);
      expect(parsed.error?.issues).toEqual([
        expect.objectContaining({
          path: ['amountMax'],
          message: 'must not be below amountMin',
          params: { rule: 'range' },
        }),
      ]);
    }
    expect(viewQueryProblems('transactions', 'amountMin=100&amountMax=1')).toEqual([
      'amountMax: must not be below amountMin',
    ]);
    // the field rules still apply one by one (the SPA reads a URL key by key)
    expect(TransactionFilterSchema.shape.amountMin.safeParse('1.234').success).toBe(false);
  });

  it('when a list, export or statistics query holds an unknown parameter, then it is refused', () => {
    expect(TransactionFilterSchema.safeParse({ 'status[]': 'approved' }).success).toBe(false);
    expect(TransactionFilterSchema.safeParse({ limit: '10' }).success).toBe(false);
    expect(TransactionListQuerySchema.safeParse({ statuses: 'approved' }).success).toBe(false);
    expect(TransactionListQuerySchema.parse({ status: 'approved', limit: '10' })).toMatchObject({
      status: 'approved',
      limit: 10,
    });
    expect(StatsQuerySchema.safeParse({ since: '2026-01-01T00:00:00Z' }).success).toBe(false);
  });

  it('when the export is asked for, then it takes the list’s sort (newest first by default) but no page cursor or size', () => {
    expect(TransactionExportQuerySchema.parse({ status: 'approved' })).toEqual({
      status: 'approved',
      sort: 'created_desc',
      delimiter: 'comma',
    });
    expect(TransactionExportQuerySchema.parse({ sort: 'amount_asc' }).sort).toBe('amount_asc');
    expect(TransactionExportQuerySchema.safeParse({ sort: 'amount' }).success).toBe(false);
    expect(TransactionExportQuerySchema.safeParse({ cursor: 'x' }).success).toBe(false);
    expect(TransactionExportQuerySchema.safeParse({ limit: '10' }).success).toBe(false);
  });
});

describe('search terms', () => {
  it('when a search term is a masked card as Paydesk shows it, then its BIN (if shown) and last four are read', () => {
    expect(transactionSearchCard('411111******1111')).toEqual({ bin: '411111', last4: '1111' });
    expect(transactionSearchCard('4111 11** **** 1111')).toEqual({ bin: '411111', last4: '1111' });
    expect(transactionSearchCard('41111122…4242')).toEqual({ bin: '41111122', last4: '4242' });
    expect(transactionSearchCard('**** 1111')).toEqual({ bin: null, last4: '1111' });
    expect(transactionSearchCard('…1111')).toEqual({ bin: null, last4: '1111' });
    // Fewer stars than a masked card shows, as typed (QA: `**1111` found nothing).
    expect(transactionSearchCard('**1111')).toEqual({ bin: null, last4: '1111' });
    expect(transactionSearchCard('*1111')).toEqual({ bin: null, last4: '1111' });
    expect(transactionSearchCard('•• 4242')).toEqual({ bin: null, last4: '4242' });
  });

  it('when a search term is no masked card, then it is not read as one', () => {
    for (const term of [
      '1111',
      'x.1234',
      'xx1234',
      '.1234',
      'shop-1111',
      '4111111111111111',
      '12345*1111',
      '411111******',
    ]) {
      expect(transactionSearchCard(term), term).toBeNull();
    }
  });
});

describe('payout card expiry', () => {
  const now = Date.UTC(2026, 10, 21, 9, 0, 0);
  it('when the expiry month has ended (UTC), then the field at fault is named; the expiry month itself is still valid', () => {
    expect(expiredCardField({ expiryMonth: '12', expiryYear: '2025' }, now)).toEqual({
      path: 'expiryYear',
      message: 'the card expired at the end of 12/2025',
    });
    expect(expiredCardField({ expiryMonth: '10', expiryYear: '2026' }, now)?.path).toBe(
      'expiryMonth',
    );
    expect(expiredCardField({ expiryMonth: '11', expiryYear: '2026' }, now)).toBeNull();
    expect(expiredCardField({ expiryMonth: '01', expiryYear: '2027' }, now)).toBeNull();
    // the last instant of November 2026, and the first of December
    expect(
      expiredCardField({ expiryMonth: '11', expiryYear: '2026' }, Date.UTC(2026, 11, 1) - 1),
    ).toBeNull();
    expect(
      expiredCardField({ expiryMonth: '11', expiryYear: '2026' }, Date.UTC(2026, 11, 1)),
    ).not.toBeNull();
  });
});

describe('the transaction search (q)', () => {
  it('when it holds a whole card number, then it is refused with its rule; last four, a masked card and ids pass', () => {
    const refused = TransactionFilterSchema.safeParse({ q: '4111 1111 1111 1111' });
    expect(refused.success).toBe(false);
    expect(refused.error?.issues[0]).toMatchObject({
      path: ['q'],
      message: SEARCH_CARD_NUMBER_REFUSAL,
    });
    for (const q of ['1111', '411111******1111', '1000328', 'shopper@example.com']) {
      expect(TransactionFilterSchema.safeParse({ q }).success).toBe(true);
    }
  });
});

describe('a payout’s order in the transactions search and the lookup', () => {
  const payout = {
    id: '10000000-0000-4000-8000-000000000001',
    state: 'pending_approval',
    amount: '12.00',
    currency: 'EUR',
    endpointId: '1001',
    orderid: '1000001',
    clientOrderId: 'pd-payout-10000000-0000-4000-8000-000000000001',
  };

  it('when a list page names a payout, then it is read with it; a page without one (as before) still reads, and a payout never carries its destination', () => {
    const page = { items: [], nextCursor: null, total: 0, totalCapped: false };
    expect(TransactionPageSchema.parse(page).payouts).toBeUndefined();
    expect(TransactionPageSchema.parse({ ...page, payouts: [payout] }).payouts).toEqual([payout]);
    const held = { ...payout, orderid: null };
    expect(TransactionPageSchema.parse({ ...page, payouts: [held] }).payouts).toEqual([held]);
    const withDestination = { ...payout, destination: { masked: '411111******1111' } };
    expect(TransactionPageSchema.parse({ ...page, payouts: [withDestination] }).payouts).toEqual([
      payout,
    ]);
    expect(
      TransactionPageSchema.safeParse({ ...page, payouts: [{ ...payout, amount: '12' }] }).success,
    ).toBe(false);
  });

  it('when the lookup answers with a payout, then the reply reads as the payout, not as an order; an unknown field is refused', () => {
    const reply = LookupReplySchema.parse({ payout });
    expect('payout' in reply ? reply.payout.id : null).toBe(payout.id);
    expect(LookupReplySchema.safeParse({ payout, extra: 1 }).success).toBe(false);
    expect(LookupReplySchema.safeParse({ payout: { ...payout, state: 'paid' } }).success).toBe(
      false,
    );
  });

  it('when a payout’s money order was sent, then its state is among the sent ones; before (checked, held, refused, lapsed), it is not', () => {
    expect(PAYOUT_STATES.filter((s) => PAYOUT_SENT_STATES.has(s))).toEqual([
      'sending',
      'processing',
      'unknown',
      'approved',
      'declined',
      'error',
      'filtered',
    ]);
  });
});

describe('latestSubscriptionStart', () => {
  it('is the same day a year later by the UTC calendar; a leap day becomes the 1st of March', () => {
    expect(latestSubscriptionStart('2026-11-21')).toBe('2027-11-21');
    expect(latestSubscriptionStart('2026-12-31')).toBe('2027-12-31');
    expect(latestSubscriptionStart('2028-02-29')).toBe('2029-03-01');
  });
});

describe('a whole card number in a search term or a look-up id', () => {
  it('when the term is, as a whole, a card number (spaces or dashes between its digits), then it is refused; an id with a Luhn-valid run of digits among other characters is an id (QA: a timestamp in a client order id)', () => {
    for (const pan of ['4111111111111111', '4111 1111 1111 1111', ' 4111-1111-1111-1111 '])
      expect(isWholeCardNumber(pan), pan).toBe(true);
    for (const id of [
      'qa2-preauth-1795900891072-1',
      'ref 4111111111111111',
      '4111111111111112',
      '41111',
    ])
      expect(isWholeCardNumber(id), id).toBe(false);
    const q = (term: string) => TransactionListQuerySchema.safeParse({ q: term }).success;
    expect(q('qa2-preauth-1795900891072-1')).toBe(true);
    expect(q('4111 1111 1111 1111')).toBe(false);
    const lookup = (clientOrderId: string) =>
      LookupBodySchema.safeParse({ client_orderid: clientOrderId }).success;
    expect(lookup('qa2-preauth-1795900891072-1')).toBe(true);
    expect(lookup('4111111111111111')).toBe(false);
  });
});
