// Live change notifications for SSE. The bus is an interface so that several BFF instances can
// share events through PostgreSQL LISTEN/NOTIFY: such a transport publishes with NOTIFY and
// delivers what it hears to the local listeners exactly as the in-process bus does.
import type { LiveEvent } from '@paydesk/shared/api';

export type EventListener = (event: LiveEvent) => void;

/** Transactions, payouts and payment links: one bus, one `GET /api/events` stream. */
export interface EventBus {
  publish(event: LiveEvent): void;
  /** returns the unsubscribe function */
  subscribe(listener: EventListener): () => void;
  close(): Promise<void>;
}

export class InProcessEventBus implements EventBus {
  readonly #listeners = new Set<EventListener>();

  publish(event: LiveEvent): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener(event);
      } catch {
        // A listener that throws (a closed stream) must not stop delivery to the others.
        this.#listeners.delete(listener);
      }
    }
  }

  subscribe(listener: EventListener): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  get listenerCount(): number {
    return this.#listeners.size;
  }

  close(): Promise<void> {
    this.#listeners.clear();
    return Promise.resolve();
  }
}
