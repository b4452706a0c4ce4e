/**
 * The seat key (protocol.md 14, "The seat key"; the reference: p2pnimmt/protocol/seatkey.py): 4 characters of the
 * game code's alphabet that a host draws for its evening and shows only where a person reads it (its screen, its
 * invite link, its phone links after `#`). A joiner proves it on each link to the host without showing it: its
 * `join` frame carries `proof` = HMAC-SHA256(K, "p2pnimmt/join/v1" || G || the joiner's handshake nonce || the
 * host's handshake nonce || the joiner's public key), K = scrypt(G || key, "p2pnimmt/seat/v1", 2^15, 8, 1, 32) (the
 * game code's cost), drawn once per game.
 */
import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { scrypt, scryptAsync } from "@noble/hashes/scrypt.js";
import { ascii, concat, hex, uintBE } from "./bytes.js";

export const SEAT_KEY_LENGTH = 4;
export const SEAT_SALT = ascii("p2pnimmt/seat/v1");
export const JOIN_TAG = ascii("p2pnimmt/join/v1");
export const PROOF_SIZE = 32;
/** The link secret (protocol.md 14, "The link secret"): 128 bits a host's links carry beside the seat key, written as
 * 26 characters of the alphabet; a join proves it as `link_proof` under its own tag (the reference: seatkey.py). */
export const LINK_TAG = ascii("p2pnimmt/join-link/v1");
export const LINK_SECRET_LENGTH = 26;
const LINK_SECRET_SIZE = 16;
const CODE_LENGTH = 4;
const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/** What a person typed, made plain as a code is read: upper case, without white space or hyphens, I and L as 1, O
 * as 0 (seatkey.py: plain). */
export function plain(typed: string): string {
  return typed.toUpperCase().replace(/[\s-]/g, "").replace(/[IL]/g, "1").replace(/O/g, "0");
}

/** A seat key as a person typed it (or as a link's fragment carries it), read case-blind: its 4 characters of the
 * alphabet; anything else is refused with the reason. */
export function readSeatKey(typed: string): string {
  const text = plain(typed);
  if (text.length !== SEAT_KEY_LENGTH) throw new Error(`a seat key is ${SEAT_KEY_LENGTH} characters, not ${text.length}`);
  for (const ch of text) if (!CROCKFORD.includes(ch)) throw new Error(`${JSON.stringify(ch)} is not in a seat key`);
  return text;
}

/** A link secret as a link carries it (read as a code is): its 16 bytes, the 26 characters' big-endian number;
 * anything else is refused with the reason (seatkey.py: read_link_secret). */
export function readLinkSecret(typed: string): Uint8Array {
  const text = plain(typed);
  if (text.length !== LINK_SECRET_LENGTH) throw new Error(`a link secret is ${LINK_SECRET_LENGTH} characters, not ${text.length}`);
  let value = 0n;
  for (const ch of text) {
    const digit = CROCKFORD.indexOf(ch);
    if (digit < 0) throw new Error(`${JSON.stringify(ch)} is not in a link secret`);
    value = value * 32n + BigInt(digit);
  }
  if (value >> BigInt(8 * LINK_SECRET_SIZE) !== 0n) throw new Error("a link secret begins with 0..7 (it is 128 bits)");
  return uintBE(value, LINK_SECRET_SIZE);
}

/** The link secret as a link carries it: 26 characters of the alphabet, most significant first. */
export function writeLinkSecret(secret: Uint8Array): string {
  let value = 0n;
  for (const b of secret) value = (value << 8n) | BigInt(b);
  let text = "";
  for (let i = 0; i < LINK_SECRET_LENGTH; i++) {
    text = CROCKFORD[Number(value & 31n)] + text;
    value >>= 5n;
  }
  return text;
}

/** A phone link's fragment (protocol.md 14): the seat key alone (`7Q2K`) or with the link secret after it
 * (`7Q2K-SECRET`); anything else is refused with the reason. */
export function readFragment(typed: string): { key: string; linkSecret: Uint8Array | null } {
  const text = plain(typed);
  if (text.length === SEAT_KEY_LENGTH + LINK_SECRET_LENGTH) {
    return { key: readSeatKey(text.slice(0, SEAT_KEY_LENGTH)), linkSecret: readLinkSecret(text.slice(SEAT_KEY_LENGTH)) };
  }
  if (text.length !== SEAT_KEY_LENGTH) {
    throw new Error(`a link's seat key is ${SEAT_KEY_LENGTH} characters, or ${SEAT_KEY_LENGTH + LINK_SECRET_LENGTH} with its link secret (KEY-SECRET), not ${text.length}`);
  }
  return { key: readSeatKey(text), linkSecret: null };
}

/** A code as a person typed it, with or without its seat key (`QM5Z-7Q2K`, `qm5z 7q2k`, `QM5Z`): [code, seat key or
 * null] (seatkey.py: split_join_code, on the plain text). */
export function splitJoinCode(typed: string): [string, string | null] {
  const text = plain(typed);
  if (text.length === CODE_LENGTH + SEAT_KEY_LENGTH) return [text.slice(0, CODE_LENGTH), readSeatKey(text.slice(CODE_LENGTH))];
  return [text, null];
}

/** scrypt's parameters for K: the game code's cost (protocol.md 14). */
const COST = { N: 2 ** 15, r: 8, p: 1, dkLen: 32 } as const;

/** K from its password (game id || seat key), at once: what a worker runs (the phone page's, page_worker.ts). */
export function drawSecret(password: Uint8Array): Uint8Array {
  return scrypt(password, SEAT_SALT, COST);
}

/** How K is drawn from its password: scryptAsync here (it yields to the event loop every 10 ms), unless a page hands
 * the work to a worker of its own (page_secret.ts), off its main thread. */
export type SecretDrawer = (password: Uint8Array) => Promise<Uint8Array>;
export const drawHere: SecretDrawer = (password) => scryptAsync(password, SEAT_SALT, COST);
let drawer: SecretDrawer = drawHere;

/** Draw K with `draw` from now on (the same scrypt elsewhere: it must give the same bytes), or here again (null). */
export function useSecretDrawer(draw: SecretDrawer | null): void {
  drawer = draw ?? drawHere;
}

/** K of each (game id, key), drawn once: a promise, so that two asks at once draw it once. */
const secrets = new Map<string, Promise<Uint8Array>>();

/** K = scrypt(game id || seat key, "p2pnimmt/seat/v1", 2^15, 8, 1): costly on purpose (a proof seen on the air is
 * ground key by key at this cost), drawn once per game; asynchronous, so that a page stays responsive meanwhile. */
export function seatSecret(gameId: Uint8Array, seatKey: string): Promise<Uint8Array> {
  const key = readSeatKey(seatKey);
  const id = `${hex(gameId)}/${key}`;
  let secret = secrets.get(id);
  if (secret === undefined) {
    secret = drawer(concat(gameId, ascii(key)));
    secret.catch(() => secrets.delete(id)); // drawn again at the next ask
    secrets.set(id, secret);
    if (secrets.size > 16) secrets.delete(secrets.keys().next().value as string);
  }
  return secret;
}

/** The `proof` of a join on one link: HMAC-SHA256 under K of this link's handshake (its nonces, whichever side
 * dialled, and the joiner's public key). */
export function joinProof(secret: Uint8Array, gameId: Uint8Array, joinerNonce: Uint8Array, hostNonce: Uint8Array,
  joinerKey: Uint8Array): Uint8Array {
  return hmac(sha256, secret, concat(JOIN_TAG, gameId, joinerNonce, hostNonce, joinerKey));
}

/** The `link_proof` of a join on one link: HMAC-SHA256 under the link secret of this link's handshake (as `proof`). */
export function linkProof(secret: Uint8Array, gameId: Uint8Array, joinerNonce: Uint8Array, hostNonce: Uint8Array,
  joinerKey: Uint8Array): Uint8Array {
  return hmac(sha256, secret, concat(LINK_TAG, gameId, joinerNonce, hostNonce, joinerKey));
}
