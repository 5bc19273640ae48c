// A payout's bank account number: printed IBANs accepted, IBAN check digits checked (ISO 13616).
import { describe, expect, it } from 'vitest';
import {
  BankDestinationSchema,
  CardDestinationSchema,
  EWALLET_TYPE_MESSAGE,
  EwalletDestinationSchema,
  FPS_BANK_ID_MESSAGE,
  PHONE_MESSAGE,
  PhoneDestinationSchema,
  PhoneSchema,
  farCardExpiryField,
  IBAN_CHECK_DIGITS_MESSAGE,
  ibanCheckDigitsMatch,
  PaymentLinkCreateBodySchema,
  PayoutCreateBodySchema,
  RETURN_URL_HTTPS_MESSAGE,
} from './payouts.js';

const bank = (accountNumber: string) => ({
  kind: 'bank',
  accountNumber,
  bankName: 'Commerzbank',
  bankBic: 'COBADEFFXXX',
});

/** The stored account number, or the issues (path, message, rule) that refused it. */
function accountNumberOf(accountNumber: string) {
  const parsed = BankDestinationSchema.safeParse(bank(accountNumber));
  if (parsed.success) return parsed.data.accountNumber;
  return parsed.error.issues.map((i) => ({
    path: i.path.join('.'),
    message: i.message,
    rule: i.code === 'custom' ? (i.params?.rule as unknown) : i.code,
  }));
}

describe('bank account numbers', () => {
  it('when an IBAN is typed as printed (groups of four) or in lower case, then it is accepted and kept without spaces, in capitals', () => {
    expect(accountNumberOf('DE89 3704 0044 0532 0130 00')).toBe('DE89370400440532013000');
    expect(accountNumberOf(' de89 3704 0044 0532 0130 00 ')).toBe('DE89370400440532013000');
    expect(accountNumberOf('GB82\u00a0WEST\u00a01234\u00a05698\u00a07654\u00a032')).toBe(
      'GB82WEST12345698765432',
    );
    expect(accountNumberOf('NO93 8601 1117 947')).toBe('NO9386011117947');
    expect(accountNumberOf('MT84MALT011000012345MTLCAST001S')).toBe(
      'MT84MALT011000012345MTLCAST001S',
    );
    const body = PayoutCreateBodySchema.parse({
      destination: bank('DE89 3704 0044 0532 0130 00'),
      amount: '1234.56',
      currency: 'EUR',
      orderDesc: 'Invoice 42',
      mode: 'single',
    });
    expect(body.destination).toEqual({ ...bank('DE89370400440532013000') });
  });

  it('when an IBAN’s check digits do not match, then it is refused naming the field and the IBAN rule', () => {
    const refused = [
      { path: 'accountNumber', message: IBAN_CHECK_DIGITS_MESSAGE, rule: 'iban_check_digits' },
    ];
    for (const wrong of [
      'DE00370400440532013000',
      'DE00 3704 0044 0532 0130 00',
      'DE88370400440532013000',
      'DE89370400440532013001',
      'GB82WEST12345698765433',
      // 01 leaves the same rest as 98 (the right digits here), but 00, 01 and 99 are never check digits
      'DE01370400440000000042',
    ]) {
      expect(accountNumberOf(wrong), wrong).toEqual(refused);
    }
    expect(accountNumberOf('DE98370400440000000042')).toBe('DE98370400440000000042');
    expect(IBAN_CHECK_DIGITS_MESSAGE).toBe(
      'is not a valid IBAN: its check digits do not match (look for a typing error)',
    );
    const body = PayoutCreateBodySchema.safeParse({
      destination: bank('DE00370400440532013000'),
      amount: '1234.56',
      currency: 'EUR',
      orderDesc: 'Invoice 42',
    });
    expect(body.success).toBe(false);
    expect(body.error?.issues.map((i) => [i.path.join('.'), i.message])).toEqual([
      ['destination.accountNumber', IBAN_CHECK_DIGITS_MESSAGE],
    ]);
  });

  it('when an account number is not shaped like an IBAN, then today’s rule applies (4-34 letters or digits) and its letters are kept as typed', () => {
    expect(accountNumberOf('0532013000')).toBe('0532013000');
    expect(accountNumberOf('12-34')).toEqual([
      {
        path: 'accountNumber',
        message: 'must be 4-34 letters or digits (IBAN or account number)',
        rule: 'invalid_format',
      },
    ]);
    expect(accountNumberOf('123')).toEqual([expect.objectContaining({ rule: 'invalid_format' })]);
    expect(accountNumberOf('1'.repeat(35))).toEqual([
      expect.objectContaining({ rule: 'invalid_format' }),
    ]);
    // Two letters and two digits but too short for an IBAN (under 15): an ordinary account number.
    expect(accountNumberOf('ab12cd34')).toBe('ab12cd34');
    expect(accountNumberOf('DE0012345678')).toBe('DE0012345678');
  });

  it('when the IBAN check runs, then it follows ISO 7064 MOD 97-10', () => {
    expect(ibanCheckDigitsMatch('DE89370400440532013000')).toBe(true);
    expect(ibanCheckDigitsMatch('DE02120300000000202051')).toBe(true);
    expect(ibanCheckDigitsMatch('DE89370400440532013000'.replace('0532', '0523'))).toBe(false);
    expect(ibanCheckDigitsMatch('DE99370400440532013000')).toBe(false);
    expect(ibanCheckDigitsMatch('DE8937040044053201300?')).toBe(false);
  });
});

describe('a payment link’s return address', () => {
  const body = (redirectUrl: string) => ({
    kind: 'payout-form',
    amount: '15.00',
    currency: 'EUR',
    orderDesc: 'Prize payout',
    redirectUrl,
  });
  const refusal = (redirectUrl: string) => {
    const parsed = PaymentLinkCreateBodySchema.safeParse(body(redirectUrl));
    return parsed.success
      ? null
      : parsed.error.issues.map((i) => ({
          path: i.path.join('.'),
          message: i.message,
          rule: i.code === 'custom' ? (i.params?.rule as unknown) : i.code,
        }));
  };

  it('when it is https, or plain http to this machine (the demo), then it is taken', () => {
    for (const url of [
      'https://shop.example/done',
      'http://localhost:5173/done',
      'http://127.0.0.1:8080/done',
      'http://[::1]/done',
    ])
      expect(refusal(url), url).toBeNull();
  });

  it('when it is plain http to any other host, or not http(s) at all, then it is refused naming the field and the https rule', () => {
    for (const url of [
      'http://evil.example/x',
      'http://localhost.evil.example/x',
      'http://127.0.0.2/x',
      'javascript:alert(1)',
      'ftp://shop.example/x',
      'shop.example/x',
    ])
      expect(refusal(url), url).toEqual([
        { path: 'redirectUrl', message: RETURN_URL_HTTPS_MESSAGE, rule: 'https_url' },
      ]);
  });
});

describe('a payout card’s expiry month', () => {
  const card = (expiryMonth: string) =>
    CardDestinationSchema.safeParse({
      kind: 'card',
      cardNumber: '4111111111111111',
      cardholderName: 'JANE DOE',
      expiryMonth,
      expiryYear: '2030',
    });

  it('when a month is typed with or without its leading zero, then it is taken and kept as two digits, as the gateway wants it', () => {
    for (const [typed, kept] of [
      ['9', '09'],
      ['09', '09'],
      [' 1 ', '01'],
      ['10', '10'],
      ['12', '12'],
    ] as const) {
      const parsed = card(typed);
      expect(parsed.success && parsed.data.expiryMonth, typed).toBe(kept);
    }
  });

  it('when it is not a month from 1 to 12, then it is refused, saying so in words', () => {
    for (const typed of ['0', '00', '13', '123', 'ab', '']) {
      const parsed = card(typed);
      expect(parsed.success, typed).toBe(false);
      expect(parsed.error?.issues.map((i) => i.message)).toEqual(['must be a month from 1 to 12']);
    }
  });
});

describe('bank BIC', () => {
  const bic = (bankBic: string) =>
    BankDestinationSchema.safeParse({ ...bank('DE89370400440532013000'), bankBic });
  it('when it has a bank code, a 2-letter country code and a location (and maybe a branch), then it is taken in capitals; without the country letters it is refused', () => {
    for (const ok of ['COBADEFF', 'COBADEFFXXX', 'deutdeff500'])
      expect(bic(ok).success, ok).toBe(true);
    expect(bic('deutdeff500').data?.bankBic).toBe('DEUTDEFF500');
    for (const bad of ['12345678', 'COBA12FF', 'COBADEF', 'COBADEFFXX', 'COBADEFF-XX']) {
      const parsed = bic(bad);
      expect(parsed.success, bad).toBe(false);
      expect(parsed.error?.issues[0]?.message).toBe(
        'must be an 8 or 11 character BIC: bank code, 2-letter country code, location, optional branch',
      );
    }
  });
});

describe('e-wallet type and FPS bank id', () => {
  it('when they are words (letters and digits, with single spaces, dots, hyphens or underscores between for a wallet, hyphens for a bank), then they are taken; punctuation alone, or doubled separators, is refused naming the rule (QA: "??" and "!!" were paid)', () => {
    const wallet = (ewalletType: string) =>
      EwalletDestinationSchema.safeParse({
        kind: 'ewallet',
        ewalletType,
        ewalletId: 'p@x.example',
      });
    const fps = (fpsBankId: string) =>
      PhoneDestinationSchema.safeParse({ kind: 'phone', phone: '+44 7700 900123', fpsBankId });
    for (const ok of [
      'paypal',
      'PayPal',
      'Apple Pay',
      'Yandex.Money',
      'we_chat',
      'Ä-Pay2',
      ' skrill ',
    ])
      expect(wallet(ok).success, ok).toBe(true);
    for (const bad of ['??', '-', 'pay  pal', '.paypal', 'paypal!', 'pay/pal']) {
      const parsed = wallet(bad);
      expect(parsed.success, bad).toBe(false);
      expect(parsed.error?.issues.map((i) => [i.path.join('.'), i.message])).toEqual([
        ['ewalletType', EWALLET_TYPE_MESSAGE],
      ]);
    }
    // Empty or unprintable: the one message of that rule, not this one's too.
    expect(wallet('').error?.issues.map((i) => i.message)).toEqual(['is required']);
    expect(wallet('pay\u200bpal').error?.issues.map((i) => i.message)).toEqual([
      'must be printable characters only (no control, formatting or line break characters)',
    ]);
    for (const ok of ['BARC', 'barc', '100000000111', '20-00-00'])
      expect(fps(ok).success, ok).toBe(true);
    for (const bad of ['!!', '20--00', '20 00 00', '-BARC', 'BARC.']) {
      const parsed = fps(bad);
      expect(parsed.success, bad).toBe(false);
      expect(parsed.error?.issues.map((i) => [i.path.join('.'), i.message])).toEqual([
        ['fpsBankId', FPS_BANK_ID_MESSAGE],
      ]);
    }
  });
});

describe('a phone number', () => {
  it('when it is written with spaces, dashes, brackets or an international number’s (0), then it is taken as the gateway takes it, digits and a leading +; 6 to 15 of them, nothing else (QA: "+49 (30) 123-456" was refused)', () => {
    for (const [written, sent] of [
      ['+49 (30) 123-456', '+4930123456'],
      ['+44 (0)7700 900123', '+447700900123'],
      ['(030) 123456', '030123456'],
      [' 123456 ', '123456'],
    ] as const)
      expect(PhoneSchema.parse(written), written).toBe(sent);
    for (const bad of ['12#45', '12345', '+1234567890123456', '+44\t7700900', '44+7700900', ''])
      expect(
        PhoneSchema.safeParse(bad).error?.issues.map((i) => i.message),
        bad,
      ).toEqual([PHONE_MESSAGE]);
  });
});

describe('card expiry too far ahead', () => {
  const now = Date.UTC(2026, 10, 21);
  it('when the year is over 20 years ahead, then the year is refused; 20 years ahead is taken', () => {
    expect(farCardExpiryField({ expiryYear: '2046' }, now)).toBeNull();
    expect(farCardExpiryField({ expiryYear: '2047' }, now)).toEqual({
      path: 'expiryYear',
      message: 'must be at most 20 years ahead (2046 at the latest)',
    });
    expect(farCardExpiryField({ expiryYear: '9999' }, now)?.path).toBe('expiryYear');
  });
});
