// Why the gateway failed an order: its `status` reply's `error-message` and `error-code`, which
// Paydesk keeps only inside the recorded exchange (the order's timeline). The BFF reads them there
// for the list's rows and the SPA for the order's page, so both say the same words.
import { z } from 'zod';
import type { TransactionStatus } from './payments.js';

/** The statuses of an order the gateway ended without taking the money: they have a reason. */
export const FAILED_STATUSES: ReadonlySet<TransactionStatus> = new Set([
  'declined',
  'error',
  'filtered',
]);

/**
 * The gateway's text is shown as text and in a list's row: longer than this it is cut (with an
 * ellipsis); a code longer than CODE_MAX as well. The gateway's own messages are a line long.
 */
export const FAILURE_MESSAGE_MAX = 200;
const CODE_MAX = 64;

export const OrderFailureSchema = z.object({
  /** the gateway's `error-message`, on one line, at most FAILURE_MESSAGE_MAX characters */
  message: z.string().nullable(),
  /** the gateway's `error-code` (`PROCESSING_ERROR`) */
  code: z.string().nullable(),
});
export type OrderFailure = z.infer<typeof OrderFailureSchema>;

/**
 * A value of the gateway's as one clean line: control and format characters (line breaks, bidi
 * overrides) and runs of spaces become one space, so a reply cannot break or reorder the text it is
 * shown in; cut at `max` characters (whole code points). Null when nothing is left.
 */
function oneLine(value: unknown, max: number): string | null {
  if (typeof value !== 'string') return null;
  const text = value
    .replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (text === '') return null;
  const chars = Array.from(text);
  return chars.length <= max
    ? text
    : `${chars
        .slice(0, max - 1)
        .join('')
        .trimEnd()}…`;
}

/** A timeline entry as both the BFF's rows and the API's entries carry it. */
export interface FailureSource {
  id: number;
  kind: string;
  data: Record<string, unknown>;
}

/** Timeline entries that hold a gateway exchange (`request`, `reply`): Paydesk's own or the reconciler's. */
export const EXCHANGE_ENTRY_KINDS = ['gateway', 'reconcile'] as const;

/**
 * The reason in the latest `status` reply among `entries` (the newest by id): its error-message
 * and error-code, cleaned (`oneLine`). Null when no status reply was recorded or the latest says no
 * reason. A callback's `error_message` is not used: it is unsigned, only the callback's claim.
 */
export function orderFailureOf(entries: readonly FailureSource[]): OrderFailure | null {
  let latest: Record<string, unknown> | null = null;
  let latestId = -Infinity;
  for (const entry of entries) {
    if (!(EXCHANGE_ENTRY_KINDS as readonly string[]).includes(entry.kind)) continue;
    const reply = entry.data.reply;
    if (typeof reply !== 'object' || reply === null || Array.isArray(reply)) continue;
    const fields = reply as Record<string, unknown>;
    if (fields.type !== 'status-response' || entry.id <= latestId) continue;
    latest = fields;
    latestId = entry.id;
  }
  if (latest === null) return null;
  const message = oneLine(latest['error-message'], FAILURE_MESSAGE_MAX);
  const code = oneLine(latest['error-code'], CODE_MAX);
  return message === null && code === null ? null : { message, code };
}

/** "Processing error at the issuer (code PROCESSING_ERROR)": the reason as one sentence's end. */
export function failureText(failure: OrderFailure): string {
  if (failure.message === null) return `code ${failure.code ?? ''}`;
  return failure.code === null ? failure.message : `${failure.message} (code ${failure.code})`;
}
