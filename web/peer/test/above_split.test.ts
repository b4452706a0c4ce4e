/** protocol.md 12, *Above a split commit*: where a proof of equivocation lies in its signer's chain decides whether
 * it is dropped, held or judged (the reference's above_split.py; whole games: tests/protocol/test_split_fork.py and
 * the mixed tables of tests/peer/test_mixed_tables.py). */
import { test } from "node:test";
import assert from "node:assert/strict";
import { type Held, decided, hold, verdict, type Where } from "../src/above_split.js";
import { decode, encode, type MsgMap } from "../src/codec.js";
import type { Envelope } from "../src/envelope.js";

const msg = (seq: number, kind: string, body: Record<string, number | Uint8Array>): Envelope =>
  ({ seq, kind, body: decode(encode(body)) as MsgMap }) as unknown as Envelope;

// seat 1's chain here: START_ACK, then its commit and reveal of turn 2 (seqs 0..2)
const chain = [msg(0, "START_ACK", {}), msg(1, "PLAY_COMMIT", { round: 0, turn: 2, commit: new Uint8Array(32), state: new Uint8Array(32) }), msg(2, "PLAY_REVEAL", { round: 0, turn: 2 })];
const where = (over: Partial<Where> = {}): Where => ({ phase: "turn", round: 0, turn: 2, agreedNow: false,
  splitSeq: () => null, chain: () => chain, ...over });
const proof = (low: number): Held => ({ seat: 1, low, turn: null,
  fault: { peer: null, code: "equivocation", fatal: true, detail: "", evidence: [] } });

test("a proof above the signer's commit of an undecided turn is held, and knows that turn", () => {
  const [found, held] = verdict(where(), proof(2));
  assert.equal(found, "hold");
  assert.deepEqual(held.turn, [0, 2]);
});

test("it is judged once the others' reveals decide the turn, whatever the signer's own", () => {
  assert.equal(verdict(where(), proof(2), [0, 2], () => true)[0], "judge");
  assert.equal(verdict(where(), proof(2), [0, 2], () => false)[0], "hold");
  assert.equal(verdict(where(), proof(2), [0, 1], () => true)[0], "hold"); // another turn at hand
  assert.equal(verdict(where({ agreedNow: true }), proof(2))[0], "judge");
  assert.equal(verdict(where({ turn: 3 }), proof(2))[0], "judge"); // gone by
});

test("it is dropped above a split commit that cost the signer its seat, judged below it", () => {
  assert.equal(verdict(where({ splitSeq: () => 1 }), proof(2))[0], "drop");
  assert.equal(verdict(where({ splitSeq: () => 2 }), proof(2))[0], "hold"); // (not above it)
});

test("a proof the chain has not reached is held; one with no commit below is judged at once", () => {
  assert.equal(verdict(where(), proof(4))[0], "hold");
  assert.equal(verdict(where(), proof(1))[0], "judge"); // below it the START_ACK only
});

test("a commit that broke section 9 waits on no turn: a proof above it is judged as before", () => {
  const broken = [chain[0] as Envelope, msg(1, "PLAY_COMMIT", { round: 0 }), chain[2] as Envelope];
  assert.equal(verdict(where({ chain: () => broken }), proof(2))[0], "judge");
});

test("the turns a node has decided: gone past, or its round ended", () => {
  assert.ok(decided(where({ phase: "round-end", turn: 2 }), [0, 5]));
  assert.ok(!decided(where({ phase: "deal", round: 0, turn: 0 }), [0, 2]));
  assert.ok(decided(where({ round: 1, turn: 0 }), [0, 9]));
});

test("one held proof per seat: the one lowest in its chain", () => {
  const kept = new Map<number, Held>();
  hold(kept, proof(3));
  hold(kept, proof(2));
  hold(kept, proof(4));
  assert.equal(kept.get(1)?.low, 2);
});
