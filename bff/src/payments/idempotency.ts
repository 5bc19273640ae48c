// Idempotency-Key per the IETF httpapi draft: a key is the user's (scoped to them), bound to the
// request it first came with (hash), and answers a repeat with the stored reply. The database's
// primary key (user_id, key) decides which of two concurrent requests runs; the other gets 409.
import { createHash } from 'node:crypto';
import { IdempotencyKeySchema, type ErrorCode, type ErrorDetails } from '@paydesk/shared/api';
import type { RawBuilder } from 'kysely';
import { queryTemplate } from '../db/query-template.js';
import type { Clock } from '../clock.js';
import { AppError, fieldRefusal } from '../errors.js';
import { canonicalJson } from '../services/redact.js';
import type { PayDb, PayTrx } from './db.js';

type Stored =
  | { kind: 'ok'; status: number; body: unknown }
  | { kind: 'error'; code: ErrorCode; message: string; details: ErrorDetails | null };

/**
 * The route an operation's Idempotency-Key is taken for: a follow-up operation on one order
 * (`capture <transaction id>`, ...), or a rebill (a new order, so no id). The routes take keys
 * under it, and the reconciler finds an interrupted request's key by it.
 */
export function keyRouteOf(operation: string, transactionId: string): string {
  return operation === 'rebill' ? 'rebill' : `${operation} ${transactionId}`;
}

/**
 * A request interrupted before it answered (its instance stopped between sending and recording
 * the reply) leaves its key in flight. Once the reconciler knows what the gateway did, the key is
 * settled in the reconciler's transaction: a request the gateway applied answers every repeat with
 * `reply`; one it did not apply is released, so that the same request may be made again. Keys are
 * found by the requester's email, the key and the route, and only while still in flight.
 */
export async function settleInterruptedKey(
  trx: PayTrx,
  at: { requestedBy: string; key: string; route: string; now: number },
  reply: { status: number; body: unknown } | null,
): Promise<void> {
  const base = trx.selectFrom('users').select('id').where('email', '=', at.requestedBy);
  if (reply === null) {
    await trx
      .deleteFrom('idempotency_keys')
      .where('user_id', 'in', base)
      .where('key', '=', at.key)
      .where('route', '=', at.route)
      .where('state', '=', 'in_flight')
      .execute();
    return;
  }
  const stored: Stored = { kind: 'ok', status: reply.status, body: reply.body };
  await trx
    .updateTable('idempotency_keys')
    .set({
      state: 'done',
      reply_status: reply.status,
      reply_body: JSON.stringify(stored),
      completed_at: at.now,
    })
    .where('user_id', 'in', base)
    .where('key', '=', at.key)
    .where('route', '=', at.route)
    .where('state', '=', 'in_flight')
    .execute();
}

/**
 * What became of the operation of a request interrupted before it answered (its key left in
 * flight), as the resource it acted on shows it: `reply`, the answer the request would have given
 * (the operation's outcome is known); `error`, the error it would have answered (the key let go
 * when that error means nothing happened, else kept with it as its reply, as `run` does);
 * `not_applied`, nothing happened under the key, which is let go so that the same request runs
 * again; `confirming`, the outcome is still being confirmed with the gateway (409 with `message`,
 * which says where to look).
 */
export type InterruptedOutcome =
  | { kind: 'reply'; status: number; body: unknown }
  | { kind: 'error'; error: AppError }
  | { kind: 'not_applied' }
  | { kind: 'confirming'; message: string };

/**
 * For routes whose operation does not record its key (payouts): how a repeat of an interrupted
 * request learns its outcome. A key still in flight `afterMs` after it was taken belongs to a
 * request that can no longer be running (longer than any live request takes); `outcome` reads
 * what its operation did since `takenAt`, when the key was taken (not what an earlier use of the
 * key, past the retention, did). A younger key is a request still running: 409 as usual.
 */
export interface Interruption {
  afterMs: number;
  outcome: (takenAt: number) => Promise<InterruptedOutcome>;
}

export interface IdempotentReply {
  status: number;
  body: unknown;
  replayed: boolean;
}

/** Errors after which the request may be tried again with the same key: nothing happened. */
function releasesKey(err: unknown): boolean {
  if (!(err instanceof AppError)) return true;
  return (
    err.code === 'GATEWAY_UNAVAILABLE' ||
    err.code === 'INTERNAL' ||
    err.code === 'SERVICE_UNAVAILABLE'
  );
}

/**
 * What taking a key writes: the request's key, route and hash, at `now`. A key created before
 * `takeOverBefore` is past the retention, and taken over.
 */
export interface KeyTaking {
  userId: string;
  key: string;
  route: string;
  hash: string;
  now: number;
  takeOverBefore: number;
}

/**
 * The insert that takes a key (`Idempotency.take`), to run alone or inside another statement:
 * Ledger.lockOrderTaking passes `afterLock`, which reads the key's `created_at` through its lock
 * so that the insert runs after it. One statement: a key past the retention is taken over in
 * place.
 */
export function takingInsert(
  k: PayDb,
  v: KeyTaking,
  afterLock?: (createdAt: number) => RawBuilder<number>,
) {
  const fresh = {
    route: v.route,
    request_hash: v.hash,
    state: 'in_flight',
    reply_status: null,
    reply_body: null,
    created_at: afterLock === undefined ? v.now : afterLock(v.now),
    completed_at: null,
  };
  return k
    .insertInto('idempotency_keys')
    .values({ user_id: v.userId, key: v.key, ...fresh })
    .onConflict((oc) =>
      oc
        .columns(['user_id', 'key'])
        .doUpdateSet(fresh)
        .where('idempotency_keys.created_at', '<', v.takeOverBefore),
    );
}

// The key's hot writes, compiled once per database (db/query-template.ts).
const takeKey = queryTemplate((k: PayDb, v: KeyTaking) => takingInsert(k, v));

const storeReply = queryTemplate(
  (k: PayDb, v: { userId: string; key: string; status: number; body: string; now: number }) =>
    k
      .updateTable('idempotency_keys')
      .set({ state: 'done', reply_status: v.status, reply_body: v.body, completed_at: v.now })
      .where('user_id', '=', v.userId)
      .where('key', '=', v.key),
);

const releaseKey = queryTemplate((k: PayDb, v: { userId: string; key: string }) =>
  k.deleteFrom('idempotency_keys').where('user_id', '=', v.userId).where('key', '=', v.key),
);

/**
 * One request's hold on its key: which user, key and request it is. `take` marks it `replayed`
 * when the key already holds this request's stored reply.
 */
export class IdempotencyClaim {
  replayed = false;
  constructor(
    readonly userId: string,
    readonly key: string,
    readonly route: string,
    readonly hash: string,
  ) {}
}

export class Idempotency {
  constructor(
    private readonly k: PayDb,
    private readonly clock: Clock,
    private readonly retentionMs: number,
  ) {}

  static requestHash(route: string, body: unknown): string {
    return createHash('sha256')
      .update(route)
      .update('\n')
      .update(canonicalJson(body))
      .digest('hex');
  }

  /**
   * Checks the header (missing: 400; sent several times: 400; malformed: 400) and binds the key to
   * this request.
   */
  claim(userId: string, key: string | undefined, route: string, body: unknown): IdempotencyClaim {
    if (key === undefined || key === '') {
      // Every route that takes a key either changes something at the gateway (a capture, a card
      // reference, a payout sent) or records a money decision (a payout prepared, approved or
      // rejected): not only those that move money, so the message names what they share.
      throw new AppError(
        'IDEMPOTENCY_KEY_MISSING',
        'this request changes something at the gateway or records a money decision, so a repeat must not act twice: send an Idempotency-Key header (a fresh UUID per intended operation)',
        {
          fields: [{ path: 'header.Idempotency-Key', rule: 'required', message: 'required' }],
        },
      );
    }
    // Node joins a header sent several times with ", " (and so does a client that sets it twice);
    // a key holds no space, so such a value is several keys, said as such rather than as one
    // malformed key.
    if (key.includes(', ')) {
      throw fieldRefusal(
        'header.Idempotency-Key',
        'single',
        'send one Idempotency-Key header, not several',
      );
    }
    const parsed = IdempotencyKeySchema.safeParse(key);
    if (!parsed.success) {
      const message = parsed.error.issues[0]?.message ?? 'invalid';
      throw fieldRefusal('header.Idempotency-Key', 'format', message);
    }
    return new IdempotencyClaim(userId, key, route, Idempotency.requestHash(route, body));
  }

  /**
   * Takes the key in `k` (the caller's transaction, so the key commits with the work it guards,
   * or alone). Returns null when this request now owns the key; the stored reply when the key
   * already answered this same request (`claim.replayed`); throws 422 when it was used for another
   * request and 409 while that request is still in flight; with `interruption`, a key in flight
   * longer than a live request takes is answered from the resource (`settleInterrupted`). One
   * statement: a key past the retention is taken over in place.
   */
  async take(
    k: PayDb | PayTrx,
    claim: IdempotencyClaim,
    interruption?: Interruption,
  ): Promise<IdempotentReply | null> {
    const inserted = await k.executeQuery(takeKey(k, this.taking(claim)));
    return this.taken(k, claim, Number(inserted.numAffectedRows ?? 0n) > 0, interruption);
  }

  /** What the insert of `take` (`takingInsert`) writes for `claim`, now. */
  taking(claim: IdempotencyClaim): KeyTaking {
    const now = this.clock.now();
    return {
      userId: claim.userId,
      key: claim.key,
      route: claim.route,
      hash: claim.hash,
      now,
      takeOverBefore: now - this.retentionMs,
    };
  }

  /** The rest of `take` once its insert ran: `inserted` says whether it wrote the key. */
  async taken(
    k: PayDb | PayTrx,
    claim: IdempotencyClaim,
    inserted: boolean,
    interruption?: Interruption,
  ): Promise<IdempotentReply | null> {
    if (inserted) return null;
    const existing = await k
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('user_id', '=', claim.userId)
      .where('key', '=', claim.key)
      .executeTakeFirst();
    if (existing === undefined) {
      throw new AppError(
        'IDEMPOTENCY_IN_FLIGHT',
        'a request with this Idempotency-Key just finished or expired; try again',
      );
    }
    if (existing.request_hash !== claim.hash) {
      throw new AppError(
        'IDEMPOTENCY_KEY_REUSED',
        'this Idempotency-Key was already used for a different request; use a fresh key',
      );
    }
    if (
      (existing.state !== 'done' || existing.reply_body === null) &&
      interruption !== undefined &&
      existing.created_at <= this.clock.now() - interruption.afterMs
    ) {
      return this.settleInterrupted(k, claim, existing.created_at, interruption);
    }
    if (existing.state !== 'done' || existing.reply_body === null) {
      throw new AppError(
        'IDEMPOTENCY_IN_FLIGHT',
        // After a crash the key stays in flight until the reconciler settles the operation with
        // the gateway's truth (settleInterruptedKey); nothing is ever sent twice under this key.
        'a request with this Idempotency-Key is still being processed, or was interrupted before it answered; it is never sent twice. Once the gateway confirms its outcome (the order’s timeline shows it), this same request gets that outcome, or runs again if the gateway did not apply it',
      );
    }
    const stored = JSON.parse(existing.reply_body) as Stored;
    if (stored.kind === 'error')
      throw new AppError(stored.code, stored.message, stored.details ?? undefined);
    claim.replayed = true;
    return { status: stored.status, body: stored.body, replayed: true };
  }

  /**
   * A repeat of a request interrupted before it answered (`Interruption`): the outcome its
   * operation had, stored as the key's reply (every later repeat gets the same); or the error it
   * would have answered, thrown, its key let go or kept as `run` would have; or, when nothing
   * happened, the key let go and taken afresh, so that this request runs; or 409 while the outcome
   * is being confirmed. The key is written only while it is still the interrupted request's
   * (in flight, taken at `createdAt`).
   */
  private async settleInterrupted(
    k: PayDb | PayTrx,
    claim: IdempotencyClaim,
    createdAt: number,
    interruption: Interruption,
  ): Promise<IdempotentReply | null> {
    const outcome = await interruption.outcome(createdAt);
    if (outcome.kind === 'confirming') throw new AppError('IDEMPOTENCY_IN_FLIGHT', outcome.message);
    const letGo = () =>
      k
        .deleteFrom('idempotency_keys')
        .where('user_id', '=', claim.userId)
        .where('key', '=', claim.key)
        .where('state', '=', 'in_flight')
        .where('created_at', '=', createdAt)
        .execute();
    const keep = (status: number, stored: Stored) =>
      k
        .updateTable('idempotency_keys')
        .set({
          state: 'done',
          reply_status: status,
          reply_body: JSON.stringify(stored),
          completed_at: this.clock.now(),
        })
        .where('user_id', '=', claim.userId)
        .where('key', '=', claim.key)
        .where('state', '=', 'in_flight')
        .where('created_at', '=', createdAt)
        .execute();
    if (outcome.kind === 'not_applied') {
      await letGo();
      // Taken afresh without the interruption: a key in flight now is a live request's.
      return this.take(k, claim);
    }
    if (outcome.kind === 'error') {
      const err = outcome.error;
      if (releasesKey(err)) await letGo();
      else
        await keep(err.status, {
          kind: 'error',
          code: err.code,
          message: err.message,
          details: err.details ?? null,
        });
      throw err;
    }
    await keep(outcome.status, { kind: 'ok', status: outcome.status, body: outcome.body });
    claim.replayed = true;
    return { status: outcome.status, body: outcome.body, replayed: true };
  }

  /** Stores the reply that every repeat of the request gets. */
  async complete(
    k: PayDb | PayTrx,
    claim: IdempotencyClaim,
    reply: { status: number; body: unknown },
  ): Promise<void> {
    await k.executeQuery(this.completion(k, claim, reply));
  }

  /** The update of `complete`, to run alone or in a write batch (db/write-batch.ts). */
  completion(k: PayDb | PayTrx, claim: IdempotencyClaim, reply: { status: number; body: unknown }) {
    return this.store(k, claim, reply.status, {
      kind: 'ok',
      status: reply.status,
      body: reply.body,
    });
  }

  /** Stores a refusal as the reply (the work did not happen and will not on a repeat). */
  async completeWithError(
    k: PayDb | PayTrx,
    claim: IdempotencyClaim,
    err: AppError,
  ): Promise<void> {
    await k.executeQuery(this.errorCompletion(k, claim, err));
  }

  /** The update of `completeWithError`, to run alone or in a write batch. */
  errorCompletion(k: PayDb | PayTrx, claim: IdempotencyClaim, err: AppError) {
    return this.store(k, claim, err.status, {
      kind: 'error',
      code: err.code,
      message: err.message,
      details: err.details ?? null,
    });
  }

  /** Lets the key go: nothing happened, the same request may be tried again. */
  async release(k: PayDb | PayTrx, claim: IdempotencyClaim): Promise<void> {
    await k.executeQuery(this.releasing(k, claim));
  }

  /** The delete of `release`, to run alone or in a write batch. */
  releasing(k: PayDb | PayTrx, claim: IdempotencyClaim) {
    return releaseKey(k, { userId: claim.userId, key: claim.key });
  }

  /**
   * The write that ends a request's hold on its key in the request's last transaction: the reply
   * is stored, or the key released when `reply` is an error after which nothing happened.
   */
  ending(
    k: PayDb | PayTrx,
    claim: IdempotencyClaim,
    reply: { status: number; body: unknown } | AppError,
  ) {
    if (!(reply instanceof AppError)) return this.completion(k, claim, reply);
    return releasesKey(reply) ? this.releasing(k, claim) : this.errorCompletion(k, claim, reply);
  }

  /** Whether an error means nothing happened, so that the key is released rather than kept. */
  static releases(err: unknown): boolean {
    return releasesKey(err);
  }

  /** The whole cycle around `work` for callers that do not take the key in their own transaction. */
  async run(
    userId: string,
    key: string | undefined,
    route: string,
    body: unknown,
    work: () => Promise<{ status: number; body: unknown }>,
    interruption?: Interruption,
  ): Promise<IdempotentReply> {
    const claim = this.claim(userId, key, route, body);
    const stored = await this.take(this.k, claim, interruption);
    if (stored !== null) return stored;
    let reply: { status: number; body: unknown };
    try {
      reply = await work();
    } catch (err) {
      if (releasesKey(err)) await this.release(this.k, claim);
      else if (err instanceof AppError) await this.completeWithError(this.k, claim, err);
      throw err;
    }
    await this.complete(this.k, claim, reply);
    return { ...reply, replayed: false };
  }

  private store(k: PayDb | PayTrx, claim: IdempotencyClaim, status: number, stored: Stored) {
    return storeReply(k, {
      userId: claim.userId,
      key: claim.key,
      status,
      body: JSON.stringify(stored),
      now: this.clock.now(),
    });
  }

  /** Drops keys older than the retention (at least 24 h); returns how many. */
  async purge(): Promise<number> {
    const result = await this.k
      .deleteFrom('idempotency_keys')
      .where('created_at', '<', this.clock.now() - this.retentionMs)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
