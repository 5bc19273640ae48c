import { z } from 'zod';
import { IsoDateTimeSchema, pageOf, queryInt } from './common.js';
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
  'audit.verify',
  'audit.export',
] as const;

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
 * Filters shared by `GET /api/audit` and `GET /api/audit/export` (query string); strict: an
 * unknown parameter is refused, never ignored (the list and export schemas extend it, strict too).
 */
export const AuditFilterSchema = z
  .object({
    /** actor e-mail (exact, case-insensitive) or user id */
    actor: z.string().trim().min(1).max(254).optional(),
    /** exact action, or a prefix ending in `.` (e.g. `user.`) */
    action: z.string().trim().min(1).max(100).optional(),
    target: z.string().trim().min(1).max(200).optional(),
    outcome: AuditOutcomeSchema.optional(),
    /** inclusive lower bound */
    from: IsoDateTimeSchema.optional(),
    /** exclusive upper bound */
    to: IsoDateTimeSchema.optional(),
  })
  .strict();
export type AuditFilter = z.infer<typeof AuditFilterSchema>;

/** `GET /api/audit` query: filters + page (1-based) and pageSize (1..500), newest first. */
export const AuditListQuerySchema = AuditFilterSchema.extend({
  page: queryInt(1, 1_000_000, 1),
  pageSize: queryInt(1, 500, 50),
});
export type AuditListQuery = z.infer<typeof AuditListQuerySchema>;
export type AuditListQueryInput = z.input<typeof AuditListQuerySchema>;

export const AuditListResponseSchema = pageOf(AuditRowSchema);
export type AuditListResponse = z.infer<typeof AuditListResponseSchema>;

/** `GET /api/audit/export` query: filters + format; streamed oldest first. */
export const AUDIT_EXPORT_FORMATS = ['csv', 'jsonl'] as const;
export const AuditExportQuerySchema = AuditFilterSchema.extend({
  format: z.enum(AUDIT_EXPORT_FORMATS).default('csv'),
});
export type AuditExportQuery = z.infer<typeof AuditExportQuerySchema>;

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
 * `GET /api/audit/verify` reply. `ok` when every row's hash matches its content and its
 * predecessor; otherwise `firstBrokenSeq` is the first row that does not, `verifiedUpToSeq` the
 * last row before it that does (null when none).
 */
export const AuditVerifyResponseSchema = z.object({
  ok: z.boolean(),
  rowsChecked: z.number().int().nonnegative(),
  verifiedUpToSeq: z.number().int().nullable(),
  firstBrokenSeq: z.number().int().nullable(),
  reason: z.enum(['hash_mismatch', 'chain_mismatch', 'sequence_gap']).nullable(),
});
export type AuditVerifyResponse = z.infer<typeof AuditVerifyResponseSchema>;
