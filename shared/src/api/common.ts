import { z } from 'zod';

/** Every state-changing `/api` request carries this header with this value (CSRF defence). */
export const CSRF_HEADER = 'X-Requested-With';
export const CSRF_HEADER_VALUE = 'paydesk';

/** Header carrying the request id on every reply (also in error bodies as `requestId`). */
export const REQUEST_ID_HEADER = 'X-Request-Id';

/** UTC instant as ISO 8601 text with `Z` (e.g. `2026-11-21T05:19:38.000Z`). */
export const IsoDateTimeSchema = z.iso.datetime();

/** Lowercased, trimmed e-mail address. */
export const EmailSchema = z.string().trim().toLowerCase().max(254).check(z.email());

/** Opaque identifier (UUID text). */
export const IdSchema = z.string().min(1).max(64);

/** Query-string integer (`?page=2`). */
export const queryInt = (min: number, max: number, fallback: number) =>
  z.coerce.number().int().min(min).max(max).default(fallback);

/** A page of items with server-side pagination (`page` is 1-based). */
export const pageOf = <T extends z.ZodType>(item: T) =>
  z.object({
    items: z.array(item),
    page: z.number().int().min(1),
    pageSize: z.number().int().min(1),
    total: z.number().int().nonnegative(),
  });

/** The Luhn check digit test card numbers pass (ISO/IEC 7812). `digits` holds digits only. */
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

/**
 * Whether `text` holds what looks like a full card number: a run of 13–19 digits (single spaces or
 * dashes allowed between them) that passes the Luhn check.
 */
export function containsCardNumber(text: string): boolean {
  for (const match of text.matchAll(/\d(?:[ -]?\d)+/g)) {
    const digits = match[0].replace(/[ -]/g, '');
    if (digits.length >= 13 && digits.length <= 19 && luhnValid(digits)) return true;
  }
  return false;
}
