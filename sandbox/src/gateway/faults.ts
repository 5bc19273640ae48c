import { z } from 'zod';

/**
 * What happens to callbacks (server_callback_url) while a fault is set: `normal` delivers each
 * once; `duplicate` delivers each twice (two deliveries of the same parameters, at once);
 * `reverse` holds them until the callbacks fault is lifted, then delivers them newest first, one
 * after another; `drop` never delivers them (the log keeps them as `dropped`).
 */
export const CALLBACK_FAULTS = ['normal', 'duplicate', 'reverse', 'drop'] as const;
export type CallbackFault = (typeof CALLBACK_FAULTS)[number];

export const faultsSchema = z
  .object({
    errorRate: z.number().min(0).max(1).default(0),
    latencyMs: z.number().int().min(0).max(60_000).default(0),
    hold: z.boolean().default(false),
    dropResponseRate: z.number().min(0).max(1).default(0),
    operations: z.array(z.string().min(1)).default([]),
    callbacks: z.enum(CALLBACK_FAULTS).default('normal'),
  })
  .strict();

export type Faults = z.infer<typeof faultsSchema>;

export const NO_FAULTS: Faults = {
  errorRate: 0,
  latencyMs: 0,
  hold: false,
  dropResponseRate: 0,
  operations: [],
  callbacks: 'normal',
};

export function affects(faults: Faults, operation: string): boolean {
  return faults.operations.length === 0 || faults.operations.includes(operation);
}

/** A request waiting out `latencyMs` or `hold`: received, not yet handled (so not yet applied). */
export interface DelayedRequest {
  operation: string;
  /** the request's `orderid` and `client_orderid` fields, when it sent them */
  orderid?: string;
  clientOrderid?: string;
  /** ISO time it arrived (real time) */
  since: string;
}

/**
 * The requests currently held by `latencyMs` or `hold` (`GET /sandbox/faults/delayed`), and the
 * gate the held ones wait at until a faults change lifts `hold`.
 */
export class DelayedRequests {
  readonly #items = new Map<number, DelayedRequest>();
  #next = 0;
  #gate: PromiseWithResolvers<undefined> | null = null;

  /** Resolves when `release` is next called. */
  released(): Promise<undefined> {
    this.#gate ??= Promise.withResolvers<undefined>();
    return this.#gate.promise;
  }

  /** Lets every held request go on. */
  release(): void {
    this.#gate?.resolve(undefined);
    this.#gate = null;
  }

  /** Records a delayed request; call the returned function once its wait is over. */
  add(
    operation: string,
    order: Pick<DelayedRequest, 'orderid' | 'clientOrderid'> = {},
  ): () => void {
    const id = this.#next++;
    this.#items.set(id, { operation, ...order, since: new Date().toISOString() });
    return () => {
      this.#items.delete(id);
    };
  }

  list(): DelayedRequest[] {
    return [...this.#items.values()];
  }
}
