// The destination's masked form, keyed hash and sealed binding; gateway refusals as staff messages.
import { describe, expect, it } from 'vitest';
import { PayoutDestinationSchema, type PayoutDestination } from '@paydesk/shared/api';
import { parseGatewayReply } from '@paydesk/shared/protocol';
import { Sealer } from '../services/sealing.js';
import {
  checkBinding,
  DestinationHasher,
  destinationFields,
  HeldDestinationSchema,
  maskDestination,
  maskIban,
  sealBinding,
  type Binding,
} from './destination.js';
import { gatewayRefusal } from './gateway-errors.js';

const SECRET = new TextEncoder().encode('unit-test-secret-0123456789-abcdefghijklmnop');
const CARD: PayoutDestination = {
  kind: 'card',
  cardNumber: '4111111111111111',
  cardholderName: 'Jane Payee',
  expiryMonth: '12',
  expiryYear: '2035',
};

describe('payout destinations', () => {
  it('when a destination is masked, then at most BIN and last four of a card, an IBAN’s first and last four, and the last four of anything else, remain', () => {
    expect(maskDestination(CARD)).toEqual({
      kind: 'card',
      masked: '411111******1111',
      label: 'Jane Payee, expires 12/2035',
    });
    expect(
      maskDestination({
        kind: 'bank',
        accountNumber: 'DE89370400440532013000',
        bankName: 'B',
        bankBic: 'COBADEFFXXX',
      }).masked,
    ).toBe('DE89 **** **** **** **30 00');
    expect(
      maskDestination({
        kind: 'bank',
        accountNumber: '0532013000',
        bankName: 'B',
        bankBic: 'COBADEFFXXX',
      }),
    ).toEqual({ kind: 'bank', masked: '******3000', label: 'B (COBADEFFXXX)' });
    expect(
      maskDestination({ kind: 'ewallet', ewalletType: 'paypal', ewalletId: 'payee@example.com' })
        .masked,
    ).toBe('p****@example.com');
    expect(maskDestination({ kind: 'phone', phone: '+7 900 1234567', fpsBankId: '1' }).masked).toBe(
      '********4567',
    );
  });

  it('when an IBAN is masked, then its country code, check digits and last four show in groups of four, whatever its length, and two IBANs differing in their check digits look different', () => {
    const iban = (accountNumber: string) =>
      maskDestination({ kind: 'bank', accountNumber, bankName: 'B', bankBic: 'COBADEFFXXX' })
        .masked;
    expect(iban('NO9386011117947')).toBe('NO93 **** ***7 947');
    expect(iban('GB82WEST12345698765432')).toBe('GB82 **** **** **** **54 32');
    expect(iban('MT84MALT011000012345MTLCAST001S')).toBe('MT84 **** **** **** **** **** ***0 01S');
    expect(maskIban('DE89370400440532013000')).toBe('DE89 **** **** **** **30 00');
    expect(iban('DE89370400440532013000')).not.toBe(iban('DE00370400440532013000'));
    // The middle (bank code and account) never shows.
    expect(iban('DE89370400440532013000')).not.toMatch(/3704|0044|0532/);
  });

  it('when a held destination is opened, then it is taken as sealed (not normalised again), so that its hash still matches, also for an account number kept in lower case before', () => {
    const hasher = new DestinationHasher(SECRET);
    const before: PayoutDestination = {
      kind: 'bank',
      accountNumber: 'de89370400440532013000',
      bankName: 'B',
      bankBic: 'COBADEFFXXX',
    };
    const opened = HeldDestinationSchema.parse(JSON.parse(JSON.stringify(before)));
    expect(opened).toEqual(before);
    expect(hasher.hash(opened)).toBe(hasher.hash(before));
    // What the prepare request's rules make of it now: another value, so another hash.
    const now = PayoutDestinationSchema.parse(before);
    expect(now).toEqual({ ...before, accountNumber: 'DE89370400440532013000' });
    expect(hasher.hash(now)).not.toBe(hasher.hash(before));
    expect(HeldDestinationSchema.parse(CARD)).toEqual(CARD);
    // Held before e-wallet types and FPS bank ids had to be words: still opened, as sealed.
    const wallet = { kind: 'ewallet', ewalletType: '??', ewalletId: 'p@x.example' };
    expect(HeldDestinationSchema.parse(wallet)).toEqual(wallet);
    // …and a phone number held as written, its layout kept (the hash was taken of it so).
    const phone = { kind: 'phone', phone: '+44 7700 900123', fpsBankId: '!!' };
    expect(HeldDestinationSchema.parse(phone)).toEqual(phone);
    expect(PayoutDestinationSchema.safeParse(wallet).success).toBe(false);
    expect(HeldDestinationSchema.safeParse({ ...before, extra: 'x' }).success).toBe(false);
    expect(HeldDestinationSchema.safeParse({ ...before, accountNumber: 'DE89 3704' }).success).toBe(
      false,
    );
  });

  it('when an e-wallet id is masked, then two different wallets stay distinguishable and no card number shows', () => {
    const wallet = (ewalletId: string) =>
      maskDestination({ kind: 'ewallet', ewalletType: 'paypal', ewalletId }).masked;
    expect(wallet('alice.payee@gmail.com')).toBe('a**********@gmail.com');
    expect(wallet('bob@gmail.com')).toBe('b**@gmail.com');
    expect(wallet('alice.payee@gmail.com')).not.toBe(wallet('mallory.xy@gmail.com'));
    expect(wallet('wallet-12345-xy')).toBe('wa***********xy');
    expect(wallet('abc12')).toBe('***12');
    expect(wallet('ab')).toBe('**');
    expect(wallet('4111111111111111')).toBe('41************11');
    expect(wallet('x@4111111111111111.example')).toBe('x@411111…1111.example');
    expect(wallet('4111111111111111@example.com')).toBe('4***************@example.com');
  });

  it('when a destination becomes gateway fields, then it uses the gateway names of its kind only', () => {
    expect(destinationFields(CARD)).toEqual({
      credit_card_number: '4111111111111111',
      card_printed_name: 'Jane Payee',
      expire_month: '12',
      expire_year: '2035',
    });
    expect(
      Object.keys(destinationFields({ kind: 'phone', phone: '+7 900 1234567', fpsBankId: '1' })),
    ).toEqual(['phone', 'fps_bank_id']);
  });

  it('when destinations are hashed, then the hash is keyed: same key same hash, other key or destination another', () => {
    const a = new DestinationHasher(SECRET);
    const b = new DestinationHasher(
      new TextEncoder().encode('another-secret-0123456789-abcdefghijklmnopqr'),
    );
    expect(a.hash(CARD)).toBe(a.hash({ ...CARD }));
    expect(a.hash(CARD)).not.toBe(b.hash(CARD));
    expect(a.hash(CARD)).not.toBe(a.hash({ ...CARD, cardNumber: '4000000000000002' }));
  });

  it("when payees are hashed, then the same card or account typed otherwise (holder's name, expiry, bank name, BIC branch, case, spacing) is one payee, another number is another, and the payee hash is neither the destination's nor another key's (QA B2)", () => {
    const a = new DestinationHasher(SECRET);
    const b = new DestinationHasher(
      new TextEncoder().encode('another-secret-0123456789-abcdefghijklmnopqr'),
    );
    const same = (x: PayoutDestination, y: PayoutDestination) => a.payeeHash(x) === a.payeeHash(y);
    const renamed: PayoutDestination = {
      ...CARD,
      cardholderName: 'JANE PAYEE',
      expiryYear: '2036',
    };
    expect(same(CARD, renamed)).toBe(true);
    expect(a.hash(CARD)).not.toBe(a.hash(renamed));
    expect(same(CARD, { ...CARD, cardNumber: '4000000000000002' })).toBe(false);
    const bank: PayoutDestination = {
      kind: 'bank',
      accountNumber: 'DE89370400440532013000',
      bankName: 'Commerzbank',
      bankBic: 'COBADEFF',
    };
    expect(
      same(bank, {
        kind: 'bank',
        accountNumber: 'de89 3704 0044 0532 0130 00',
        bankName: 'Commerzbank AG',
        bankBic: 'cobadeffxxx',
      }),
    ).toBe(true);
    expect(same(bank, { ...bank, bankBic: 'DEUTDEFF' })).toBe(false);
    expect(same(bank, { ...bank, accountNumber: 'DE89370400440532013001' })).toBe(false);
    const wallet: PayoutDestination = {
      kind: 'ewallet',
      ewalletType: 'PayPal',
      ewalletId: 'Alice.Payee@gmail.com',
    };
    expect(
      same(wallet, { kind: 'ewallet', ewalletType: 'paypal', ewalletId: ' alice.payee@gmail.com' }),
    ).toBe(true);
    expect(same(wallet, { ...wallet, ewalletType: 'skrill' })).toBe(false);
    const phone: PayoutDestination = { kind: 'phone', phone: '+44 7700 900123', fpsBankId: 'B1' };
    expect(same(phone, { kind: 'phone', phone: '+44-7700-900-123', fpsBankId: 'b1' })).toBe(true);
    expect(same(phone, { ...phone, fpsBankId: 'B2' })).toBe(false);
    // Kinds apart, keys apart, and never the destination hash.
    expect(same(CARD, { kind: 'phone', phone: CARD.cardNumber, fpsBankId: '' })).toBe(false);
    expect(a.payeeHash(CARD)).not.toBe(b.payeeHash(CARD));
    expect(a.payeeHash(CARD)).not.toBe(a.hash(CARD));
  });

  it('when a sealed binding is checked, then any change of a bound value, or of the sealed text, refuses', () => {
    const sealer = new Sealer(SECRET);
    const binding: Binding = {
      id: 'p1',
      mode: 'two-step',
      endpointId: '1001',
      clientOrderId: 'c1',
      orderid: '9',
      amountMinor: '4250',
      currency: 'EUR',
      destinationHash: 'ab',
    };
    const sealed = sealBinding(sealer, binding);
    expect(checkBinding(sealer, sealed, binding)).toEqual({ ok: true });
    for (const change of [
      { amountMinor: '4251' },
      { currency: 'USD' },
      { destinationHash: 'ac' },
      { orderid: '10' },
    ]) {
      expect(checkBinding(sealer, sealed, { ...binding, ...change }).ok).toBe(false);
    }
    expect(
      checkBinding(
        sealer,
        sealed.replace(/\.(.)/, (_m, c: string) => `.${c === 'A' ? 'B' : 'A'}`),
        binding,
      ).ok,
    ).toBe(false);
    expect(checkBinding(sealer, null, binding).ok).toBe(false);
  });
});

describe('gateway refusals', () => {
  const reply = (code: string, message: string) =>
    parseGatewayReply(
      'application/vnd.pay+json',
      JSON.stringify({
        type: 'error',
        'serial-number': 's1',
        'error-code': code,
        'error-message': message,
      }),
    );

  it('when the gateway answers 400, 401, 404 or 409, then the staff message and details name its error code', () => {
    const cases: [number, string, string, RegExp][] = [
      [
        400,
        'VALIDATION_FAILED',
        'GATEWAY_ERROR',
        /invalid \(VALIDATION_FAILED\).*Nothing was changed/,
      ],
      [
        401,
        'AUTHENTICATION_FAILED',
        'GATEWAY_ERROR',
        /credentials.*\(AUTHENTICATION_FAILED\).*administrator/,
      ],
      [404, 'NOT_FOUND', 'NOT_FOUND', /does not know it \(NOT_FOUND\)/],
      [
        409,
        'INVALID_STATE',
        'INVALID_STATE',
        /refused the payout-pay.*\(INVALID_STATE\): already paid/,
      ],
    ];
    for (const [status, gatewayCode, code, message] of cases) {
      const err = gatewayRefusal(status, reply(gatewayCode, 'already paid'), 'payout-pay');
      expect(err.code).toBe(code);
      expect(err.message).toMatch(message);
      expect(err.details).toEqual({ gatewayHttpStatus: status, gatewayErrorCode: gatewayCode });
    }
  });
});
