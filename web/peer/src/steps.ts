/**
 * Positions of section 11.1: (round, step, place), ordered as tuples. Steps of a round: 0 the seed commits (the
 * draft's picks, one place per pick; the sealed shuffles, one place per seat), 1 the seed reveals (the sealed
 * unlocks, one place per seat), for turn t:
 * 2+3t commit, 3+3t reveal, 4+3t row choice; 32 the round end (place 0 the sealed keys, place 1 ROUND_END),
 * 33 the game end.
 */
import type { MsgMap } from "./codec.js";
import type { Kind } from "./messages.js";

export type Pos = readonly [round: number, step: number, place: number];

export const ROUND_END_STEP = 32;
export const GAME_END_STEP = 33;

export function cmp(a: Pos, b: Pos): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

export const commitStep = (turn: number): number => 2 + 3 * turn;

/** A message's position (null for START, START_ACK and REJOIN, which have none); `seat`: its sender's (a sealed
 * game's SEALED_SHUFFLE and SEALED_UNLOCK are at their sender's place). */
export function positionOfMessage(kind: Kind, body: MsgMap, seat = 0): Pos | null {
  const r = body.get("round") as number;
  const t = body.get("turn") as number;
  switch (kind) {
    case "SEED_COMMIT": return [r, 0, 0];
    case "SEALED_SHUFFLE": return [r, 0, seat];
    case "DRAFT_PICK": return [r, 0, body.get("pick") as number];
    case "SEED_REVEAL": return [r, 1, 0];
    case "SEALED_UNLOCK": return [r, 1, seat];
    case "PLAY_COMMIT": case "STANDIN": return [r, commitStep(t), 0];
    case "PLAY_REVEAL": return [r, commitStep(t) + 1, 0];
    case "ROW_CHOICE": return [r, commitStep(t) + 2, 0];
    case "SEALED_KEYS": return [r, ROUND_END_STEP, 0];
    case "ROUND_END": return [r, ROUND_END_STEP, 1];
    case "GAME_END": return [(body.get("rounds") as number) - 1, GAME_END_STEP, 0];
    case "DROP": case "KEEP": return [r, body.get("step") as number, (body.get("place") as number | undefined) ?? 0];
    default: return null;
  }
}

/** The slot index of a DROP or KEEP: (step + 34 × place) × 10 + seat. */
export function voteSlot(step: number, place: number, seat: number): number {
  return (step + 34 * place) * 10 + seat;
}

/** What is wrong with a DROP's or KEEP's place (section 9 item 5), or null. */
export function placeProblem(step: number, place: number | undefined, draft: boolean, sealed: boolean, players: number): string | null {
  // In the reference's words (p2pnimmt/protocol/slots.py place_problem; protocol.md 8).
  const hasPlaces = (step === 0 && draft) || (step <= 1 && sealed) || step === ROUND_END_STEP;
  if (!hasPlaces) return place === undefined ? null : "with a place, which only step 32, step 0 of a draft and steps 0 and 1 of a sealed game have";
  if (place === undefined) {
    return `at step ${step} without the place it waits on (${sealed && step < ROUND_END_STEP ? "the seat)" : step === 0 ? "the pick)" : "0 for SEALED_KEYS, 1 for ROUND_END)"}`;
  }
  if (sealed && step < ROUND_END_STEP && place >= players) {
    return `for place ${place} of step ${step}: a sealed game's shuffles and unlocks have one per seat (0..${players - 1})`;
  }
  if (step === 0 && place >= 10 * players) return `for pick ${place + 1}: a draft has ${10 * players} picks`;
  if (step === ROUND_END_STEP && place > 1) return `for place ${place} of step ${step}: it has 0 (SEALED_KEYS) and 1 (ROUND_END)`;
  if (step === ROUND_END_STEP && place === 0 && !sealed) {
    return `for place 0 of step ${step} (SEALED_KEYS) in a game with the open deal`;
  }
  return null;
}
