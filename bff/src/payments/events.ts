// Live change notifications for SSE. The bus is an interface so that several BFF instances can
// share events through PostgreSQL LISTEN/NOTIFY: such a transport publishes with NOTIFY and
// delivers what it hears to the local listeners exactly as the in-process bus does.
import type { LiveEvent } from '@paydesk/shared/api';

export type EventListener = (event: LiveEvent) => void;

/** Transactions, payouts and payment links: one bus, one `GET /api/events` stream. */
export interface EventBus {
  publish(event: LiveEvent): void;
  /**
   * Returns the unsubscribe function. `missed` is called when events may have gone by unheard
   * (a transport that lost its connection and has it back): whoever shows them should catch up.
   */
  subscribe(listener: EventListener, missed?: () => void): () => void;
  close(): Promise<void>;
}

/**
 * The live-event streams open on this instance, per session, at most `limit` each: a browser needs
 * one (its tabs share it), so more is a leak or an attack holding connections and listeners.
 */
export class StreamSlots {
  readonly #open = new Map<string, number>();
  /** how each open stream is ended at shutdown */
  readonly #enders = new Set<() => void>();
  #closed = false;
  constructor(readonly limit: number) {}

  /** True once `endAll` ran: the instance is stopping and opens no more streams. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Registers how an open stream is ended at shutdown; returns the function that forgets it. */
  track(end: () => void): () => void {
    this.#enders.add(end);
    return () => {
      this.#enders.delete(end);
    };
  }

  /**
   * Shutdown: ends every open stream and refuses new ones. A stream waits for events, not for an
   * answer, so it would hold `server.close()` until the shutdown timeout; ended, its browser
   * reconnects (to another instance, or to this one once it is back) and catches up.
   */
  endAll(): void {
    this.#closed = true;
    for (const end of [...this.#enders]) end();
    this.#enders.clear();
  }

  /** One more stream for `sessionId`: the function that gives the slot back, or null when full. */
  take(sessionId: string): (() => void) | null {
    const open = this.#open.get(sessionId) ?? 0;
    if (open >= this.limit) return null;
    this.#open.set(sessionId, open + 1);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      const left = (this.#open.get(sessionId) ?? 1) - 1;
      if (left > 0) this.#open.set(sessionId, left);
      else this.#open.delete(sessionId);
    };
  }
}

export class InProcessEventBus implements EventBus {
  /** each listener with its `missed` callback */
  readonly #listeners = new Map<EventListener, (() => void) | undefined>();

  publish(event: LiveEvent): void {
    for (const listener of [...this.#listeners.keys()]) {
      try {
        listener(event);
      } catch {
        // A listener that throws (a closed stream) must not stop delivery to the others.
        this.#listeners.delete(listener);
      }
    }
  }

  subscribe(listener: EventListener, missed?: () => void): () => void {
    this.#listeners.set(listener, missed);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  /** Tells every listener that events may have gone by unheard (see EventBus.subscribe). */
  missed(): void {
    for (const [listener, missed] of [...this.#listeners]) {
      try {
        missed?.();
      } catch {
        this.#listeners.delete(listener);
      }
    }
  }

  get listenerCount(): number {
    return this.#listeners.size;
  }

  close(): Promise<void> {
    this.#listeners.clear();
    return Promise.resolve();
  }
}
