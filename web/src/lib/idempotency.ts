// Money-moving requests carry an Idempotency-Key. A dialog creates its key when it opens and sends
// the same key with every retry of the same request, so a double click, a lost reply or a retry
// can never move money twice: the BFF answers a repeat with the stored reply.
import { useState } from 'react';
import { isApiError } from './api-client';

/**
 * Whether the outcome of a failed request is unknown (no reply, or the server could not finish):
 * then the only safe next step is to send the very same request again with the very same key.
 */
export function isOutcomeUnknown(error: unknown): boolean {
  if (!isApiError(error)) return true;
  switch (error.code) {
    case 'NETWORK_ERROR':
    case 'BAD_RESPONSE':
    case 'IDEMPOTENCY_IN_FLIGHT':
    case 'GATEWAY_UNAVAILABLE':
    case 'SERVICE_UNAVAILABLE':
    case 'INTERNAL':
      return true;
    default:
      return false;
  }
}

export class IdempotencyKeeper {
  #key: string;
  #sentBody: string | null = null;

  constructor(private readonly newKey: () => string = () => crypto.randomUUID()) {
    this.#key = newKey();
  }

  /**
   * The key for sending `body`: the same key as before for the same body (a retry); a fresh one
   * for a different body, which the dialog only allows after a definite answer (the BFF keeps a
   * key bound to the request it first came with and would refuse it for another).
   */
  keyFor(body: unknown): string {
    const text = JSON.stringify(body);
    if (this.#sentBody !== null && this.#sentBody !== text) this.#key = this.newKey();
    this.#sentBody = text;
    return this.#key;
  }
}

/** One keeper per dialog instance, created when the dialog mounts (opens). */
export function useIdempotencyKeeper(): IdempotencyKeeper {
  const [keeper] = useState(() => new IdempotencyKeeper());
  return keeper;
}
