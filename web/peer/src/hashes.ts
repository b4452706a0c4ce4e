/** The hashes of section 10: commitments, the open deal's round seed, the commit set, the public state. */
import { u16, u32 } from "./bytes.js";
import { type Card } from "./cards.js";
import { encode } from "./codec.js";
import { tagged } from "./hash.js";

export type Purpose = "play" | "seed" | "sealed";

/** The msgpack context of a commitment: [purpose, game, round, turn, seat]. */
export function commitmentContext(purpose: Purpose, game: Uint8Array, round: number, turn: number, seat: number): Uint8Array {
  return encode([purpose, game, round, turn, seat]);
}

/** SHA-256("p2pnimmt/commit/v1" || u16(len context) || context || u16(len value) || value || nonce). */
export function commitment(purpose: Purpose, game: Uint8Array, round: number, turn: number, seat: number,
  value: Uint8Array, nonce: Uint8Array): Uint8Array {
  if (nonce.length !== 32) throw new RangeError(`a commitment nonce is 32 bytes, not ${nonce.length}`);
  const context = commitmentContext(purpose, game, round, turn, seat);
  return tagged("p2pnimmt/commit/v1", u16(context.length), context, u16(value.length), value, nonce);
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

