/** Section 11.1's quorum rule ("Several seats gone together", "Void, with sets") on a table of votes made up here, and
 * protocol.md's drop-vectors on a spectator's session. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { type Envelope, NO_PREVIOUS, seal } from "../src/envelope.js";
import { gameIdFor, Identity } from "../src/identity.js";
import { Session } from "../src/session.js";
import { vector } from "./spec.js";
import { counted, droppedTogether, mayDrop, mostNamed, names, setVoid, undecided } from "../src/quorum.js";
import type { QuorumTable } from "../src/quorum.js";
import type { Pos } from "../src/steps.js";

const AT: Pos = [0, 5, 0];

/** `n` seats, none dropped; `drops`: [voter, target] in the order signed; `wentOn`: [seat, target] pairs. */
function table(n: number, drops: [number, number][], wentOn: [number, number][] = []): QuorumTable {
  const seq = new Map<string, number>();
  drops.forEach(([v, x], i) => seq.set(`${v}|${x}`, i));
  const all = Array.from({ length: n }, (_, s) => s);
  return {
    n,
    activeAt: () => all,
    seatedBefore: () => all,
    targets: () => [...new Set(drops.map(([, x]) => x))].sort((a, b) => a - b),
    vote: (kind, voter, _at, target) => {
      const s = kind === "DROP" ? seq.get(`${voter}|${target}`) : undefined;
      return s === undefined ? undefined : ({ seq: s } as unknown as Envelope);
    },
    wentOn: (w, x) => wentOn.some(([a, b]) => a === w && b === x),
    isExpelled: () => false,
  };
}

test("m = floor((n - 1) / 2): a voter's first m DROPs count, in the order it signed them", () => {
  assert.equal(mostNamed(table(4, []), AT), 1);
  assert.equal(mostNamed(table(5, []), AT), 2);
  assert.equal(mostNamed(table(10, []), AT), 4);
  const t = table(5, [[0, 4], [0, 1], [0, 3]]);
  assert.deepEqual(names(t, 0, AT), [4, 1, 3]);
  assert.deepEqual([...counted(t, 0, AT)], [4, 1]);
});

test("two of five gone: the three others each name both, and the pair is dropped together", () => {
  const t = table(5, [[0, 1], [0, 3], [2, 3], [2, 1], [4, 1], [4, 3]]);
  assert.deepEqual(droppedTogether(t, AT), [1, 3]);
  // one voter short: no set yet, and the voters' votes are undecided (the set may still complete)
  const short = table(5, [[0, 1], [0, 3], [2, 3], [2, 1], [4, 1]]);
  assert.deepEqual(droppedTogether(short, AT), []);
  assert.ok(undecided(short, 0, AT) && mayDrop(short, AT, 3));
});

test("a cut-off pair of five votes out the other three: only two names count each, so nothing drops", () => {
  const t = table(5, [[1, 0], [1, 3], [1, 4], [2, 0], [2, 3], [2, 4]]);
  assert.deepEqual(droppedTogether(t, AT), []);
});

test("below five seats no set drops: a table of four split two and two", () => {
  const t = table(4, [[0, 1], [0, 2], [3, 1], [3, 2], [1, 0], [1, 3], [2, 0], [2, 3]]);
  assert.deepEqual(droppedTogether(t, AT), []);
});

test("void, with sets: a seat outside the set went on from one of its seats' message", () => {
  const t = table(5, [[0, 1], [0, 3], [2, 1], [2, 3]], [[4, 3]]);
  assert.ok(setVoid(t, AT, [1, 3]));
  assert.deepEqual(droppedTogether(t, AT), []);
  // seat 0's vote on 3 is void (4 went on), its vote on 1 alone is not yet (4 may still vote): undecided
  assert.ok(undecided(t, 0, AT));
  const decided = table(5, [[0, 1], [0, 3], [2, 1], [2, 3]], [[4, 3], [4, 1]]);
  assert.ok(!undecided(decided, 0, AT) && !mayDrop(decided, AT, 1));
});

test("drop-vectors: the DROPs at (0, 0) on a spectator's session drop exactly the seats given (11.1)", () => {
  for (const c of vector("drop-vectors").cases as { why: string; seats: number; drops: [number, number][]; dropped: number[] }[]) {
    const seats = Array.from({ length: c.seats }, (_, i) => new Identity(new Uint8Array(32).fill(i + 1)));
    const host = seats[0] as Identity;
    const salt = new Uint8Array(16).fill(7);
    const game = gameIdFor(host.publicKey, salt);
    const start = seal(host, game, 0, NO_PREVIOUS, "START", {
      salt, settings: { variant: "standard", point_limit: null, max_rounds: 3, deal: "open" },
      roster: seats.map((seat, i) => ({ key: seat.publicKey, name: "abcdefghij"[i] as string, bot: false })),
    });
    const chains = new Map<number, Envelope>([[0, start]]);
    const wires = [start.wire];
    seats.forEach((seat, k) => {
      if (k === 0) return;
      const ack = seal(seat, game, 0, NO_PREVIOUS, "START_ACK", { start: start.hash });
      chains.set(k, ack);
      wires.push(ack.wire);
    });
    for (const [voter, target] of c.drops) {
      const last = chains.get(voter) as Envelope;
      const env = seal(seats[voter] as Identity, game, last.seq + 1, last.hash, "DROP", { round: 0, step: 0, seat: target });
      chains.set(voter, env);
      wires.push(env.wire);
    }
    const session = new Session(game);
    for (const wire of wires) assert.deepEqual(session.receive(wire), [], c.why);
    assert.deepEqual([...session.dropped.keys()].sort((a, b) => a - b), c.dropped, c.why);
  }
});
