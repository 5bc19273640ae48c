// Field formats of fields.md as zod schemas. Every field travels as text.
import { isIP } from 'node:net';
import { z } from 'zod';

const text = (what: string) =>
  z.string({ error: (issue) => (issue.input === undefined ? 'is required' : `must be ${what}`) });

export function luhnValid(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

const AMOUNT = /^[0-9]{1,18}(\.[0-9]{1,2})?$/;
/** The largest amount the gateway takes: 18 integer digits and 2 decimals (as `toMinorUnits`). */
export const AMOUNT_MAX = '999999999999999999.99';

export const f = {
  text: (max: number, description?: string) =>
    text('text').max(max, `must be at most ${max} characters`).meta({ description }),
  amount: () =>
    text('a decimal amount')
      .regex(
        /^[0-9]+(\.[0-9]{1,2})?$/,
        'must be a decimal amount with at most 2 decimals, like 19.99',
      )
      // A well-formed amount that is too large is refused for its size, not its form.
      .refine((v) => !/^0*[1-9][0-9]{18}/.test(v), `must be at most ${AMOUNT_MAX}`)
      // What is left: leading zeros that make it longer than the gateway reads.
      .regex(AMOUNT, 'must have at most 18 digits before the decimal point')
      .refine((v) => /[1-9]/.test(v), 'must be greater than zero')
      .meta({
        description: `decimal text, > 0, at most 2 decimals, at most ${AMOUNT_MAX}`,
        examples: ['10.42'],
      }),
  currency: () => text('a currency code').regex(/^[A-Z]{3}$/, 'must be an ISO 4217 alpha-3 code'),
  country: () => text('a country code').regex(/^[A-Z]{2}$/, 'must be an ISO 3166 alpha-2 code'),
  email: () =>
    text('an e-mail address')
      .max(50, 'must be at most 50 characters')
      .regex(/^[^\s@]+@[^\s@]+$/, 'must be an e-mail address'),
  clientOrderId: () =>
    text('text')
      .max(128, 'must be at most 128 characters')
      .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces'),
  orderId: () => text('an order id').regex(/^[0-9]{1,19}$/, 'must be the numeric paynet order id'),
  phone: () =>
    text('a phone number').regex(/^[0-9+\-() ]{6,15}$/, 'must be 6-15 of 0-9 + - ( ) and space'),
  ip: () =>
    text('an IP address')
      .refine((v) => isIP(v) !== 0, 'must be an IPv4 or IPv6 address')
      .meta({ description: 'IPv4 or IPv6 address' }),
  cardNumber: () =>
    text('a card number')
      .regex(/^[0-9]{13,19}$/, 'must be 13-19 digits')
      .refine(luhnValid, 'fails the Luhn check'),
  expireMonth: () => text('a month').regex(/^(0[1-9]|1[0-2])$/, 'must be 01-12'),
  expireYear: () => text('a year').regex(/^[0-9]{4}$/, 'must be 4 digits'),
  cvv2: () => text('a CVV').regex(/^[0-9]{3,4}$/, 'must be 3-4 digits'),
  url: () =>
    text('a URL')
      .max(2048, 'must be at most 2048 characters')
      .refine((v) => {
        try {
          const u = new URL(v);
          return u.protocol === 'http:' || u.protocol === 'https:';
        } catch {
          return false;
        }
      }, 'must be an absolute http(s) URL'),
  control: () => text('a hex SHA-1').regex(/^[0-9a-fA-F]{40}$/, 'must be 40 hex digits (SHA-1)'),
  login: () => text('the merchant login').max(128, 'must be at most 128 characters'),
  date: () => text('a date').regex(/^[0-9]{8}$/, 'must be YYYYMMDD'),
  isoDate: () =>
    text('a date')
      .regex(/^[0-9]{4}-[0-9]{2}-[0-9]{2}$/, 'must be YYYY-MM-DD')
      .refine((v) => !Number.isNaN(Date.parse(`${v}T00:00:00Z`)), 'must be a real date'),
  oneOf: <T extends readonly [string, ...string[]]>(values: T) =>
    z.enum(values, {
      error: (issue) =>
        issue.input === undefined ? 'is required' : `must be one of ${values.join(', ')}`,
    }),
  intRange: (min: number, max: number) =>
    text('an integer')
      .regex(/^[0-9]{1,6}$/, 'must be an integer')
      .refine((v) => Number(v) >= min && Number(v) <= max, `must be ${min}-${max}`),
};
