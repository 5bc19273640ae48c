import { z } from 'zod';
import { checkTimeWindow, IsoDateTimeSchema, pageOf, queryInt } from './common.js';
import { RoleSchema } from './roles.js';

/**
 * How an attempt ended: done; refused (4xx: nothing was done); failed (5xx, or a reconciliation
 * that found the operation not applied); unknown: the request reached the gateway but its reply
 * was lost (timeout, dropped connection, 5xx). The reconciler's own row records the verdict later.
 */
export const AUDIT_OUTCOMES = ['success', 'refused', 'failed', 'unknown'] as const;
export const AuditOutcomeSchema = z.enum(AUDIT_OUTCOMES);
export type AuditOutcome = z.infer<typeof AuditOutcomeSchema>;

/**
 * Actions audited by the platform. Payments add their own (`transaction.capture`, ...), so a
 * row's `action` is any string; this list is what the platform writes.
 */
export const PLATFORM_AUDIT_ACTIONS = [
  'session.login',
  'session.logout',
  'session.password_change',
  'session.totp_enrol',
  'session.totp_confirm',
  'user.create',
  'user.update',
  'user.reset_totp',
  'user.unlock_sign_in',
  'audit.verify',
  'audit.export',
] as const;

/**
 * Each action the BFF writes to the audit log, in words for auditors ("Approved a payout", not
 * `payout.approve`): what the actor did, or what Paydesk did by itself. The BFF's route rules are
 * typed by these names (`AuditAction`), so a route with an action the audit screen cannot say does
 * not compile; the machine name stays beside the words there (the Action filter and the CSV take
 * it).
 */
export const AUDIT_ACTION_WORDS = {
  'session.login': 'Signed in',
  'session.read': 'Checked who is signed in',
  'session.logout': 'Signed out',
  'session.password_change': 'Changed own password',
  'session.totp_enrol': 'Started setting up two-step sign-in',
  'session.totp_confirm': 'Turned on two-step sign-in',
  'user.list': 'Listed users',
  'user.create': 'Created a user',
  'user.update': 'Changed a user',
  'user.reset_totp': 'Reset a user’s two-step sign-in',
  'user.reset_password': 'Reset a user’s password',
  'user.unlock_sign_in': 'Unlocked a user’s sign-in',
  'audit.list': 'Read the audit log',
  'audit.verify': 'Checked the audit log’s chain',
  'audit.export': 'Exported the audit log',
  'transaction.list': 'Listed transactions',
  'transaction.export': 'Exported transactions',
  'transaction.lookup': 'Looked up an order at the gateway',
  'transaction.read': 'Opened a transaction',
  'transaction.refresh': 'Asked the gateway for a transaction’s status',
  'transaction.drift': 'Found the gateway disagreeing about a transaction',
  'transaction.drift_reviewed': 'Reviewed a gateway disagreement',
  'transaction.capture': 'Captured a payment',
  'transaction.return': 'Refunded a payment',
  'transaction.void': 'Voided a payment',
  'transaction.card_ref': 'Stored a card for later charges',
  'transaction.rebill': 'Charged a stored card (rebill)',
  'transaction.reconcile': 'Learned a transaction’s outcome from the gateway',
  'transaction.reconcile_gave_up': 'Stopped asking the gateway about a transaction',
  'subscription.list': 'Listed subscriptions',
  'subscription.create': 'Created a subscription',
  'subscription.read': 'Opened a subscription',
  'subscription.reconcile': 'Learned a subscription’s outcome from the gateway',
  'events.subscribe': 'Opened live updates',
  'stats.read': 'Read the home page figures',
  'payout.list': 'Listed payouts',
  'payout.prepare': 'Prepared a payout',
  'payout.read': 'Opened a payout',
  'payout.approve': 'Approved a payout',
  'payout.reject': 'Rejected a payout',
  'payout.withdraw': 'Withdrew own payout',
  'payout.pay_again': 'Paid a payout again (its first payment not made)',
  'payout.refresh': 'Asked the gateway for a payout’s status',
  'payout.checked': 'Gateway checked a payout’s details',
  'payout.drift': 'Found the gateway disagreeing about a payout',
  'payout.reconciled': 'Learned a payout’s outcome from the gateway',
  'payout.reconcile_gave_up': 'Stopped asking the gateway about a payout',
  'payout.expired': 'Approval lapsed',
  'payment_link.list': 'Listed payment links',
  'payment_link.create': 'Created a payment link',
  'payment_link.read': 'Opened a payment link',
  'payment_link.refresh': 'Asked the gateway for a payment link’s status',
  'payment_link.reconciled': 'Learned a payment link’s outcome from the gateway',
  'payment_link.approve': 'Approved a payout form',
  'payment_link.reject': 'Rejected a payout form',
  'payment_link.withdraw': 'Withdrew own payout form',
  'gateway.callback': 'Delivered a gateway callback',
  'card.list': 'Listed stored cards',
  'card.info': 'Looked up card details',
  'view.list': 'Listed saved views',
  'view.create': 'Saved a view',
  'view.delete': 'Deleted a saved view',
} as const;
export type AuditAction = keyof typeof AUDIT_ACTION_WORDS;

/** The words of a recorded action, or undefined for one this build does not know (a newer BFF's). */
export function auditActionWords(action: string): string | undefined {
  return Object.hasOwn(AUDIT_ACTION_WORDS, action)
    ? AUDIT_ACTION_WORDS[action as AuditAction]
    : undefined;
}

/** One audit row. `summary` is the redacted request summary (never a secret or a PAN). */
export const AuditRowSchema = z.object({
  seq: z.number().int().positive(),
  at: IsoDateTimeSchema,
  actorId: z.string().nullable(),
  actorEmail: z.string().nullable(),
  actorRoles: z.array(RoleSchema),
  action: z.string(),
  target: z.string().nullable(),
  summary: z.record(z.string(), z.unknown()),
  outcome: AuditOutcomeSchema,
  errorCode: z.string().nullable(),
  requestId: z.string().nullable(),
  ip: z.string().nullable(),
  userAgent: z.string().nullable(),
  prevHash: z.string(),
  hash: z.string(),
});
export type AuditRow = z.infer<typeof AuditRowSchema>;

/**
 * The filters' fields, shared by `GET /api/audit` and `GET /api/audit/export` (query string);
 * strict: an unknown parameter is refused, never ignored (the list and export schemas extend it,
 * strict too).
 */
const AuditFilterFields = z
  .object({
    /**
     * an actor's e-mail or its beginning (case-insensitive: `support` finds `support@…` and
     * `support.lead@…`), or a user id (exact)
     */
    actor: z.string().trim().min(1).max(254).optional(),
    /**
     * an action or its beginning (case-insensitive): `user.create`, `user.` or `user` (every
     * `user.…` action), `transaction` (every `transaction.…` one)
     */
    action: z.string().trim().min(1).max(100).optional(),
    /**
     * the target as stored (`transaction:<id>`), or what the screens name it by (`AuditTargetRef`'s
     * label): a transaction's, payout's or payment link's orderid or client_orderid, a
     * subscription's recurring-payment id or client_orderid, a user's e-mail; or a record's id
     */
    target: z.string().trim().min(1).max(200).optional(),
    outcome: AuditOutcomeSchema.optional(),
    /** inclusive lower bound */
    from: IsoDateTimeSchema.optional(),
    /** exclusive upper bound */
    to: IsoDateTimeSchema.optional(),
  })
  .strict();

/**
 * `GET /api/audit` and `GET /api/audit/export` filters (`AuditFilterFields`), the window checked
 * (`checkTimeWindow`): an empty window is refused rather than answered with an empty list or file
 * that looks like a log with no rows.
 */
export const AuditFilterSchema = AuditFilterFields.superRefine(checkTimeWindow);
export type AuditFilter = z.infer<typeof AuditFilterSchema>;

/** `GET /api/audit` query: filters + page (1-based) and pageSize (1..500), newest first. */
export const AuditListQuerySchema = AuditFilterFields.extend({
  page: queryInt(1, 1_000_000, 1),
  pageSize: queryInt(1, 500, 50),
}).superRefine(checkTimeWindow);
export type AuditListQuery = z.infer<typeof AuditListQuerySchema>;
export type AuditListQueryInput = z.input<typeof AuditListQuerySchema>;

/**
 * Kinds of target the list resolves (a row's `target` is `<kind>:<id>`): `link` is a payment link,
 * `user` also stands for an `account:<e-mail>` target (a sign-in) whose e-mail is a user's.
 */
export const AUDIT_TARGET_KINDS = [
  'transaction',
  'payout',
  'link',
  'subscription',
  'user',
  'view',
] as const;
export const AuditTargetKindSchema = z.enum(AUDIT_TARGET_KINDS);
export type AuditTargetKind = z.infer<typeof AuditTargetKindSchema>;

/**
 * What a row's target names, looked up when the list is read (it is no part of the row or its
 * hash: the row keeps the raw `target`, the evidence). `id` is the record's id (its page's
 * address); `label` what people know it by: a transaction's, payout's or payment link's gateway
 * orderid (its client_orderid until the gateway named it), a subscription's recurring-payment id
 * (likewise), a user's e-mail, a saved view's name.
 */
export const AuditTargetRefSchema = z.object({
  kind: AuditTargetKindSchema,
  id: z.string(),
  label: z.string(),
  /**
   * The gateway's own number for it, where known: a transaction's, payout's or payment link's
   * orderid, a subscription's recurring-payment id; null until the gateway named it (and for users
   * and saved views). (Absent reads as null.)
   */
  orderid: z.string().nullable().default(null),
});
export type AuditTargetRef = z.infer<typeof AuditTargetRefSchema>;

/** A target's kind in words, as the audit screen and the CSV export say it. */
export const AUDIT_TARGET_KIND_WORDS: Record<AuditTargetKind, string> = {
  transaction: 'Transaction',
  payout: 'Payout',
  link: 'Payment link',
  subscription: 'Subscription',
  user: 'User',
  view: 'Saved view',
};

/**
 * A target in words, in parts: the kind (`Payout`), the Paydesk name of the record (its id, the
 * address of its page; a user's e-mail, a saved view's name) and what the gateway calls it, where
 * known (`order 1000123`). `idShown` shortens a record's id (the screen: its start); the CSV says
 * it whole. Null for a row with no target, or one of a kind not said in words (shown as stored).
 */
export interface AuditTargetWords {
  kind: string;
  name: string;
  /** the record's id, when `name` is one (a link's address, the full id behind a short one) */
  id: string | null;
  gateway: string | null;
}

/** The start of an id the screen shows (a UUID's first block), the whole id when short. */
export function shortAuditId(id: string): string {
  return id.length > 12 ? `${id.slice(0, 8)}…` : id;
}

export function auditTargetParts(
  target: string | null,
  ref: AuditTargetRef | null,
  idShown: (id: string) => string = (id) => id,
): AuditTargetWords | null {
  if (target === null) return null;
  if (ref !== null) {
    const kind = AUDIT_TARGET_KIND_WORDS[ref.kind];
    switch (ref.kind) {
      case 'transaction':
      case 'payout':
      case 'link':
        return {
          kind,
          name: idShown(ref.id),
          id: ref.id,
          gateway: ref.orderid === null ? null : `order ${ref.orderid}`,
        };
      case 'subscription':
        return {
          kind,
          name: idShown(ref.id),
          id: ref.id,
          gateway: ref.orderid === null ? null : `recurring payment ${ref.orderid}`,
        };
      case 'user':
        return { kind, name: ref.label, id: null, gateway: null };
      case 'view':
        return { kind, name: `"${ref.label}"`, id: null, gateway: null };
    }
  }
  const colon = target.indexOf(':');
  const value = target.slice(colon + 1);
  if (colon <= 0 || value === '') return null;
  switch (target.slice(0, colon)) {
    // Paydesk keeps no record of a card reference (the gateway keeps the card): its id is its name.
    case 'card-ref':
      return { kind: 'Card reference', name: value, id: null, gateway: null };
    case 'account':
      return { kind: 'Sign-in e-mail (no user)', name: value, id: null, gateway: null };
    default:
      return null;
  }
}

/** `auditTargetParts` as one line: `Payout 1f3a… · order 1000123`. */
export function auditTargetWords(
  target: string | null,
  ref: AuditTargetRef | null,
  idShown?: (id: string) => string,
): string | null {
  const parts = auditTargetParts(target, ref, idShown);
  if (parts === null) return null;
  const { kind, name, gateway } = parts;
  return gateway === null ? `${kind} ${name}` : `${kind} ${name} · ${gateway}`;
}

/**
 * A row of `GET /api/audit`: the stored row and its target resolved. `targetRef` is null when the
 * row has no target, one of a kind not resolved, or one that names nothing any more (deleted):
 * the raw `target` is then all there is to show. (Absent reads as null.)
 */
export const AuditListItemSchema = AuditRowSchema.extend({
  targetRef: AuditTargetRefSchema.nullable().default(null),
});
export type AuditListItem = z.infer<typeof AuditListItemSchema>;

export const AuditListResponseSchema = pageOf(AuditListItemSchema);
export type AuditListResponse = z.infer<typeof AuditListResponseSchema>;

/**
 * A CSV's field separator: `comma` (the default), or `semicolon`, the one spreadsheets split on
 * where the decimal mark is a comma (de-DE, fr-FR: a comma-separated file lands in column A).
 */
export const CSV_DELIMITERS = ['comma', 'semicolon'] as const;
export const CsvDelimiterSchema = z.enum(CSV_DELIMITERS);
export type CsvDelimiter = z.infer<typeof CsvDelimiterSchema>;
export const CSV_DELIMITER_CHARS = { comma: ',', semicolon: ';' } as const satisfies Record<
  CsvDelimiter,
  string
>;

/**
 * `GET /api/audit/export` query: filters + format (+ the CSV's `delimiter`; JSONL has none);
 * streamed oldest first.
 */
export const AUDIT_EXPORT_FORMATS = ['csv', 'jsonl'] as const;
export const AuditExportQuerySchema = AuditFilterFields.extend({
  format: z.enum(AUDIT_EXPORT_FORMATS).default('csv'),
  delimiter: CsvDelimiterSchema.default('comma'),
}).superRefine(checkTimeWindow);
export type AuditExportQuery = z.infer<typeof AuditExportQuerySchema>;
export type AuditExportQueryInput = z.input<typeof AuditExportQuerySchema>;

/** CSV column order of the export (the JSONL lines carry the same keys as `AuditRow`). */
export const AUDIT_EXPORT_COLUMNS = [
  'seq',
  'at',
  'actorId',
  'actorEmail',
  'actorRoles',
  'action',
  'target',
  'summary',
  'outcome',
  'errorCode',
  'requestId',
  'ip',
  'userAgent',
  'prevHash',
  'hash',
] as const satisfies readonly (keyof AuditRow)[];

/**
 * The CSV's header: the column names, but for `at`, which says its time is UTC (ISO 8601 with a
 * `Z`), not the reader's time as the screen shows it; then `targetInWords`, the target as the
 * screen says it (`auditTargetWords`, ids whole), looked up when exported (no part of the row or
 * its hash). It comes last, so the row's own columns keep their places.
 */
export const AUDIT_CSV_HEADER = [
  ...AUDIT_EXPORT_COLUMNS.map((c) => (c === 'at' ? 'atUtc' : c)),
  'targetInWords',
];

/**
 * An anchor: a chain head recorded outside Paydesk, written `<seq>:<hash>` (the row's number from
 * 1, a colon, its hash as 64 lowercase hex characters), e.g. copied from an earlier verify's `head`.
 */
export const AUDIT_ANCHOR_FORMAT = /^([1-9][0-9]{0,14}):([0-9a-f]{64})$/;
export const AUDIT_ANCHOR_RULE_MESSAGE =
  "must be <row>:<hash>: the row's number, a colon, then its hash as 64 lowercase hex characters";

export interface AuditAnchor {
  seq: number;
  hash: string;
}

/** `<seq>:<hash>` text as an anchor; null when it is not one. */
export function parseAuditAnchor(text: string): AuditAnchor | null {
  const m = AUDIT_ANCHOR_FORMAT.exec(text);
  return m?.[1] === undefined || m[2] === undefined ? null : { seq: Number(m[1]), hash: m[2] };
}

export function formatAuditAnchor(anchor: AuditAnchor): string {
  return `${anchor.seq}:${anchor.hash}`;
}

export const AuditAnchorSchema = z.string().transform((text, ctx): AuditAnchor => {
  const anchor = parseAuditAnchor(text);
  if (anchor === null) {
    ctx.addIssue({
      code: 'custom',
      message: AUDIT_ANCHOR_RULE_MESSAGE,
      params: { rule: 'anchor' },
    });
    return z.NEVER;
  }
  return anchor;
});

/**
 * Who asked for a verification: `explicit`, a person (the default), or `automatic`, a screen on
 * opening (the audit page checks the chain on every visit). An explicit check is always recorded;
 * an automatic one only when it finds a problem, so that auditors' own visits do not flood the log.
 */
export const AUDIT_VERIFY_CHECKS = ['explicit', 'automatic'] as const;
export const AuditVerifyCheckSchema = z.enum(AUDIT_VERIFY_CHECKS);
export type AuditVerifyCheck = z.infer<typeof AuditVerifyCheckSchema>;

/** `GET /api/audit/verify` query; strict (an unknown parameter is refused). */
export const AuditVerifyQuerySchema = z
  .object({
    /** verify also that row `seq` still exists and still has exactly `hash` */
    anchor: AuditAnchorSchema.optional(),
    check: AuditVerifyCheckSchema.default('explicit'),
  })
  .strict();
export type AuditVerifyQuery = z.infer<typeof AuditVerifyQuerySchema>;
export type AuditVerifyQueryInput = z.input<typeof AuditVerifyQuerySchema>;

/**
 * Why a verification failed. From the chain itself: `hash_mismatch` (a row's content does not
 * match its hash), `chain_mismatch` (a row does not point at its predecessor's hash),
 * `sequence_gap` (a row is missing). From an anchor: `anchor_missing` (no row has the anchor's
 * seq: the log was cut below it), `anchor_mismatch` (that row's hash differs: history up to it
 * was rewritten).
 */
export const AUDIT_VERIFY_REASONS = [
  'hash_mismatch',
  'chain_mismatch',
  'sequence_gap',
  'anchor_missing',
  'anchor_mismatch',
] as const;
export const AuditVerifyReasonSchema = z.enum(AUDIT_VERIFY_REASONS);
export type AuditVerifyReason = z.infer<typeof AuditVerifyReasonSchema>;

/** The chain's last row when it was verified; `createdAt` is that row's `at`. */
export const AuditChainHeadSchema = z.object({
  seq: z.number().int().positive(),
  hash: z.string(),
  createdAt: IsoDateTimeSchema,
});
export type AuditChainHead = z.infer<typeof AuditChainHeadSchema>;

/**
 * `GET /api/audit/verify` reply. `ok` when every row's hash matches its content and its
 * predecessor (and, with an anchor, the anchor's row still has the anchor's hash); otherwise
 * `firstBrokenSeq` is the first row that does not (the anchor's seq for an anchor reason),
 * `verifiedUpToSeq` the last row before it that does (null when none, and always null for an
 * anchor reason: the rows still link to each other, but none up to the anchor can be vouched for).
 * `head` is the last row when the verification began (null for an empty log).
 *
 * The chain lives in the same database as the rows, and its hashes are unkeyed (the PostgreSQL
 * trigger computes them): someone with write access to the database can delete the newest rows,
 * or edit a row and recompute every later hash, and the chain alone still verifies. Only an
 * anchor recorded outside the database shows it: an earlier verify's `head`, kept by the auditor,
 * or the `audit chain head` line the BFF logs after every verification (application logs).
 */
export const AuditVerifyResponseSchema = z.object({
  ok: z.boolean(),
  rowsChecked: z.number().int().nonnegative(),
  verifiedUpToSeq: z.number().int().nullable(),
  firstBrokenSeq: z.number().int().nullable(),
  reason: AuditVerifyReasonSchema.nullable(),
  head: AuditChainHeadSchema.nullable(),
  /**
   * The row that records this verification (`audit.verify`, outcome `success` when `ok`, else
   * `failed` with the reason), written after `head` was read: the log's row count is then at least
   * `head.seq + 1`. Absent when the check was not recorded (an automatic one that found the chain
   * intact) and from a reply that does not say.
   */
  recordedSeq: z.number().int().positive().optional(),
});
export type AuditVerifyResponse = z.infer<typeof AuditVerifyResponseSchema>;
