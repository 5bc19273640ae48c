import { z } from 'zod';
import { plainMessage } from './plain-messages.js';

// Every schema's fallback messages in the API's words (plain-messages.ts).
z.config({ customError: plainMessage });

/** Every state-changing `/api` request carries this header with this value (CSRF defence). */
export const CSRF_HEADER = 'X-Requested-With';
export const CSRF_HEADER_VALUE = 'paydesk';

/**
 * On each `/api` request the SPA makes: how long ago (whole milliseconds) its user last pressed a
 * key, a pointer or the wheel on the page. The BFF restarts the session's idle timeout from that
 * input, not from the request, so a screen left alone that refetches by itself (after a live
 * event) is signed out on time (QA: an open list stayed signed in for the whole 12 hours). Without
 * it (another client, `curl`), the request itself is the activity.
 */
export const IDLE_HEADER = 'Paydesk-Idle-Ms';

/** Header carrying the request id on every reply (also in error bodies as `requestId`). */
export const REQUEST_ID_HEADER = 'X-Request-Id';

/** UTC instant as ISO 8601 text with `Z` (e.g. `2026-11-21T05:19:38.000Z`). */
export const IsoDateTimeSchema = z.iso.datetime();

/** Opaque identifier (UUID text). */
export const IdSchema = z.string().min(1).max(64);

/**
 * Query-string integer (`?page=2`): digits only. `Number()` would also take `1e2`, `0x10` or
 * ` ` (QA: `limit=0x10` answered 16 rows), so text that is not plain digits is refused as such.
 */
export const queryInt = (min: number, max: number, fallback: number) =>
  z
    .preprocess(
      (v) => (typeof v === 'string' && /^\d{1,15}$/.test(v.trim()) ? Number(v.trim()) : v),
      z
        .number({
          // Said of text that is no plain digits; a number out of bounds says its bound (zod
          // hands the schema's error its checks' issues too).
          error: (issue) =>
            typeof issue.input === 'number'
              ? undefined
              : `must be a whole number from ${min} to ${max}`,
        })
        .int()
        .min(min)
        .max(max),
    )
    .default(fallback);

/**
 * A query's time window [from, to): `to` is exclusive, so `to` at or before `from` is a window
 * that holds nothing, refused naming `to` (as the transactions' `createdTo`). A value that breaks
 * its own field's rule is left to that rule. For audit (list, export) and stats.
 */
export function checkTimeWindow(
  window: { from?: string | undefined; to?: string | undefined },
  ctx: z.RefinementCtx,
): void {
  const from = Date.parse(window.from ?? '');
  const to = Date.parse(window.to ?? '');
  if (Number.isFinite(from) && Number.isFinite(to) && to <= from)
    ctx.addIssue({
      code: 'custom',
      path: ['to'],
      message: 'must be after from',
      params: { rule: 'range' },
    });
}

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

/** A full card number found in a text: `text.slice(start, end)`, and its digits alone. */
export interface CardNumberMatch {
  start: number;
  end: number;
  digits: string;
}

const MIN_CARD_DIGITS = 13;

/** Whether `text` holds at least `n` ASCII digits (what `\d` matches), anywhere. */
function hasDigits(text: string, n: number): boolean {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 48 && c <= 57 && ++count >= n) return true;
  }
  return false;
}

// Digit groups with a single space or dash between them; a UUID's digit groups are no card number.
const DIGIT_RUN = /\d(?:[ -]?\d)+/g;
// Groups with one dot or underscore between them, the same one throughout (`4111.1111.1111.1111`),
// at least three groups: an amount (`1234.56`), a list of amounts (`12.50 13.75`, two separators),
// a date or an IPv4 address (12 digits at most) is none.
const DOTTED_RUN = /\d+([._])\d+(?:\1\d+)+/g;

/** The first decimal digit of a non-ASCII digit's block of ten, by block (e.g. U+0660 for ٣). */
const digitZeros = new Map<number, number>();
const DECIMAL_DIGIT = /\p{Nd}/u;

/** A BMP decimal digit of another script (Arabic-Indic ٤, full-width ４…) as its ASCII digit. */
function asciiDigit(digit: string): string {
  const code = digit.charCodeAt(0);
  let zero = digitZeros.get(code);
  if (zero === undefined) {
    // Unicode's decimal digits come in runs of ten, 0 to 9, some runs back to back.
    let first = code;
    while (DECIMAL_DIGIT.test(String.fromCharCode(first - 1))) first -= 1;
    zero = first + Math.floor((code - first) / 10) * 10;
    digitZeros.set(code, zero);
  }
  return String.fromCharCode(48 + code - zero);
}

/**
 * `text` with the decimal digits of other scripts in the Basic Multilingual Plane as ASCII digits,
 * one character for one, so positions stay those of `text`: a card number typed in Arabic-Indic
 * or full-width digits is found like one in ASCII digits. Plain ASCII text is returned as it is.
 */
function foldDigits(text: string): string {
  if (!/[^\p{ASCII}]/u.test(text)) return text;
  // One UTF-16 unit each: a digit beyond the BMP (mathematical 𝟒) would change the positions.
  return text.replace(/[^\p{ASCII}]/gu, (c) =>
    c.length === 1 && DECIMAL_DIGIT.test(c) ? asciiDigit(c) : c,
  );
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

/**
 * Where `text` holds what looks like a full card number: 13–19 digits, single spaces or dashes
 * allowed between them (or one dot or underscore, the same throughout), that pass the Luhn check;
 * digits of other scripts count as their ASCII digits (`foldDigits`). The digits are whole groups
 * of a run (`4111 1111 1111 1111` in `ref 12 4111 1111 1111 1111 exp 12 27` too); overlapping
 * candidates are one match.
 */
export function findCardNumbers(original: string): CardNumberMatch[] {
  const text = foldDigits(original);
  // Most texts (every field of every timeline entry and log line) hold fewer digits than a card.
  if (!hasDigits(text, MIN_CARD_DIGITS)) return [];
  let uuids: { start: number; end: number }[] | undefined;
  const inUuid = (start: number, end: number) => {
    uuids ??= [...text.matchAll(UUID)].map((m) => ({ start: m.index, end: m.index + m[0].length }));
    return uuids.some((u) => u.start <= start && end <= u.end);
  };
  const found: CardNumberMatch[] = [];
  const keep = (span: { start: number; end: number }) => {
    found.push({ ...span, digits: text.slice(span.start, span.end).replace(/\D/g, '') });
  };
  const runs = [...text.matchAll(DIGIT_RUN), ...text.matchAll(DOTTED_RUN)].sort(
    (a, b) => a.index - b.index,
  );
  for (const run of runs) {
    if (!hasDigits(run[0], MIN_CARD_DIGITS)) continue;
    const groups = [...run[0].matchAll(/\d+/g)].map((g) => ({
      start: run.index + g.index,
      digits: g[0],
    }));
    let open: { start: number; end: number } | undefined;
    groups.forEach((first, i) => {
      let digits = '';
      for (const last of groups.slice(i)) {
        digits += last.digits;
        if (digits.length > 19) break;
        if (digits.length < 13 || !luhnValid(digits)) continue;
        const start = first.start;
        const end = last.start + last.digits.length;
        if (inUuid(start, end)) continue;
        if (open !== undefined && start < open.end) {
          open.end = Math.max(open.end, end);
        } else {
          if (open !== undefined) keep(open);
          open = { start, end };
        }
      }
    });
    if (open !== undefined) keep(open);
  }
  // A dotted run and a spaced one may overlap (`1234 5678.9012.3456.7890`): one match each place.
  const merged: CardNumberMatch[] = [];
  for (const match of found) {
    const last = merged.at(-1);
    if (last === undefined || match.start >= last.end) merged.push(match);
    else if (match.end > last.end) {
      last.end = match.end;
      last.digits = text.slice(last.start, last.end).replace(/\D/g, '');
    }
  }
  return merged;
}

/**
 * Whether `text` is, as a whole, a card number: 13–19 digits passing the Luhn check, single spaces
 * or dashes between them allowed ('4111 1111 1111 1111'), or one dot or underscore throughout
 * ('4111.1111.1111.1111'), in any script's digits. The search term and the look-up's ids
 * refuse these: an id holding a run of digits among other characters ('shop-1795900891072-1', a
 * timestamp in it) is no card number, though about 1 in 10 such runs passes the Luhn check (QA:
 * those orders could not be found by their id). What is kept or logged still masks any run
 * (`containsCardNumber`, `maskCardNumbers`).
 */
export function isWholeCardNumber(text: string): boolean {
  const trimmed = foldDigits(text.trim());
  if (!/^\d(?:[ -]?\d)+$/.test(trimmed) && !/^\d+([._])\d+(?:\1\d+)+$/.test(trimmed)) return false;
  const digits = trimmed.replace(/\D/g, '');
  return digits.length >= MIN_CARD_DIGITS && digits.length <= 19 && luhnValid(digits);
}

/** Whether `text` holds what looks like a full card number (see `findCardNumbers`). */
export function containsCardNumber(text: string): boolean {
  return findCardNumbers(text).length > 0;
}

const binAndLastFour = (digits: string) => `${digits.slice(0, 6)}…${digits.slice(-4)}`;

/**
 * `text` with every card-number-like run masked to its BIN and last four (`411111…1111`), for
 * logs, audit rows and messages: a card number as `findCardNumbers` finds it, and any unbroken run
 * of 13–19 digits, Luhn-valid or not (ids, paths, user agents).
 */
export function maskCardNumbers(text: string): string {
  const cards = findCardNumbers(text);
  if (cards.length === 0 && !hasDigits(text, MIN_CARD_DIGITS)) return text;
  let out = '';
  let at = 0;
  for (const card of cards) {
    out += `${text.slice(at, card.start)}${binAndLastFour(card.digits)}`;
    at = card.end;
  }
  return `${out}${text.slice(at)}`.replace(/\d{13,19}/g, binAndLastFour);
}

/**
 * A name someone typed (an unknown field or parameter) as a refusal repeats it: a card number
 * typed as one masked (QA: a saved view's reply echoed it), then cut to `max` characters.
 */
export function shownName(name: string, max = 40): string {
  const masked = maskCardNumbers(name);
  return masked.length > max ? `${masked.slice(0, max)}…` : masked;
}

/**
 * What a free-text field refuses. A 400 names the rule (`control_characters`, `bidi_controls`,
 * `card_number`); the SPA shows these messages as they are (written for staff, not developers).
 */
export const FREE_TEXT_REFUSALS = {
  controlCharacters: 'must be one line without control characters (no line breaks or tabs)',
  controlCharactersMultiline: 'must not contain control characters (line breaks and tabs are fine)',
  bidiControls: 'must not contain bidirectional text controls (U+202A–U+202E, U+2066–U+2069)',
  cardNumber: 'must not contain a card number; give the last four digits only',
} as const;
const FREE_TEXT_MESSAGES: ReadonlySet<string> = new Set(Object.values(FREE_TEXT_REFUSALS));

/** The refinement of a field Paydesk stores and shows that must never hold a card number. */
export const NO_CARD_NUMBER = {
  message: FREE_TEXT_REFUSALS.cardNumber,
  params: { rule: 'card_number' },
} as const;

/** The longest e-mail address a mail server takes (RFC 5321's path, less its brackets). */
export const EMAIL_MAX_LENGTH = 254;
/**
 * Whether an e-mail address's local part is, as a whole, a card number
 * (`4111111111111111@example.com` would be shown to every reader). Only as a whole, as the search
 * term is weighed: a generated address with a Luhn-valid run among other characters
 * (`shop-1795910517543@…`, a timestamp) is an address like any other.
 */
export function isCardNumberAddress(address: string): boolean {
  const at = address.lastIndexOf('@');
  return at > 0 && isWholeCardNumber(address.slice(0, at));
}

/** Lowercased, trimmed e-mail address; never a card number's. */
export const EmailSchema = z
  .string()
  .trim()
  .toLowerCase()
  .max(EMAIL_MAX_LENGTH)
  .check(z.email())
  .refine((v) => !isCardNumberAddress(v), NO_CARD_NUMBER);

/** Whether `message` is one of `FREE_TEXT_REFUSALS`. */
export function isFreeTextRefusal(message: string): boolean {
  return FREE_TEXT_MESSAGES.has(message);
}

/** C0 and C1 controls and DEL; multi-line text may hold line feeds and tabs. */
function hasControlCharacter(text: string, multiline: boolean): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (multiline && (c === 0x0a || c === 0x09)) continue;
    if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) return true;
  }
  return false;
}

/** Bidi embeddings and overrides (U+202A–U+202E) and isolates (U+2066–U+2069): they reorder text. */
const BIDI_CONTROL = /[\u202a-\u202e\u2066-\u2069]/;

export interface FreeTextOptions {
  /** a comment typed in a multi-line box: line breaks (CR LF becomes LF) and tabs are allowed */
  multiline?: boolean;
  /** the message when shorter than `min` (default: `is required` for 1, else the length) */
  tooShort?: string;
}

/**
 * Text a staff member types that Paydesk stores and shows to others (comments, reasons,
 * descriptions, names): trimmed, `min`–`max` characters, never a control character, a bidi control
 * or a full card number.
 */
export const freeText = (min: number, max: number, options: FreeTextOptions = {}) => {
  const multiline = options.multiline === true;
  const base = multiline ? z.string().overwrite((v) => v.replace(/\r\n?/g, '\n')) : z.string();
  return base
    .trim()
    .min(min, options.tooShort ?? (min <= 1 ? 'is required' : `must be at least ${min} characters`))
    .max(max, `must be at most ${max} characters`)
    .refine((v) => !hasControlCharacter(v, multiline), {
      message: multiline
        ? FREE_TEXT_REFUSALS.controlCharactersMultiline
        : FREE_TEXT_REFUSALS.controlCharacters,
      params: { rule: 'control_characters' },
    })
    .refine((v) => !BIDI_CONTROL.test(v), {
      message: FREE_TEXT_REFUSALS.bidiControls,
      params: { rule: 'bidi_controls' },
    })
    .refine((v) => !containsCardNumber(v), NO_CARD_NUMBER);
};

/**
 * Why a staff member takes a step others must be able to account for (a rebill, disabling an
 * account, resetting its two-step sign-in): 3–500 characters, kept in the step's audit row.
 */
export const ReasonSchema = freeText(3, 500, {
  multiline: true,
  tooShort: 'must say why (at least 3 characters)',
});
