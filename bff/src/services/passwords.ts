import { hash, verify } from '@node-rs/argon2';
import type { Config } from '../config.js';

/** argon2id (the library default algorithm) with the configured cost. */
export class Passwords {
  readonly #options: { memoryCost: number; timeCost: number; parallelism: number };
  #dummy: Promise<string> | null = null;
  constructor(cost: Config['argon2']) {
    this.#options = {
      memoryCost: cost.memoryKib,
      timeCost: cost.timeCost,
      parallelism: cost.parallelism,
    };
  }
  hash(password: string): Promise<string> {
    return hash(password, this.#options);
  }
  async verify(passwordHash: string, password: string): Promise<boolean> {
    try {
      return await verify(passwordHash, password);
    } catch {
      return false;
    }
  }
  /**
   * Verifies against a hash of a random password with the same cost, so an unknown e-mail takes as
   * long as a wrong password.
   */
  async verifyDummy(password: string): Promise<void> {
    this.#dummy ??= this.hash(`dummy-${crypto.randomUUID()}`);
    await this.verify(await this.#dummy, password);
  }
}
