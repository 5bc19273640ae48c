import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { controlValue } from './control.js';
import { formatMinorUnits, toMinorUnits } from './money.js';
import { formDecode, formEncode, percentDecode, percentEncode } from './percent.js';
import { encodeGatewayReply, parseGatewayReply } from './reply.js';

// Well-formed Unicode text, including astral characters, controls and every ASCII symbol.
const text = fc.string({ unit: 'grapheme', maxLength: 40 });
const fieldName = fc.stringMatching(/^[a-z][a-z0-9_-]{0,20}$/);

describe('percent-encoding properties', () => {
  it('when any text is encoded, then only unreserved characters and %XX remain, and decoding restores it', () => {
    fc.assert(
      fc.property(text, (value) => {
        const encoded = percentEncode(value);
        expect(encoded).toMatch(/^(?:[A-Za-z0-9\-._~]|%[0-9A-F]{2})*$/);
        expect(percentDecode(encoded)).toBe(value);
      }),
    );
  });

  it('when pairs are form-encoded, then decoding gives the same pairs in the same order', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            text.filter((s) => s !== ''),
            text,
          ),
          { maxLength: 8 },
        ),
        (pairs) => {
          expect(formDecode(formEncode(pairs))).toEqual(pairs);
        },
      ),
    );
  });
});

describe('minor units properties', () => {
  it('when any amount up to 10^16 minor units is formatted, then parsing gives back the same cents', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 16n }), (minor) => {
        expect(toMinorUnits(formatMinorUnits(minor))).toBe(minor);
      }),
    );
  });

  it('when an amount is written with 0, 1 or 2 decimals, then no cent is lost or invented', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 10n ** 12n }),
        fc.integer({ min: 0, max: 99 }),
        fc.constantFrom(0, 1, 2),
        (units, cents, decimals) => {
          const roundedCents = decimals === 1 ? cents - (cents % 10) : decimals === 0 ? 0 : cents;
          const fraction = String(roundedCents).padStart(2, '0').slice(0, decimals);
          const amount = decimals === 0 ? `${units}` : `${units}.${fraction}`;
          expect(toMinorUnits(amount)).toBe(units * 100n + BigInt(roundedCents));
        },
      ),
    );
  });

  it('when two amounts are added in minor units, then the sum formats exactly (no float drift)', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 10n ** 12n }),
        fc.bigInt({ min: 0n, max: 10n ** 12n }),
        (a, b) => {
          expect(toMinorUnits(formatMinorUnits(a + b))).toBe(
            toMinorUnits(formatMinorUnits(a)) + toMinorUnits(formatMinorUnits(b)),
          );
        },
      ),
    );
  });

  it('when the same amount is written with trailing zeros, then the control value does not change', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: 10n ** 10n }), (minor) => {
        const exact = formatMinorUnits(minor);
        const fields = { endpointId: '1', client_orderid: 'o', email: 'e@x.y' };
        const withZeros = exact.endsWith('0') ? exact.slice(0, -1) : exact;
        expect(controlValue('sale', { ...fields, amount: withZeros }, 'k')).toBe(
          controlValue('sale', { ...fields, amount: exact }, 'k'),
        );
      }),
    );
  });
});

describe('gateway reply codec properties', () => {
  const reply = fc
    .dictionary(
      fieldName.filter((n) => n !== 'type'),
      text,
      { maxKeys: 8 },
    )
    .chain((fields) =>
      fc
        .constantFrom('async-response', 'status-response', 'error')
        .map((type) => ({ type, ...fields })),
    );

  it.each(['json', 'form'] as const)(
    'when a reply is encoded as %s, then parsing restores every field',
    (format) => {
      fc.assert(
        fc.property(reply, (fields) => {
          const contentType = format === 'json' ? 'application/vnd.pay+json' : 'text/html';
          const parsed = parseGatewayReply(contentType, encodeGatewayReply(fields, format));
          expect(parsed.fields).toEqual(fields);
          expect(parsed.type).toBe(fields.type);
        }),
      );
    },
  );
});
