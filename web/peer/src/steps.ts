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
  // (GAME_END's round read by the same call as every other kind's: its first GAME_END threw away every compiled caller)
  const r = body.get(kind === "GAME_END" ? "rounds" : "round") as number;
  const t = body.get("turn") as number;
  // The step and place by kind, the position made once (one array literal), as the round read at every message: V8
  // throws away a compiled caller (the gates and the step machine, run on every message) the first time it reaches
  // a literal or a read it never ran before, e.g. at the first round's end.
  let round = r - (kind === "GAME_END" ? 1 : 0); // (one subtraction for every kind: no new operation at the end)
  let step: number;
  let place = 0;
  switch (kind) {
    case "SEED_COMMIT": step = 0; break;
    case "SEALED_SHUFFLE": step = 0; place = seat; break;
    case "DRAFT_PICK": step = 0; place = body.get("pick") as number; break;
    case "SEED_REVEAL": step = 1; break;
    case "SEALED_UNLOCK": step = 1; place = seat; break;
    case "PLAY_COMMIT": case "STANDIN": step = commitStep(t); break;
    case "PLAY_REVEAL": step = commitStep(t) + 1; break;
    case "ROW_CHOICE": step = commitStep(t) + 2; break;
    case "SEALED_KEYS": step = ROUND_END_STEP; break;
    case "ROUND_END": step = ROUND_END_STEP; place = 1; break;
    case "GAME_END": step = GAME_END_STEP; break;
    case "DROP": case "KEEP": step = body.get("step") as number; place = (body.get("place") as number | undefined) ?? 0; break;
    default: return null;
  }
  return [round, step, place];
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
