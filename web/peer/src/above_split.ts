/**
 * A proof of equivocation above a seat's commit of an undecided turn: held until the turn's reveals decide it
 * (protocol.md 8, check 4; 12, "A split commit", *Above a split commit*; the reference's above_split.py).
 *
 * Seat X splits its commit of a turn at seq s, reveals on each version and signs on (s+2) on version A alone: a node
 * on A takes it, a node on B (holding X's reveal on B) finds a fork. So a proof against X that is not a split
 * commit's is judged by where its lowest message lies in X's chain as this node holds it: dropped where X was
 * expelled here from a split commit's seq below it; held where this node's chain of X has not reached it, or has,
 * below it, a PLAY_COMMIT of a turn this node has not decided; else judged as before (fatal). One held per seat, the
 * one lowest in the chain.
 */
import { equal } from "./bytes.js";
import { type Envelope, open } from "./envelope.js";
import type { Fault } from "./inbox.js";
import { bodyProblem } from "./messages.js";

/** A proof held unjudged: the lowest seq of the seat's messages in it, and the (round, turn) of the seat's commit
 * below it that waits to be decided (null while this node's chain of the seat has not reached it). */
export interface Held {
  seat: number;
  low: number;
  turn: [number, number] | null;
  fault: Fault;
}

export type Verdict = "drop" | "hold" | "judge";

/** What of this node's state a verdict reads. */
export interface Where {
  phase: string;
  round: number;
  turn: number;
  /** The current turn's reveals agreed (its cards are known). */
  agreedNow: boolean;
  /** The seq from which the seat was expelled for a split commit the reveals decided, or null. */
  splitSeq(seat: number): number | null;
  /** The seat's messages accepted here, by seq. */
  chain(seat: number): readonly Envelope[];
}

/** The lowest seq of `peer`'s messages in a proof (null: none is its). */
export function lowest(peer: Uint8Array, evidence: readonly Uint8Array[]): number | null {
  let low: number | null = null;
  for (const wire of evidence) {
    const env = open(wire);
    if (equal(env.sender, peer) && (low === null || env.seq < low)) low = env.seq;
  }
  return low;
}

function before(a: readonly [number, number], b: readonly [number, number]): boolean {
  return a[0] < b[0] || (a[0] === b[0] && a[1] < b[1]);
}

/** This node has gone past the turn (its reveals agreed, or its round ended: a round that ends, or stops for its
 * audit, leaves none of its turns to decide). */
export function decided(at: Where, turn: [number, number]): boolean {
  if ((at.phase === "round-end" || at.phase === "game-end" || at.phase === "over") && turn[0] <= at.round) return true;
  if (at.round !== turn[0] || at.turn !== turn[1]) return before(turn, [at.round, at.turn]);
  return at.agreedNow;
}

/** The (round, turn) of the seat's last PLAY_COMMIT below `low` in this node's chain; true if none; null if this
 * node has not accepted the seat's message `low - 1` yet. */
function anchor(chain: readonly Envelope[], low: number): [number, number] | null | true {
  if (low > chain.length) return null;
  for (let seq = low - 1; seq >= 0; seq--) {
    const env = chain[seq] as Envelope;
    if (env.kind === "PLAY_COMMIT") {
      // one that broke section 9 (its seat is expelled from it alike everywhere): no turn to wait on, judged as before
      if (bodyProblem("PLAY_COMMIT", env.body) !== null) return true;
      return [env.body.get("round") as number, env.body.get("turn") as number];
    }
  }
  return true;
}

/** Drop, hold or judge the proof, with `held`'s turn filled in once known. `now`: the turn at hand, whose reveals of
 * every seat but the proof's signer are in and name commit sets this node knows where `othersIn(signer)`: the turn is
 * decided (protocol.md 12, "Decided"), whatever the signer's own. */
export function verdict(at: Where, held: Held, now: [number, number] | null = null,
  othersIn: ((seat: number) => boolean) | null = null): [Verdict, Held] {
  const split = at.splitSeq(held.seat);
  if (split !== null && held.low > split) return ["drop", held];
  let turn = held.turn;
  if (turn === null) {
    const found = anchor(at.chain(held.seat), held.low);
    if (found === null) return ["hold", held];
    if (found === true) return ["judge", held];
    turn = found;
  }
  const done = decided(at, turn) || (now !== null && now[0] === turn[0] && now[1] === turn[1]
    && othersIn !== null && othersIn(held.seat));
  return [done ? "judge" : "hold", { ...held, turn }];
}

/** Keep the proof unjudged: one per seat, the lowest in its chain. */
export function hold(heldProofs: Map<number, Held>, held: Held): void {
  const kept = heldProofs.get(held.seat);
  if (!kept || held.low < kept.low) heldProofs.set(held.seat, held);
}
