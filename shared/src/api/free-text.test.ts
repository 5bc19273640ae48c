import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import {
  containsCardNumber,
  findCardNumbers,
  FREE_TEXT_REFUSALS,
  freeText,
  isFreeTextRefusal,
  isWholeCardNumber,
  maskCardNumbers,
} from './common.js';
import {
  RebillBodySchema,
  ReturnBodySchema,
  SubscriptionCreateBodySchema,
  VoidBodySchema,
} from './payments.js';
import {
  CardInfoBodySchema,
  PaymentLinkCreateBodySchema,
  PayoutCreateBodySchema,
  PayoutRejectBodySchema,
} from './payouts.js';
import {
  CreateUserRequestSchema,
  ResetTotpRequestSchema,
  UpdateUserRequestSchema,
} from './users.js';
import { ViewCreateBodySchema } from './views.js';

const messages = (schema: z.ZodType, value: unknown) => {
  const parsed = schema.safeParse(value);
  return parsed.success ? [] : parsed.error.issues.map((i) => i.message);
};

describe('card numbers in text', () => {
  it('when 13–19 digits pass the Luhn check, unbroken or in groups with single spaces or dashes, then they are found with their place', () => {
    expect(findCardNumbers('pan 4111 1111 1111 1111, thanks')).toEqual([
      { start: 4, end: 23, digits: '4111111111111111' },
    ]);
    for (const text of [
      '4111111111111111',
      '4111-1111-1111-1111',
      '3782 822463 10005',
      'x5555555555554444y',
      '6011 0009 9013 9424 421',
    ]) {
      expect(containsCardNumber(text), text).toBe(true);
    }
  });

  it('when the card number stands next to other digit groups (an expiry, a reference), then it is still found', () => {
    expect(containsCardNumber('4111 1111 1111 1111 12 27')).toBe(true);
    expect(containsCardNumber('4111111111111111 12 25')).toBe(true);
    expect(containsCardNumber('ref 123 4111-1111-1111-1111')).toBe(true);
    expect(findCardNumbers('ref 12 4111 1111 1111 1111 exp 12 27').map((m) => m.digits)).toEqual([
      '4111111111111111',
    ]);
  });

  it('when the groups are joined by one dot or underscore throughout, or written in another script’s digits, then they are found (QA: such a comment was stored in clear)', () => {
    for (const text of [
      '4111.1111.1111.1111',
      'card 4111_1111_1111_1111 exp',
      '3782.822463.10005',
      '٤١١١١١١١١١١١١١١١',
      '４１１１ １１１１ １１１１ １１１１',
      '۴۱۱۱-۱۱۱۱-۱۱۱۱-۱۱۱۱',
    ]) {
      expect(containsCardNumber(text), text).toBe(true);
    }
    // The place is the typed text's, so masking keeps the words around it.
    expect(maskCardNumbers('pan ٤١١١١١١١١١١١١١١١ ok')).toBe('pan 411111…1111 ok');
    // Digits beyond the BMP (mathematical ones) are left as typed, the text whole around them.
    expect(maskCardNumbers('𝟒𝟏𝟏𝟏 4111 1111 1111 1111 ٤')).toBe('𝟒𝟏𝟏𝟏 411111…1111 ٤');
    expect(maskCardNumbers('a 4111.1111.1111.1111 b 5555 5555 5555 4444 c')).toBe(
      'a 411111…1111 b 555555…4444 c',
    );
    expect(maskCardNumbers('x 1234 5678.9012.3456.7890 4111.1111.1111.1111 y')).not.toMatch(
      /4111\.1111/,
    );
  });

  it('when dots stand between amounts, a date, an address or a version, then no card number is found there', () => {
    for (const text of [
      'returned 12.50 13.75 19.99 1.00 and 4.20',
      'on 2026.11.28 from 192.168.100.200',
      'build 1.22.333.4444',
      'total 1234567890123.45',
      '4111.1111 1111.1111',
      '٤١١١ and ١١١١',
    ]) {
      expect(containsCardNumber(text), text).toBe(false);
    }
  });

  it('when a whole term is a card number in any of these writings, then isWholeCardNumber says so; an id with one among other characters is none', () => {
    for (const text of [
      '4111.1111.1111.1111',
      ' 4111_1111_1111_1111 ',
      '４１１１１１１１１１１１１１１１',
    ])
      expect(isWholeCardNumber(text), text).toBe(true);
    for (const text of ['4111.1111_1111.1111', 'shop-4111.1111.1111.1111', '1234.56'])
      expect(isWholeCardNumber(text), text).toBe(false);
  });

  it('when digits fail the Luhn check, are too few or too many, or are a UUID’s groups, then nothing is found', () => {
    for (const text of [
      '4111 1111 1111 1112',
      'card ending 1111',
      'order 900001 of 2026-11-21 05:19:38',
      '+44 20 7946 0958',
      '41111111111111111111111',
      '12345678-1234-4123-8123-123456789012',
      '4111  1111  1111  1111',
    ]) {
      expect(containsCardNumber(text), text).toBe(false);
    }
  });
});

describe('freeText', () => {
  const line = freeText(1, 40);
  const comment = freeText(3, 40, { multiline: true, tooShort: 'must say why' });

  it('when the text is fine, then it is trimmed; a multi-line one keeps its line breaks and tabs, CR LF as LF', () => {
    expect(line.parse('  Refund agreed by phone ')).toBe('Refund agreed by phone');
    expect(comment.parse('\n first\r\n\tsecond\rthird \n')).toBe('first\n\tsecond\nthird');
    expect(line.parse('card ending 1111, order 900001')).toBe('card ending 1111, order 900001');
    expect(line.parse('Zoë Ünal – naïve 東京')).toBe('Zoë Ünal – naïve 東京');
  });

  it('when the text is empty, too short or too long, then the length rule says so', () => {
    expect(messages(line, '   ')).toEqual(['is required']);
    expect(messages(comment, 'ab')).toEqual(['must say why']);
    expect(messages(freeText(3, 40), 'ab')).toEqual(['must be at least 3 characters']);
    expect(messages(line, 'x'.repeat(41))).toEqual(['must be at most 40 characters']);
  });

  it('when the text holds a C0 or C1 control or DEL, then it is refused; a one-line field refuses line breaks and tabs too', () => {
    for (const c of ['\u0000', '\u0007', '\u001b', '\u007f', '\u0085', '\u009b', '\n', '\t']) {
      expect(messages(line, `a${c}b`), JSON.stringify(c)).toEqual([
        FREE_TEXT_REFUSALS.controlCharacters,
      ]);
    }
    for (const c of ['\u0000', '\u000b', '\u000c', '\u001b', '\u007f', '\u0085']) {
      expect(messages(comment, `abc${c}d`), JSON.stringify(c)).toEqual([
        FREE_TEXT_REFUSALS.controlCharactersMultiline,
      ]);
    }
  });

  it('when the text holds a bidi embedding, override or isolate, then it is refused', () => {
    for (const c of [
      '\u202a',
      '\u202b',
      '\u202c',
      '\u202d',
      '\u202e',
      '\u2066',
      '\u2067',
      '\u2068',
      '\u2069',
    ]) {
      expect(messages(line, `a${c}b`), c.codePointAt(0)?.toString(16)).toEqual([
        FREE_TEXT_REFUSALS.bidiControls,
      ]);
    }
    // Right-to-left text itself is fine.
    expect(line.parse('שלום עולם')).toBe('שלום עולם');
  });

  it('when the text holds a full card number, then it is refused asking for the last four', () => {
    for (const text of ['4111 1111 1111 1111', 'pan 4111-1111-1111-1111', 'x4111111111111111']) {
      expect(messages(line, text), text).toEqual([FREE_TEXT_REFUSALS.cardNumber]);
    }
    expect(FREE_TEXT_REFUSALS.cardNumber).toBe(
      'must not contain a card number; give the last four digits only',
    );
  });

  it('when a refusal message is asked about, then only the free-text refusals are recognised', () => {
    for (const message of Object.values(FREE_TEXT_REFUSALS))
      expect(isFreeTextRefusal(message)).toBe(true);
    expect(isFreeTextRefusal('is required')).toBe(false);
  });
});

describe('staff free-text fields', () => {
  const card = {
    kind: 'card',
    cardNumber: '4111111111111111',
    cardholderName: 'Jane Doe',
    expiryMonth: '12',
    expiryYear: '2030',
  };
  const bank = {
    kind: 'bank',
    accountNumber: 'DE89370400440532013000',
    bankName: 'Deutsche Bank',
    bankBic: 'DEUTDEFF',
  };
  const customer = {
    email: 'jane@example.com',
    address1: 'Main St 1',
    city: 'Berlin',
    zipCode: '10115',
    country: 'DE',
    phone: '+4930123456',
    firstName: 'Jane',
    lastName: 'Doe',
  };
  const link = {
    kind: 'sale-form',
    amount: '1.00',
    currency: 'EUR',
    orderDesc: 'Invoice 42',
    customer,
  };
  const rebill = {
    cardRefId: 'ref-1',
    amount: '1.00',
    currency: 'EUR',
    orderDesc: 'Top-up',
    reason: 'asked by phone',
  };
  /** Each field, a valid body, and how to put a value into it; multi-line fields are comments. */
  const FIELDS: {
    name: string;
    schema: z.ZodType;
    with: (value: string) => unknown;
    multiline: boolean;
  }[] = [
    {
      name: 'return comment',
      schema: ReturnBodySchema,
      with: (comment) => ({ reasonCode: 'other', comment }),
      multiline: true,
    },
    {
      name: 'void comment',
      schema: VoidBodySchema,
      with: (comment) => ({ comment }),
      multiline: true,
    },
    {
      name: 'rebill orderDesc',
      schema: RebillBodySchema,
      with: (orderDesc) => ({ ...rebill, orderDesc }),
      multiline: false,
    },
    {
      name: 'rebill reason',
      schema: RebillBodySchema,
      with: (reason) => ({ ...rebill, reason }),
      multiline: true,
    },
    {
      name: 'subscription orderDesc',
      schema: SubscriptionCreateBodySchema,
      with: (orderDesc) => ({
        cardRefId: 'ref-1',
        amount: '1.00',
        currency: 'EUR',
        period: 'month',
        interval: 1,
        orderDesc,
        email: 'jane@example.com',
      }),
      multiline: false,
    },
    {
      name: 'card-info reason',
      schema: CardInfoBodySchema,
      with: (reason) => ({ reason }),
      multiline: true,
    },
    {
      name: 'payout orderDesc',
      schema: PayoutCreateBodySchema,
      with: (orderDesc) => ({ destination: card, amount: '1.00', currency: 'EUR', orderDesc }),
      multiline: false,
    },
    {
      name: 'payout cardholderName',
      schema: PayoutCreateBodySchema,
      with: (cardholderName) => ({
        destination: { ...card, cardholderName },
        amount: '1.00',
        currency: 'EUR',
        orderDesc: 'Payout',
      }),
      multiline: false,
    },
    {
      name: 'payout bankName',
      schema: PayoutCreateBodySchema,
      with: (bankName) => ({
        destination: { ...bank, bankName },
        amount: '1.00',
        currency: 'EUR',
        orderDesc: 'Payout',
      }),
      multiline: false,
    },
    {
      name: 'payout reject reason',
      schema: PayoutRejectBodySchema,
      with: (reason) => ({ reason }),
      multiline: true,
    },
    {
      name: 'payment link orderDesc',
      schema: PaymentLinkCreateBodySchema,
      with: (orderDesc) => ({ ...link, orderDesc }),
      multiline: false,
    },
    ...(['address1', 'city', 'firstName', 'lastName'] as const).map((key) => ({
      name: `payment link customer ${key}`,
      schema: PaymentLinkCreateBodySchema,
      with: (value: string) => ({ ...link, customer: { ...customer, [key]: value } }),
      multiline: false,
    })),
    {
      name: 'saved view name',
      schema: ViewCreateBodySchema,
      with: (name) => ({ screen: 'transactions', name, role: 'support', query: '' }),
      multiline: false,
    },
    {
      name: 'new user name',
      schema: CreateUserRequestSchema,
      with: (name) => ({
        email: 'jane@example.com',
        name,
        password: 'long-enough-password',
        roles: ['ops'],
        reason: 'Runs the payouts',
      }),
      multiline: false,
    },
    {
      name: 'reason for giving a new user a money role',
      schema: CreateUserRequestSchema,
      with: (reason) => ({
        email: 'jane@example.com',
        name: 'Jane',
        password: 'long-enough-password',
        roles: ['finance'],
        reason,
      }),
      multiline: true,
    },
    {
      name: 'user name change',
      schema: UpdateUserRequestSchema,
      with: (name) => ({ name }),
      multiline: false,
    },
    {
      name: 'reason for disabling a user',
      schema: UpdateUserRequestSchema,
      with: (reason) => ({ disabled: true, reason }),
      multiline: true,
    },
    {
      name: 'reason for enabling a user',
      schema: UpdateUserRequestSchema,
      with: (reason) => ({ disabled: false, reason }),
      multiline: true,
    },
    {
      name: 'reason for giving a user a money role',
      schema: UpdateUserRequestSchema,
      with: (reason) => ({ roles: ['ops'], reason }),
      multiline: true,
    },
    {
      name: 'two-step reset reason',
      schema: ResetTotpRequestSchema,
      with: (reason) => ({ reason }),
      multiline: true,
    },
  ];

  for (const field of FIELDS) {
    it(`when the ${field.name} holds a card number, a control or a bidi character, then it is refused; plain text is kept`, () => {
      expect(messages(field.schema, field.with('ending 1111'))).toEqual([]);
      expect(messages(field.schema, field.with('pan 4111 1111 1111 1111'))).toEqual([
        FREE_TEXT_REFUSALS.cardNumber,
      ]);
      expect(messages(field.schema, field.with('bad\u0000x'))).toHaveLength(1);
      expect(messages(field.schema, field.with('bad\u202ex'))).toEqual([
        FREE_TEXT_REFUSALS.bidiControls,
      ]);
      expect(messages(field.schema, field.with('two\nlines'))).toEqual(
        field.multiline ? [] : [FREE_TEXT_REFUSALS.controlCharacters],
      );
    });
  }

  it('when a rebill, card-info or payout-rejection reason is typed, then the same rule holds for each: 3 to 255 characters after trimming', () => {
    const reasons: [z.ZodType, (reason: string) => unknown][] = [
      [RebillBodySchema, (reason) => ({ ...rebill, reason })],
      [CardInfoBodySchema, (reason) => ({ reason })],
      [PayoutRejectBodySchema, (reason) => ({ reason })],
    ];
    for (const [schema, withReason] of reasons) {
      expect(messages(schema, withReason(` ${'x'.repeat(255)} `))).toEqual([]);
      expect(messages(schema, withReason('abc'))).toEqual([]);
      expect(messages(schema, withReason('x'.repeat(256)))).toEqual([
        'must be at most 255 characters',
      ]);
      expect(messages(schema, withReason(' ab '))).toEqual([
        'must say why (at least 3 characters)',
      ]);
    }
  });

  it('when a payment link’s postal code holds a control character, then it is refused', () => {
    expect(
      messages(PaymentLinkCreateBodySchema, {
        ...link,
        customer: { ...customer, zipCode: '10\u00a0115' },
      }),
    ).toEqual([]);
    expect(
      messages(PaymentLinkCreateBodySchema, {
        ...link,
        customer: { ...customer, zipCode: '10\u0085115' },
      }),
    ).toEqual([FREE_TEXT_REFUSALS.controlCharacters]);
  });
});

describe('payout destination identifiers', () => {
  const payout = (destination: Record<string, string>) => ({
    destination,
    amount: '10.00',
    currency: 'EUR',
    orderDesc: 'payout',
  });
  const PRINTABLE =
    'must be printable characters only (no control, formatting or line break characters)';

  it('when an e-wallet id or FPS bank id holds a control, bidi, zero-width or line separator character, then it is refused; printable ids are kept', () => {
    const ewallet = (ewalletId: string) =>
      payout({ kind: 'ewallet', ewalletType: 'paypal', ewalletId });
    const phone = (fpsBankId: string) => payout({ kind: 'phone', phone: '+4930123456', fpsBankId });
    expect(messages(PayoutCreateBodySchema, ewallet('payee+7731@example.com'))).toEqual([]);
    expect(messages(PayoutCreateBodySchema, phone('100000000004'))).toEqual([]);
    for (const bad of ['pay\u0000ee', 'pay\nee', 'pay\u202eee', 'pay\u200bee', 'pay\u2028ee']) {
      expect(messages(PayoutCreateBodySchema, ewallet(bad)), JSON.stringify(bad)).toEqual([
        PRINTABLE,
      ]);
      expect(messages(PayoutCreateBodySchema, phone(bad)), JSON.stringify(bad)).toEqual([
        PRINTABLE,
      ]);
    }
  });
});
