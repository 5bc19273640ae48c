import type { FieldPath, FieldValues, UseFormSetError } from 'react-hook-form';
import type { FieldError } from '@paydesk/shared/api';
import { isApiError } from './api-client';
import { localAmountExample } from './money';

/** A rule's words that say what the field must be: "must be …", "is not …", "fails …". */
const RULE = /^(must|is|are|fails|has|does|cannot)\b/;

/**
 * A refusal of the field at `path` (the server's, or a shared rule's) as a sentence, like the
 * form's own: a rule ("must be …") is said of "This", a message that is a sentence of its own
 * ("the card expired at the end of 01/2025") starts with a capital, and either ends with a full
 * stop. An amount's form (`rule` 'invalid_format') is said as the other amount fields say it, with
 * the locale's decimal mark ("e.g. 19,99" in de-DE).
 */
export function sentenceOf(path: string, message: string, rule?: string): string {
  if (path === 'amount' && rule === 'invalid_format')
    return `An amount above zero with at most 2 decimals, e.g. ${localAmountExample('19.99')}.`;
  const text = message.trim();
  if (text === 'is required') return 'Required.';
  const sentence = RULE.test(text)
    ? `This ${text}`
    : `${text.charAt(0).toUpperCase()}${text.slice(1)}`;
  return /[.!?…]$/.test(sentence) ? sentence : `${sentence}.`;
}

/**
 * The shared currency rule that refused a well-formed code, as a sentence: a currency without
 * cents (JPY, KWD: the gateway counts amounts in cents) or a code that names no currency in use
 * (XXX, ZZZ). Undefined for any other message (a code that is not 3 letters): the field's usual
 * rule says that.
 */
export function currencyRefusal(message: string | undefined): string | undefined {
  if (message === undefined) return undefined;
  if (/\bwith 2 decimals\b/.test(message))
    return 'A currency with 2 decimals (cents), e.g. EUR: the gateway counts amounts in cents.';
  if (/\bISO 4217 currency code\b/.test(message))
    return 'Not a real currency: an ISO code in use, e.g. EUR.';
  return undefined;
}

/** The server's refusal of the field at `path` (one the refusal names), or undefined. */
export function refusedField(error: unknown, path: string): FieldError | undefined {
  return isApiError(error) ? error.fieldErrors.find((named) => named.path === path) : undefined;
}

/**
 * Puts the server's field errors next to the fields they name: a VALIDATION_FAILED, or any other
 * refusal that names a field (a card reference the gateway does not know: 404 on `cardRefId`),
 * each said as a sentence (`sentenceOf`). Returns true when at least one landed on a field of this
 * form (the caller then needs no generic alert); the others are said by `describeError`, with the
 * field's label.
 */
export function applyServerFieldErrors<T extends FieldValues>(
  error: unknown,
  setError: UseFormSetError<T>,
  fields: readonly FieldPath<T>[],
): boolean {
  if (!isApiError(error)) return false;
  let placed = false;
  for (const fieldError of error.fieldErrors) {
    // `roles.1` belongs to the `roles` control.
    const name = fields.find(
      (field) => fieldError.path === field || fieldError.path.startsWith(`${field}.`),
    );
    if (name === undefined) continue;
    setError(name, {
      type: 'server',
      message: sentenceOf(fieldError.path, fieldError.message, fieldError.rule),
    });
    placed = true;
  }
  return placed;
}
