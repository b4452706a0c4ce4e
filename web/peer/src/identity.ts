/** Who a peer is (section 6), the game id bound to its host (section 8) and the game code (section 14). */
import { ed25519 } from "@noble/curves/ed25519.js";
import { sha512 } from "@noble/hashes/sha2.js";
import { scrypt } from "@noble/hashes/scrypt.js";
import { concat, equal, hex, leToBigInt } from "./bytes.js";
import { encodeDifference, table, type Table } from "./ed25519_tables.js";
import { tagged } from "./hash.js";

export const KEY_SIZE = 32;
export const PEER_ID_SIZE = 16;
export const SIGNATURE_SIZE = 64;
export const SALT_SIZE = 16;
export const GAME_ID_SIZE = 16;

export function peerId(publicKey: Uint8Array): Uint8Array {
  return tagged("p2pnimmt/peer/v1", publicKey).slice(0, PEER_ID_SIZE);
}

const BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

/** RFC 4648 base32 of the first 5 bytes of the peer id, as XXXX-XXXX. */
export function fingerprint(peer: Uint8Array): string {
  let bits = 0n;
  for (let i = 0; i < 5; i++) bits = (bits << 8n) | BigInt(peer[i] as number);
  let text = "";
  for (let i = 7; i >= 0; i--) text += BASE32[Number((bits >> BigInt(5 * i)) & 31n)];
  return `${text.slice(0, 4)}-${text.slice(4)}`;
}

export function gameIdFor(hostKey: Uint8Array, salt: Uint8Array): Uint8Array {
  return tagged("p2pnimmt/game/v1", hostKey, salt).slice(0, GAME_ID_SIZE);
}

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/** The game's 4-character code: the first 20 bits of scrypt(game id, "p2pnimmt/code/v1", N 2^15, r 8, p 1) in
 * Crockford's base32 (section 14: costly on purpose, so a stranger cannot grind a game of its own to another's
 * code within a lobby). */
export function gameCode(gameId: Uint8Array): string {
  const id = hex(gameId);
  let code = codes.get(id);
  if (code === undefined) {
    code = drawCode(gameId);
    codes.set(id, code);
    if (codes.size > 16) codes.delete(codes.keys().next().value as string);
  }
  return code;
}

/** Each game id's code, drawn once (the phone page names a game in several lines: a new start's, a carried game's,
 * an offer it ignored; each draw is a scrypt of N 2^15, half a second of a phone's main thread). */
const codes = new Map<string, string>();
let drawn = 0;

/** How many codes this module has drawn (each a scrypt) since it was loaded: how a test sees that the memo draws
 * each game id's code once. */
export function codesDrawn(): number {
  return drawn;
}

function drawCode(gameId: Uint8Array): string {
  drawn += 1;
  const digest = scrypt(gameId, new TextEncoder().encode("p2pnimmt/code/v1"), { N: 2 ** 15, r: 8, p: 1, dkLen: 32 });
  const bits = ((digest[0] as number) << 12) | ((digest[1] as number) << 4) | ((digest[2] as number) >> 4);
  let code = "";
  for (let i = 3; i >= 0; i--) code += CROCKFORD[(bits >> (5 * i)) & 31];
  return code;
}

/** A code typed by a person: case-blind, spaces and hyphens left out, I and L read as 1, O as 0. */
export function readCode(typed: string): string {
  const text = typed.toUpperCase().replace(/[\s-]/g, "").replace(/[IL]/g, "1").replace(/O/g, "0");
  if (text.length !== 4) throw new Error(`a game code is 4 characters, not ${text.length}`);
  for (const ch of text) if (!CROCKFORD.includes(ch)) throw new Error(`${JSON.stringify(ch)} is not in a game code`);
  return text;
}

/** A peer's key pair; `secret` is the 32-byte Ed25519 private key. */
export class Identity {
  readonly publicKey: Uint8Array;
  readonly peer: Uint8Array;

  constructor(readonly secret: Uint8Array) {
    if (secret.length !== KEY_SIZE) throw new RangeError(`an Ed25519 private key is ${KEY_SIZE} bytes, not ${secret.length}`);
    this.publicKey = ed25519.getPublicKey(secret);
    this.peer = peerId(this.publicKey);
  }

  get fingerprint(): string {
    return fingerprint(this.peer);
  }

  sign(data: Uint8Array): Uint8Array {
    return signatures.sign(this.secret, data);
  }
}

/**
 * Whether `signature` is the key's Ed25519 signature of `data`: RFC 8032's strict rules (zip215 off: a point
 * or S that is not canonically encoded is refused), as the reference's OpenSSL checks.
 */
export function verify(publicKey: Uint8Array, signature: Uint8Array, data: Uint8Array): boolean {
  if (publicKey.length !== KEY_SIZE || signature.length !== SIGNATURE_SIZE) return false;
  try {
    return signatures.verify(publicKey, signature, data);
  } catch {
    return false;
  }
}

/** Ed25519 as a peer signs and checks: the portable one (@noble/curves), or node's OpenSSL (cli.ts). */
export interface Ed25519 {
  sign(secret: Uint8Array, data: Uint8Array): Uint8Array;
  verify(publicKey: Uint8Array, signature: Uint8Array, data: Uint8Array): boolean;
}

type EdPoint = InstanceType<typeof ed25519.Point>;
const Point = ed25519.Point;
const Fn = Point.Fn;
const scalarOf = (digest: Uint8Array): bigint => Fn.create(leToBigInt(digest));

/** A signer's key expanded once (RFC 8032 5.1.5: the scalar, the nonce prefix, the public key), not at every
 * signature as @noble/curves' sign does: half a signature's cost. */
const expanded = new Map<string, { prefix: Uint8Array; scalar: bigint; publicKey: Uint8Array }>();

/** RFC 8032 5.1.6 as @noble/curves' ed25519.sign, byte for byte (its own deterministic signature), with the key
 * expanded once. */
function portableSign(secret: Uint8Array, data: Uint8Array): Uint8Array {
  const id = hex(secret);
  let key = expanded.get(id);
  if (!key) {
    const ext = ed25519.utils.getExtendedPublicKey(secret);
    key = { prefix: ext.prefix, scalar: ext.scalar, publicKey: ext.pointBytes };
    if (expanded.size >= 16) expanded.clear();
    expanded.set(id, key);
  }
  const r = scalarOf(sha512(concat(key.prefix, data)));
  const R = Point.BASE.multiply(r).toBytes();
  const k = scalarOf(sha512(concat(R, key.publicKey, data)));
  const s = Fn.create(r + k * key.scalar);
  return concat(R, Fn.toBytes(s));
}

/** A signer's public key decoded once (section 8's lenient decoding), null when it is no point; from its TABLE_AFTER-th signature on, with a table of its multiples (ed25519_tables.ts,
 * 5-bit windows: [k]A in 52 float64 additions, no BigInt point; the table costs about as much as a few checks, so
 * a key seen once or twice goes without). A table sits at a few public keys (a game's seats, hundreds of checks
 * each); at most TABLES keys keep one (the oldest made goes first), at most 64 keys are remembered. */
const publicKeys = new Map<string, { point: EdPoint | null; uses: number; table: Table | null }>();
const tabled: string[] = [];
const KEY_WINDOW = 5;
const BASE_WINDOW = 6;
const TABLE_AFTER = 4;
const TABLES = 16;
let baseTable: Table | null = null;

function publicPoint(publicKey: Uint8Array): { point: EdPoint | null; uses: number; table: Table | null } {
  const id = hex(publicKey);
  let known = publicKeys.get(id);
  if (!known) {
    let point: EdPoint | null;
    try {
      point = Point.fromBytes(publicKey, true);
    } catch {
      point = null;
    }
    known = { point, uses: 0, table: null };
    if (publicKeys.size >= 64) {
      publicKeys.clear();
      tabled.length = 0;
    }
    publicKeys.set(id, known);
  }
  known.uses += 1;
  if (known.uses === TABLE_AFTER && known.point) {
    const { x, y } = known.point.toAffine();
    known.table = table(x, y, KEY_WINDOW);
    tabled.push(id);
    if (tabled.length > TABLES) {
      const oldest = publicKeys.get(tabled.shift() as string);
      if (oldest) oldest.table = null;
    }
  }
  return known;
}

/** Section 8's signature check, OpenSSL's verdict on every input: 0 <= S < L; A decoded leniently (y taken modulo p,
 * x = 0 with the sign bit allowed: @noble/curves' zip215 decoding), of any order; valid exactly when the encoding
 * of [S]B - [k]A is the bytes of R (the cofactorless equation). A is decoded once per key and, for a key with a
 * table, [S]B - [k]A computed from tables. (Before issue 25's settling this was @noble/curves' own check, zip215
 * off: the cofactored equation, A strict and not of small order — not the reference's verdict.) */
function portableVerify(publicKey: Uint8Array, signature: Uint8Array, data: Uint8Array): boolean {
  const { point: A, table: keyTable } = publicPoint(publicKey);
  if (!A) return false;
  const r = signature.subarray(0, 32);
  const s = leToBigInt(signature.subarray(32, 64));
  if (!Fn.isValid(s)) return false; // 0 <= S < L
  const k = scalarOf(sha512(concat(r, publicKey, data)));
  // From the tables where the key has one; where they give no encoding (a point they do not encode), on
  // @noble/curves' points.
  if (keyTable) {
    baseTable ??= baseTableOf();
    const encoded = encodeDifference(baseTable, s, keyTable, k);
    if (encoded) return equal(encoded, r);
  }
  return equal(Point.BASE.multiplyUnsafe(s).subtract(A.multiplyUnsafe(k)).toBytes(), r);
}

/** How many public keys have a table now (tests: the tables are made, and no more than TABLES of them). */
export function tabledKeys(): number {
  return tabled.filter((id) => publicKeys.get(id)?.table).length;
}

function baseTableOf(): Table {
  const { x, y } = Point.BASE.toAffine();
  return table(x, y, BASE_WINDOW);
}

/** The portable Ed25519 (@noble/curves), what a browser runs. */
export const portableEd25519: Ed25519 = { sign: portableSign, verify: portableVerify };

let signatures: Ed25519 = portableEd25519;

/** Sign and check with `impl` from now on (node: its OpenSSL, the reference's own verdicts, 30 times faster). */
export function useEd25519(impl: Ed25519): void {
  signatures = impl;
}
