// Transactions and their follow-up operations (issue 5): list, detail, lookup, capture, return,
// void, card reference, live events and home-screen statistics. Money is decimal text on the wire.
import { z } from 'zod';
import { toMinorUnits } from '../protocol/money.js';
import { CsvDelimiterSchema } from './audit.js';
import {
  checkTimeWindow,
  EmailSchema,
  freeText,
  IsoDateTimeSchema,
  isWholeCardNumber,
  queryInt,
} from './common.js';
import { PayoutStateSchema } from './payout-states.js';
import { OrderFailureSchema } from './transactions-failure.js';

/** Said when a search holds a whole card number: the list finds a card by its last four. */
export const SEARCH_CARD_NUMBER_REFUSAL =
  'must not be a whole card number: search by its last four digits or the masked card (411111******1111)';

/** The largest amount the API takes: 13 integer digits and 2 decimals. */
export const AMOUNT_MAX = '9999999999999.99';

/** An amount sent as a JSON number (or any other kind than text). */
export const AMOUNT_AS_TEXT_MESSAGE =
  'must be a decimal amount as text, e.g. "19.99" (a JSON string, never a JSON number)';

/**
 * Decimal text, > 0, at most two decimals (`19.99`), at most AMOUNT_MAX; the BFF turns it into
 * integer minor units.
 */
export const AmountSchema = z
  // Money never travels as a JSON number (19.99 is not exactly 19.99 there): say so, not just
  // "not a number". Missing, the common "is required" (plain-messages.ts).
  .string({ error: (issue) => (issue.input === undefined ? undefined : AMOUNT_AS_TEXT_MESSAGE) })
  .trim()
  // A negative amount is refused for its sign ("-5" is well formed, just not allowed).
  .refine((v) => !/^-\s*\d/.test(v), { message: 'must be greater than zero', abort: true })
  // Not an amount at all: that one message, not also "must be greater than zero".
  .regex(/^(0|[1-9]\d*)(\.\d{1,2})?$/, {
    message: 'must be a decimal amount with at most 2 decimals, e.g. 19.99',
    abort: true,
  })
  // A well-formed amount that is too large is refused for its size, not its form.
  .refine((v) => !/^[1-9]\d{13,}(\.\d{1,2})?$/.test(v), {
    message: `must be at most ${AMOUNT_MAX}`,
    params: { rule: 'too_big' },
  })
  .refine((v) => /[1-9]/.test(v), 'must be greater than zero');

/**
 * `confirmLargeAmount` in the bodies that create an order with an amount (rebill, subscription,
 * payment link, payout): absent, or `true` once the person confirmed an amount above its
 * currency's threshold (large-amount.ts).
 */
export const ConfirmLargeAmountSchema = z
  .literal(true, { error: 'must be true once the amount was confirmed, or left out' })
  .optional();

/** Decimal text as shown in replies (may be `0.00`). */
export const MoneySchema = z.string().regex(/^\d+\.\d{2}$/);

let isoCurrencies: ReadonlySet<string> | null = null;

/**
 * Whether `code` is an ISO 4217 currency in use, as the runtime's Intl data lists them (Node 24:
 * 162 codes; never `XXX` "no currency", `XTS` "testing", or made-up codes such as `ZZZ`).
 */
export function isIsoCurrency(code: string): boolean {
  isoCurrencies ??= new Set(Intl.supportedValuesOf('currency'));
  return isoCurrencies.has(code);
}

export const CurrencySchema = z
  .string()
  .trim()
  .toUpperCase()
  .regex(/^[A-Z]{3}$/, 'must be an ISO 4217 alpha-3 code')
  .refine(
    (v) => !/^[A-Z]{3}$/.test(v) || isIsoCurrency(v),
    'must be an ISO 4217 currency code (e.g. EUR)',
  )
  .refine(
    (v) => !isIsoCurrency(v) || hasCents(v),
    'must be a currency with 2 decimals (cents), as the gateway takes amounts',
  );

/**
 * Whether `code` counts its minor unit in hundredths (EUR, USD; not JPY with none, nor KWD with
 * thousandths): the only currencies the gateway takes (fields.md), since it reads amounts in cents.
 */
export function hasCents(code: string): boolean {
  return (
    new Intl.NumberFormat('en', { style: 'currency', currency: code }).resolvedOptions()
      .maximumFractionDigits === 2
  );
}

/** The gateway's statuses plus `unknown`: Paydesk could not learn the outcome (design §3). */
export const TRANSACTION_STATUSES = [
  'processing',
  'approved',
  'declined',
  'error',
  'filtered',
  'unknown',
] as const;
export const TransactionStatusSchema = z.enum(TRANSACTION_STATUSES);
export type TransactionStatus = z.infer<typeof TransactionStatusSchema>;

/**
 * The order's originating transaction type as the gateway names it; in lists, a two-step payout
 * that was paid is a `payout` (the gateway keeps calling its order `payout-check`).
 */
export const TRANSACTION_TYPES = [
  'sale',
  'preauth',
  'rebill',
  'payout',
  'payout-check',
  'account-verification',
  'transfer',
  'pan-eligibility',
  'unknown',
] as const;
export const TransactionTypeSchema = z.enum(TRANSACTION_TYPES);
export type TransactionType = z.infer<typeof TransactionTypeSchema>;

/** Follow-ups staff can start on an existing order. */
export const FOLLOW_UP_ACTIONS = ['capture', 'return', 'void', 'card-ref'] as const;
export const FollowUpActionSchema = z.enum(FOLLOW_UP_ACTIONS);
export type FollowUpAction = z.infer<typeof FollowUpActionSchema>;

/** Kinds of operation on an order: the ones Paydesk sent and the ones it learned from the gateway. */
export const OPERATION_KINDS = [
  'sale',
  'preauth',
  'capture',
  'return',
  'void',
  'card-ref',
  'rebill',
  'payout',
  'payout-check',
  'payout-pay',
  'account-verification',
  'transfer',
  'pan-eligibility',
] as const;
export const OperationKindSchema = z.enum(OPERATION_KINDS);
export type OperationKind = z.infer<typeof OperationKindSchema>;

/**
 * An operation's state: `sending` while the request is on its way; `unknown` when the reply was
 * lost (the reconciler asks `status`); `not_applied` when reconciliation found that the gateway
 * never applied it; `not_sent` when it never left Paydesk; `refused` when the gateway refused it.
 */
export const OPERATION_STATES = [
  'sending',
  'processing',
  'approved',
  'declined',
  'error',
  'filtered',
  'unknown',
  'not_applied',
  'not_sent',
  'refused',
] as const;
export const OperationStateSchema = z.enum(OPERATION_STATES);
export type OperationState = z.infer<typeof OperationStateSchema>;

const SORTS = ['created_desc', 'created_asc', 'amount_desc', 'amount_asc'] as const;
export const TransactionSortSchema = z.enum(SORTS);
export type TransactionSort = z.infer<typeof TransactionSortSchema>;

/** The filter's fields (query string); strict: an unknown parameter is refused, never ignored. */
const TransactionFilterFields = z
  .object({
    /**
     * the order's status; `unknown` also matches the orders with an operation whose outcome is
     * unknown (a capture, return, void or card reference whose reply was lost), whatever their own
     */
    status: TransactionStatusSchema.optional(),
    type: TransactionTypeSchema.optional(),
    endpoint: z
      .string()
      .trim()
      .regex(/^\d{1,18}$/, 'must be an endpoint id (digits)')
      .optional(),
    currency: CurrencySchema.optional(),
    /** inclusive lower bound of the creation time */
    createdFrom: IsoDateTimeSchema.optional(),
    /** exclusive upper bound of the creation time */
    createdTo: IsoDateTimeSchema.optional(),
    amountMin: AmountSchema.optional(),
    amountMax: AmountSchema.optional(),
    /**
     * exact match on Paydesk's id (a UUID), orderid, client_orderid, customer e-mail, the card's
     * last four digits, or a masked card as the list shows it (`transactionSearchCard`)
     */
    q: z
      .string()
      .trim()
      .min(1)
      .max(128)
      // A card number is never searched for, nor kept in an address, a log or a saved view; an id
      // with a run of digits among other characters is an id (`isWholeCardNumber`).
      .refine((v) => !isWholeCardNumber(v), {
        message: SEARCH_CARD_NUMBER_REFUSAL,
        params: { rule: 'no_card_number' },
      })
      .optional(),
    /** `true`: only orders where the gateway and Paydesk disagreed; `false`: only the others */
    drift: z.enum(['true', 'false'], "must be 'true' or 'false'").optional(),
    /**
     * `true`: only orders with a follow-up staff sent in the last 7 days (a capture, return, void,
     * card reference or rebill) that the gateway never made (judged not applied), as the home
     * screen's "Not made by the gateway" card counts them; there is no `false`
     */
    notMade: z.enum(['true'], "must be 'true'").optional(),
  })
  .strict();

/**
 * The filter's rules across fields, the one place the list, the CSV export, saved views and the
 * SPA take them from: the creation window must not be empty or backwards (`createdTo` is
 * exclusive), and the amount range must not be backwards. A value that breaks its own field's
 * rule is left to that rule.
 */
export function transactionFilterRangeIssues(filter: {
  createdFrom?: string | undefined;
  createdTo?: string | undefined;
  amountMin?: string | undefined;
  amountMax?: string | undefined;
}): { path: 'createdTo' | 'amountMax'; message: string }[] {
  const issues: { path: 'createdTo' | 'amountMax'; message: string }[] = [];
  const from = Date.parse(filter.createdFrom ?? '');
  const to = Date.parse(filter.createdTo ?? '');
  if (Number.isFinite(from) && Number.isFinite(to) && to <= from)
    issues.push({ path: 'createdTo', message: 'must be after createdFrom' });
  const min = AmountSchema.safeParse(filter.amountMin);
  const max = AmountSchema.safeParse(filter.amountMax);
  if (min.success && max.success && toMinorUnits(max.data) < toMinorUnits(min.data))
    issues.push({ path: 'amountMax', message: 'must not be below amountMin' });
  return issues;
}

function checkRanges(
  filter: Parameters<typeof transactionFilterRangeIssues>[0],
  ctx: z.RefinementCtx,
): void {
  for (const issue of transactionFilterRangeIssues(filter)) {
    ctx.addIssue({
      code: 'custom',
      path: [issue.path],
      message: issue.message,
      params: { rule: 'range' },
    });
  }
}

/** Filters shared by the list and the CSV export (query string). */
export const TransactionFilterSchema = TransactionFilterFields.superRefine(checkRanges);
export type TransactionFilter = z.infer<typeof TransactionFilterSchema>;

/**
 * Paydesk's own id of an order (a UUID, lower case as Paydesk writes it; any case is read), and
 * of every other record it names in an address (a payout, a payment link, a subscription, a user,
 * a saved view): the BFF's `:id` parameters and the SPA's look-up take the same shape.
 */
export const TRANSACTION_ID_PATTERN =
  /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The card a search term names when it is a masked card as Paydesk shows one: `411111******1111`,
 * `411111…1111` (a BIN of 6 or 8 digits, then `*`, `•`, `x`, `.` or `…`), `**** 1111` or
 * `**1111` (without a BIN: any number of `*` or `•`, or at least four `x` or `.`, which fewer
 * could begin an id) or `…1111`; spaces are ignored. Null when the term is no masked card (four
 * digits alone are matched as the last four anyway).
 */
export function transactionSearchCard(term: string): { bin: string | null; last4: string } | null {
  const match = /^(?:(\d{6}|\d{8})[*•xX.…]+|[*•]+|[*•xX.]{4,}|…)(\d{4})$/.exec(
    term.replaceAll(' ', ''),
  );
  if (match?.[2] === undefined) return null;
  return { bin: match[1] ?? null, last4: match[2] };
}

/** The list's order, also the CSV export's (newest first unless told otherwise). */
const SortField = { sort: TransactionSortSchema.default('created_desc') };

/** `GET /api/transactions/export` query: the list's filters and its sort (no cursor, no size). */
/**
 * `GET /api/transactions/export` query: the list's filters and sort, and the CSV's convention:
 * `comma` (default: `,` between cells, `.` in amounts) or `semicolon`, what a spreadsheet in a
 * decimal-comma locale (de-DE, fr-FR) reads as cells and numbers: `;` between cells and `,` as the
 * amounts' decimal mark (`12,50`).
 */
export const TransactionExportQuerySchema = TransactionFilterFields.extend({
  ...SortField,
  delimiter: CsvDelimiterSchema.default('comma'),
}).superRefine(checkRanges);
export type TransactionExportQuery = z.infer<typeof TransactionExportQuerySchema>;

/** `GET /api/transactions` query: filters, sort, keyset cursor (opaque), page size. */
export const TransactionListQuerySchema = TransactionFilterFields.extend({
  ...SortField,
  cursor: z.string().trim().min(1).max(512).optional(),
  limit: queryInt(1, 200, 50),
}).superRefine(checkRanges);
export type TransactionListQuery = z.infer<typeof TransactionListQuerySchema>;
export type TransactionListQueryInput = z.input<typeof TransactionListQuerySchema>;

export const MaskedCardSchema = z.object({
  bin: z.string().nullable(),
  lastFour: z.string().nullable(),
  brand: z.string().nullable(),
  /** `411111******1111`, or `**** 1111` when the BIN is not known */
  masked: z.string(),
});
export type MaskedCard = z.infer<typeof MaskedCardSchema>;

export const CustomerSchema = z.object({
  email: z.string().nullable(),
  name: z.string().nullable(),
});

/** One row of the list. */
export const TransactionSummarySchema = z.object({
  id: z.string(),
  endpointId: z.string(),
  orderid: z.string(),
  clientOrderId: z.string(),
  type: TransactionTypeSchema,
  status: TransactionStatusSchema,
  stage: z.string().nullable(),
  currency: z.string(),
  amount: MoneySchema,
  card: MaskedCardSchema.nullable(),
  customerEmail: z.string().nullable(),
  drift: z.boolean(),
  createdAt: IsoDateTimeSchema,
  updatedAt: IsoDateTimeSchema,
  /**
   * The list's rows (`GET /api/transactions`): the kinds of the order's operations whose outcome
   * is unknown (their reply was lost; the reconciler asks `status`), whatever the order's own
   * status — a return on an approved sale, say. Empty when there is none; not given elsewhere.
   */
  unknownOperations: z.array(OperationKindSchema).optional(),
  /**
   * The list's rows: why the gateway failed an order that is declined, error or filtered, as its
   * latest `status` reply said (`orderFailureOf`); null when it gave no reason. Not given
   * elsewhere: an order's page reads it from its timeline the same way.
   */
  failure: OrderFailureSchema.nullable().optional(),
  /**
   * The list's rows: whether the order is a preauth of which only part of the hold was captured
   * (`isPartlyCaptured` of shared/domain), which neither its stage nor its amount says. Not given
   * elsewhere: an order's page reads it from its amounts by the same rule.
   */
  partlyCaptured: z.boolean().optional(),
  /**
   * The list's rows: the kinds of the order's follow-ups the gateway did not make and that were
   * not made again (`notMadeFollowUps` of shared/domain: sent by Paydesk in the last
   * `NOT_MADE_DAYS` days), each kind once, in the order first sent. Empty when there is none; not
   * given elsewhere: an order's page reads them from its operations by the same rule.
   */
  notMade: z.array(OperationKindSchema).optional(),
});
export type TransactionSummary = z.infer<typeof TransactionSummarySchema>;

/**
 * A payout whose gateway order a search or a lookup named exactly (its orderid or client_orderid):
 * what support needs to be led to the payout, for readers of payouts only. Never its destination.
 */
export const PayoutOrderSchema = z.object({
  /** the payout's id (`/payouts/:id`) */
  id: z.string(),
  state: PayoutStateSchema,
  amount: MoneySchema,
  currency: z.string(),
  endpointId: z.string(),
  /** null while a held payout was not sent: the gateway has no order for it yet */
  orderid: z.string().nullable(),
  clientOrderId: z.string(),
});
export type PayoutOrder = z.infer<typeof PayoutOrderSchema>;

export const TransactionPageSchema = z.object({
  items: z.array(TransactionSummarySchema),
  /** pass as `cursor` for the next page; null on the last page */
  nextCursor: z.string().nullable(),
  /** matching rows, counted up to a cap; `totalCapped` says the real number is larger */
  total: z.number().int().nonnegative(),
  totalCapped: z.boolean(),
  /**
   * Given when `q` matched no transaction (the first page is empty) but is a payout's orderid or
   * client_orderid, and the caller may read payouts: that payout, to open instead. A payout's order
   * is a transaction only once its money was sent (PAYOUT_SENT_STATES); one awaiting approval is not.
   */
  payouts: z.array(PayoutOrderSchema).optional(),
});
export type TransactionPage = z.infer<typeof TransactionPageSchema>;

/**
 * How Paydesk failed to learn the outcome of a request it sent (the operation, or a plan's create,
 * is then `unknown`), recorded when it happened: the gateway answered with an error (a 5xx: its
 * HTTP status, and its own error-code and error-message when it sent them and they could be read),
 * no answer came within the wait (`waitedMs`), the connection closed before an answer, or the reply
 * could not be read (its HTTP status when one came). Null for a request with a reply, and for one
 * recorded before this was kept whose recorded error does not say. Staff read it in words: the
 * recorded `errorMessage` is for the timeline and the audit, never parsed.
 */
export const UnansweredSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('error'),
    httpStatus: z.number().int(),
    code: z.string().nullable(),
    message: z.string().nullable(),
  }),
  z.object({ kind: z.literal('timeout'), waitedMs: z.number().int().nonnegative() }),
  z.object({ kind: z.literal('connection-closed') }),
  z.object({ kind: z.literal('unreadable'), httpStatus: z.number().int().nullable() }),
]);
export type Unanswered = z.infer<typeof UnansweredSchema>;

export const OperationSchema = z.object({
  id: z.string(),
  kind: OperationKindSchema,
  /** `paydesk` when a staff member sent it, `gateway` when learned from the gateway's status */
  origin: z.enum(['paydesk', 'gateway']),
  state: OperationStateSchema,
  amount: MoneySchema.nullable(),
  gatewaySerial: z.string().nullable(),
  requestedBy: z.string().nullable(),
  reasonCode: z.string().nullable(),
  comment: z.string().nullable(),
  errorCode: z.string().nullable(),
  errorMessage: z.string().nullable(),
  /** how its outcome went unlearned, when it did: see UnansweredSchema */
  unanswered: UnansweredSchema.nullable(),
  createdAt: IsoDateTimeSchema,
  updatedAt: IsoDateTimeSchema,
  /**
   * On an order's detail, the operations of a payout Paydesk prepared (`payout-check`,
   * `payout-pay`, `payout`), which the gateway's status names without a person: the ops users
   * behind it, from the payout's record (`TransactionPayout`). Absent elsewhere.
   */
  payoutStaff: z
    .object({
      /** e-mail of the ops user who prepared the payout (sent its payout-check) */
      preparedBy: z.string(),
      /** e-mail of the second ops user who approved it (sent its payout-pay or payout); null: none yet */
      approvedBy: z.string().nullable(),
    })
    .optional(),
});
export type Operation = z.infer<typeof OperationSchema>;

export const TIMELINE_KINDS = ['gateway', 'callback', 'staff', 'reconcile', 'drift'] as const;
export const TimelineEntrySchema = z.object({
  id: z.number().int(),
  at: IsoDateTimeSchema,
  kind: z.enum(TIMELINE_KINDS),
  title: z.string(),
  actor: z.string().nullable(),
  /** redacted: never a control value, a CVV or a full card number */
  data: z.record(z.string(), z.unknown()),
});
export type TimelineEntry = z.infer<typeof TimelineEntrySchema>;

export const TransactionAmountsSchema = z.object({
  amount: MoneySchema,
  authorized: MoneySchema,
  captured: MoneySchema,
  returned: MoneySchema,
  /**
   * returns sent by Paydesk whose outcome is not yet known (`sending`/`unknown`), held against the
   * refund cap; returns only (an in-flight capture is shown by its operation, not counted here)
   */
  reserved: MoneySchema,
  remainingReturnable: MoneySchema,
  remainingCapturable: MoneySchema,
  /**
   * A payout's order (money out; `isPayoutOrder`): what the gateway paid out, the amount once the
   * payout (or payout-pay) was approved, else 0.00 (`paidOutMinor`; `payoutMoneyOf` says whether it
   * is pending, failed or not sent). Absent on other orders, where authorized, captured and
   * returned say what moved.
   */
  paidOut: MoneySchema.optional(),
  /**
   * What the order kept (`netMinor` of `@paydesk/shared/domain`): on a charge, captured less
   * returned; 0.00 once voided (a void gives everything back), when nothing was captured, or when
   * the order is not approved. Null on a payout's order, whose money is `paidOut`. The CSV export's
   * `net` column.
   */
  net: MoneySchema.nullable(),
});
export type TransactionAmounts = z.infer<typeof TransactionAmountsSchema>;

/**
 * The payout (four-eyes) Paydesk prepared whose gateway order this is, from the payouts' record:
 * who prepared and who approved it, and where the money goes (masked, as the payout list shows it
 * to every reader; never the holder's name or the card's expiry).
 */
export const TransactionPayoutSchema = z.object({
  /** the payout's id (`/payouts/:id`) */
  id: z.string(),
  state: PayoutStateSchema,
  /** e-mail of the ops user who prepared it */
  preparedBy: z.string(),
  /** e-mail of the second ops user who approved it (its money order sent); null: not approved */
  approvedBy: z.string().nullable(),
  destination: z.object({
    kind: z.enum(['card', 'bank', 'ewallet', 'phone']),
    /** `411111******1111`, `DE89 **** **** **** **30 00`, `********4567`, … */
    masked: z.string(),
  }),
});
export type TransactionPayout = z.infer<typeof TransactionPayoutSchema>;

/**
 * Paydesk's own status checks of an order (its reconcile job): `checking` while it asks the gateway
 * on its schedule, with how many checks it made and, when the last brought no status, why in words
 * (`no answer (timeout)`, `refused (HTTP 404, NOT_FOUND)`); `stopped` when it no longer asks by
 * itself (its last scheduled check passed, or a reply could not be applied) while an outcome on the
 * order is still unknown: only Refresh status asks then.
 */
export const StatusChecksSchema = z.discriminatedUnion('state', [
  z.object({
    state: z.literal('checking'),
    attempts: z.number().int().nonnegative(),
    lastProblem: z.string().nullable(),
  }),
  z.object({ state: z.literal('stopped') }),
]);
export type StatusChecks = z.infer<typeof StatusChecksSchema>;

export const TransactionDetailSchema = TransactionSummarySchema.extend({
  amounts: TransactionAmountsSchema,
  customer: CustomerSchema,
  cardRefId: z.string().nullable(),
  allowedActions: z.array(FollowUpActionSchema),
  /**
   * while `drift`: what differs (`detectedAt`, `reasons`, …) and, once a later `status` reply
   * was applied without drift, `agreedSince` (ISO time): the two sides agree again
   */
  driftDetails: z.record(z.string(), z.unknown()).nullable(),
  lastCheckedAt: IsoDateTimeSchema.nullable(),
  operations: z.array(OperationSchema),
  timeline: z.array(TimelineEntrySchema),
  /**
   * A payout's order (`isPayoutOrder`): the payout Paydesk prepared for it (`TransactionPayout`),
   * or null when Paydesk has none (a payout made elsewhere). Absent on other orders, and where
   * the detail is the reply of a follow-up (capture, return, void, card-ref), which a payout has not.
   * Not named `payout`: a lookup's reply with `payout` is the payout itself (`LookupPayoutReply`).
   */
  paydeskPayout: TransactionPayoutSchema.nullable().optional(),
  /**
   * Paydesk's status checks (`StatusChecks`), or null when it is not checking and nothing on the
   * order is unknown. Absent where the detail is the reply of a follow-up (capture, return, void,
   * card-ref): the page reads the order again for it.
   */
  statusChecks: StatusChecksSchema.nullable().optional(),
  /**
   * The subscription whose charge this order is (by its recurring payment id), with its
   * description, or null when it is none Paydesk set up (QA: a charge did not lead back to its
   * plan). Absent where the detail is the reply of a follow-up.
   */
  subscription: z.object({ id: z.string(), orderDesc: z.string() }).nullable().optional(),
});
export type TransactionDetail = z.infer<typeof TransactionDetailSchema>;

const ClientOrderIdSchema = z
  .string()
  .trim()
  .min(1)
  .max(128)
  .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces');

/**
 * Said when a lookup's orderid or client_orderid holds a whole card number: it is never sent to
 * the gateway as an id; the transactions list finds the card by its last four.
 */
export const LOOKUP_CARD_NUMBER_REFUSAL =
  'looks like a card number: search by its last four digits';

/**
 * A lookup id must not be a whole card number (the list's `q` rule, `isWholeCardNumber`): it would
 * go to the gateway. Checked first and alone (`abort`), so the 400 names this rule only.
 */
const notACardNumber = <T extends z.ZodString>(id: T) =>
  z
    .string()
    .trim()
    .refine((v) => !isWholeCardNumber(v), {
      message: LOOKUP_CARD_NUMBER_REFUSAL,
      params: { rule: 'no_card_number' },
      abort: true,
    })
    .pipe(id);

/** `POST /api/transactions/lookup`: orderid or client_orderid (or both), neither a card number. */
export const LookupBodySchema = z
  .object({
    orderid: notACardNumber(
      z
        .string()
        .trim()
        .regex(/^\d{1,30}$/, 'must be the gateway order id (1–30 digits)'),
    ).optional(),
    client_orderid: notACardNumber(ClientOrderIdSchema).optional(),
    endpointId: z
      .string()
      .trim()
      .regex(/^\d{1,18}$/, 'must be an endpoint id (digits)')
      .optional(),
  })
  .strict()
  .refine((b) => b.orderid !== undefined || b.client_orderid !== undefined, {
    message: 'give orderid or client_orderid',
    path: ['orderid'],
  });
export type LookupBody = z.infer<typeof LookupBodySchema>;

/** One order a lookup found at the gateway, as the gateway's `status` describes it. */
export const LookupCandidateSchema = z.object({
  endpointId: z.string(),
  orderid: z.string(),
  clientOrderId: z.string(),
  type: TransactionTypeSchema,
  status: TransactionStatusSchema,
  amount: MoneySchema,
  currency: z.string(),
  /** Paydesk's id when it has already learned the order, else null */
  id: z.string().nullable(),
});
export type LookupCandidate = z.infer<typeof LookupCandidateSchema>;

/**
 * `details` of the lookup's 409 `CONFLICT`: more than one order matched (one client_orderid on
 * several endpoints), so none was opened or recorded. Each is found alone again with its
 * `orderid`, `client_orderid` and `endpointId`.
 */
export const LookupConflictDetailsSchema = z.object({
  candidates: z.array(LookupCandidateSchema).min(2),
});
export type LookupConflictDetails = z.infer<typeof LookupConflictDetailsSchema>;

/**
 * The lookup's reply when the order is a payout's whose money order was not sent (awaiting approval,
 * held, rejected, lapsed: not in PAYOUT_SENT_STATES) and Paydesk has not learned it as a
 * transaction: the payout to open. Nothing was recorded and the gateway was not asked (the payout's
 * page checks its status).
 */
export const LookupPayoutReplySchema = z.object({ payout: PayoutOrderSchema }).strict();
export type LookupPayoutReply = z.infer<typeof LookupPayoutReplySchema>;

/** `POST /api/transactions/lookup`: the order, learned or refreshed; or the payout it belongs to. */
export const LookupReplySchema = z.union([TransactionDetailSchema, LookupPayoutReplySchema]);
export type LookupReply = z.infer<typeof LookupReplySchema>;

export const CaptureBodySchema = z.object({ amount: AmountSchema.optional() }).strict();
export type CaptureBody = z.infer<typeof CaptureBodySchema>;

export const RETURN_REASON_CODES = [
  'customer_request',
  'duplicate',
  'fraud',
  'product_not_received',
  'product_unacceptable',
  'other',
] as const;
export const ReturnBodySchema = z
  .object({
    amount: AmountSchema.optional(),
    reasonCode: z.enum(RETURN_REASON_CODES),
    comment: freeText(1, 255, { multiline: true }),
  })
  .strict();
export type ReturnBody = z.infer<typeof ReturnBodySchema>;

export const VoidBodySchema = z.object({ comment: freeText(1, 255, { multiline: true }) }).strict();
export type VoidBody = z.infer<typeof VoidBodySchema>;

/**
 * `POST /api/transactions/:id/drift/review`: finance marks an order's drift reviewed, saying what
 * was checked (1–255 characters, as a void's comment). The flag clears; the order's timeline and
 * the audit log keep the comment and what was reviewed. 409 `INVALID_STATE` when not flagged.
 */
export const DriftReviewBodySchema = z
  .object({ comment: freeText(1, 255, { multiline: true }) })
  .strict();
export type DriftReviewBody = z.infer<typeof DriftReviewBodySchema>;

export const CardRefBodySchema = z.object({}).strict();
export type CardRefBody = z.infer<typeof CardRefBodySchema>;

/**
 * `POST /api/transactions/:id/refresh` (the gateway's `status` asked now; nothing is sent that
 * moves money): an empty body, or none; a field is refused, as a payout's or a payment link's
 * refresh refuses one.
 */
export const TransactionRefreshBodySchema = z.object({}).strict();

/**
 * `POST /api/rebills`: charge a stored card reference (make-rebill) as a new order with a new
 * `client_orderid`; the reason is audited.
 */
export const RebillBodySchema = z
  .object({
    cardRefId: z
      .string()
      .trim()
      .min(1)
      .max(64)
      .regex(/^[\x21-\x7e]+$/, 'must be a card reference id (printable ASCII, no spaces)'),
    amount: AmountSchema,
    currency: CurrencySchema,
    endpointId: z
      .string()
      .trim()
      .regex(/^\d{1,18}$/, 'must be an endpoint id (digits)')
      .optional(),
    orderDesc: freeText(1, 1024),
    // The rule of the other reasons a finance or ops user types for a money step (card info, a
    // payout's rejection): 3 to 255 characters, so that the same field says the same everywhere.
    reason: freeText(3, 255, { multiline: true, tooShort: 'must say why (at least 3 characters)' }),
    confirmLargeAmount: ConfirmLargeAmountSchema,
  })
  .strict();
export type RebillBody = z.infer<typeof RebillBodySchema>;

/** Schedule units of a subscription (v4 create-recurring-payment `period`). */
export const SUBSCRIPTION_PERIODS = ['day', 'week', 'month'] as const;
export const SubscriptionPeriodSchema = z.enum(SUBSCRIPTION_PERIODS);
export type SubscriptionPeriod = z.infer<typeof SubscriptionPeriodSchema>;

/** A calendar date `YYYY-MM-DD` that exists. */
export const IsoDateSchema = z
  .string()
  .trim()
  // Not a date's form: that one message, not also "must be a real calendar date".
  .regex(/^\d{4}-\d{2}-\d{2}$/, { message: 'must be a date YYYY-MM-DD', abort: true })
  .refine((v) => {
    const d = new Date(`${v}T00:00:00Z`);
    return !Number.isNaN(d.getTime()) && d.toISOString().startsWith(v);
  }, 'must be a real calendar date');

/**
 * The latest start date Paydesk takes for a subscription: a year after `today` (YYYY-MM-DD, by the
 * UTC calendar the gateway's `start_date` goes by). The spec sets no bound; a plan starting later
 * than that is far likelier a typo (2099 for 2029) than a plan, and would sit unseen for years.
 */
export function latestSubscriptionStart(today: string): string {
  const day = new Date(`${today}T00:00:00Z`);
  day.setUTCFullYear(day.getUTCFullYear() + 1);
  return day.toISOString().slice(0, 10);
}

/**
 * `POST /api/subscriptions`: a v4 recurring payment on a stored card reference. Without
 * `startDate` the gateway starts today and charges at once; with it, today up to a year ahead
 * (`latestSubscriptionStart`, checked by the BFF's clock).
 */
export const SubscriptionCreateBodySchema = z
  .object({
    cardRefId: RebillBodySchema.shape.cardRefId,
    amount: AmountSchema,
    currency: CurrencySchema,
    period: SubscriptionPeriodSchema,
    interval: z.number().int().min(1).max(365),
    startDate: IsoDateSchema.optional(),
    maxPayments: z.number().int().min(1).max(10000).optional(),
    orderDesc: freeText(1, 1024),
    email: EmailSchema,
    endpointId: RebillBodySchema.shape.endpointId,
    confirmLargeAmount: ConfirmLargeAmountSchema,
  })
  .strict();
export type SubscriptionCreateBody = z.infer<typeof SubscriptionCreateBodySchema>;

/**
 * `active` once the gateway named it; `unknown` when its reply was lost (never sent again; its
 * first charge links it); `refused` / `not_sent` when no plan exists; `completed` after
 * `maxPayments` charges.
 */
export const SUBSCRIPTION_STATES = [
  'sending',
  'active',
  'completed',
  'unknown',
  'refused',
  'not_sent',
] as const;
export const SubscriptionStateSchema = z.enum(SUBSCRIPTION_STATES);
export type SubscriptionState = z.infer<typeof SubscriptionStateSchema>;

export const SubscriptionScheduleSchema = z.object({
  period: SubscriptionPeriodSchema,
  interval: z.number().int(),
  /** when the first charge is due (the start date's midnight UTC, or the creation time) */
  start: IsoDateTimeSchema,
  maxPayments: z.number().int().nullable(),
  /** charges Paydesk has learned of (their callbacks or status) */
  paymentsMade: z.number().int(),
  /** computed from the schedule; null once maxPayments charges were made or no plan exists */
  nextChargeAt: IsoDateTimeSchema.nullable(),
});
export type SubscriptionSchedule = z.infer<typeof SubscriptionScheduleSchema>;

export const SubscriptionSummarySchema = z.object({
  id: z.string(),
  endpointId: z.string(),
  clientOrderId: z.string(),
  recurringPaymentId: z.string().nullable(),
  cardRefId: z.string(),
  amount: MoneySchema,
  currency: z.string(),
  orderDesc: z.string(),
  email: z.string(),
  state: SubscriptionStateSchema,
  schedule: SubscriptionScheduleSchema,
  createdBy: z.string(),
  createdAt: IsoDateTimeSchema,
  updatedAt: IsoDateTimeSchema,
});
export type SubscriptionSummary = z.infer<typeof SubscriptionSummarySchema>;

export const SubscriptionDetailSchema = SubscriptionSummarySchema.extend({
  startDate: z.string().nullable(),
  errorCode: z.string().nullable(),
  errorMessage: z.string().nullable(),
  /** how the create's outcome went unlearned, when it did: see UnansweredSchema */
  unanswered: UnansweredSchema.nullable(),
  /** the rebill orders the plan produced, newest first */
  charges: z.array(TransactionSummarySchema),
});
export type SubscriptionDetail = z.infer<typeof SubscriptionDetailSchema>;

/** `GET /api/subscriptions`: newest first, keyset cursor (opaque). */
export const SubscriptionListQuerySchema = z
  .object({
    /**
     * a plan's recurring payment id (the one its page tells staff to give the gateway) or its
     * client order id, exactly: the look-up's way to a plan by the ids support is given
     */
    q: z.string().trim().min(1).max(128).optional(),
    cursor: z.string().trim().min(1).max(512).optional(),
    limit: queryInt(1, 200, 50),
  })
  .strict();
export type SubscriptionListQuery = z.infer<typeof SubscriptionListQuerySchema>;

export const SubscriptionPageSchema = z.object({
  items: z.array(SubscriptionSummarySchema),
  nextCursor: z.string().nullable(),
});
export type SubscriptionPage = z.infer<typeof SubscriptionPageSchema>;

/** Reply of `POST /api/subscriptions`. */
export const SubscriptionResultSchema = z.object({
  subscription: SubscriptionDetailSchema,
  message: z.string(),
});
export type SubscriptionResult = z.infer<typeof SubscriptionResultSchema>;

/** Header that makes a money-moving request safe to repeat (IETF httpapi idempotency-key draft). */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
/** Set on a reply that was stored earlier and is being repeated. */
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';
export const IdempotencyKeySchema = z
  .string()
  .min(8, 'must be at least 8 characters')
  .max(255)
  .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces');

/** Reply of capture, return, void, card-ref and rebill (the new order). */
export const OperationResultSchema = z.object({
  operation: OperationSchema,
  transaction: TransactionDetailSchema,
  /** staff-facing sentence: what happened and what happens next */
  message: z.string(),
});
export type OperationResult = z.infer<typeof OperationResultSchema>;

/** `GET /api/events`, `event: transaction` (the other subjects: `./events.ts`). */
export const TransactionEventSchema = z.object({
  type: z.enum(['transaction.created', 'transaction.updated']),
  transactionId: z.string(),
  orderid: z.string(),
  status: TransactionStatusSchema,
  drift: z.boolean(),
  at: IsoDateTimeSchema,
  /** the order's type (absent from older instances): lets subscribers skip orders not theirs */
  transactionType: TransactionTypeSchema.optional(),
});
export type TransactionEvent = z.infer<typeof TransactionEventSchema>;

/**
 * `GET /api/stats` query: the window [from, to) (default: the last 30 days, until now). `to` is
 * exclusive, so `to` at or before `from` is a window that holds nothing: refused naming `to`, in
 * the words of the transactions' `createdTo` (the BFF refuses a `from` not before now when `to` is
 * left to default).
 */
export const StatsQuerySchema = z
  .object({
    from: IsoDateTimeSchema.optional(),
    to: IsoDateTimeSchema.optional(),
  })
  .strict()
  .superRefine(checkTimeWindow);
export type StatsQuery = z.infer<typeof StatsQuerySchema>;

/**
 * The home screen's statistics over [from, to). Money is dated by when it moved: money taken by
 * the time it was taken (a sale or rebill: its approval, the order's own operation; a preauth: its
 * capture), money returned by the return's time. Order counts, `byStatus` and `approvalRate` are
 * of the customers' orders created in the window: payouts and payout-checks (money out) are not
 * counted. Orders the gateway never created (a rebill judged not
 * applied: status `error`, stage `not_created`, a `pending:` orderid) are in no figure here; they
 * stay in the list.
 */
export const StatsResponseSchema = z.object({
  from: IsoDateTimeSchema,
  to: IsoDateTimeSchema,
  volumes: z.array(
    z.object({
      currency: z.string(),
      /**
       * orders created in the window, of every type but payouts and payout-checks (0 for a
       * currency that has only money taken in the window, such as the capture of a hold
       * authorized before it)
       */
      count: z.number().int().nonnegative(),
      /** of those, the orders approved (payouts not included) */
      approvedCount: z.number().int().nonnegative(),
      /**
       * Captured volume: the money taken from customers in the window, exact, whenever the order
       * was created. The captured amount of the approved money-in orders — sales and rebills
       * (recurring charges are rebills) when approved, in the window of their approval; preauths
       * only for what was captured, in the window of the capture (a hold authorized before the
       * window and captured inside it counts; one captured after it does not; a hold never
       * captured or cancelled: nothing). Voided orders are left out, a hold voided after its
       * capture too; payouts (money out), card-to-card transfers and verifications are not money
       * in. Returns are not deducted: they are in `returnsByDay`.
       */
      capturedAmount: MoneySchema,
    }),
  ),
  /** approved / (orders created in the window with a final status); null when there is none */
  approvalRate: z.number().min(0).max(1).nullable(),
  /** orders created in the window per status (payouts and payout-checks not included) */
  byStatus: z.record(z.string(), z.number().int().nonnegative()),
  /**
   * Money returned per UTC day (of the return) and currency: returns approved or in progress
   * against captured money. A return that cancels an uncaptured hold returns no money: not here.
   */
  returnsByDay: z.array(
    z.object({
      day: z.string(),
      currency: z.string(),
      count: z.number().int(),
      amount: MoneySchema,
    }),
  ),
  /**
   * `volumes` per UTC day and currency (the home screen's charts): `count` and `approvedCount`
   * are the orders created that day; `capturedAmount` is the money taken that day (a sale or
   * rebill on the day of its approval, a preauth's capture on the day of the capture), as there
   */
  volumeByDay: z.array(
    z.object({
      day: z.string(),
      currency: z.string(),
      count: z.number().int().nonnegative(),
      approvedCount: z.number().int().nonnegative(),
      capturedAmount: MoneySchema,
    }),
  ),
  /**
   * Orders that need a person, whatever their age (not limited to the window): outcome `unknown`
   * (the order's own, or an operation's: the list's `status=unknown`), and flagged drift. Counted
   * up to `cap`; a count equal to it means "at least".
   */
  attention: z.object({
    unknown: z.number().int().nonnegative(),
    drift: z.number().int().nonnegative(),
    cap: z.number().int().positive(),
    /**
     * Follow-ups staff sent in the last `days` days (a capture, return, void, card reference or
     * rebill) that reconciliation judged not applied by the gateway (`not_applied`): nothing moved,
     * and they may still be due. `count` is capped like the others; `orders` are the latest few
     * (newest first), to open. Absent from a BFF that does not count them.
     */
    notApplied: z
      .object({
        count: z.number().int().nonnegative(),
        days: z.number().int().positive(),
        orders: z.array(
          z.object({
            /** Paydesk's id of the order */
            id: z.string(),
            orderid: z.string(),
            clientOrderId: z.string(),
            kind: OperationKindSchema,
            amount: MoneySchema.nullable(),
            currency: z.string(),
            requestedBy: z.string().nullable(),
            /** when the follow-up was sent */
            at: IsoDateTimeSchema,
          }),
        ),
      })
      .optional(),
  }),
});
export type StatsResponse = z.infer<typeof StatsResponseSchema>;
