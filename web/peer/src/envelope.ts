/**
 * Signed messages (section 8): wire = msgpack [signed: bin, signature: bin(64)],
 * signed = msgpack [version 1, game: bin(16), sender: bin(16), seq, prev: bin(32), kind: str, body: map].
 * Signature: Ed25519 over "p2pnimmt/message/v1" || signed; the message hash: SHA-256(signed).
 */
import { ascii, joinedForNow } from "./bytes.js";
import { decode, DecodeError, type Encodable, encode, MAX_MESSAGE, type MsgMap, NotCanonical, pyValueRepr, type Value } from "./codec.js";
import { sha256 } from "./hash.js";
import { GAME_ID_SIZE, type Identity, PEER_ID_SIZE, SIGNATURE_SIZE, verify } from "./identity.js";
import type { Ids } from "./ids.js";

export const VERSION = 1;
export const HASH_SIZE = 32;
export const NO_PREVIOUS = new Uint8Array(HASH_SIZE);
const SIGN_TAG = ascii("p2pnimmt/message/v1");

export interface Envelope {
  readonly version: number;
  readonly game: Uint8Array;
  readonly sender: Uint8Array;
  readonly seq: number;
  readonly prev: Uint8Array;
  readonly kind: string;
  readonly body: MsgMap;
  readonly signed: Uint8Array;
  readonly signature: Uint8Array;
  readonly wire: Uint8Array;
  readonly hash: Uint8Array;
}

/** Sign a new message; `body` fields are encoded in the order given. `ids`: the node's table of ids met (its game
 * and sender ids are kept as those copies), or none. */
export function seal(identity: Identity, game: Uint8Array, seq: number, prev: Uint8Array, kind: string,
  body: ReadonlyMap<string, Encodable> | { readonly [key: string]: Encodable }, ids: Ids | null = null): Envelope {
  const signed = encode([VERSION, game, identity.peer, seq, prev, kind, body]);
  const signature = identity.sign(joinedForNow([SIGN_TAG, signed])); // read at once, not kept
  return openOwn(kept(encode([signed, signature])), ids);
}

/** Opened messages' bytes are kept in slabs of SLAB bytes, each message's wire and then its hash a window of one:
 * no buffer of its own a message (an ArrayBuffer, its backing store and the record of it that every young collection
 * sweeps; every node keeps every message it accepts to the game's end). A slab is never written again where it was
 * handed out (the windows' views must not change); a message over a fourth of a slab gets a buffer of its own. */
const SLAB = 64 * 1024;
let slab = new Uint8Array(0);
let slabAt = 0;

/** A copy of `bytes` in a slab, followed there by HASH_SIZE bytes for its hash. */
function kept(bytes: Uint8Array): Uint8Array {
  const size = bytes.length + HASH_SIZE;
  if (size > SLAB / 4) {
    const own = new Uint8Array(size);
    own.set(bytes);
    return own.subarray(0, bytes.length);
  }
  if (slabAt + size > slab.length) {
    slab = new Uint8Array(SLAB);
    slabAt = 0;
  }
  const copy = slab.subarray(slabAt, slabAt + bytes.length);
  copy.set(bytes);
  slabAt += size;
  return copy;
}

const isBin = (v: Value | undefined, size?: number): v is Uint8Array =>
  v instanceof Uint8Array && (size === undefined || v.length === size);

/** Parse a wire message (the signature NOT yet checked); DecodeError naming the first problem of its shape. `ids`:
 * the node's table of ids met (the message's game and sender ids are kept as those copies), or none. */
export function open(received: Uint8Array, ids: Ids | null = null): Envelope {
  return openOwn(kept(received), ids);
}

/** An opened message. Every node keeps each message it accepts to the end of the game (ten nodes, thousands of
 * messages, in the tests' and benchmarks' processes), so it holds what is read again and little else: its signed
 * part, signature, previous hash and hash are made (views of the wire's buffer) when asked for, not kept (each a
 * typed array object every young collection would copy twice, about 100 bytes a message: read once or twice
 * each); its game and sender ids are the one copy of those bytes its node met before (its Ids), not a view per
 * message. The wire's buffer holds its hash after it (32 bytes: `kept`). */
class Opened implements Envelope {
  constructor(readonly version: number, readonly game: Uint8Array, readonly sender: Uint8Array, readonly seq: number,
    private readonly prevAt: number, readonly kind: string, readonly body: MsgMap, readonly wire: Uint8Array,
    private readonly signedAt: number, private readonly signedSize: number) {}

  get prev(): Uint8Array {
    return this.wire.subarray(this.prevAt, this.prevAt + HASH_SIZE);
  }

  get hash(): Uint8Array {
    return new Uint8Array(this.wire.buffer, this.wire.byteOffset + this.wire.length, HASH_SIZE);
  }

  get signed(): Uint8Array {
    return this.wire.subarray(this.signedAt, this.signedAt + this.signedSize);
  }

  get signature(): Uint8Array {
    return this.wire.subarray(this.wire.length - SIGNATURE_SIZE);
  }
}

/** The signed part of a wire laid out as every message is (a fixarray of 2: the signed part in a bin 8, or a bin 16 if
 * it has 256 bytes or more, then the signature in a bin 8 of 64 bytes that ends the wire), read from its heads: the
 * view `decode` would give, with no reader, array or signature view made; null for any other bytes
 * (`signedPartDecoded` reads them, and refuses a bin 16 where a bin 8 fits: section 7). */
function signedPart(wire: Uint8Array): Uint8Array | null {
  const size = wire.length;
  if (size > MAX_MESSAGE || size < 4 || wire[0] !== 0x92) return null;
  const type = wire[1];
  const start = type === 0xc4 ? 3 : type === 0xc5 ? 4 : 0;
  if (start === 0) return null;
  const end = start + (type === 0xc4 ? (wire[2] as number) : ((wire[2] as number) << 8) | (wire[3] as number));
  if (end + 2 + SIGNATURE_SIZE !== size || wire[end] !== 0xc4 || wire[end + 1] !== SIGNATURE_SIZE) return null;
  if (type === 0xc5 && end - start < 0x100) return null;
  return wire.subarray(start, end);
}

/** The signed part of any other bytes, by `decode`: the first problem of their shape named. */
function signedPartDecoded(wire: Uint8Array): Uint8Array {
  const outer = decode(wire, MAX_MESSAGE, true);
  if (!(Array.isArray(outer) && outer.length === 2 && isBin(outer[0]) && isBin(outer[1]))) {
    throw new DecodeError("a message must be [signed bytes, signature]");
  }
  const signature = outer[1] as Uint8Array; // (indexed: destructuring costs V8's compiler several times as much)
  if (signature.length !== SIGNATURE_SIZE) {
    throw new DecodeError(`signature must be ${SIGNATURE_SIZE} bytes, got ${signature.length}`);
  }
  return outer[0] as Uint8Array;
}

/** `open` of bytes no one else holds, followed in their buffer by 32 bytes for the message's hash (written here):
 * every bin of the message (the signed part, the signature, the ids and the body's) is a view of them, never a
 * copy. */
function openOwn(wire: Uint8Array, ids: Ids | null): Envelope {
  const signed = signedPart(wire) ?? signedPartDecoded(wire);
  let fields: Value;
  try {
    fields = decode(signed, MAX_MESSAGE, true);
  } catch (e) {
    throw e instanceof NotCanonical ? e.within("the signed part") : e; // its offset counts in the signed part
  }
  if (!(Array.isArray(fields) && fields.length === 7)) {
    throw new DecodeError("signed part must be [version, game, sender, seq, prev, kind, body]");
  }
  const version = fields[0];
  const game = fields[1];
  const sender = fields[2];
  const seq = fields[3];
  const prev = fields[4];
  const kind = fields[5];
  const body = fields[6];
  if (version !== VERSION) throw new DecodeError(`protocol version ${pyValueRepr(version as Value)}, this peer speaks ${VERSION}`);
  if (!isBin(game, GAME_ID_SIZE)) throw new DecodeError(`game id must be ${GAME_ID_SIZE} bytes`);
  if (!isBin(sender, PEER_ID_SIZE)) throw new DecodeError(`sender must be a ${PEER_ID_SIZE}-byte peer id`);
  if (typeof seq !== "number" || !Number.isInteger(seq) || seq < 0 || seq >= 2 ** 32) {
    throw new DecodeError(`sequence number must be 0..2^32-1, got ${pyValueRepr(seq as Value)}`);
  }
  if (!isBin(prev, HASH_SIZE)) throw new DecodeError(`previous hash must be ${HASH_SIZE} bytes`);
  if (typeof kind !== "string") throw new DecodeError("kind must be a string");
  if (!(body instanceof Map)) throw new DecodeError("body must be a map");
  // the signature is the wire's last SIGNATURE_SIZE bytes (decode read the wire to its end)
  const buffer = new Uint8Array(wire.buffer, wire.byteOffset, wire.length + HASH_SIZE);
  buffer.set(sha256(signed), wire.length);
  return new Opened(version, ids ? ids.copy(game) : game, ids ? ids.copy(sender) : sender, seq,
    prev.byteOffset - wire.byteOffset, kind, body, wire, signed.byteOffset - wire.byteOffset, signed.length);
}

/** Whether the key signed the message's exact bytes. */
export function signedBy(envelope: Envelope, publicKey: Uint8Array): boolean {
  return verify(publicKey, envelope.signature, joinedForNow([SIGN_TAG, envelope.signed])); // read at once, not kept
}
