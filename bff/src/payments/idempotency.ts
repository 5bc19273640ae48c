// Idempotency-Key per the IETF httpapi draft: a key is the user's (scoped to them), bound to the
// request it first came with (hash), and answers a repeat with the stored reply. The database's
// primary key (user_id, key) decides which of two concurrent requests runs; the other gets 409.
import { createHash } from 'node:crypto';
import { IdempotencyKeySchema, type ErrorCode, type ErrorDetails } from '@paydesk/shared/api';
import type { Clock } from '../clock.js';
import { AppError } from '../errors.js';
import { canonicalJson } from '../services/redact.js';
import type { PayDb } from './db.js';

type Stored =
  | { kind: 'ok'; status: number; body: unknown }
  | { kind: 'error'; code: ErrorCode; message: string; details: ErrorDetails | null };

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

  async run(
    userId: string,
    key: string | undefined,
    route: string,
    body: unknown,
    work: () => Promise<{ status: number; body: unknown }>,
  ): Promise<IdempotentReply> {
    if (key === undefined || key === '') {
      throw new AppError(
        'IDEMPOTENCY_KEY_MISSING',
        'this request moves money: send an Idempotency-Key header (a fresh UUID per intended operation)',
        {
          fields: [{ path: 'header.Idempotency-Key', rule: 'required', message: 'required' }],
        },
      );
    }
    const parsed = IdempotencyKeySchema.safeParse(key);
    if (!parsed.success) {
      const message = parsed.error.issues[0]?.message ?? 'invalid';
      throw new AppError('VALIDATION_FAILED', `header.Idempotency-Key: ${message}`, {
        fields: [{ path: 'header.Idempotency-Key', rule: 'format', message }],
      });
    }
    const hash = Idempotency.requestHash(route, body);
    const now = this.clock.now();
    await this.k
      .deleteFrom('idempotency_keys')
      .where('user_id', '=', userId)
      .where('key', '=', key)
      .where('created_at', '<', now - this.retentionMs)
      .execute();
    const inserted = await this.k
      .insertInto('idempotency_keys')
      .values({
        user_id: userId,
        key,
        route,
        request_hash: hash,
        state: 'in_flight',
        reply_status: null,
        reply_body: null,
        created_at: now,
        completed_at: null,
      })
      .onConflict((oc) => oc.columns(['user_id', 'key']).doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 0) {
      const existing = await this.k
        .selectFrom('idempotency_keys')
        .selectAll()
        .where('user_id', '=', userId)
        .where('key', '=', key)
        .executeTakeFirst();
      if (existing === undefined) {
        throw new AppError(
          'IDEMPOTENCY_IN_FLIGHT',
          'a request with this Idempotency-Key just finished or expired; try again',
        );
      }
      if (existing.request_hash !== hash) {
        throw new AppError(
          'IDEMPOTENCY_KEY_REUSED',
          'this Idempotency-Key was already used for a different request; use a fresh key',
        );
      }
      if (existing.state !== 'done' || existing.reply_body === null) {
        throw new AppError(
          'IDEMPOTENCY_IN_FLIGHT',
          'a request with this Idempotency-Key is still being processed; wait for it',
        );
      }
      const stored = JSON.parse(existing.reply_body) as Stored;
      if (stored.kind === 'error')
        throw new AppError(stored.code, stored.message, stored.details ?? undefined);
      return { status: stored.status, body: stored.body, replayed: true };
    }

    let reply: { status: number; body: unknown };
    try {
      reply = await work();
    } catch (err) {
      if (releasesKey(err)) {
        await this.k
          .deleteFrom('idempotency_keys')
          .where('user_id', '=', userId)
          .where('key', '=', key)
          .execute();
      } else if (err instanceof AppError) {
        await this.finish(userId, key, err.status, {
          kind: 'error',
          code: err.code,
          message: err.message,
          details: err.details ?? null,
        });
      }
      throw err;
    }
    await this.finish(userId, key, reply.status, {
      kind: 'ok',
      status: reply.status,
      body: reply.body,
    });
    return { ...reply, replayed: false };
  }

  private async finish(userId: string, key: string, status: number, stored: Stored): Promise<void> {
    await this.k
      .updateTable('idempotency_keys')
      .set({
        state: 'done',
        reply_status: status,
        reply_body: JSON.stringify(stored),
        completed_at: this.clock.now(),
      })
      .where('user_id', '=', userId)
      .where('key', '=', key)
      .execute();
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
