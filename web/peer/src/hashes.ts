/** The hashes of section 10: commitments, the open deal's round seed, the commit set, the public state. */
import { ascii, u16, u32 } from "./bytes.js";
import { type Card } from "./cards.js";
import { encode } from "./codec.js";
import { sha256, tagged } from "./hash.js";

export type Purpose = "play" | "seed" | "sealed";

/** The msgpack context of a commitment: [purpose, game, round, turn, seat]. */
export function commitmentContext(purpose: Purpose, game: Uint8Array, round: number, turn: number, seat: number): Uint8Array {
  return encode([purpose, game, round, turn, seat]);
}

/** SHA-256("p2pnimmt/commit/v1" || u16(len context) || context || u16(len value) || value || nonce). */
export function commitment(purpose: Purpose, game: Uint8Array, round: number, turn: number, seat: number,
  value: Uint8Array, nonce: Uint8Array): Uint8Array {
  if (nonce.length !== 32) throw new RangeError(`a commitment nonce is 32 bytes, not ${nonce.length}`);
  const name = PURPOSES.get(purpose);
  const g = game.length;
  const v = value.length;
  if (name !== undefined && g < 0x100 && v < 0x100 && fixint(round) && fixint(turn) && fixint(seat)) {
    return sha256(commitInput(name, game, g, round, turn, seat, value, v, nonce));
  }
  const context = commitmentContext(purpose, game, round, turn, seat);
  return tagged(COMMIT_TAG, u16(context.length), context, u16(value.length), value, nonce);
}

const COMMIT_TAG = "p2pnimmt/commit/v1";
const COMMIT_TAG_BYTES = ascii(COMMIT_TAG);

/** Each purpose's msgpack (a fixstr): the first bytes of its commitment's context. */
const PURPOSES: ReadonlyMap<string, Uint8Array> = new Map(["play", "seed", "sealed"].map((p) => [p, encode(p)]));

/** Whether msgpack writes `n` as one byte (a positive fixint): every round, turn and seat of a game. */
const fixint = (n: number): boolean => Number.isInteger(n) && n >= 0 && n < 0x80;

/** The buffer commitInput fills (the tag written once): read at once by the hash. */
const commitScratch = new Uint8Array(COMMIT_TAG_BYTES.length + 2 + (1 + 7 + 2 + 255 + 3) + 2 + 255 + 32);
commitScratch.set(COMMIT_TAG_BYTES);

/** `tagged`'s input for a commitment whose game id and value are under 256 bytes and whose round, turn and seat are
 * fixints: its context's msgpack ([purpose, game, round, turn, seat]: the codec's bytes) written here byte by byte,
 * with no encode, no u16 array and no parts to join (some 500 a lone node's 4-round game: every reveal's check). */
function commitInput(name: Uint8Array, game: Uint8Array, g: number, round: number, turn: number, seat: number,
  value: Uint8Array, v: number, nonce: Uint8Array): Uint8Array {
  const out = commitScratch;
  let at = COMMIT_TAG_BYTES.length;
  const context = 1 + name.length + 2 + g + 3;
  out[at++] = context >>> 8; // u16 of the context's length
  out[at++] = context & 0xff;
  out[at++] = 0x95; // fixarray of 5
  out.set(name, at);
  at += name.length;
  out[at++] = 0xc4; // bin 8
  out[at++] = g;
  out.set(game, at);
  at += g;
  out[at++] = round;
  out[at++] = turn;
  out[at++] = seat;
  out[at++] = v >>> 8;
  out[at++] = v & 0xff;
  out.set(value, at);
  at += v;
  out.set(nonce, at);
  return out.subarray(0, at + 32);
}

/** The committed value of a play: the card, and in a sealed game its deck position (17.6). */
export function playValue(card: Card, position: number | null): Uint8Array {
  if (card < 0 || card > 255 || (position !== null && (position < 0 || position > 255))) {
    throw new RangeError(`card ${card} at ${position} is not a byte`);
  }
  return Uint8Array.from(position === null ? [card] : [card, position]);
}

/** The open deal's round seed: the contributions of the seats that revealed, in seat order. */
export function roundSeed(game: Uint8Array, round: number, contributions: readonly Uint8Array[]): Uint8Array {
  return tagged("p2pnimmt/seed/v1", game, u32(round), ...contributions);
}

/** The commit set of a turn: the message hashes of the PLAY_COMMITs, in seat order. */
export function commitSet(hashes: readonly Uint8Array[]): Uint8Array {
  return tagged("p2pnimmt/commit-set/v1", ...hashes);
}

export interface PublicState {
  readonly round: number;
  /** Turns of the round resolved so far. */
  readonly turn: number;
  readonly rows: readonly (readonly Card[])[];
  readonly scores: readonly number[];
  /** By seat: the cards taken this round (hashed sorted ascending). */
  readonly taken: readonly (readonly Card[])[];
}

/** The msgpack array [round, turn, rows, scores, taken] that the state hash covers (taken sorted). */
export function encodeState(state: PublicState): Uint8Array {
  const taken = state.taken.map((pile) => pile.slice().sort((a, b) => a - b));
  return encode([state.round, state.turn, state.rows.map((row) => row.slice()), state.scores.slice(), taken]);
}

export function stateHash(state: PublicState): Uint8Array {
  return tagged("p2pnimmt/state/v1", encodeState(state));
}

/** The state between rounds (ROUND_END, GAME_END): [r, 0, [], scores, []]. */
export function betweenRounds(round: number, scores: readonly number[]): PublicState {
  return { round, turn: 0, rows: [], scores, taken: [] };
}

