/** The two hash functions of protocol.md: SHA-256 and (for card encodings, 17.2) SHA-512. */
import { sha256 as nobleSha256, sha512 as nobleSha512 } from "@noble/hashes/sha2.js";
import { ascii, concat } from "./bytes.js";

export function sha256(...parts: Uint8Array[]): Uint8Array {
  return nobleSha256(concat(...parts));
}

export function sha512(...parts: Uint8Array[]): Uint8Array {
  return nobleSha512(concat(...parts));
}

/** SHA-256 of an ASCII tag followed by the parts (every hash of protocol.md is tagged this way). */
export function tagged(tag: string, ...parts: Uint8Array[]): Uint8Array {
  return nobleSha256(concat(ascii(tag), ...parts));
}
