/** The deal of a round in a sealed game (section 17.5): the layout, the unlock, the checks made on arrival. */
import { HAND_SIZE, ROW_COUNT } from "./cards.js";
import { isValidPoint, pointKey, X } from "./sealed_group.js";

/** M = 10n + 4: the dealt positions (hands, then rows). */
export function dealtCount(players: number): number {
  return HAND_SIZE * players + ROW_COUNT;
}

export function handPositions(seat: number): number[] {
  return Array.from({ length: HAND_SIZE }, (_, i) => HAND_SIZE * seat + i);
}

export function rowPositions(players: number): number[] {
  return Array.from({ length: ROW_COUNT }, (_, i) => HAND_SIZE * players + i);
}

/** The positions a seat unlocks: every dealt position not in its own hand, ascending (M − 10 of them). */
export function unlockPositions(seat: number, players: number): number[] {
  const own = new Set(handPositions(seat));
  return Array.from({ length: dealtCount(players) }, (_, p) => p).filter((p) => !own.has(p));
}

function distinct(points: readonly Uint8Array[]): boolean {
  return new Set(points.map(pointKey)).size === points.length;
}

/** What is wrong with a SEALED_SHUFFLE's deck taken on arrival (`sealed-shuffle`), or null: N valid, distinct points. */
export function shuffleProblem(deck: readonly Uint8Array[], size: number): string | null {
  if (deck.length !== size) return `a deck of ${deck.length} points, not ${size}`;
  const bad = deck.findIndex((p) => !isValidPoint(p));
  if (bad >= 0) return `point ${bad} is not a valid point`;
  return distinct(deck) ? null : "two points of the deck are equal";
}

/**
 * What is wrong with a SEALED_UNLOCK taken on arrival (`sealed-unlock`), or null: M − 10 valid points, and the
 * M dealt values distinct once they replace the seat's positions. `dealt` is U_{i-1}; returns U_i as well.
 */
export function applyUnlock(dealt: readonly Uint8Array[], seat: number, players: number,
  values: readonly Uint8Array[]): { problem: string | null; dealt: Uint8Array[] } {
  const positions = unlockPositions(seat, players);
  const next = dealt.slice();
  if (values.length !== positions.length) return { problem: `${values.length} values, not ${positions.length}`, dealt: next };
  const bad = values.findIndex((p) => !isValidPoint(p));
  if (bad >= 0) return { problem: `value ${bad} is not a valid point`, dealt: next };
  positions.forEach((p, i) => { next[p] = values[i] as Uint8Array; });
  return { problem: distinct(next) ? null : "two dealt positions hold the same value", dealt: next };
}

/** The seat's unlock of U_{i-1}: X(d, U[p]) for its positions p, ascending. */
export function unlockValues(dealt: readonly Uint8Array[], seat: number, players: number, d: Uint8Array): Uint8Array[] {
  return unlockPositions(seat, players).map((p) => X(d, dealt[p] as Uint8Array));
}
