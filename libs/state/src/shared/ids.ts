import { randomBytes } from 'node:crypto';
import type { Clock } from './clock.js';

/** Injected id generation: sortable server-minted ids (ULID layout, Crockford base32). */
export interface IdGenerator {
  next(): string;
}

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

export class UlidGenerator implements IdGenerator {
  #lastTime = -1;
  #lastRandom: number[] = [];

  constructor(private readonly clock: Clock) {}

  next(): string {
    const time = this.clock.now();
    let random: number[];
    if (time === this.#lastTime) {
      // Same millisecond: increment the random part, so ids minted by one process stay ordered.
      random = [...this.#lastRandom];
      for (let i = random.length - 1; i >= 0; i--) {
        if (random[i] < 31) {
          random[i]++;
          break;
        }
        random[i] = 0;
      }
    } else {
      const bytes = randomBytes(16);
      random = Array.from(bytes, (byte) => byte & 31);
    }
    this.#lastTime = time;
    this.#lastRandom = random;
    let timePart = '';
    let t = time;
    for (let i = 0; i < 10; i++) {
      timePart = ALPHABET[t % 32] + timePart;
      t = Math.floor(t / 32);
    }
    return timePart + random.map((digit) => ALPHABET[digit]).join('');
  }
}

/** Opaque random secrets (tokens, cookies). */
export const randomSecret = (bytes = 32) => randomBytes(bytes).toString('base64url');
