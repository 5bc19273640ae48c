// Named prepared statements on PostgreSQL for the statements the BFF runs over and over (the
// money path's point reads, inserts and updates, the session read): each connection then parses
// and plans them once instead of on every execution. Measured on the money-moving load
// (test/bench/RESULTS-load.md): the database's CPU per capture fell by about 40 %.
import { createHash } from 'node:crypto';
import type { PostgresCursor, PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import type pg from 'pg';

/**
 * Which statement texts get a name. A text is named once it has run `threshold` times, and at
 * most `capacity` texts are named per generation, so each connection holds a bounded set of
 * prepared statements; the rest (rare list filters, one-off maintenance) stay unnamed.
 *
 * A new generation starts when PostgreSQL reports that a prepared statement's result changed
 * shape (another instance migrated the schema, e.g. added a column a `select *` returns): every
 * statement then gets a new name and is prepared again against the current schema.
 */
export class StatementNames {
  readonly #seen = new Map<string, number>();
  readonly #named = new Map<string, string>();
  #generation = 0;

  constructor(
    private readonly threshold = 2,
    private readonly capacity = 200,
    private readonly seenCapacity = 5000,
  ) {}

  nameFor(text: string): string | undefined {
    const named = this.#named.get(text);
    if (named !== undefined || this.#named.size >= this.capacity) return named;
    const count = (this.#seen.get(text) ?? 0) + 1;
    if (count < this.threshold) {
      if (this.#seen.size >= this.seenCapacity) this.#seen.clear();
      this.#seen.set(text, count);
      return undefined;
    }
    this.#seen.delete(text);
    const digest = createHash('sha256').update(text).digest('base64url').slice(0, 22);
    const name = `pd${String(this.#generation)}_${digest}`;
    this.#named.set(text, name);
    return name;
  }

  /** Forgets every name: the next executions prepare afresh under new names. */
  newGeneration(): void {
    this.#generation += 1;
    this.#named.clear();
    this.#seen.clear();
  }

  get generation(): number {
    return this.#generation;
  }
}

/** PostgreSQL's "cached plan must not change result type" (SQLSTATE 0A000). */
function isStalePlan(err: unknown): boolean {
  return (
    err instanceof Error &&
    (err as { code?: unknown }).code === '0A000' &&
    err.message.includes('cached plan must not change result type')
  );
}

const OPENS = /^\s*(begin|start\s+transaction)\b/i;
const CLOSES = /^\s*(commit|rollback|end|abort)\b/i;

/**
 * Marks a statement as its transaction's last (`runWrites(…, { thenCommit: true })`): the client
 * sends COMMIT right behind it, without waiting for its reply, and Kysely's own COMMIT then only
 * waits for that one. Nothing may run in the transaction after it.
 */
export const THEN_COMMIT = '/* then commit */ ';

/**
 * A transaction's first statement when its COMMIT need not wait for the write-ahead log to reach
 * the disk (db/deferred-sync.ts): sent ahead like BEGIN, in the same write as the statement after
 * it, so it costs no round trip. It changes only this transaction's commit.
 */
export const SYNC_LATER = 'set local synchronous_commit to off';

/**
 * An answer Kysely does not read: to a BEGIN whose real answer comes later, and to a ROLLBACK of a
 * transaction that has already ended.
 */
const UNREAD: pg.QueryResult = { command: '', rowCount: null, oid: 0, fields: [], rows: [] };

/** What pg writes its messages to (a `net.Socket`): corked, several messages leave in one write. */
interface Corkable {
  cork(): void;
  uncork(): void;
}

/** The socket of a pg client (`client.connection.stream`, which pg's types do not show). */
function socketOf(client: pg.PoolClient): Corkable | null {
  const stream = (client as unknown as { connection?: { stream?: Partial<Corkable> } }).connection
    ?.stream;
  return typeof stream?.cork === 'function' && typeof stream.uncork === 'function'
    ? (stream as Corkable)
    : null;
}

/**
 * One checkout of a pooled connection, as Kysely's PostgresDialect uses it.
 *
 * On a pipelined connection (pg's `pipeline: true`) a transaction costs two round trips fewer: its
 * BEGIN (and a SYNC_LATER right behind it) goes out at once but is waited for together with the
 * first statement, which follows it on the wire, and a statement marked THEN_COMMIT takes the
 * COMMIT along. The database sees the same statements in the same order as before; only the waits
 * between them are gone. A BEGIN fails only with its connection, and then so does everything sent
 * behind it; a last statement that fails leaves the transaction aborted, so the COMMIT behind it
 * rolls back (PostgreSQL answers it with ROLLBACK) and the caller gets the statement's error.
 */
class PreparingClient implements PostgresPoolClient {
  #inTransaction = false;
  /** Commands sent ahead of the next statement (BEGIN, SYNC_LATER) and not yet waited for. */
  #ahead: Promise<unknown> | null = null;
  /** The COMMIT sent behind the transaction's last statement, for Kysely's COMMIT or ROLLBACK. */
  #ended: Promise<pg.QueryResult> | null = null;
  readonly #socket: Corkable | null;
  /** Messages held in the socket (corked) to leave together with the next ones. */
  #corked = false;

  constructor(
    private readonly client: pg.PoolClient,
    private readonly names: StatementNames,
  ) {
    this.#socket = socketOf(client);
  }

  query<R>(sql: string, parameters: readonly unknown[]): Promise<PostgresQueryResult<R>>;
  query<R>(cursor: PostgresCursor<R>): PostgresCursor<R>;
  query<R>(
    what: string | PostgresCursor<R>,
    parameters?: readonly unknown[],
  ): Promise<PostgresQueryResult<R>> | PostgresCursor<R> {
    if (typeof what !== 'string') {
      const client = this.client as unknown as { query(c: PostgresCursor<R>): PostgresCursor<R> };
      return client.query(what);
    }
    return this.run(what, parameters === undefined ? [] : [...parameters]) as Promise<
      PostgresQueryResult<R>
    >;
  }

  private run(text: string, values: unknown[]): Promise<pg.QueryResult> {
    const ended = this.#ended;
    if (ended !== null) {
      if (!CLOSES.test(text)) {
        return Promise.reject(
          new Error('a statement after the one that ended its transaction (THEN_COMMIT)'),
        );
      }
      // COMMIT gets that COMMIT's own answer (ROLLBACK when the last statement failed); ROLLBACK
      // has nothing left to undo.
      this.#ended = null;
      return /^\s*commit\b/i.test(text)
        ? ended
        : ended.then(
            () => UNREAD,
            () => UNREAD,
          );
    }
    if (values.length === 0 && OPENS.test(text)) {
      this.#inTransaction = true;
      return this.aheadOfNext(text);
    }
    if (values.length === 0 && this.#inTransaction && text === SYNC_LATER) {
      return this.aheadOfNext(text);
    }
    if (values.length === 0 && CLOSES.test(text)) this.#inTransaction = false;
    const endsTransaction = this.#inTransaction && text.startsWith(THEN_COMMIT);
    if (endsTransaction) this.cork();
    // Sent now, in order behind a BEGIN still on its way.
    const result = values.length === 0 ? this.send({ text, values }) : this.execute(text, values);
    if (endsTransaction) {
      this.#inTransaction = false;
      this.#ended = this.sendAhead('commit'); // waited for by Kysely's COMMIT or ROLLBACK
    }
    this.uncork();
    return this.afterAhead(result);
  }

  /**
   * Sends a command that leaves in one write with the next statement, which is sent in the same
   * turn of the event loop (or, should none be, at the end of that turn) and waits for its answer.
   */
  private aheadOfNext(text: string): Promise<pg.QueryResult> {
    this.cork();
    const sent = this.sendAhead(text);
    const before = this.#ahead;
    const ahead = before === null ? sent : Promise.all([before, sent]);
    ahead.catch(() => undefined);
    this.#ahead = ahead;
    return Promise.resolve(UNREAD);
  }

  /** Holds what is sent next in the socket until `uncork`, at the latest until this turn ends. */
  private cork(): void {
    if (this.#corked || this.#socket === null) return;
    this.#corked = true;
    this.#socket.cork();
    process.nextTick(() => {
      this.uncork();
    });
  }

  /** Sends what the socket holds, in one write. */
  private uncork(): void {
    if (!this.#corked) return;
    this.#corked = false;
    this.#socket?.uncork();
  }

  /** A command sent now whose answer (or error) is waited for later, by whoever needs it. */
  private sendAhead(text: string): Promise<pg.QueryResult> {
    const sent = this.send({ text, values: [] });
    sent.catch(() => undefined);
    return sent;
  }

  /** `result` once the commands sent ahead of it (if any) have been answered too. */
  private async afterAhead(result: Promise<pg.QueryResult>): Promise<pg.QueryResult> {
    const ahead = this.#ahead;
    if (ahead === null) return result;
    this.#ahead = null;
    try {
      await ahead;
    } catch (err) {
      result.catch(() => undefined);
      throw err;
    }
    return result;
  }

  /** A parameterized statement, named once it has run often enough. */
  private async execute(text: string, values: unknown[]): Promise<pg.QueryResult> {
    const name = this.names.nameFor(text);
    if (name === undefined) return this.send({ text, values });
    // As it is when sent: a THEN_COMMIT statement ends the transaction before its reply comes.
    const inTransaction = this.#inTransaction;
    try {
      return await this.send({ name, text, values });
    } catch (err) {
      if (!isStalePlan(err)) throw err;
      if (this.names.generation === generationOf(name)) this.names.newGeneration();
      // Inside a transaction the error has aborted it: the caller's transaction fails (and rolls
      // back) once; outside one, the statement simply runs again, unnamed.
      if (inTransaction) throw err;
      return this.send({ text, values });
    }
  }

  /**
   * pg's callback form, wrapped in a promise of our own: with pg's promise form, the rows of nearly
   * every result survive two scavenges and are promoted to V8's old space as garbage (measured:
   * 618 MB promoted during a 1,000,000-row export, 16 MB this way; test/bench/RESULTS-payments.md).
   */
  private send(config: pg.QueryConfig<unknown[]>): Promise<pg.QueryResult> {
    return new Promise((resolve, reject) => {
      const done = (err: Error | null, result: pg.QueryResult) => {
        if (err) reject(err);
        else resolve(result);
      };
      // An unnamed statement as text and values: pg then skips copying the config object.
      if (config.name === undefined) this.client.query(config.text, config.values ?? [], done);
      else this.client.query(config, done);
    });
  }

  release(destroy?: boolean): void {
    this.uncork();
    this.client.release(destroy);
  }
}

function generationOf(name: string): number {
  return Number(name.slice(2, name.indexOf('_')));
}

/**
 * The pool as Kysely's PostgresDialect sees it, handing out clients that name hot statements
 * (none with `prepare` false: a capacity of 0 names nothing).
 */
export function preparingPool(
  pool: pg.Pool,
  prepare = true,
  names = prepare ? new StatementNames() : new StatementNames(2, 0),
): PostgresPool {
  return {
    options: pool.options,
    connect: async () => new PreparingClient(await pool.connect(), names),
    end: () => pool.end(),
  };
}
