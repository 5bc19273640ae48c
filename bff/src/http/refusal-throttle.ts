// Which refusals of unidentified clients reach the audit log. The log is append-only and can never
// be cleaned, so requests anyone can send (no session, no CSRF header) must not grow it without
// bound: per client and refusal code, one row per window, carrying how many were left out since
// the previous one; the rest go to the application log only.
import { isIPv6 } from 'node:net';
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';

export interface RefusalThrottleOptions {
  /** at most one audit row per client and refusal code within this many milliseconds */
  windowMs: number;
  /** how many clients are remembered (least recently seen forgotten first) */
  maxClients: number;
}

export const DEFAULT_REFUSAL_THROTTLE: RefusalThrottleOptions = {
  windowMs: 60_000,
  maxClients: 10_000,
};

export type RefusalVerdict =
  /** audit this one; `suppressed` were left out since the previous row of this client and code */
  { audit: true; suppressed: number } | { audit: false };

/**
 * The client an address stands for: an IPv6 client holds a whole /64 (one address each would let
 * it write as many rows as it likes), an IPv4-mapped IPv6 address is its IPv4 address.
 */
export function clientKey(ip: string | null): string {
  if (ip === null || ip === '') return 'unknown';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped?.[1] !== undefined) return mapped[1];
  const address = ip.split('%')[0] ?? ip;
  if (!isIPv6(address)) return address;
  const [head = '', tail] = address.toLowerCase().split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = [
    ...left,
    ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'),
    ...right,
  ];
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

export class RefusalThrottle {
  readonly #clock: Clock;
  readonly #options: RefusalThrottleOptions;
  /** in least-recently-seen order (a Map keeps insertion order; a hit is moved to the end) */
  readonly #entries = new Map<string, { auditedAt: number; suppressed: number }>();

  constructor(clock: Clock, options: Partial<RefusalThrottleOptions> = {}) {
    this.#clock = clock;
    this.#options = { ...DEFAULT_REFUSAL_THROTTLE, ...options };
  }

  /** Counts one refusal of `code` to the client at `ip` and says whether it is audited. */
  admit(ip: string | null, code: string): RefusalVerdict {
    const now = this.#clock.now();
    const key = `${clientKey(ip)} ${code}`;
    const entry = this.#entries.get(key);
    if (entry !== undefined) {
      this.#entries.delete(key);
      this.#entries.set(key, entry);
      if (now - entry.auditedAt < this.#options.windowMs) {
        entry.suppressed += 1;
        return { audit: false };
      }
      const suppressed = entry.suppressed;
      entry.auditedAt = now;
      entry.suppressed = 0;
      return { audit: true, suppressed };
    }
    this.#entries.set(key, { auditedAt: now, suppressed: 0 });
    while (this.#entries.size > this.#options.maxClients) {
      const oldest = this.#entries.keys().next();
      if (oldest.done === true) break;
      this.#entries.delete(oldest.value);
    }
    return { audit: true, suppressed: 0 };
  }

  /**
   * The audit summary of an unidentified client's refusal of `code` (`summary`, with
   * `suppressedSinceLast` when rows were left out since this client's last), or null when the
   * window holds it back: it is then only logged, at info. For every such refusal, the API
   * runner's and the gateway callback receiver's alike.
   */
  summaryToAudit(
    refusal: { ip: string | null; code: string; requestId: string; action: string },
    summary: Record<string, unknown>,
    logger: Logger,
  ): Record<string, unknown> | null {
    const { ip, code, requestId, action } = refusal;
    const verdict = this.admit(ip, code);
    if (!verdict.audit) {
      logger.info(
        { requestId, action, code, ip },
        'refusal of an unidentified client not audited (one row per client and code per window)',
      );
      return null;
    }
    return verdict.suppressed > 0
      ? { ...summary, suppressedSinceLast: verdict.suppressed }
      : summary;
  }

  /** how many client and code pairs are remembered */
  get size(): number {
    return this.#entries.size;
  }
}
