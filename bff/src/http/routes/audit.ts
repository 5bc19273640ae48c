import type { Response } from 'express';
import {
  AUDIT_CSV_HEADER,
  AUDIT_EXPORT_COLUMNS,
  AuditExportQuerySchema,
  AuditListQuerySchema,
  AuditVerifyQuerySchema,
  CSV_DELIMITER_CHARS,
  auditTargetWords,
  formatAuditAnchor,
  type AuditFilter,
  type AuditRow,
  type AuditTargetRef,
  type CsvDelimiter,
} from '@paydesk/shared/api';
import { parseInput } from '../../errors.js';
import type { Services } from '../../services/index.js';
import type { Handler } from '../run-route.js';

function csvCell(value: unknown): string {
  const text =
    value === null || value === undefined
      ? ''
      : typeof value === 'string'
        ? value
        : typeof value === 'number'
          ? String(value)
          : JSON.stringify(value);
  // Formula injection: a cell starting with = + - @ is prefixed so spreadsheets show it as text.
  const safe = /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
  // Both separators are quoted (`;` is the one of German or French spreadsheets), whichever the
  // file uses, as in the transactions CSV.
  return /[",;\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** The byte-order mark tells Excel the file is UTF-8 (as the transactions CSV's does). */
const UTF8_BOM = '\uFEFF';

/**
 * A row of the CSV: the row's columns as stored, then its target in words (`auditTargetWords`, as
 * the screen says it, ids whole) when `targetRef` holds what it names.
 */
export function csvLine(
  row: AuditRow,
  delimiter: CsvDelimiter = 'comma',
  targetRef: AuditTargetRef | null = null,
): string {
  const sep = CSV_DELIMITER_CHARS[delimiter];
  const cells = AUDIT_EXPORT_COLUMNS.map((c) => csvCell(row[c]));
  cells.push(csvCell(auditTargetWords(row.target, targetRef)));
  return `${cells.join(sep)}\r\n`;
}

async function write(res: Response, chunk: string): Promise<void> {
  if (!res.write(chunk)) {
    await new Promise<void>((resolve, reject) => {
      res.once('drain', resolve);
      res.once('close', () => {
        reject(new Error('client went away'));
      });
    });
  }
}

export function auditHandlers(s: Services) {
  const list: Handler = async (ctx) => {
    const q = parseInput(AuditListQuerySchema, ctx.req.query, 'query');
    const { items, total } = await s.audit.list(q, q.page, q.pageSize);
    return {
      kind: 'json',
      status: 200,
      body: { items, total, page: q.page, pageSize: q.pageSize },
    };
  };

  const verify: Handler = async (ctx) => {
    const { anchor, check } = parseInput(AuditVerifyQuerySchema, ctx.req.query, 'query');
    const result = await s.audit.verify(anchor ?? null);
    const { ok, reason, firstBrokenSeq, head } = result;
    ctx.audit.summary = {
      anchor: anchor === undefined ? null : formatAuditAnchor(anchor),
      check,
      ok,
      reason,
      firstBrokenSeq,
      headSeq: head?.seq ?? null,
    };
    // A copy of the head outside the database (log shipping): an anchor for later verifications.
    ctx.req.log.info(
      { head: head === null ? null : { seq: head.seq, hash: head.hash }, ok },
      'audit chain head',
    );
    // An automatic check (the audit page's, on every visit) that finds the log intact says nothing
    // an auditor needs: not recorded, or their own visits would flood the log. Any check a person
    // asked for, and any that finds a problem, is.
    ctx.audit.recorded = true;
    if (check === 'automatic' && ok) return { kind: 'json', status: 200, body: result };
    // Its own row is appended here rather than by the runner, so that the reply can say which it
    // is: the list then shows one row more than the head, and the screen says why. A check that
    // finds the chain broken or a recorded head not held ended `failed` (the reason in its
    // summary), so that an auditor filtering on the outcome finds it.
    const recordedSeq = await s.audit.append({
      ...ctx.attemptEntry(null),
      outcome: ok ? 'success' : 'failed',
    });
    return { kind: 'json', status: 200, body: { ...result, recordedSeq } };
  };

  const exportRows: Handler = (ctx) => {
    const q = parseInput(AuditExportQuerySchema, ctx.req.query, 'query');
    const { format, delimiter, ...filter } = q;
    const f: AuditFilter = filter;
    ctx.audit.summary = format === 'csv' ? { format, delimiter, filter: f } : { format, filter: f };
    const sep = CSV_DELIMITER_CHARS[delimiter];
    const stamp = new Date(s.clock.now()).toISOString().replace(/[:.]/g, '-');
    return Promise.resolve({
      kind: 'stream',
      contentType:
        format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8',
      filename: `paydesk-audit-${stamp}.${format}`,
      write: async (res: Response) => {
        if (format === 'csv') {
          await write(res, `${UTF8_BOM}${AUDIT_CSV_HEADER.join(sep)}\r\n`);
          for await (const { targetRef, ...row } of s.audit.streamWithTargets(f))
            await write(res, csvLine(row, delimiter, targetRef));
          return;
        }
        // The JSONL lines are the rows as stored (`AuditRow`'s keys), nothing looked up.
        for await (const row of s.audit.stream(f)) await write(res, `${JSON.stringify(row)}\n`);
      },
    });
  };

  return {
    'GET /api/audit': list,
    'GET /api/audit/verify': verify,
    'GET /api/audit/export': exportRows,
  } as const;
}
