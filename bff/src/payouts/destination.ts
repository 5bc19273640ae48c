// A payout destination as the gateway wants it, as staff may see it (masked), and as the database
// may keep it: a keyed hash always, the whole destination only sealed (single mode, until sent).
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import {
  BankDestinationSchema,
  CardDestinationSchema,
  EwalletDestinationSchema,
  looksLikeIban,
  PhoneDestinationSchema,
  type MaskedDestination,
  type PayoutDestination,
} from '@paydesk/shared/api';
import { maskPan, maskTail } from '../gateway-client/redact.js';
import { canonicalJson, maskPans } from '../services/redact.js';
import type { Sealer } from '../services/sealing.js';

/** The gateway's field names for one destination (fields.md, payouts). */
export function destinationFields(d: PayoutDestination): Record<string, string> {
  switch (d.kind) {
    case 'card':
      return {
        credit_card_number: d.cardNumber,
        card_printed_name: d.cardholderName,
        expire_month: d.expiryMonth,
        expire_year: d.expiryYear,
      };
    case 'bank':
      return { account_number: d.accountNumber, bank_name: d.bankName, bank_bic: d.bankBic };
    case 'ewallet':
      return { ewallet_type: d.ewalletType, ewallet_id: d.ewalletId };
    case 'phone':
      return { phone: d.phone, fps_bank_id: d.fpsBankId };
  }
}

/**
 * An e-wallet id as staff see it: an e-mail-like id keeps the first character of its local part
 * and its domain (`p****@example.com`), any other id its first and last two characters (short ids
 * less, so that at least half stays hidden); a card-number-like run left in it (a domain of
 * digits) is masked to BIN + last four all the same.
 */
export function maskWalletId(id: string): string {
  const email = /^([^@\s]+)@([^@\s]+\.[^@\s]+)$/.exec(id);
  if (email?.[1] !== undefined && email[2] !== undefined) {
    const local = email[1];
    return maskPans(`${local.slice(0, 1)}${'*'.repeat(local.length - 1)}@${email[2]}`);
  }
  if (id.length >= 8) return `${id.slice(0, 2)}${'*'.repeat(id.length - 4)}${id.slice(-2)}`;
  if (id.length >= 4) return `${'*'.repeat(id.length - 2)}${id.slice(-2)}`;
  return '*'.repeat(id.length);
}

/**
 * An IBAN as staff see it: its country code and check digits and its last four, the rest `*`, in
 * groups of four as IBANs are printed (`DE89 **** **** **** **30 00`). An approver compares these
 * with the payee's details; the middle (bank code and most of the account) stays hidden.
 */
export function maskIban(iban: string): string {
  const masked = `${iban.slice(0, 4)}${'*'.repeat(iban.length - 8)}${iban.slice(-4)}`;
  return masked.replace(/(.{4})(?=.)/g, '$1 ');
}

/**
 * What staff see: BIN + last four of a card, an IBAN as `maskIban` shows it, the last four of
 * another account number or a phone, a wallet id as `maskWalletId` shows it.
 */
export function maskDestination(d: PayoutDestination): MaskedDestination & { label: string } {
  switch (d.kind) {
    case 'card':
      return {
        kind: 'card',
        masked: maskPan(d.cardNumber),
        label: `${d.cardholderName}, expires ${d.expiryMonth}/${d.expiryYear}`,
      };
    case 'bank':
      return {
        kind: 'bank',
        masked: looksLikeIban(d.accountNumber)
          ? maskIban(d.accountNumber)
          : maskTail(d.accountNumber),
        label: `${d.bankName} (${d.bankBic})`,
      };
    case 'ewallet':
      return { kind: 'ewallet', masked: maskWalletId(d.ewalletId), label: d.ewalletType };
    case 'phone':
      return {
        kind: 'phone',
        masked: maskTail(d.phone.replace(/\s/g, '')),
        label: `FPS bank ${d.fpsBankId}`,
      };
  }
}

/**
 * A held destination as it was sealed at preparation. Its values are not normalised again: the
 * keyed hash recorded then must still match, also for a payout prepared before account numbers
 * were normalised (an IBAN typed in lower case was kept so) or IBAN check digits checked.
 */
export const HeldDestinationSchema = z.discriminatedUnion('kind', [
  CardDestinationSchema,
  BankDestinationSchema.extend({
    accountNumber: z.string().regex(/^[A-Za-z0-9]{4,34}$/),
  }),
  // An e-wallet type or FPS bank id held before they had to be words ('??' was taken then), a
  // phone number held as it was written (its spaces, dashes and brackets kept then).
  EwalletDestinationSchema.extend({ ewalletType: z.string().min(1).max(32) }),
  PhoneDestinationSchema.extend({
    phone: z.string().regex(/^[0-9+\-() ]{6,15}$/),
    fpsBankId: z.string().min(1).max(32),
  }),
]);

/**
 * Keyed SHA-256 (HMAC) of a destination. A bare SHA-256 of a card number whose BIN and last four
 * are stored beside it could be reversed by trying the million middle digits; the key (derived
 * from the session secret, never stored) prevents that.
 */
export class DestinationHasher {
  readonly #key: Buffer;
  readonly #payeeKey: Buffer;
  constructor(secret: Uint8Array) {
    this.#key = Buffer.from(
      hkdfSync('sha256', secret, 'paydesk', 'paydesk payout destination hash v1', 32),
    );
    this.#payeeKey = Buffer.from(
      hkdfSync('sha256', secret, 'paydesk', 'paydesk payout payee hash v1', 32),
    );
  }
  /** The whole destination's: what an approval is bound to. */
  hash(d: PayoutDestination): string {
    return createHmac('sha256', this.#key).update(canonicalJson(d)).digest('hex');
  }
  /** The payee's alone (`payeeOf`): what the possible-duplicate warnings match on. */
  payeeHash(d: PayoutDestination): string {
    return createHmac('sha256', this.#payeeKey)
      .update(canonicalJson(payeeOf(d)))
      .digest('hex');
  }
}

/**
 * Who a destination pays, as the possible-duplicate warnings compare payouts: a card's number (not
 * the holder's name or the expiry, typed anew each time), an account's number and its bank's BIC
 * to 8 characters (a branch code or `XXX` aside; not the bank's name), an e-wallet's type and id
 * and a phone's FPS bank, case aside, and the phone's digits alone (spaces, `+`, dashes aside).
 * Wider than the destination on purpose: a warning too many is read and dismissed; one too few
 * pays twice.
 */
export function payeeOf(d: PayoutDestination): Record<string, string> {
  const folded = (v: string) => v.trim().toLowerCase();
  switch (d.kind) {
    case 'card':
      return { kind: 'card', number: d.cardNumber.replace(/\D/g, '') };
    case 'bank':
      return {
        kind: 'bank',
        account: d.accountNumber.replace(/[^A-Za-z0-9]/g, '').toUpperCase(),
        bank: d.bankBic.trim().toUpperCase().slice(0, 8),
      };
    case 'ewallet':
      return { kind: 'ewallet', type: folded(d.ewalletType), id: folded(d.ewalletId) };
    case 'phone':
      return { kind: 'phone', phone: d.phone.replace(/\D/g, ''), bank: folded(d.fpsBankId) };
  }
}

/** What an approval is bound to: sealed at preparation, compared with the row at approval. */
export interface Binding {
  id: string;
  mode: string;
  endpointId: string;
  clientOrderId: string;
  orderid: string | null;
  amountMinor: string;
  currency: string;
  destinationHash: string;
}

export function sealBinding(sealer: Sealer, b: Binding): string {
  return sealer.seal(canonicalJson({ v: 1, ...b }));
}

/** The binding sealed in `sealed` if it opens and equals `expected`; a reason otherwise. */
export function checkBinding(
  sealer: Sealer,
  sealed: string | null,
  expected: Binding,
): { ok: true } | { ok: false; reason: string } {
  if (sealed === null) return { ok: false, reason: 'no binding was recorded at preparation' };
  let opened: string;
  try {
    opened = sealer.open(sealed);
  } catch {
    return { ok: false, reason: 'the binding recorded at preparation does not open (altered)' };
  }
  const want = Buffer.from(canonicalJson({ v: 1, ...expected }));
  const got = Buffer.from(opened);
  if (want.length !== got.length || !timingSafeEqual(want, got)) {
    return {
      ok: false,
      reason:
        'the stored payout differs from what was checked (amount, currency, destination or order)',
    };
  }
  return { ok: true };
}
