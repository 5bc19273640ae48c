// Events across BFF instances on PostgreSQL: publish is NOTIFY on one channel, and every instance
// (the publisher too) LISTENs on a dedicated connection and hands what it hears to its local
// listeners, so a screen connected to any instance sees changes made through any other.
import pg from 'pg';
import { TransactionEventSchema, type TransactionEvent } from '@paydesk/shared/api';
import type { Logger } from 'pino';
import { InProcessEventBus, type EventBus, type EventListener } from './events.js';

export const EVENTS_CHANNEL = 'paydesk_transaction_events';

export class PgNotifyEventBus implements EventBus {
  readonly #local = new InProcessEventBus();
  #closed = false;

  private constructor(
    private readonly listener: pg.Client,
    private readonly publisher: pg.Pool,
    private readonly logger: Logger,
  ) {}

  static async connect(url: string, logger: Logger): Promise<PgNotifyEventBus> {
    const listener = new pg.Client({ connectionString: url });
    await listener.connect();
    const publisher = new pg.Pool({ connectionString: url, max: 2 });
    publisher.on('error', (err) => {
      logger.warn({ err }, 'an idle event-publisher connection failed');
    });
    const bus = new PgNotifyEventBus(listener, publisher, logger);
    listener.on('notification', (message) => {
      bus.#deliver(message.channel, message.payload);
    });
    listener.on('error', (err) => {
      logger.error(
        { err },
        'the event listener connection failed; live updates from other instances stop',
      );
    });
    await listener.query(`listen ${EVENTS_CHANNEL}`);
    return bus;
  }

  #deliver(channel: string, payload: string | undefined): void {
    if (channel !== EVENTS_CHANNEL || payload === undefined) return;
    let parsed: TransactionEvent;
    try {
      parsed = TransactionEventSchema.parse(JSON.parse(payload));
    } catch {
      this.logger.warn('ignored a malformed transaction event notification');
      return;
    }
    this.#local.publish(parsed);
  }

  publish(event: TransactionEvent): void {
    if (this.#closed) return;
    this.publisher
      .query('select pg_notify($1, $2)', [EVENTS_CHANNEL, JSON.stringify(event)])
      .catch((err: unknown) => {
        this.logger.warn({ err }, 'could not publish a transaction event');
      });
  }

  subscribe(listener: EventListener): () => void {
    return this.#local.subscribe(listener);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#local.close();
    await this.listener.end();
    await this.publisher.end();
  }
}
