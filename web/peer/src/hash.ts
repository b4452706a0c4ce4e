/** The two hash functions of protocol.md: SHA-256 and (for card encodings, 17.2) SHA-512. */
import { sha256 as nobleSha256, sha512 as nobleSha512 } from "@noble/hashes/sha2.js";
import { ascii, concat, joinedForNow } from "./bytes.js";

/** SHA-256 of one byte string: @noble/hashes', or node's OpenSSL (cli.ts: `node peer.js verify`, the tests' node
 * seats), several times faster on a SEALED_SHUFFLE's 3.5 KB. It reads its input at once and keeps none of it (the
 * parts are joined in a buffer the next hash reuses). */
let sha256Of: (data: Uint8Array) => Uint8Array = nobleSha256;

/** Hash with `fn` from now on; it must be SHA-256. */
export function useSha256(fn: (data: Uint8Array) => Uint8Array): void {
  sha256Of = fn;
}

export function sha256(...parts: Uint8Array[]): Uint8Array {
  return sha256Of(parts.length === 1 ? parts[0] as Uint8Array : joinedForNow(parts));
}

/** SHA-512 (the card encodings' hash-to-curve, some 210 hashes once a process): @noble/hashes', or node's. */
let sha512Of: (data: Uint8Array) => Uint8Array = nobleSha512;

/** Hash with `fn` from now on; it must be SHA-512. */
export function useSha512(fn: (data: Uint8Array) => Uint8Array): void {
  sha512Of = fn;
}

export function sha512(...parts: Uint8Array[]): Uint8Array {
  return sha512Of(concat(...parts));
}

/** The bytes of the tags hashed so far (a handful of constants): not encoded again at every hash. */
const tags = new Map<string, Uint8Array>();

/** SHA-256 of an ASCII tag followed by the parts (every hash of protocol.md is tagged this way). */
export function tagged(tag: string, ...parts: Uint8Array[]): Uint8Array {
  let bytes = tags.get(tag);
  if (!bytes) {
    bytes = ascii(tag);
    if (tags.size < 64) tags.set(tag, bytes);
  }
  parts.unshift(bytes);
  return sha256Of(joinedForNow(parts));
}
