import { maskCardNumbers } from '@paydesk/shared/api';

// Request summaries for the audit log: keep what says what was asked, drop anything secret.
const SECRET_KEY =
  /pass(word)?|secret|totp|^code$|otp|token|cookie|authori[sz]ation|control|private|cvv|cvc|card_?number|^pan$|recovery/i;

/**
 * Masks every card-number-like run of digits to its BIN and last four, wherever it stands (ids,
 * paths, user agents, free text): any unbroken run of 13–19 digits, and a card number written in
 * groups (`4111 1111 1111 1111`, `4111-1111-1111-1111`; Luhn-valid). See `maskCardNumbers`.
 */
export function maskPans(text: string): string {
  return maskCardNumbers(text);
}

export function redact(value: unknown, depth = 0): unknown {
  if (depth > 6) return '[truncated]';
  if (typeof value === 'string') {
    const masked = maskPans(value);
    return masked.length > 500 ? `${masked.slice(0, 500)}…` : masked;
  }
  if (Array.isArray(value)) return value.slice(0, 50).map((v) => redact(v, depth + 1));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      out[k] = SECRET_KEY.test(k) ? '[redacted]' : redact(v, depth + 1);
    }
    return out;
  }
  return value;
}

/** JSON with object keys sorted, so the same content always gives the same text. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value ?? null);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}
