/**
 * Section 9's progression rule: each sender's messages move through the game one step at a time, checked on
 * acceptance, in its own chain order, against its own previous position (never the receiver's).
 */
import type { Kind } from "./messages.js";

export interface Position {
  readonly round: number;
  readonly turn: number;
}

export const START_POSITION: Position = { round: 0, turn: 0 };

/** The kinds the rule does not bind (they do not move the position). */
const UNBOUND: ReadonlySet<Kind> = new Set<Kind>(["START", "START_ACK", "GAME_END", "REJOIN"]);

/** The turn of a DROP's or KEEP's step: t for steps 2+3t..4+3t, 0 for steps 0 and 1; 32 and 33 as ROUND_END. */
function stepTurn(step: number): number | null {
  if (step <= 1) return 0;
  if (step <= 31) return Math.floor((step - 2) / 3);
  return null;
}

/** A message's position given the sender's previous one, or null if the rule does not bind its kind. */
export function positionOf(kind: Kind, round: number, turn: number | null, step: number | null, previous: Position): Position | null {
  if (UNBOUND.has(kind)) return null;
  return { round, turn: turnOf(kind, round, turn, step, previous) };
}

/** positionOf's turn. The previous position is read, and the position made (one object literal), at every message,
 * not in the kinds' branches: V8 throws away a compiled caller (section 9's checks, run on every message) the first
 * time it reaches a read or a literal it never ran before it was compiled, e.g. at the first round's end. */
function turnOf(kind: Kind, round: number, turn: number | null, step: number | null, previous: Position): number {
  const sameRound = round === previous.round;
  const previousTurn = previous.turn;
  switch (kind) {
    case "PLAY_COMMIT": case "PLAY_REVEAL": case "ROW_CHOICE": case "STANDIN":
      return turn ?? 0;
    case "ROUND_END": case "SEALED_KEYS":
      return sameRound ? previousTurn : 0;
    case "DROP": case "KEEP":
      return stepTurn(step ?? 0) ?? (sameRound ? previousTurn : 9);
    default: // SEED_*, SEALED_SHUFFLE, SEALED_UNLOCK, DRAFT_PICK
      return 0;
  }
}

/**
 * Whether `next` may follow `previous`: at or after it, and at most one turn later in the same round or turn 0
 * of the next round; after a REJOIN in the sender's chain, also turn 0 of any later round.
 */
export function mayFollow(previous: Position, next: Position, rejoined: boolean): boolean {
  // Every comparison made at every message (positionOf says why): a round's first message is no new path.
  const sameRound = next.round === previous.round;
  const nextRound = next.round === previous.round + 1;
  const later = next.round > previous.round;
  const firstTurn = next.turn === 0;
  const inStep = next.turn >= previous.turn && next.turn <= previous.turn + 1;
  if (sameRound) return inStep;
  if (nextRound) return firstTurn;
  return rejoined && later && firstTurn;
}
