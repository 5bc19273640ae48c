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
