import { OAUTH_TIMESTAMP_WINDOW_SECONDS } from '@paydesk/shared/protocol';
/** OAuth nonces seen within the timestamp window, per consumer key (on real time, like the window). */
export class NonceStore {
  private readonly seen = new Map<string, number>();

  constructor(private readonly realNow: () => number = Date.now) {}

  /** Records the nonce; true when it was already used (a replay). */
  readonly check = (consumerKey: string, nonce: string, timestamp: number): boolean => {
    const key = `${consumerKey}\n${nonce}`;
    if (this.seen.has(key)) return true;
    if (this.seen.size >= 10_000) this.prune();
    this.seen.set(key, timestamp);
    return false;
  };

  private prune(): void {
    const oldest = Math.floor(this.realNow() / 1000) - 2 * OAUTH_TIMESTAMP_WINDOW_SECONDS;
    for (const [key, ts] of this.seen) if (ts < oldest) this.seen.delete(key);
  }

  clear(): void {
    this.seen.clear();
  }
}
