// What of a gateway exchange may be kept in the timeline, the audit log or a log line: card
// numbers as BIN + last four at most, account numbers as last four, no CVV, no control value.
import { maskPans } from '../services/redact.js';

const DROP = new Set(['cvv2', 'control', 'oauth_signature', 'cres', 'PaRes']);
/** A name that says its value is a card's security code, however spelled (cvv, CVC2, cvn, csc...). */
const SECURITY_CODE_NAME = /cvv|cvc|cvn|csc|^cid$|security[-_ ]?code/i;
const PAN_FIELDS = new Set(['credit_card_number', 'destination-card-no', 'card_number']);
const ACCOUNT_FIELDS = new Set(['account_number', 'ewallet_id', 'phone', 'cell_phone']);

/** 4111111111111111 → 411111******1111; shorter values keep only their last four. */
export function maskPan(pan: string): string {
  const digits = pan.replace(/\D/g, '');
  if (digits.length < 13) return maskTail(digits);
  return `${digits.slice(0, 6)}${'*'.repeat(digits.length - 10)}${digits.slice(-4)}`;
}

/** Everything but the last four characters becomes `*`. */
export function maskTail(value: string): string {
  if (value.length <= 4) return '*'.repeat(value.length);
  return `${'*'.repeat(value.length - 4)}${value.slice(-4)}`;
}

/**
 * A request or reply's fields with card and account data masked and secrets left out. Any other
 * field (a description, a gateway message) keeps its text with card-number-like runs masked. Names
 * are data too (a callback's query is whatever its sender wrote): a name holding a card number is
 * masked and its value left out, and a security-code-like name keeps no value.
 */
export function redactFields(fields: Readonly<Record<string, string>>): Record<string, string> {
  const safe: Record<string, string> = {};
  for (const [rawName, value] of Object.entries(fields)) {
    const name = maskPans(rawName);
    if (name !== rawName || DROP.has(name) || SECURITY_CODE_NAME.test(name)) {
      safe[name] = '[redacted]';
    } else if (PAN_FIELDS.has(name)) {
      safe[name] = maskPan(value);
    } else if (ACCOUNT_FIELDS.has(name)) {
      safe[name] = maskTail(value);
    } else {
      safe[name] = maskPans(value);
    }
  }
  return safe;
}
