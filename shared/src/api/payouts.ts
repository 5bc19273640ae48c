// Payouts under four-eyes approval, payment links (hosted forms) and card info (issue 5).
// Money is decimal text on the wire; destinations travel in full only in the prepare request and
// come back masked, never whole.
import { z } from 'zod';
import {
  freeText,
  isCardNumberAddress,
  IsoDateTimeSchema,
  luhnValid,
  NO_CARD_NUMBER,
  queryInt,
} from './common.js';
import {
  ConfirmLargeAmountSchema,
  AmountSchema,
  CurrencySchema,
  MaskedCardSchema,
  MoneySchema,
  TransactionStatusSchema,
  TransactionTypeSchema,
  UnansweredSchema,
} from './payments.js';
import { PayoutStateSchema } from './payout-states.js';

/** A control, format (bidi, zero-width) or line or paragraph separator character. */
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;

/**
 * An identifier or code typed by staff (e-wallet id, FPS bank id); free text uses `freeText`.
 * Printable characters only: a control, format (bidi, zero-width) or line separator character
 * would make two ids that read the same differ, and reach the gateway as is.
 */
const text = (max: number) =>
  z
    .string()
    .trim()
    .min(1, 'is required')
    .max(max, `must be at most ${max} characters`)
    .refine((v) => !UNPRINTABLE.test(v), {
      message:
        'must be printable characters only (no control, formatting or line break characters)',
      params: { rule: 'printable' },
    });

export const EndpointIdSchema = z
  .string()
  .trim()
  .regex(/^\d{1,18}$/, 'must be an endpoint id (digits)');

export const CardNumberSchema = z
  .string()
  .transform((v) => v.replace(/[\s-]/g, ''))
  .pipe(
    z
      .string()
      .regex(/^\d{13,19}$/, 'must be 13-19 digits')
      .refine(luhnValid, 'fails the Luhn check'),
  );

export const PHONE_MESSAGE =
  'must be a phone number of 6 to 15 characters (digits and a leading +) once spaces, dashes and brackets are left out';

/** What a written phone number may hold besides its digits and leading +, left out when sent. */
const PHONE_LAYOUT = /[ \-()]/g;

/**
 * A phone number as written, as the gateway takes it: its layout left out, and in an international
 * number the national trunk prefix written '(0)' too ('+44 (0)7700 900123' is dialled
 * '+447700900123' from abroad).
 */
function barePhone(written: string): string {
  const international = written.startsWith('+') ? written.replace(/\(0\)/g, '') : written;
  return international.replace(PHONE_LAYOUT, '');
}

/**
 * A phone number as people write it ('+49 (30) 123-456'), as the gateway takes it (fields.md: 6–15
 * of `0-9 + - ( )` and space): `barePhone` ('+4930123456'), so that the rule counts what matters
 * (QA: a 10-digit number written with its layout was refused).
 */
export const PhoneSchema = z
  .string()
  .trim()
  .refine(
    (v) => {
      const bare = barePhone(v);
      return /^\+?\d+$/.test(bare) && bare.length >= 6 && bare.length <= 15;
    },
    { message: PHONE_MESSAGE, params: { rule: 'phone' } },
  )
  .transform(barePhone);

export const CardDestinationSchema = z
  .object({
    kind: z.literal('card'),
    cardNumber: CardNumberSchema,
    cardholderName: freeText(1, 128),
    /** 1 to 12, with or without a leading zero (`9` or `09`); always two digits once parsed */
    expiryMonth: z
      .string()
      .trim()
      .overwrite((v) => (/^[1-9]$/.test(v) ? `0${v}` : v))
      .regex(/^(0[1-9]|1[0-2])$/, 'must be a month from 1 to 12'),
    expiryYear: z
      .string()
      .trim()
      .regex(/^\d{4}$/, 'must be 4 digits'),
  })
  .strict();

/**
 * The expiry field of a card that has expired at `now` (ms since the epoch), or null while it is
 * valid: a card is valid through the last day of its expiry month (UTC), as the gateway counts.
 * The schema cannot know "now": the BFF asks this with its clock, the SPA may with the browser's.
 */
export function expiredCardField(
  card: { expiryMonth: string; expiryYear: string },
  now: number,
): { path: 'expiryMonth' | 'expiryYear'; message: string } | null {
  const today = new Date(now);
  const year = Number(card.expiryYear);
  const month = Number(card.expiryMonth);
  const expired = `the card expired at the end of ${card.expiryMonth}/${card.expiryYear}`;
  if (year < today.getUTCFullYear()) return { path: 'expiryYear', message: expired };
  if (year === today.getUTCFullYear() && month < today.getUTCMonth() + 1)
    return { path: 'expiryMonth', message: expired };
  return null;
}

/** How many years ahead a card's expiry may be: cards are issued for 3 to 10 years. */
export const CARD_EXPIRY_YEARS_AHEAD = 20;

/**
 * The expiry year of a card whose expiry is more than `CARD_EXPIRY_YEARS_AHEAD` years after `now`
 * (a slip: 9999, 2205 for 2025), or null: no issuer makes such a card, and the gateway would take
 * it only to be refused by the card's bank. The schema cannot know "now", as for an expired card.
 */
export function farCardExpiryField(
  card: { expiryYear: string },
  now: number,
): { path: 'expiryYear'; message: string } | null {
  const latest = new Date(now).getUTCFullYear() + CARD_EXPIRY_YEARS_AHEAD;
  return Number(card.expiryYear) > latest
    ? {
        path: 'expiryYear',
        message: `must be at most ${String(CARD_EXPIRY_YEARS_AHEAD)} years ahead (${String(latest)} at the latest)`,
      }
    : null;
}

/**
 * Why a card's expiry is refused at `now`, with the rule the BFF names it by: expired
 * (`expiredCardField`) or too far ahead (`farCardExpiryField`); null while neither.
 */
export function cardExpiryRefusal(
  card: { expiryMonth: string; expiryYear: string },
  now: number,
): { path: 'expiryMonth' | 'expiryYear'; rule: string; message: string } | null {
  const expired = expiredCardField(card, now);
  if (expired !== null) return { ...expired, rule: 'card_expired' };
  const far = farCardExpiryField(card, now);
  return far === null ? null : { ...far, rule: 'card_expiry_too_far' };
}

/** An IBAN's shape (ISO 13616): country code, two check digits, then 11-30 letters or digits. */
const IBAN_SHAPE = /^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/;

/** Whether an account number (as `normalizeAccountNumber` leaves it) has the shape of an IBAN. */
export function looksLikeIban(accountNumber: string): boolean {
  return IBAN_SHAPE.test(accountNumber);
}

/**
 * Whether an IBAN's check digits match (ISO 13616, ISO 7064 MOD 97-10): with its first four
 * characters moved to the end and each letter read as 10-35, the number leaves 1 when divided by
 * 97; the check digits are 02-98. Worked out character by character, in small numbers only.
 */
export function ibanCheckDigitsMatch(iban: string): boolean {
  const check = Number(iban.slice(2, 4));
  if (!(check >= 2 && check <= 98)) return false;
  let rest = 0;
  for (const char of `${iban.slice(4)}${iban.slice(0, 4)}`) {
    const value = Number.parseInt(char, 36);
    if (Number.isNaN(value)) return false;
    rest = (rest * (value < 10 ? 10 : 100) + value) % 97;
  }
  return rest === 1;
}

/**
 * An account number as it is printed (`DE89 3704 0044 0532 0130 00`) or typed: without spaces,
 * and an IBAN in capitals. Any other account number keeps its letters as they are.
 */
export function normalizeAccountNumber(typed: string): string {
  const compact = typed.replace(/\s+/g, '');
  const upper = compact.toUpperCase();
  return looksLikeIban(upper) ? upper : compact;
}

/** Said of an IBAN whose check digits do not match (a typing error, or not an IBAN at all). */
export const IBAN_CHECK_DIGITS_MESSAGE =
  'is not a valid IBAN: its check digits do not match (look for a typing error)';

/**
 * A bank account number: 4-34 letters or digits once spaces are taken out; one shaped like an IBAN
 * (`looksLikeIban`) is stored in capitals and must pass the IBAN check (`iban_check_digits`).
 */
export const AccountNumberSchema = z
  .string()
  .overwrite(normalizeAccountNumber)
  .regex(/^[A-Za-z0-9]{4,34}$/, 'must be 4-34 letters or digits (IBAN or account number)')
  .refine((v) => !looksLikeIban(v) || ibanCheckDigitsMatch(v), {
    message: IBAN_CHECK_DIGITS_MESSAGE,
    params: { rule: 'iban_check_digits' },
  });

export const BankDestinationSchema = z
  .object({
    kind: z.literal('bank'),
    accountNumber: AccountNumberSchema,
    bankName: freeText(1, 128),
    bankBic: z
      .string()
      .trim()
      .toUpperCase()
      // ISO 9362: a 4-character bank code, a 2-letter country code, a 2-character location and
      // an optional 3-character branch ('12345678' has no country: QA).
      .regex(
        /^[A-Z0-9]{4}[A-Z]{2}[A-Z0-9]{2}([A-Z0-9]{3})?$/,
        'must be an 8 or 11 character BIC: bank code, 2-letter country code, location, optional branch',
      ),
  })
  .strict();

/**
 * A name or id the gateway takes as a word (an e-wallet's type, an FPS bank's id): letters and
 * digits, with single spaces, dots, hyphens or underscores between them where `between` allows
 * them. Punctuation alone ('??', '!!', which the gateway paid: QA) is no wallet and no bank.
 */
const word = (max: number, between: string, rule: string, message: string) => {
  const shape = new RegExp(`^[\\p{L}\\p{N}]+(?:[${between}][\\p{L}\\p{N}]+)*$`, 'u');
  // An empty or unprintable value is refused by `text`'s rules alone: one message a field.
  const saidByText = (v: string) => v === '' || UNPRINTABLE.test(v);
  return text(max).refine((v) => saidByText(v) || shape.test(v), { message, params: { rule } });
};

export const EWALLET_TYPE_MESSAGE =
  'must be the wallet’s name: letters and digits, with single spaces, dots, hyphens or underscores between them (PayPal, Apple Pay)';
export const FPS_BANK_ID_MESSAGE =
  'must be the bank’s id: letters and digits, with single hyphens between them';

export const EwalletDestinationSchema = z
  .object({
    kind: z.literal('ewallet'),
    ewalletType: word(32, ' ._-', 'ewallet_type', EWALLET_TYPE_MESSAGE),
    ewalletId: text(128),
  })
  .strict();

export const PhoneDestinationSchema = z
  .object({
    kind: z.literal('phone'),
    phone: PhoneSchema,
    fpsBankId: word(32, '-', 'fps_bank_id', FPS_BANK_ID_MESSAGE),
  })
  .strict();

export const PayoutDestinationSchema = z.discriminatedUnion('kind', [
  CardDestinationSchema,
  BankDestinationSchema,
  EwalletDestinationSchema,
  PhoneDestinationSchema,
]);
export type PayoutDestination = z.infer<typeof PayoutDestinationSchema>;
export type PayoutDestinationKind = PayoutDestination['kind'];

export const PAYOUT_MODES = ['two-step', 'single'] as const;
export const PayoutModeSchema = z.enum(PAYOUT_MODES);
export type PayoutMode = z.infer<typeof PayoutModeSchema>;

/** `POST /api/payouts` (role ops, Idempotency-Key). */
export const PayoutCreateBodySchema = z
  .object({
    destination: PayoutDestinationSchema,
    amount: AmountSchema,
    currency: CurrencySchema,
    endpointId: EndpointIdSchema.optional(),
    orderDesc: freeText(1, 1024),
    mode: PayoutModeSchema.default('two-step'),
    confirmLargeAmount: ConfirmLargeAmountSchema,
  })
  .strict();
export type PayoutCreateBody = z.infer<typeof PayoutCreateBodySchema>;
export type PayoutCreateInput = z.input<typeof PayoutCreateBodySchema>;

export const PayoutApproveBodySchema = z.object({}).strict();
/**
 * Rejecting (or withdrawing) a payout or a payout form: the reason is audited and shown to the
 * preparer, so like card info it must say something (3 to 255 characters after trimming).
 */
export const PayoutRejectBodySchema = z
  .object({
    reason: freeText(3, 255, { multiline: true, tooShort: 'must say why (at least 3 characters)' }),
  })
  .strict();
export type PayoutRejectBody = z.infer<typeof PayoutRejectBodySchema>;

export {
  PAYOUT_SENT_STATES,
  PAYOUT_STATES,
  PayoutStateSchema,
  type PayoutState,
} from './payout-states.js';

export const PayoutListQuerySchema = z
  .object({
    state: PayoutStateSchema.optional(),
    /** mine = prepared by me; awaiting-my-approval = pending, prepared by someone else */
    view: z.enum(['all', 'mine', 'awaiting-my-approval']).default('all'),
    /**
     * `true`: only the payouts the gateway paid after Paydesk had judged them not applied (error
     * code `PAID_AFTER_NOT_APPLIED`): ops may have prepared one again and paid the payee twice.
     * There is no `false`.
     */
    paidLate: z.enum(['true'], "must be 'true'").optional(),
    /** only the payouts approved or rejected (`decidedAt`) at or after this time */
    decidedFrom: IsoDateTimeSchema.optional(),
    /** keyset cursor (opaque): the previous page's `nextCursor`, for the same view */
    cursor: z.string().trim().min(1).max(512).optional(),
    limit: queryInt(1, 200, 50),
  })
  .strict();
export type PayoutListQuery = z.infer<typeof PayoutListQuerySchema>;

export const MaskedDestinationSchema = z.object({
  kind: z.enum(['card', 'bank', 'ewallet', 'phone']),
  /**
   * `411111******1111` (card), `DE89 **** **** **** **30 00` (IBAN: country code, check digits and
   * last four, in groups of four), `******3000` (other account number), `p******@example.com` /
   * `ab********yz` (e-wallet), `********4567` (phone)
   */
  masked: z.string(),
  /**
   * card: holder and expiry; bank: bank name and BIC; ewallet: type; phone: FPS bank id. Null when
   * withheld from the viewer: a card's holder and expiry are shown to ops users only.
   */
  label: z.string().nullable(),
});
export type MaskedDestination = z.infer<typeof MaskedDestinationSchema>;

export const PayoutSchema = z.object({
  id: z.string(),
  mode: PayoutModeSchema,
  state: PayoutStateSchema,
  endpointId: z.string(),
  clientOrderId: z.string(),
  orderid: z.string().nullable(),
  amount: MoneySchema,
  currency: z.string(),
  orderDesc: z.string(),
  destination: MaskedDestinationSchema,
  preparedBy: z.object({ id: z.string(), email: z.string() }),
  decidedBy: z.object({ id: z.string(), email: z.string() }).nullable(),
  decidedAt: IsoDateTimeSchema.nullable(),
  /**
   * paid again (`POST /api/payouts/:id/pay-again`): `decidedBy` and `decidedAt` are then who paid it
   * again and when; this keeps the first approval, whose payment the gateway did not make. Null
   * when it was never paid again; absent from older instances (null)
   */
  paidAgain: z
    .object({
      firstApprovedBy: z.object({ email: z.string() }),
      firstApprovedAt: IsoDateTimeSchema,
    })
    .nullable()
    .default(null),
  rejectReason: z.string().nullable(),
  /**
   * rejected by the ops user who prepared it (a withdrawal, `decidedBy` is the preparer), not by a
   * second person; the state stays `rejected`
   */
  withdrawn: z.boolean().default(false),
  /**
   * other payouts waiting for approval (not lapsed) of the same amount and currency to the same
   * destination (the same payee): a possible duplicate. Ids, oldest first, at most 10; empty
   * unless this one waits for approval too
   */
  similarPending: z.array(z.string()).default([]),
  /**
   * other payouts of the same amount and currency to the same destination approved for payment
   * (sending, processing, unknown or paid) in the last 7 days: the likeliest duplicate, already
   * paid or on its way. Ids, newest first, at most 10; empty unless this one waits for approval
   */
  similarSent: z.array(z.string()).default([]),
  /**
   * other payouts of the same amount and currency to the same destination prepared in the last 7
   * days and judged not applied after their money request was sent (failed `NOT_APPLIED`): the
   * gateway may still pay them late, so paying this one too may pay the payee twice (what preparing
   * it cautioned of). Ids, oldest first, at most 10; empty unless this one waits for approval;
   * absent from older instances
   */
  similarNotApplied: z.array(z.string()).default([]),
  /**
   * when a payout waiting for approval lapses, or lapsed: a checked two-step payout's registration
   * (24 h after its payout-check), a held single payout PAYOUT_HOLD_MAX_AGE_MS after it was prepared
   */
  expiresAt: IsoDateTimeSchema.nullable(),
  errorCode: z.string().nullable(),
  errorMessage: z.string().nullable(),
  /**
   * how the outcome of its check, or of its payout, went unlearned while it is not known (see
   * UnansweredSchema); null once learned, and for a refusal (said by errorCode and errorMessage)
   */
  unanswered: UnansweredSchema.nullable(),
  /** whether the caller may approve or reject it now */
  canDecide: z.boolean(),
  /**
   * whether the caller may pay it again now (`POST /api/payouts/:id/pay-again`): a checked
   * two-step payout whose payment the gateway did not make (judged not applied), its check not
   * lapsed (`expiresAt`), and the caller an ops user other than its preparer (as `canDecide`);
   * absent from older instances
   */
  canPayAgain: z.boolean().optional(),
  /**
   * an `unknown` payout whose scheduled status checks have stopped (the last passed without an
   * answer): Paydesk no longer asks by itself, only "Check payment status" does; absent from
   * older instances
   */
  checksStopped: z.boolean().optional(),
  createdAt: IsoDateTimeSchema,
  updatedAt: IsoDateTimeSchema,
});
export type Payout = z.infer<typeof PayoutSchema>;

export const PayoutResultSchema = z.object({ payout: PayoutSchema, message: z.string() });
export type PayoutResult = z.infer<typeof PayoutResultSchema>;

/**
 * `GET /api/payouts`: `awaiting-my-approval` in the order its payouts lapse (`expiresAt`), soonest
 * first, ties by creation then id; the other views newest first, ties by id.
 */
export const PayoutListSchema = z.object({
  items: z.array(PayoutSchema),
  /** pass as `cursor` for the next page; null on the last page */
  nextCursor: z.string().nullable(),
});
export type PayoutList = z.infer<typeof PayoutListSchema>;

// ------------------------------------------------------------------ payment links

export const PAYMENT_LINK_KINDS = [
  'sale-form',
  'preauth-form',
  'payment-form',
  'account-verification-form',
  'payout-form',
] as const;
export const PaymentLinkKindSchema = z.enum(PAYMENT_LINK_KINDS);
export type PaymentLinkKind = z.infer<typeof PaymentLinkKindSchema>;

export const LinkCustomerSchema = z
  .object({
    // The gateway's field holds 50 characters; the address the same as anywhere else in Paydesk.
    email: z
      .string()
      .trim()
      .max(50, 'must be at most 50 characters')
      .check(z.email())
      .refine((v) => !isCardNumberAddress(v), NO_CARD_NUMBER),
    address1: freeText(1, 50),
    city: freeText(1, 50),
    zipCode: freeText(1, 10),
    country: z
      .string()
      .trim()
      .toUpperCase()
      .regex(/^[A-Z]{2}$/, 'must be an ISO 3166 alpha-2 code'),
    phone: PhoneSchema.optional(),
    firstName: freeText(1, 50).optional(),
    lastName: freeText(1, 50).optional(),
  })
  .strict();
export type LinkCustomer = z.infer<typeof LinkCustomerSchema>;

/** Hosts a plain http return address may name: this machine only (the demo), as PUBLIC_ORIGIN. */
const LOCAL_RETURN_HOSTS: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Said of a return address that is not https (nor plain http to this machine). */
export const RETURN_URL_HTTPS_MESSAGE =
  'must be an absolute https URL (plain http only for localhost or 127.0.0.1)';

/**
 * Where the gateway sends the customer (payee) after a form: an absolute https URL; plain http only
 * to this machine (the demo). Anything else (`http://` to another host, `javascript:`) is refused,
 * `https_url` naming the rule.
 */
const ReturnUrlSchema = z
  .string()
  .trim()
  .max(2048)
  .refine(
    (v) => {
      try {
        const u = new URL(v);
        return (
          u.protocol === 'https:' || (u.protocol === 'http:' && LOCAL_RETURN_HOSTS.has(u.hostname))
        );
      } catch {
        return false;
      }
    },
    { message: RETURN_URL_HTTPS_MESSAGE, params: { rule: 'https_url' } },
  );

/**
 * `POST /api/payment-links`. Card forms (finance) need amount, currency and the customer (phone
 * too for sale/preauth/payment forms); account verification needs the customer, no amount; a
 * payout-form (ops) needs amount and currency, no customer.
 */
export const PaymentLinkCreateBodySchema = z
  .object({
    kind: PaymentLinkKindSchema,
    amount: AmountSchema.optional(),
    currency: CurrencySchema.optional(),
    endpointId: EndpointIdSchema.optional(),
    orderDesc: freeText(1, 1024),
    customer: LinkCustomerSchema.optional(),
    redirectUrl: ReturnUrlSchema.optional(),
    confirmLargeAmount: ConfirmLargeAmountSchema,
  })
  .strict()
  .superRefine((b, ctx) => {
    const needsAmount = b.kind !== 'account-verification-form';
    if (needsAmount && b.amount === undefined)
      ctx.addIssue({ code: 'custom', path: ['amount'], message: `is required for a ${b.kind}` });
    if (needsAmount && b.currency === undefined)
      ctx.addIssue({ code: 'custom', path: ['currency'], message: `is required for a ${b.kind}` });
    if (!needsAmount && (b.amount !== undefined || b.currency !== undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: ['amount'],
        message: 'an account verification has no amount',
      });
    }
    if (b.kind === 'payout-form') {
      if (b.customer !== undefined)
        ctx.addIssue({
          code: 'custom',
          path: ['customer'],
          message: 'a payout-form takes no customer',
        });
      return;
    }
    if (b.customer === undefined) {
      ctx.addIssue({ code: 'custom', path: ['customer'], message: `is required for a ${b.kind}` });
      return;
    }
    if (b.kind !== 'account-verification-form' && b.customer.phone === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['customer', 'phone'],
        message: `is required for a ${b.kind}`,
      });
    }
  });
export type PaymentLinkCreateBody = z.infer<typeof PaymentLinkCreateBodySchema>;
export type PaymentLinkCreateInput = z.input<typeof PaymentLinkCreateBodySchema>;

/**
 * - pending_approval: a payout-form held until a second ops user approves it
 * - sending: on its way to the gateway
 * - sent: the gateway created the order; `redirectUrl` is the customer's page
 * - unknown: the reply was lost (the order may exist; its page address is not known); Paydesk
 *   asks `status` until the gateway shows the order (sent, `PAYMENT_LINK_PAGE_LOST` unless its
 *   page address is learned) or still does not after the safe delay (failed, not created)
 * - failed: the gateway refused it, or it was not created (`PAYMENT_LINK_NOT_CREATED`); rejected: an ops user rejected the payout-form
 * - expired: a payout-form not approved within PAYOUT_HOLD_MAX_AGE_MS lapsed (its sealed request
 *   erased); nothing was sent
 */
export const PAYMENT_LINK_STATES = [
  'pending_approval',
  'sending',
  'sent',
  'unknown',
  'failed',
  'rejected',
  'expired',
] as const;
export const PaymentLinkStateSchema = z.enum(PAYMENT_LINK_STATES);
export type PaymentLinkState = z.infer<typeof PaymentLinkStateSchema>;

export const PaymentLinkSchema = z.object({
  id: z.string(),
  kind: PaymentLinkKindSchema,
  state: PaymentLinkStateSchema,
  endpointId: z.string(),
  clientOrderId: z.string(),
  orderid: z.string().nullable(),
  amount: MoneySchema.nullable(),
  currency: z.string().nullable(),
  orderDesc: z.string(),
  customerEmail: z.string().nullable(),
  /**
   * the hosted page for the customer; null until sent (a payout-form: until approved). A
   * payout-form's page pays whoever fills it in: it is given only to the ops users who created and
   * approved the link (they hand it to the payee), null for every other viewer.
   */
  redirectUrl: z.string().nullable(),
  /**
   * where the gateway sends the customer (payee) after the form: the return address its creator
   * gave, else Paydesk's own page; null when not known
   */
  returnUrl: z.string().nullable(),
  createdBy: z.object({ id: z.string(), email: z.string() }),
  decidedBy: z.object({ id: z.string(), email: z.string() }).nullable(),
  rejectReason: z.string().nullable(),
  /**
   * rejected by the user who created it (a withdrawal, `decidedBy` is the creator), not by a
   * second person; the state stays `rejected`, as a payout's `withdrawn`
   */
  withdrawn: z.boolean().default(false),
  errorCode: z.string().nullable(),
  errorMessage: z.string().nullable(),
  /**
   * how the outcome of its create went unlearned (its state is then `unknown`; see
   * UnansweredSchema); null otherwise, and for a refusal (said by errorCode and errorMessage)
   */
  unanswered: UnansweredSchema.nullable(),
  canDecide: z.boolean(),
  /**
   * when `decidedBy` approved or rejected it (null: not decided; absent from older instances), as a
   * payout's `decidedAt`
   */
  decidedAt: IsoDateTimeSchema.nullable().optional(),
  /** when a held payout-form lapses (PAYOUT_HOLD_MAX_AGE_MS after its creation), or lapsed */
  expiresAt: IsoDateTimeSchema.nullable(),
  /**
   * The order the customer's use of the page made, as Paydesk knows it from the gateway's
   * callbacks or a `status` check (null until either): whether the customer has paid.
   */
  order: z
    .object({
      transactionId: z.string(),
      orderid: z.string(),
      status: TransactionStatusSchema,
      stage: z.string().nullable(),
      /** the order's own last change (absent from older instances); not the link's `updatedAt` */
      updatedAt: IsoDateTimeSchema.optional(),
      /**
       * The money of the order as Paydesk knows it, in the order's currency (absent from older
       * instances): what the page took or held, and what has since been captured and returned.
       */
      money: z
        .object({
          currency: z.string(),
          authorized: MoneySchema,
          captured: MoneySchema,
          returned: MoneySchema,
          /**
           * A payout-form's order: what went to the payee (`paidOutMinor`; absent on other orders
           * and from older instances). Its authorized, captured and returned stay 0.00: no money
           * came in.
           */
          paidOut: MoneySchema.optional(),
        })
        .optional(),
      /**
       * The card the page was used with, masked, as the order has it (absent from older
       * instances; null when the gateway named none): what the customer paid with, or a
       * payout-form's destination, where the money went.
       */
      card: MaskedCardSchema.nullable().optional(),
    })
    .nullable(),
  createdAt: IsoDateTimeSchema,
  updatedAt: IsoDateTimeSchema,
});
export type PaymentLink = z.infer<typeof PaymentLinkSchema>;
export type PaymentLinkOrder = NonNullable<PaymentLink['order']>;

export const PaymentLinkResultSchema = z.object({ link: PaymentLinkSchema, message: z.string() });
export type PaymentLinkResult = z.infer<typeof PaymentLinkResultSchema>;

/**
 * A link whose create (or approval) went unanswered and whose order the gateway shows with its
 * page not used: `sent` with its `orderid`, but its page address was lost with the reply (the
 * status reply does not carry it), so nobody can be sent to it: it must be made again.
 */
export const PAYMENT_LINK_PAGE_LOST = 'PAGE_ADDRESS_LOST';

/**
 * A link whose create (or approval) went unanswered and whose order the gateway still does not
 * show after a lost request's safe delay: `failed`, never created; it may be made again.
 */
export const PAYMENT_LINK_NOT_CREATED = 'NOT_CREATED';

/**
 * `POST /api/payment-links/:id/refresh` (a sent or unknown link, `status` asked now; nothing is
 * sent that moves money, nor the create again): `order_found` when the gateway shows the order
 * (a sent link's page made it: now in `link.order`, learned as if its callback had come; an
 * unknown link's: the link is now sent with its orderid), `not_paid_yet` when a sent link's page
 * has not been used; for an unknown link, `not_created` when the gateway does not show its order
 * after the safe delay (the link failed, `PAYMENT_LINK_NOT_CREATED`) and `not_known_yet` before it.
 */
export const PaymentLinkRefreshBodySchema = z.object({}).strict();

export const PaymentLinkRefreshResultSchema = PaymentLinkResultSchema.extend({
  outcome: z.enum(['order_found', 'not_paid_yet', 'not_created', 'not_known_yet']),
});
export type PaymentLinkRefreshResult = z.infer<typeof PaymentLinkRefreshResultSchema>;

export const PaymentLinkListQuerySchema = z
  .object({
    kind: PaymentLinkKindSchema.optional(),
    state: PaymentLinkStateSchema.optional(),
    view: z.enum(['all', 'mine', 'awaiting-my-approval']).default('all'),
    /** keyset cursor (opaque): the previous page's `nextCursor`, for the same view */
    cursor: z.string().trim().min(1).max(512).optional(),
    limit: queryInt(1, 200, 50),
  })
  .strict();
export type PaymentLinkListQuery = z.infer<typeof PaymentLinkListQuerySchema>;

/** `GET /api/payment-links`: ordered as the payouts' list (awaiting-my-approval oldest first). */
export const PaymentLinkListSchema = z.object({
  items: z.array(PaymentLinkSchema),
  /** pass as `cursor` for the next page; null on the last page */
  nextCursor: z.string().nullable(),
});
export type PaymentLinkList = z.infer<typeof PaymentLinkListSchema>;

// ------------------------------------------------------------------ card info

/** `POST /api/cards/:cardRefId/info` (support, finance): the reason is required and audited. */
export const CardInfoBodySchema = z
  .object({
    reason: freeText(3, 255, { multiline: true, tooShort: 'must say why (at least 3 characters)' }),
    endpointId: EndpointIdSchema.optional(),
  })
  .strict();
export type CardInfoBody = z.infer<typeof CardInfoBodySchema>;

export const CardInfoSchema = z.object({
  cardRefId: z.string(),
  bin: z.string().nullable(),
  brand: z.string().nullable(),
  /** `411111******1111` */
  maskedNumber: z.string(),
  expiryMonth: z.string().nullable(),
  expiryYear: z.string().nullable(),
});
export type CardInfo = z.infer<typeof CardInfoSchema>;

/** `GET /api/cards` (support, finance): the card references Paydesk knows, newest use first. */
export const CardRefListQuerySchema = z.object({ limit: queryInt(1, 200, 50) }).strict();
export type CardRefListQuery = z.infer<typeof CardRefListQuerySchema>;

export const CardRefSummarySchema = z.object({
  cardRefId: z.string(),
  /** the masked card of the order the reference was made from */
  card: MaskedCardSchema.nullable(),
  /** the first order that carries the reference (where it was made) */
  source: z.object({ transactionId: z.string(), orderid: z.string(), type: TransactionTypeSchema }),
  /**
   * The endpoint the reference was made on (its source order's): the gateway charges it only
   * there, or through a group holding that endpoint.
   */
  endpointId: z.string(),
  /** the source order's currency: what a rebill of the card is charged in unless said otherwise */
  currency: z.string(),
  /** orders that carry it: the source, its rebills and subscription charges */
  orders: z.number().int().nonnegative(),
  lastUsedAt: IsoDateTimeSchema,
});
export type CardRefSummary = z.infer<typeof CardRefSummarySchema>;

export const CardRefListSchema = z.object({ items: z.array(CardRefSummarySchema) });
export type CardRefList = z.infer<typeof CardRefListSchema>;

/** One entry of a payout's or link's history: gateway exchanges (redacted) and staff decisions. */
export const PayoutEventSchema = z.object({
  at: IsoDateTimeSchema,
  kind: z.enum(['gateway', 'staff', 'reconcile']),
  title: z.string(),
  actor: z.string().nullable(),
  /** redacted: never a full card or account number, a CVV or a signature */
  data: z.record(z.string(), z.unknown()),
});
export type PayoutEvent = z.infer<typeof PayoutEventSchema>;

/**
 * A payout that may repeat one the gateway paid late: what its page names of it (its state says
 * whether it was paid too).
 */
export const PayoutRepeatCandidateSchema = PayoutSchema.pick({
  id: true,
  state: true,
  orderid: true,
  preparedBy: true,
  decidedBy: true,
  createdAt: true,
});
export type PayoutRepeatCandidate = z.infer<typeof PayoutRepeatCandidateSchema>;

export const PayoutDetailSchema = PayoutSchema.extend({
  events: z.array(PayoutEventSchema),
  /**
   * Only on a payout the gateway paid after Paydesk had judged it not applied
   * (`PAID_AFTER_NOT_APPLIED`), else empty: the other payouts of the same amount and currency to
   * the same destination (its keyed hash) prepared within 7 days after it, oldest first, at most
   * 10. Any that was paid too paid the payee twice.
   */
  repeatCandidates: z.array(PayoutRepeatCandidateSchema).default([]),
});
export type PayoutDetail = z.infer<typeof PayoutDetailSchema>;

/** One payment link with its history (created, approved or rejected, the gateway's reply). */
export const PaymentLinkDetailSchema = PaymentLinkSchema.extend({
  events: z.array(PayoutEventSchema),
});
export type PaymentLinkDetail = z.infer<typeof PaymentLinkDetailSchema>;
