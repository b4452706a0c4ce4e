/** The shuffle of section 3.1: a SHA-256 counter stream, rejection sampling, Fisher-Yates from the top. */
import { u64 } from "./bytes.js";
import { tagged } from "./hash.js";

const TAG = "p2pnimmt/shuffle/v1";
const TWO_32 = 2 ** 32;

/** The stream of 4-byte big-endian words of SHA-256(TAG || seed || counter), counter = 0, 1, ... */
export class WordStream {
  private counter = 0;
  private block: Uint8Array = new Uint8Array(0);
  private at = 0;

  constructor(private readonly seed: Uint8Array) {
    if (seed.length !== 32) throw new RangeError(`a shuffle seed is 32 bytes, not ${seed.length}`);
  }

  next(): number {
    if (this.at >= this.block.length) this.refill();
    const b = this.block;
    const i = this.at;
    this.at += 4;
    return (((b[i] as number) << 24) >>> 0) + ((b[i + 1] as number) << 16) + ((b[i + 2] as number) << 8) + (b[i + 3] as number);
  }

  /** The next block of the stream (once every 8 words: left out of next, which the shuffle's loop inlines). */
  private refill(): void {
    this.block = tagged(TAG, this.seed, u64(this.counter));
    this.counter += 1;
    this.at = 0;
  }

  /** A uniform integer in 0..m-1 (1 ≤ m ≤ 2^32) with no modulo bias. */
  uniform(m: number): number {
    if (!Number.isInteger(m) || m < 1 || m > TWO_32) throw new RangeError(`uniform(${m}) needs 1 <= m <= 2^32`);
    const limit = TWO_32 - (TWO_32 % m);
    for (;;) {
      const x = this.next();
      if (x < limit) return x % m;
    }
  }
}

/** The items in the order the seed gives (a new array; the input is left as it is). */
export function shuffle<T>(seed: Uint8Array, items: readonly T[]): T[] {
  const out = items.slice();
  const words = new WordStream(seed);
  for (let i = out.length - 1; i >= 1; i--) {
    const j = words.uniform(i + 1);
    const held = out[i] as T;
    out[i] = out[j] as T;
    out[j] = held;
  }
  return out;
}
