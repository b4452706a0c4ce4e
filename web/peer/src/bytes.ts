/** Byte strings: hex, concatenation, big-endian integers, comparison. */

const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, "0"));

export function hex(bytes: Uint8Array): string {
  let out = "";
  for (let i = 0; i < bytes.length; i++) out += HEX[bytes[i] as number] as string;
  return out;
}

export function fromHex(text: string): Uint8Array {
  if (text.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(text)) throw new Error(`not hex: ${text.slice(0, 40)}`);
  const out = new Uint8Array(text.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(text.slice(2 * i, 2 * i + 2), 16);
  return out;
}

const encoder = new TextEncoder();

export function ascii(text: string): Uint8Array {
  return encoder.encode(text);
}

export function concat(...parts: Uint8Array[]): Uint8Array {
  let size = 0;
  for (const p of parts) size += p.length;
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** The buffer `joinedForNow` fills: grown as needed, never shrunk below a message's size. */
let scratch = new Uint8Array(1024);

/** The parts one after the other, in a buffer the next call fills again: for bytes read at once and dropped (a hash's
 * input, a signature check's), with no new buffer each time (a few hundred bytes to allocate and free cost more than
 * hashing them). */
export function joinedForNow(parts: readonly Uint8Array[]): Uint8Array {
  let size = 0;
  for (let i = 0; i < parts.length; i++) size += (parts[i] as Uint8Array).length; // (indexed: no iterator to compile)
  if (size > scratch.length) scratch = new Uint8Array(Math.max(size, 2 * scratch.length));
  let at = 0;
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i] as Uint8Array;
    scratch.set(p, at);
    at += p.length;
  }
  return scratch.subarray(0, size);
}

/** `value` as `size` bytes, big-endian (0 ≤ value < 2^(8·size); a bigint of any size: a link secret's 16 bytes). */
export function uintBE(value: number | bigint, size: number): Uint8Array {
  if (typeof value === "number" && size <= 4 && Number.isInteger(value) && value >= 0 && value < 2 ** (8 * size)) {
    const out = new Uint8Array(size); // a length or an index (u16, u32: every frame and commitment): no BigInt
    for (let i = size - 1, n = value; i >= 0; i--, n >>>= 8) out[i] = n & 0xff;
    return out;
  }
  let v = BigInt(value);
  if (v < 0n || v >= 1n << BigInt(8 * size)) throw new RangeError(`${value} does not fit in ${size} bytes`);
  const out = new Uint8Array(size);
  for (let i = size - 1; i >= 0; i--) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

/** `value` as 2 bytes big-endian (every commitment's lengths): uintBE's bytes, without its BigInt path to compile. */
export function u16(value: number): Uint8Array {
  if (!(Number.isInteger(value) && value >= 0 && value < 0x10000)) return uintBE(value, 2); // (its error)
  const out = new Uint8Array(2);
  out[0] = value >>> 8;
  out[1] = value & 0xff;
  return out;
}

/** `value` as 4 bytes big-endian (frames, a round's seed): uintBE's bytes, without its BigInt path to compile. */
export function u32(value: number): Uint8Array {
  if (!(Number.isInteger(value) && value >= 0 && value < 0x100000000)) return uintBE(value, 4); // (its error)
  const out = new Uint8Array(4);
  out[0] = value >>> 24;
  out[1] = (value >>> 16) & 0xff;
  out[2] = (value >>> 8) & 0xff;
  out[3] = value & 0xff;
  return out;
}
/** `value` as 8 bytes big-endian (the shuffle's counter): uintBE's bytes, its BigInt path left for what needs it. */
export function u64(value: number | bigint): Uint8Array {
  if (!(typeof value === "number" && Number.isSafeInteger(value) && value >= 0)) return uintBE(value, 8);
  const out = new Uint8Array(8);
  const high = Math.floor(value / 0x100000000);
  const low = value >>> 0;
  out[0] = high >>> 24;
  out[1] = (high >>> 16) & 0xff;
  out[2] = (high >>> 8) & 0xff;
  out[3] = high & 0xff;
  out[4] = low >>> 24;
  out[5] = (low >>> 16) & 0xff;
  out[6] = (low >>> 8) & 0xff;
  out[7] = low & 0xff;
  return out;
}

export function equal(a: Uint8Array, b: Uint8Array): boolean {
  const n = a.length; // (read once: in V8's baseline code a typed array's length is a getter's call at every read)
  if (n !== b.length) return false;
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** `equal` for long byte strings (a wire of a few hundred bytes), by the platform's compare where one is set
 * (`useSameBytes`: node's memcmp, 50 ns where the loop above, in the baseline code a node runs a 4-round game in,
 * takes a few µs); else `equal`. */
let sameBytesOf: (a: Uint8Array, b: Uint8Array) => boolean = equal;

/** Compare long byte strings with `fn` from now on; it must answer as `equal` does. */
export function useSameBytes(fn: (a: Uint8Array, b: Uint8Array) => boolean): void {
  sameBytesOf = fn;
}

export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return sameBytesOf(a, b);
}

/** Byte-wise order: negative, zero or positive as a sorts before, with or after b. */
export function compare(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const d = (a[i] as number) - (b[i] as number);
    if (d !== 0) return d;
  }
  return a.length - b.length;
}

/** A little-endian integer of any length. */
export function leToBigInt(bytes: Uint8Array): bigint {
  if (bytes.length === 0) return 0n;
  let digits = "0x"; // one BigInt parsed from hex: half the cost of a shift and an or a byte
  for (let i = bytes.length - 1; i >= 0; i--) digits += HEX[bytes[i] as number] as string;
  return BigInt(digits);
}

export function bigIntToLE(value: bigint, size: number): Uint8Array {
  const out = new Uint8Array(size);
  let v = value;
  for (let i = 0; i < size; i++) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  if (v !== 0n) throw new RangeError(`${value} does not fit in ${size} bytes`);
  return out;
}
