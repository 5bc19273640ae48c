// The append-only audit log with a SHA-256 hash chain. Each row's hash covers its canonical
// content and the previous row's hash; appends are serialised by the database so two instances
// never fork the chain: on PostgreSQL a trigger links each inserted row under an advisory lock
// (db/migrations.ts, 0008-audit-chain), on SQLite the writer (BEGIN IMMEDIATE) links it here.
import { hash } from 'node:crypto';
import {
  sql,
  type CompiledQuery,
  type ExpressionOrFactory,
  type InsertResult,
  type Kysely,
  type SelectQueryBuilder,
  type SqlBool,
  type Transaction,
} from 'kysely';
import type {
  AuditAnchor,
  AuditChainHead,
  AuditFilter,
  AuditListItem,
  AuditOutcome,
  AuditRow,
  AuditVerifyReason,
  AuditVerifyResponse,
  Role,
} from '@paydesk/shared/api';
import { formatMinorUnits, toMinorUnits } from '@paydesk/shared/protocol';
import type { Clock } from '../clock.js';
import type { Db } from '../db/connect.js';
import { queryTemplate } from '../db/query-template.js';
import {
  AUDIT_HASHED_COLUMNS,
  type AuditCheckRow,
  type AuditLogTable,
  type Database,
} from '../db/schema.js';
import { resolveTargets, targetsNamedBy } from './audit-targets.js';
import { canonicalJson, maskPans, redact } from './redact.js';

/**
 * An amount as the audit log writes money: always two decimals ('10' and '10.5' as '10.00' and
 * '10.50'), however it was typed, so that rows match each other and the records; one that is not
 * a plain amount is kept as typed.
 */
export function auditAmount(amount: string): string {
  try {
    return formatMinorUnits(toMinorUnits(amount));
  } catch {
    return amount;
  }
}

export const GENESIS_HASH = '0'.repeat(64);

// The chain's hot statements, compiled once per database (db/query-template.ts).
const insertRows = queryTemplate((k: Kysely<Database>, v: { rows: AuditLogTable[] }) =>
  k.insertInto('audit_log').values(v.rows),
);

/** SQLite: the chain's head, to link new rows to. */
const chainHead = queryTemplate((k: Kysely<Database>, _v: Record<string, never>) =>
  k.selectFrom('audit_log').select(['seq', 'hash']).orderBy('seq', 'desc').limit(1),
);

export interface AuditEntry {
  actorId: string | null;
  actorEmail: string | null;
  actorRoles: readonly Role[];
  action: string;
  target: string | null;
  summary: Record<string, unknown>;
  outcome: AuditOutcome;
  errorCode: string | null;
  requestId: string | null;
  ip: string | null;
  userAgent: string | null;
}

type StoredRow = Omit<AuditLogTable, 'hash'>;

/**
 * A row's hash: SHA-256 over every column but the hash (the previous row's hash first), each as
 * `<UTF-8 byte length>:<text>` (`~` for null), so the encoding is unambiguous without escaping and
 * the database can assemble the same text (db/schema.ts hashedContentSql): to verify fast, and on
 * PostgreSQL to link new rows.
 */
export function rowHash(row: StoredRow): string {
  return hash('sha256', hashedContent(row), 'hex');
}

export function hashedContent(row: StoredRow): string {
  let content = '';
  for (const column of AUDIT_HASHED_COLUMNS) {
    const v = row[column];
    if (v === null) {
      content += '~';
    } else {
      const text = typeof v === 'number' ? String(v) : v;
      content += `${Buffer.byteLength(text, 'utf8')}:${text}`;
    }
  }
  return content;
}

export function toAuditRow(r: AuditLogTable): AuditRow {
  return {
    seq: r.seq,
    at: new Date(r.at).toISOString(),
    actorId: r.actor_id,
    actorEmail: r.actor_email,
    actorRoles: JSON.parse(r.actor_roles) as Role[],
    action: r.action,
    target: r.target,
    summary: JSON.parse(r.summary) as Record<string, unknown>,
    outcome: r.outcome as AuditOutcome,
    errorCode: r.error_code,
    requestId: r.request_id,
    ip: r.ip,
    userAgent: r.user_agent,
    prevHash: r.prev_hash,
    hash: r.hash,
  };
}

/** Free text from a request (ids, user agents) is clipped and never carries a card number. */
function clip(value: string | null, max: number): string | null {
  // Masked before it is clipped: a card number cut in two would no longer look like one.
  return value === null ? null : maskPans(value).slice(0, max);
}

export class AuditLog {
  readonly #db: Db;
  readonly #clock: Clock;
  constructor(db: Db, clock: Clock) {
    this.#db = db;
    this.#clock = clock;
  }

  /**
   * Appends one row in its own transaction. Appends that arrive while a transaction is committing
   * are written together in the next one (group commit): one chain lock per batch, not per row.
   */
  append(entry: AuditEntry): Promise<number> {
    return new Promise<number>((resolve, reject) => {
      this.#queue.push({ entry, resolve, reject });
      if (!this.#flushing) void this.#flush();
    });
  }

  readonly #queue: {
    entry: AuditEntry;
    resolve: (seq: number) => void;
    reject: (err: unknown) => void;
  }[] = [];
  #flushing = false;

  async #flush(): Promise<void> {
    this.#flushing = true;
    try {
      while (this.#queue.length > 0) {
        const batch = this.#queue.splice(0, 500);
        try {
          const seqs = await this.#db.k.transaction().execute((trx) =>
            this.#appendMany(
              trx,
              batch.map((b) => b.entry),
            ),
          );
          batch.forEach((b, i) => {
            b.resolve(seqs[i] ?? 0);
          });
        } catch (err) {
          if (batch.length === 1) {
            batch[0]?.reject(err);
            continue;
          }
          // One bad entry must not sink the others: retry them one by one.
          for (const b of batch) {
            try {
              const [seq] = await this.#db.k
                .transaction()
                .execute((trx) => this.#appendMany(trx, [b.entry]));
              b.resolve(seq ?? 0);
            } catch (single) {
              b.reject(single);
            }
          }
        }
      }
    } finally {
      this.#flushing = false;
    }
  }

  /** Appends inside the caller's transaction (the row commits or rolls back with the action). */
  async appendIn(trx: Transaction<Database>, entry: AuditEntry): Promise<number> {
    const [seq] = await this.#appendMany(trx, [entry]);
    return seq ?? 0;
  }

  async #appendMany(trx: Transaction<Database>, entries: AuditEntry[]): Promise<number[]> {
    const rows = await this.#rows(trx, entries);
    const insert = trx.insertInto('audit_log').values(rows);
    if (this.#db.kind === 'sqlite') {
      await insert.execute();
      return rows.map((r) => r.seq);
    }
    const linked = await insert.returning('seq').execute();
    // The trigger links the rows in the order of the insert's values: their seqs ascend with it.
    return linked.map((r) => r.seq).sort((a, b) => a - b);
  }

  /**
   * The insert of `entries` as chain rows, for the caller to run in `trx` (alone, or with its
   * other writes: see db/write-batch.ts). PostgreSQL links the rows as they are inserted (the
   * audit_log_chain trigger takes the chain's lock, held until `trx` ends); on SQLite `trx` is
   * already the only writer, and the rows are linked here to the head it reads.
   */
  async prepareIn(
    trx: Transaction<Database>,
    entries: readonly AuditEntry[],
  ): Promise<CompiledQuery<InsertResult>> {
    // SQLite allows at most 32766 bound parameters per statement: 15 columns × 500 rows fits.
    return insertRows(trx, { rows: await this.#rows(trx, entries) });
  }

  /** The chain rows of `entries`: linked to the head on SQLite, placeholders on PostgreSQL. */
  async #rows(
    trx: Transaction<Database>,
    entries: readonly AuditEntry[],
  ): Promise<AuditLogTable[]> {
    // On PostgreSQL the trigger sets seq, prev_hash and hash: these are placeholders.
    const head =
      this.#db.kind === 'postgres'
        ? { seq: 0, hash: '' }
        : (await trx.executeQuery(chainHead(trx, {}))).rows[0];
    let seq = head?.seq ?? 0;
    let prevHash = head?.hash ?? GENESIS_HASH;
    const at = this.#clock.now();
    return entries.map((entry) => {
      seq += 1;
      const row: StoredRow = {
        seq,
        at,
        actor_id: entry.actorId,
        actor_email: entry.actorEmail,
        actor_roles: JSON.stringify([...entry.actorRoles].sort()),
        action: entry.action,
        target: clip(entry.target, 200),
        summary: canonicalJson(redact(entry.summary)),
        outcome: entry.outcome,
        error_code: entry.errorCode,
        request_id: clip(entry.requestId, 100),
        ip: clip(entry.ip, 100),
        user_agent: clip(entry.userAgent, 300),
        prev_hash: prevHash,
      };
      if (this.#db.kind === 'postgres') return { ...row, hash: '' };
      prevHash = rowHash(row);
      return { ...row, hash: prevHash };
    });
  }

  /**
   * The rows `filter` keeps; `targets` are the stored targets its `target` names (`targetsNamedBy`:
   * the text itself, or the records whose orderid, e-mail, ... it is).
   */
  #filtered(
    filter: AuditFilter,
    targets: readonly string[] | null,
  ): SelectQueryBuilder<Database, 'audit_log', object> {
    let q: SelectQueryBuilder<Database, 'audit_log', object> = this.#db.k.selectFrom('audit_log');
    if (filter.actor !== undefined) {
      const actor = filter.actor;
      // A user id is one exact value; anything else is an e-mail or its beginning.
      q = USER_ID.test(actor)
        ? q.where('actor_id', '=', actor.toLowerCase())
        : q.where(startsWith(this.#db.kind, 'actor_email', actor.toLowerCase()));
    }
    if (filter.action !== undefined) {
      q = q.where(startsWith(this.#db.kind, 'action', filter.action.toLowerCase()));
    }
    if (targets !== null) q = q.where('target', 'in', targets);
    if (filter.outcome !== undefined) q = q.where('outcome', '=', filter.outcome);
    if (filter.from !== undefined) q = q.where('at', '>=', Date.parse(filter.from));
    if (filter.to !== undefined) q = q.where('at', '<', Date.parse(filter.to));
    return q;
  }

  /** The stored targets the filter's `target` names; null when it has none. */
  async #targets(filter: AuditFilter): Promise<string[] | null> {
    return filter.target === undefined ? null : targetsNamedBy(this.#db, filter.target);
  }

  /** A page of the filtered rows, newest first, each with what its target names (`targetRef`). */
  async list(
    filter: AuditFilter,
    page: number,
    pageSize: number,
  ): Promise<{ items: AuditListItem[]; total: number }> {
    const base = this.#filtered(filter, await this.#targets(filter));
    const [rows, count] = await Promise.all([
      base
        .selectAll()
        .orderBy('seq', 'desc')
        .limit(pageSize)
        .offset((page - 1) * pageSize)
        .execute(),
      base.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return {
      items: await resolveTargets(this.#db, rows.map(toAuditRow)),
      total: Number(count.n),
    };
  }

  /** The filtered rows oldest first, read in keyset batches (constant memory). */
  async *stream(filter: AuditFilter, batchSize = 2_000): AsyncGenerator<AuditRow> {
    for await (const rows of this.#batches(filter, batchSize)) yield* rows;
  }

  /**
   * `stream`'s rows, each with what its target names (`targetRef`, as the list's): looked up per
   * batch, one query per kind.
   */
  async *streamWithTargets(filter: AuditFilter, batchSize = 2_000): AsyncGenerator<AuditListItem> {
    for await (const rows of this.#batches(filter, batchSize))
      yield* await resolveTargets(this.#db, rows);
  }

  async *#batches(filter: AuditFilter, batchSize: number): AsyncGenerator<AuditRow[]> {
    const targets = await this.#targets(filter);
    let after = 0;
    for (;;) {
      const rows = await this.#filtered(filter, targets)
        .selectAll()
        .where('seq', '>', after)
        .orderBy('seq', 'asc')
        .limit(batchSize)
        .execute();
      if (rows.length > 0) yield rows.map(toAuditRow);
      const last = rows.at(-1);
      if (last === undefined || rows.length < batchSize) return;
      after = last.seq;
    }
  }

  /**
   * Walks the whole chain in keyset batches and reports the first row that does not hold; with an
   * anchor, also that the anchor's row still exists with the anchor's hash.
   */
  async verify(
    anchor: AuditAnchor | null = null,
    batchSize = 10_000,
  ): Promise<AuditVerifyResponse> {
    return verifyChain(this.#db, batchSize, anchor);
  }

  /** The chain's last row (one read by the primary key); null for an empty log. */
  head(): Promise<AuditChainHead | null> {
    return readHead(this.#db);
  }
}

const USER_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * `column` begins with `prefix` (an exact value is its own prefix): a range in code-point order,
 * `[prefix, successor(prefix))`. SQLite's BINARY columns are in that order, and their indexes
 * answer it (its LIKE, case-insensitive, never uses a BINARY index). PostgreSQL's columns are in
 * the database's collation, where a range is not right (a linguistic one sorts `user.create` after
 * `user/`), so the range is taken under `collate "C"` (UTF-8 bytes, the code points' order),
 * which the `…_c` indexes of migration 0022 answer.
 */
function startsWith(
  kind: Db['kind'],
  column: 'action' | 'actor_email',
  prefix: string,
): ExpressionOrFactory<Database, 'audit_log', SqlBool> {
  const end = successor(prefix);
  if (kind === 'postgres') {
    const from = sql<SqlBool>`${sql.ref(column)} collate "C" >= ${prefix}`;
    return end === null ? from : sql<SqlBool>`${from} and ${sql.ref(column)} collate "C" < ${end}`;
  }
  return (eb) =>
    end === null
      ? eb(column, '>=', prefix)
      : eb.and([eb(column, '>=', prefix), eb(column, '<', end)]);
}

/** The first text after every text that begins with `prefix`, in code-point order (null: none). */
export function successor(prefix: string): string | null {
  const points = Array.from(prefix, (c) => c.codePointAt(0) ?? 0);
  while (points.length > 0) {
    const last = points.pop() ?? 0;
    // Past the surrogates, which are not text; past the last code point, carry to the one before.
    const next = last === 0xd7ff ? 0xe000 : last + 1;
    if (next <= 0x10ffff) return String.fromCodePoint(...points, next);
  }
  return null;
}

/** The chain's last row, or null for an empty log. */
async function readHead(db: Db): Promise<AuditChainHead | null> {
  const row = await db.k
    .selectFrom('audit_log')
    .select(['seq', 'hash', 'at'])
    .orderBy('seq', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row === undefined
    ? null
    : { seq: row.seq, hash: row.hash, createdAt: new Date(row.at).toISOString() };
}

/**
 * Checks every committed row: consecutive seq from 1, prev_hash equal to the previous row's hash,
 * hash equal to the hash of its content. Reads consecutive seq ranges ahead of the check (several
 * at once on PostgreSQL, where each runs in its own backend) and checks them strictly in order.
 *
 * The chain alone cannot tell a log cut at its end, or rewritten and re-hashed from some row on,
 * from an intact one: `anchor` (a head recorded outside the database) can. Its row must be reached
 * with exactly its hash; a break in the chain below it is reported first (it is the earlier one).
 */
export async function verifyChain(
  db: Db,
  batchSize = 10_000,
  anchor: AuditAnchor | null = null,
): Promise<AuditVerifyResponse> {
  // Read first: every row up to the head is then walked below (rows appended meanwhile too).
  const head = await readHead(db);
  let expectedSeq = 1;
  let prevHash = GENESIS_HASH;
  let checked = 0;
  const result = (
    firstBrokenSeq: number | null,
    reason: AuditVerifyReason | null,
  ): AuditVerifyResponse => ({
    ok: firstBrokenSeq === null,
    rowsChecked: checked,
    verifiedUpToSeq:
      reason === 'anchor_missing' || reason === 'anchor_mismatch' || expectedSeq === 1
        ? null
        : expectedSeq - 1,
    firstBrokenSeq,
    reason,
    head,
  });
  let anchorHeld = false;
  /** The end of an intact chain: unless the anchor's row was reached, it is gone. */
  const end = () =>
    anchor === null || anchorHeld ? result(null, null) : result(anchor.seq, 'anchor_missing');
  const inFlight: Promise<AuditCheckRow[]>[] = [];
  let nextFrom = 1;
  const readAhead = () => {
    while (inFlight.length < db.auditReadParallelism) {
      const read = db.readAuditRange(nextFrom, nextFrom + batchSize);
      // Returning early on a broken row leaves reads unawaited; their failure is then moot.
      read.catch(() => undefined);
      inFlight.push(read);
      nextFrom += batchSize;
    }
  };
  readAhead();
  for (;;) {
    const next = inFlight.shift();
    if (next === undefined) {
      // Rows beyond a whole missing range are a gap too (a row equal to expectedSeq was appended
      // while we read: the chain so far is fine).
      const beyond = await db.k
        .selectFrom('audit_log')
        .select('seq')
        .where('seq', '>=', expectedSeq)
        .orderBy('seq', 'asc')
        .limit(1)
        .executeTakeFirst();
      return beyond !== undefined && beyond.seq > expectedSeq
        ? result(expectedSeq, 'sequence_gap')
        : end();
    }
    const rows = await next;
    for (const row of rows) {
      checked += 1;
      if (row.seq !== expectedSeq) return result(expectedSeq, 'sequence_gap');
      if (row.prevHash !== prevHash) return result(row.seq, 'chain_mismatch');
      if (row.recomputed !== row.hash) return result(row.seq, 'hash_mismatch');
      if (row.seq === anchor?.seq) {
        if (row.hash !== anchor.hash) return result(anchor.seq, 'anchor_mismatch');
        anchorHeld = true;
      }
      prevHash = row.hash;
      expectedSeq += 1;
    }
    // A full range means there may be more; a short one is the end (or a gap, which the ranges
    // already in flight reveal as a row whose seq is not the expected one).
    if (rows.length === batchSize) readAhead();
  }
}
