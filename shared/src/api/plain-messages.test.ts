import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  CaptureBodySchema,
  ConfirmLargeAmountSchema,
  IsoDateSchema,
  ReturnBodySchema,
} from './payments.js';
import { LinkCustomerSchema, PayoutCreateBodySchema } from './payouts.js';
import { EmailSchema, queryInt } from './common.js';

/** Each issue as `path: message`, the way the BFF's 400 names a field and its rule. */
function said(schema: z.ZodType, value: unknown): string[] {
  const parsed = schema.safeParse(value);
  if (parsed.success) return [];
  return parsed.error.issues.map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`);
}

describe('plain messages where a schema gives none', () => {
  it('says a missing field is required and a wrong kind what it must be', () => {
    const schema = z.object({
      name: z.string(),
      count: z.number(),
      on: z.boolean(),
      tags: z.array(z.string()),
    });
    expect(said(schema, {})).toEqual([
      'name: is required',
      'count: is required',
      'on: is required',
      'tags: is required',
    ]);
    expect(said(schema, { name: 7, count: 'x', on: 'yes', tags: {} })).toEqual([
      'name: must be text (a JSON string), not a number',
      'count: must be a number, not text',
      'on: must be true or false, not text',
      'tags: must be a list (a JSON array), not an object',
    ]);
    expect(said(schema, [])).toEqual(['(body): must be an object (JSON {…}), not a list']);
    expect(said(z.object({ n: z.string() }), { n: null })).toEqual([
      'n: must be text (a JSON string), not null',
    ]);
  });

  it('says sizes, bounds, whole numbers and choices as rules', () => {
    expect(said(z.string().min(3), 'ab')).toEqual(['(body): must be at least 3 characters']);
    expect(said(z.string().min(1), '')).toEqual(['(body): must not be empty']);
    expect(said(z.string().max(4), 'abcde')).toEqual(['(body): must be at most 4 characters']);
    expect(said(z.string().length(2), 'a')).toEqual(['(body): must be exactly 2 characters']);
    expect(said(z.number().int().min(1), 0)).toEqual(['(body): must be at least 1']);
    expect(said(z.number().gt(0), 0)).toEqual(['(body): must be greater than 0']);
    expect(said(z.number().lt(5), 5)).toEqual(['(body): must be less than 5']);
    expect(said(z.number().int(), 1.5)).toEqual(['(body): must be a whole number']);
    expect(said(z.coerce.number().int(), 'abc')).toEqual(['(body): must be a number']);
    // JSON's 1e400 is Infinity: not "must be a number, not a number".
    expect(said(z.number().int(), Infinity)).toEqual(['(body): is too large a number']);
    expect(said(z.array(z.string()).max(1), ['a', 'b'])).toEqual([
      '(body): must have at most 1 item',
    ]);
    expect(said(z.enum(['a', 'b']), 'c')).toEqual(['(body): must be one of: a, b']);
    expect(said(z.object({ e: z.enum(['a', 'b']) }), {})).toEqual(['e: is required: one of a, b']);
    expect(said(z.literal(true), false)).toEqual(['(body): must be true']);
    expect(said(z.iso.datetime(), 'yesterday')).toEqual([
      '(body): must be a date and time in ISO 8601, in UTC, e.g. 2026-11-28T09:30:00Z',
    ]);
    expect(said(z.email(), 'x')).toEqual([
      '(body): must be an e-mail address, e.g. name@example.com',
    ]);
  });

  it('never repeats the value it refuses (a card number in the wrong field stays out of replies)', () => {
    const card = '4111111111111111';
    const messages = [
      ...said(z.number(), card),
      ...said(z.enum(['a']), card),
      ...said(z.string().max(4), card),
      ...said(z.string().regex(/^x$/), card),
      ...said(z.iso.date(), card),
    ];
    expect(messages).toHaveLength(5);
    for (const message of messages) expect(message).not.toContain(card);
  });

  it('takes a query-string integer as plain digits only (QA: limit=0x10 answered 16 rows)', () => {
    const limit = queryInt(1, 200, 50);
    expect(limit.parse(undefined)).toBe(50);
    expect(limit.parse('12')).toBe(12);
    expect(limit.parse(' 12 ')).toBe(12);
    expect(limit.parse(12)).toBe(12);
    for (const text of ['0x10', '1e2', ' ', '', '12.5', '-1', 'abc'])
      expect(said(limit, text), text).toEqual(['(body): must be a whole number from 1 to 200']);
    expect(said(limit, '500')).toEqual(['(body): must be at most 200']);
  });

  it('leaves a schema its own words', () => {
    expect(said(z.string().min(3, 'must say why'), '')).toEqual(['(body): must say why']);
  });

  it('says an amount sent as a number must be text, and a malformed amount once', () => {
    expect(said(CaptureBodySchema, { amount: 12.5 })).toEqual([
      'amount: must be a decimal amount as text, e.g. "19.99" (a JSON string, never a JSON number)',
    ]);
    expect(said(CaptureBodySchema, { amount: 'abc' })).toEqual([
      'amount: must be a decimal amount with at most 2 decimals, e.g. 19.99',
    ]);
    expect(said(CaptureBodySchema, { amount: '-5.00' })).toEqual([
      'amount: must be greater than zero',
    ]);
    expect(said(CaptureBodySchema, { amount: '0.00' })).toEqual([
      'amount: must be greater than zero',
    ]);
    expect(said(ReturnBodySchema, { amount: '1.00', reasonCode: 'other' })).toEqual([
      'comment: is required',
    ]);
  });

  it('refuses an e-mail address holding a card number, wherever Paydesk keeps one (QA: shown to every reader)', () => {
    const refused = 'must not contain a card number; give the last four digits only';
    expect(said(EmailSchema, '4111111111111111@example.com')).toEqual([`(body): ${refused}`]);
    expect(said(LinkCustomerSchema.shape.email, '4111.1111.1111.1111@example.com')).toEqual([
      `(body): ${refused}`,
    ]);
    expect(said(EmailSchema, 'jane.doe+1234@example.com')).toEqual([]);
    // A generated address with a Luhn-valid run among other characters (a timestamp) is taken.
    expect(said(EmailSchema, 'pay2-support-1795910517543@paydesk.test')).toEqual([]);
    // The gateway's customer e-mail is an address like every other one in Paydesk.
    expect(said(LinkCustomerSchema.shape.email, 'a@b')).toEqual([
      '(body): must be an e-mail address, e.g. name@example.com',
    ]);
  });

  it('says what a large amount’s confirmation takes, and a malformed date once', () => {
    expect(said(ConfirmLargeAmountSchema, false)).toEqual([
      '(body): must be true once the amount was confirmed, or left out',
    ]);
    expect(said(IsoDateSchema, 'tomorrow')).toEqual(['(body): must be a date YYYY-MM-DD']);
    expect(said(IsoDateSchema, '2026-02-30')).toEqual(['(body): must be a real calendar date']);
  });

  it('names the kinds a payout destination may be', () => {
    expect(
      said(PayoutCreateBodySchema, {
        destination: { kind: 'crypto' },
        amount: '1.00',
        currency: 'EUR',
        orderDesc: 'x',
      }),
    ).toEqual(['destination.kind: must be one of: card, bank, ewallet, phone']);
  });
});
